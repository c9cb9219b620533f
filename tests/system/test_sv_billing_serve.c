/*
** test_sv_billing_serve.c - billing (service/sv_billing.c) at the
** edges, through lraf serve with the SQLite ledger:
**   - request ids are random, so a client cannot claim the next one as
**     its Idempotency-Key and have that request's record dropped;
**   - two requests with one key at the same time are both billed, and
**     the second hears of the clash (409);
**   - Idempotency-Keys are a tenant's own;
**   - every record has its outcome, cost-model id, event time and
**     ingest time;
**   - a clean stop leaves every record in the database file itself (no
**     write-ahead log needed);
**   - after a restart, a tenant whose quota is spent is refused before
**     its request runs (billed 0), and the 429 says which limit.
** Runs the command named by $LRAF; traffic goes to 127.0.0.1 only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "tutil_serve.h"
#include "tutil_sqlite.h"
#include "tutil_sh.h"

#define KEY "Idempotency-Key"

static tutil_sh sh;
static char ledger[160], spec[180];

static void write_handlers(void) {
  assert_int_equal(tutil_sh_write(&sh, "hello.lua",
                   "return function(req) return 200, 'hi' end\n"), 0);
  assert_int_equal(tutil_sh_write(&sh, "slow.lua",
                   "return function(req)\n"
                   "  local s = 0\n"
                   "  for i = 1, 3000000 do s = s + i end\n"
                   "  return 200, tostring(s)\n"
                   "end\n"), 0);
  assert_int_equal(tutil_sh_write(&sh, "spin.lua",
                   "return function(req) while true do end end\n"), 0);
  assert_int_equal(tutil_sh_write(&sh, "bad.lua",
                   "return function(req) error('no') end\n"), 0);
}

/* The id is 32 hex digits; a key guessed from it (the next id in the
   form BOOT-SEQ, were ids sequential) leaves the next request billed. */
static void test_ids_unpredictable(void **state) {
  static const char *const args[] = {"--workers", "1", NULL};
  tutil_http r;
  char id1[80], id2[80], guess[100];
  int64_t sum = 0;
  const char *dash;
  int port, i;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "ids.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(tutil_http_get_as(port, "/hello", "t", KEY, NULL, &r), 0);
  assert_non_null(tutil_http_header(&r, "X-Request-Id", id1, sizeof id1));
  sum += tutil_http_header_int(&r, "X-Lraf-Instructions");
  tutil_http_free(&r);
  /* the guess: the id after next, were ids a counter */
  dash = strrchr(id1, '-');
  if (dash != NULL)
    snprintf(guess, sizeof guess, "%.*s-%lld", (int)(dash - id1), id1,
             strtoll(dash + 1, NULL, 10) + 2);
  else
    snprintf(guess, sizeof guess, "%s", id1);
  assert_int_equal(tutil_http_get_as(port, "/hello", "t", KEY, guess, &r), 0);
  assert_int_equal(r.status, 200);
  assert_non_null(tutil_http_header(&r, "X-Request-Id", id2, sizeof id2));
  sum += tutil_http_header_int(&r, "X-Lraf-Instructions");
  tutil_http_free(&r);
  assert_int_equal(tutil_http_get_as(port, "/hello", "t", KEY, NULL, &r), 0);
  assert_int_equal(r.status, 200);
  sum += tutil_http_header_int(&r, "X-Lraf-Instructions");
  tutil_http_free(&r);
  if (tutil_serve_usage(port, NULL, "t", "requests") != 3 ||
      tutil_serve_usage(port, NULL, "t", "instructions") != sum)
    fail_msg("3 requests (%" PRId64 " instructions) answered; the ledger "
             "holds %" PRId64 " (%" PRId64 ")", sum,
             tutil_serve_usage(port, NULL, "t", "requests"),
             tutil_serve_usage(port, NULL, "t", "instructions"));
  assert_int_equal((int)strlen(id1), 32);
  for (i = 0; i < 32; i++) assert_true(isxdigit((unsigned char)id1[i]));
  assert_string_not_equal(id1, id2);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* Read one response on fd into buf (head and body); its status, or
   -1. */
static int read_answer(int fd, char *buf, size_t size) {
  struct timeval tv = {30, 0};
  size_t n = 0;
  long want = -1;
  int status = -1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  buf[0] = '\0';
  while (n + 1 < size) {
    ssize_t k = recv(fd, buf + n, size - 1 - n, 0);
    char *end;
    if (k <= 0) break;
    n += (size_t)k;
    buf[n] = '\0';
    end = strstr(buf, "\r\n\r\n");
    if (end != NULL) {
      const char *cl = strstr(buf, "Content-Length: ");
      want = cl != NULL ? strtol(cl + 16, NULL, 10) : 0;
      if ((long)(n - (size_t)(end + 4 - buf)) >= want) break;
    }
  }
  if (sscanf(buf, "HTTP/1.1 %d", &status) != 1) status = -1;
  return status;
}

/* Two requests with one key at once (two workers): both are billed,
   one is answered 200, the other 409. */
static void test_key_clash_billed(void **state) {
  static const char *const args[] = {"--workers", "2", NULL};
  int port, fd[2], i, attempt, ran = 0, clashes = 0, retries = 0;
  int64_t sum = 0;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "clash.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  /* until the two run at once (a load may delay one past the other's
     commit: it is then a retry, answered from the ledger) */
  for (attempt = 0; attempt < 8 && clashes == 0; attempt++) {
    char req[256];
    int n = snprintf(req, sizeof req, "GET /slow HTTP/1.1\r\nHost: x\r\n"
                     "X-Tenant: t\r\nIdempotency-Key: same-%d\r\n"
                     "Content-Length: 0\r\n\r\n", attempt);
    for (i = 0; i < 2; i++) {
      fd[i] = tutil_http_connect(port);
      assert_true(fd[i] >= 0);
      assert_int_equal(send(fd[i], req, (size_t)n, MSG_NOSIGNAL), n);
    }
    for (i = 0; i < 2; i++) {
      char buf[4096], *p;
      int status = read_answer(fd[i], buf, sizeof buf);
      close(fd[i]);
      if (status == 409 && strstr(buf, "already recorded: status")) {
        retries++;   /* not run again */
        continue;
      }
      if (status == 409 && strstr(buf, "by another request")) clashes++;
      else if (status != 200) fail_msg("unexpected answer:\n%s", buf);
      ran++;
      p = strstr(buf, "X-Lraf-Instructions: ");
      assert_non_null(p);
      sum += strtoll(p + 21, NULL, 10);
    }
  }
  printf("   one key twice at once, %d attempts: %d ran (%d answered 409 "
         "for the clash), %d answered from the ledger\n", attempt, ran,
         clashes, retries);
  /* everything that ran is billed, once */
  assert_int_equal(tutil_serve_usage(port, NULL, "t", "requests"), ran);
  assert_int_equal(tutil_serve_usage(port, NULL, "t", "instructions"), sum);
  assert_true(clashes >= 1);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* One key, two tenants: each runs its own request; a tenant's retry is
   answered from the ledger. */
static void test_keys_per_tenant(void **state) {
  static const char *const args[] = {NULL};
  tutil_http r;
  int port;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "keys.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(
      tutil_http_get_as(port, "/slow", "alice", KEY, "order-1", &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  assert_int_equal(
      tutil_http_get_as(port, "/hello", "bob", KEY, "order-1", &r), 0);
  if (r.status != 200)
    fail_msg("bob's first request with alice's key: %d %s", r.status,
             r.body);
  tutil_http_free(&r);
  assert_int_equal(
      tutil_http_get_as(port, "/hello", "alice", KEY, "order-1", &r), 0);
  assert_int_equal(r.status, 409);
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_usage(port, NULL, "alice", "requests"), 1);
  assert_int_equal(tutil_serve_usage(port, NULL, "bob", "requests"), 1);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* After SIGTERM the database file alone holds every record. */
static void test_stop_checkpoints(void **state) {
  static const char *const args[] = {NULL};
  char wal[200], copy[200], cmd[600];
  struct stat sb;
  tutil_http r;
  int port, i;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "wal.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < 5; i++) {
    assert_int_equal(tutil_http_get_as(port, "/hello", "t", KEY, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    tutil_http_free(&r);
  }
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  snprintf(wal, sizeof wal, "%s-wal", ledger);
  if (stat(wal, &sb) == 0 && sb.st_size > 0)
    fail_msg("after a clean stop %s holds %lld bytes", wal,
             (long long)sb.st_size);
  snprintf(copy, sizeof copy, "%s/copy.db", sh.dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", ledger, copy);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(tutil_sqlite_int(copy, "SELECT count(*) FROM lraf_ledger"),
                   5);
}

/* A tenant spends its quota; after a restart its next request is
   refused before it runs: 429, 0 instructions, nothing more billed. */
static void test_restart_spent(void **state) {
  static const char *const args[] = {"--quota", "t=1000", NULL};
  tutil_http r;
  int64_t spent;
  int port, i;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "spent.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(tutil_http_get_as(port, "/spin", "t", KEY, NULL, &r), 0);
  assert_int_equal(r.status, 429);
  assert_non_null(strstr(r.body, "tenant quota"));
  tutil_http_free(&r);
  spent = tutil_serve_usage(port, NULL, "t", "instructions");
  assert_true(spent > 1000);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  for (i = 0; i < 2; i++) {   /* a restart, then a request in this run */
    pid = tutil_serve_start_in(sh.dir, spec, args, &port);
    assert_true(pid > 0);
    assert_int_equal(tutil_http_get_as(port, "/hello", "t", KEY, NULL, &r), 0);
    assert_int_equal(r.status, 429);
    if (tutil_http_header_int(&r, "X-Lraf-Instructions") != 0)
      fail_msg("a spent tenant's request after a restart ran: %" PRId64
               " instructions",
               tutil_http_header_int(&r, "X-Lraf-Instructions"));
    assert_non_null(strstr(r.body, "quota"));
    tutil_http_free(&r);
    assert_int_equal(tutil_serve_usage(port, NULL, "t", "instructions"),
                     spent);
    assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  }
}

/* Each request's ending: its status, what its body says, and the
   outcome its record keeps. */
static const struct ending {
  const char *target, *tenant;
  int status;
  const char *says, *says_too, *outcome;
} endings[] = {
  {"/spin", "t", 429, "request limit", "5000 instructions", "request-limit"},
  {"/eat", "u", 507, "memory limit", "2097152 bytes", "memory"},
  {"/hello", "v", 200, "hi", "", "ok"},
  {"/bad", "v", 500, "handler failed", "no", "error"},
};

/* A request stopped by a limit says which; every record has its
   outcome, model, event and ingest time. */
static void test_limit_named(void **state) {
  static const char *const args[] = {"--request-limit", "t=5000",
                                     "--memory-limit", "2MiB", NULL};
  tutil_http r;
  char sql[256];
  size_t i;
  int port;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "named.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  assert_int_equal(tutil_sh_write(&sh, "eat.lua",
                   "return function(req)\n"
                   "  local t = {}\n"
                   "  for i = 1, 1e7 do t[i] = {} end\n"
                   "end\n"), 0);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < sizeof endings / sizeof endings[0]; i++) {
    const struct ending *e = &endings[i];
    assert_int_equal(tutil_http_get_as(port, e->target, e->tenant, KEY, NULL,
                                       &r), 0);
    if (r.status != e->status || strstr(r.body, e->says) == NULL ||
        strstr(r.body, e->says_too) == NULL)
      fail_msg("%s: %d '%s'", e->target, r.status, r.body);
    tutil_http_free(&r);
  }
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  for (i = 0; i < sizeof endings / sizeof endings[0]; i++) {
    snprintf(sql, sizeof sql, "SELECT count(*) FROM lraf_ledger WHERE"
             " tenant = '%s' AND handler = '%s' AND outcome = '%s' AND"
             " status = %d", endings[i].tenant, endings[i].target + 1,
             endings[i].outcome, endings[i].status);
    if (tutil_sqlite_int(ledger, sql) != 1)
      fail_msg("no record: %s", sql);
  }
  assert_int_equal(
      tutil_sqlite_int(ledger,
                       "SELECT count(*) FROM lraf_ledger WHERE"
                       " model <> '' AND abs(event_us - started_us) <"
                       " 1000000 AND"
                       " ingest_us >= ended_us AND ingest_us - ended_us"
                       " < 60000000"),
      4);
}

/* A tenant's quota stops one request and refuses the next (billed 0):
   both records say quota. */
static void test_outcome_quota(void **state) {
  static const char *const args[] = {"--quota", "q=1000", NULL};
  tutil_http r;
  int port, i;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "outcome.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < 2; i++) {
    assert_int_equal(tutil_http_get_as(port, "/spin", "q", KEY, NULL, &r), 0);
    assert_int_equal(r.status, 429);
    tutil_http_free(&r);
  }
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  assert_int_equal(tutil_sqlite_int(ledger,
                                    "SELECT count(*) FROM lraf_ledger WHERE"
                                    " outcome = 'quota'"),
                   2);
  assert_int_equal(tutil_sqlite_int(ledger,
                                    "SELECT count(*) FROM lraf_ledger WHERE"
                                    " outcome = 'quota' AND instructions = 0"),
                   1);
}

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "serve-billing") != 0) return -1;
  write_handlers();
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ids_unpredictable),
    cmocka_unit_test(test_key_clash_billed),
    cmocka_unit_test(test_keys_per_tenant),
    cmocka_unit_test(test_outcome_quota),
    cmocka_unit_test(test_stop_checkpoints),
    cmocka_unit_test(test_restart_spent),
    cmocka_unit_test(test_limit_named),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
