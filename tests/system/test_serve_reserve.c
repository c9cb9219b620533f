/*
** test_serve_reserve.c - reservations in lraf serve, with the SQLite
** ledger:
**   - X-Lraf-Max-Instructions: 400 values generated at random (digits,
**     signs, spaces, units, zeros, 19 digits and more), each answered
**     400 exactly when it is not a whole number from 1 to 18 digits,
**     and otherwise run within it; two of the header, 400;
**   - a tenant's quota ends exactly spent: requests reserve until the
**     ledger refuses (429, saying how much is available), the last one
**     takes what is left, and the ledger's total is the quota;
**   - a handler with a contract (DIR/NAME.contract written by lraf
**     bound --write-contract for the README's examples/serve/price.lua,
**     or a line of --contract FILE) reserves
**     its bound by default: a second request is refused when the bound
**     is not available though the count would be; a contract below the
**     count stops the handler at it (429, billed the bound);
**   - a server killed while a reserved request runs leaves its
**     reservation in the file; the restart releases it;
**   - determinism: the same requests on a fresh ledger bill the same
**     units, and X-Lraf-Instructions, /usage and the file agree.
** Runs the command named by $LRAF; traffic goes to 127.0.0.1 only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_serve.h"
#include "tutil_sqlite.h"
#include "tutil_sh.h"

#define MAX "X-Lraf-Max-Instructions"

static tutil_sh sh;
static char ledger[160], spec[180];

/* Whether v is what the header takes: 1 to 18 digits, at least 1. */
static int valid(const char *v) {
  size_t i, n = strlen(v);
  int nonzero = 0;
  if (n == 0 || n > 18) return 0;
  for (i = 0; i < n; i++) {
    if (v[i] < '0' || v[i] > '9') return 0;
    if (v[i] != '0') nonzero = 1;
  }
  return nonzero;
}

/* A generated header value: mostly digits, with now and then a sign, a
   space inside, a unit, a dot, leading zeros, or too many digits. */
static void gen_value(unsigned *seed, char *v, size_t size) {
  static const char odd[] = "+- xkM.e_,";
  size_t n = (size_t)(rand_r(seed) % 22), i;
  if (n >= size) n = size - 1;
  for (i = 0; i < n; i++) {
    int r = rand_r(seed) % 40;
    v[i] = r == 0 ? odd[rand_r(seed) % (int)(sizeof odd - 1)]
         : r < 4 ? '0' : (char)('0' + rand_r(seed) % 10);
  }
  v[n] = '\0';
  /* the framing trims spaces at the ends; keep them inside */
  while (n > 0 && v[n - 1] == ' ') v[--n] = '\0';
  if (v[0] == ' ') v[0] = '7';
}

static void test_header_generated(void **state) {
  static const char *const args[] = {NULL};
  unsigned seed = 35;
  tutil_http r;
  const char *target;
  int port, i, bad = 0, good = 0;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "header.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < 400; i++) {
    char v[32];
    gen_value(&seed, v, sizeof v);
    if (v[0] == '\0') continue;   /* an empty header is no header */
    /* spin runs until its reservation stops it; plug ends by itself */
    target = valid(v) && strtoll(v, NULL, 10) > 100000 ? "/plug" : "/spin";
    assert_int_equal(tutil_http_get_as(port, target, "gen", MAX, v, &r), 0);
    if (!valid(v)) {
      if (r.status != 400 || strstr(r.body, "X-Lraf-Max-Instructions") ==
          NULL)
        fail_msg("'%s': status %d, %s", v, r.status, r.body);
      bad++;
    } else {
      /* spin is stopped at the value and billed exactly it */
      int64_t n = strtoll(v, NULL, 10);
      /* (below 10, the handler file's own top level, run within the
         request's limit when a state first loads it, may fail: 500) */
      if (n <= 100000 && !(n < 10 && r.status == 500) &&
          (r.status != 429 ||
           tutil_http_header_int(&r, "X-Lraf-Instructions") != n))
        fail_msg("'%s': status %d, %" PRId64 " instructions", v, r.status,
                 tutil_http_header_int(&r, "X-Lraf-Instructions"));
      if (n > 100000) assert_int_equal(r.status, 200);
      good++;
    }
    tutil_http_free(&r);
  }
  printf("   %d malformed values refused, %d valid ones run\n", bad, good);
  assert_true(bad > 50 && good > 20);
  assert_int_equal(tutil_http_get_as(port, "/spin", "gen", MAX,
                                     "5\r\nX-Lraf-Max-Instructions: 6", &r),
                   0);
  assert_int_equal(r.status, 400);
  assert_non_null(strstr(r.body, "more than one"));
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* Reserve 137 at a time until refused, then what is left. */
static void test_exact_quota(void **state) {
  static const char *const args[] = {"--quota", "q=1000", NULL};
  tutil_http r;
  int port, ran = 0;
  int64_t billed = 0;
  pid_t pid;
  char left[32];
  (void)state;
  tutil_ledger_fresh(sh.dir, "exact.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (;;) {
    assert_int_equal(tutil_http_get_as(port, "/spin", "q", MAX, "137", &r), 0);
    if (r.status == 429 && strstr(r.body, "reservation refused") != NULL)
      break;
    assert_int_equal(r.status, 429);   /* spin: stopped at 137 */
    assert_non_null(strstr(r.body, "reservation exhausted"));
    assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"), 137);
    billed += 137;
    ran++;
    tutil_http_free(&r);
  }
  assert_int_equal(ran, 1000 / 137);
  assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"), 0);
  snprintf(left, sizeof left, "%d available", 1000 - 137 * (1000 / 137));
  if (strstr(r.body, left) == NULL) fail_msg("refusal: %s", r.body);
  tutil_http_free(&r);
  snprintf(left, sizeof left, "%d", 1000 - 137 * (1000 / 137));
  assert_int_equal(tutil_http_get_as(port, "/spin", "q", MAX, left, &r), 0);
  assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"),
                   atoi(left));
  tutil_http_free(&r);
  assert_int_equal(tutil_http_get_as(port, "/spin", "q", MAX, "1", &r), 0);
  assert_int_equal(r.status, 429);
  assert_non_null(strstr(r.body, "0 available"));
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_usage(port, NULL, "q", "instructions"), 1000);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT sum(instructions) FROM lraf_ledger"),
      1000);
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_reservation"), 0);
}

/* The bound lraf bound wrote for the handler the chunk returns. */
static int64_t contract_bound(const char *file) {
  char path[200], *text, *p;
  size_t n;
  int64_t v = -1;
  snprintf(path, sizeof path, "%s/%s", sh.dir, file);
  text = tutil_run_slurp(path, &n);
  assert_non_null(text);
  if ((p = strstr(text, "\nreturn ")) != NULL) v = strtoll(p + 8, NULL, 10);
  free(text);
  return v;
}

static void test_contract_default(void **state) {
  char quota[64];
  const char *args[] = {"--quota", quota, "--contract", "", NULL};
  char cfile[200];
  tutil_http r;
  int64_t bound, count;
  int port;
  pid_t pid;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "bound --write-contract "
                                     "plug.contract plug.lua"), 0);
  bound = contract_bound("plug.contract");
  assert_true(bound > 0);
  /* the count, without a quota */
  tutil_ledger_fresh(sh.dir, "contract0.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  snprintf(quota, sizeof quota, "nobody=1");
  snprintf(cfile, sizeof cfile, "%s/serve.contract", sh.dir);
  args[3] = cfile;
  assert_int_equal(tutil_sh_write(&sh, "serve.contract",
                                  "# handler instructions\nplug2 50\n"), 0);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(tutil_http_get_as(port, "/plug", "c", MAX, NULL, &r), 0);
  assert_int_equal(r.status, 200);
  count = tutil_http_header_int(&r, "X-Lraf-Instructions");
  tutil_http_free(&r);
  assert_true(count > 50 && count <= bound);
  /* plug2 (plug without a contract of its own) gets 50 from --contract:
     stopped there, billed 50 */
  assert_int_equal(tutil_http_get_as(port, "/plug2", "c", MAX, NULL, &r), 0);
  assert_int_equal(r.status, 429);
  assert_non_null(strstr(r.body, "reservation exhausted: 50"));
  assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"), 50);
  tutil_http_free(&r);
  /* the header overrides the contract */
  assert_int_equal(tutil_http_get_as(port, "/plug2", "c", MAX, "100000", &r),
                   0);
  assert_int_equal(r.status, 200);
  assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"), count);
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  /* a quota of bound + count - 1: the first request reserves the bound
     and uses count; the second cannot reserve the bound, though its
     count would fit */
  tutil_ledger_fresh(sh.dir, "contract.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  snprintf(quota, sizeof quota, "c=%" PRId64, bound + count - 1);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(tutil_http_get_as(port, "/plug", "c", MAX, NULL, &r), 0);
  assert_int_equal(r.status, 200);
  assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"), count);
  tutil_http_free(&r);
  assert_int_equal(tutil_http_get_as(port, "/plug", "c", MAX, NULL, &r), 0);
  assert_int_equal(r.status, 429);
  assert_non_null(strstr(r.body, "reservation refused"));
  assert_int_equal(tutil_http_header_int(&r, "X-Lraf-Instructions"), 0);
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_usage(port, NULL, "c", "instructions"), count);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

static int crash_port;
static void *slow_request(void *arg) {
  tutil_http r;
  (void)arg;
  if (tutil_http_get_as(crash_port, "/spin", "k", MAX, "600000", &r) == 0)
    tutil_http_free(&r);
  return NULL;
}

/* kill -9 while a reserved request runs (slowly, under a rate): the
   reservation stays in the file, and the restart releases it. */
static void test_crash_recovery(void **state) {
  static const char *const args[] = {"--quota", "k=1000000", "--rate",
                                     "k=100000", NULL};
  pthread_t th;
  tutil_http r;
  int port, i;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "crash.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  crash_port = port;
  assert_int_equal(pthread_create(&th, NULL, slow_request, NULL), 0);
  for (i = 0; i < 100; i++) {
    if (tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_reservation") == 1)
      break;
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT sum(amount) FROM lraf_reservation"),
      600000);
  tutil_serve_stop(pid, SIGKILL);
  pthread_join(th, NULL);
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_ledger"), 0);
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_reservation"), 1);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  /* all of the quota is available again: nothing was billed */
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_reservation"), 0);
  assert_int_equal(tutil_http_get_as(port, "/plug", "k", MAX, "1000000", &r),
                   0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* One run of a fixed mix of reserved requests on a fresh ledger: the
   responses' counts in bills[], their sum returned. */
static int64_t mix(const char *name, int64_t *bills, int n) {
  static const char *const args[] = {"--quota", "d=5000", NULL};
  static const char *const target[] = {"/plug", "/spin", "/plug2", "/spin"};
  static const char *const max[] = {NULL, "137", "300", "1"};
  tutil_http r;
  int port, i;
  int64_t sum = 0;
  pid_t pid;
  tutil_ledger_fresh(sh.dir, name, ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < n; i++) {
    assert_int_equal(
        tutil_http_get_as(port, target[i % 4], "d", MAX, max[i % 4], &r), 0);
    bills[i] = tutil_http_header_int(&r, "X-Lraf-Instructions");
    sum += bills[i];
    tutil_http_free(&r);
  }
  assert_int_equal(tutil_serve_usage(port, NULL, "d", "instructions"), sum);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  assert_int_equal(
      tutil_sqlite_int(ledger,
                       "SELECT coalesce(sum(instructions), 0) FROM "
                       "lraf_ledger"),
      sum);
  return sum;
}

static void test_deterministic(void **state) {
  int64_t a[40], b[40], sa, sb;
  int i;
  (void)state;
  sa = mix("det1.db", a, 40);
  sb = mix("det2.db", b, 40);
  for (i = 0; i < 40; i++)
    if (a[i] != b[i])
      fail_msg("request %d billed %" PRId64 " then %" PRId64, i, a[i], b[i]);
  assert_int_equal(sa, sb);
  assert_true(sa <= 5000);
  printf("   40 reserved requests, twice: %" PRId64 " units billed both "
         "times (quota 5000)\n", sa);
}

static int setup(void **state) {
  size_t n;
  /* the README's admission example */
  char *plug = tutil_run_slurp("examples/serve/price.lua", &n);
  int bad;
  (void)state;
  if (plug == NULL || tutil_sh_init(&sh, "serve-reserve") != 0) return -1;
  bad = tutil_sh_write(&sh, "plug.lua", plug) != 0 ||
        tutil_sh_write(&sh, "plug2.lua", plug) != 0;
  free(plug);
  if (bad ||
      tutil_sh_write(&sh, "spin.lua", "return function(req)\n"
                     "  local i = 0\n"
                     "  while true do i = i + 1 end\n"
                     "end\n") != 0)
    return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_header_generated),
    cmocka_unit_test(test_exact_quota),
    cmocka_unit_test(test_contract_default),
    cmocka_unit_test(test_crash_recovery),
    cmocka_unit_test(test_deterministic),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
