/*
** test_cli_serve_load.c - lraf serve under load with the SQLite ledger:
** 32 concurrent clients send 20,000 requests (2,000 with LRAF_QUICK)
** for 3 tenants to deterministic handlers (tests/system/serve), one of
** which runs away and one of which allocates without bound.
**   - every response's X-Lraf-Instructions equals the count of the same
**     handler and input run alone with `lraf run --sandbox`
**     (serve/driver.lua), and its status is the one that run implies;
**   - the ledger has every request once, with the same count and
**     status, and nothing else;
**   - per tenant, the ledger's sum equals /usage and the tenant
**     manager's total (/metrics).
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tutil_serve.h"
#include "tutil_sh.h"

#define HANDLERS "tests/system/serve"
#define CLIENTS 32
#define MEMORY_LIMIT 4500000

typedef struct tenant {
  const char *name;
  int64_t limit;   /* --request-limit; -1: none */
} tenant;

static const tenant tenants[] = {
  {"t1", 200000}, {"t2", 5000000}, {"t3", -1}
};
#define NTENANTS 3

/* One kind of request: tenant, handler, input n, weight; then what
   running it alone gave. */
typedef struct combo {
  int tenant;
  const char *handler;
  int n, weight;
  int64_t count;
  int status;
} combo;

static combo combos[] = {
  {0, "hello", 10, 20, 0, 0}, {0, "hello", 1000, 10, 0, 0},
  {0, "spin", 0, 1, 0, 0},    {0, "fail", 3, 3, 0, 0},
  {0, "fail", 4, 3, 0, 0},    {2, "eat", 0, 1, 0, 0},
  {1, "hello", 500, 10, 0, 0}, {1, "words", 7, 10, 0, 0},
  {2, "words", 40, 10, 0, 0}, {2, "hello", 2000, 10, 0, 0},
  {2, "fail", 6, 3, 0, 0},    {2, "fail", 5, 3, 0, 0},
};
#define NCOMBOS ((int)(sizeof combos / sizeof combos[0]))

typedef struct answer {
  int status;
  int64_t count;
} answer;

static int total_weight, nrequests, port;
static answer *answers;
static tutil_sh sh;  /* its dir holds the ledger and the server's files */

static const char *lraf(void) {
  const char *p = getenv("LRAF");
  return p ? p : "build/lraf";
}

static int combo_of(int i) {
  int w = (int)(((uint32_t)i * 2654435761u) % (uint32_t)total_weight), c;
  for (c = 0; c < NCOMBOS; c++) {
    if (w < combos[c].weight) return c;
    w -= combos[c].weight;
  }
  return 0;
}

/* Run the driver for c with extra `lraf run` options; x, the count N
   (-1 when the handler did not return), the run's total and status. */
static void drive(const combo *c, const char *opts, int64_t *x, int64_t *n,
                  int64_t *total, char *status) {
  char cmd[1024], line[1024], path[128];
  FILE *p;
  int first = 1;
  long long v;
  snprintf(path, sizeof path, "%s/%s.lua", HANDLERS, c->handler);
  snprintf(cmd, sizeof cmd,
           "%s run --sandbox --allow-dir %s --memory-limit %d %s --report - "
           "%s/driver.lua %s POST /%s b n %d 2>&1", lraf(), HANDLERS,
           MEMORY_LIMIT, opts, HANDLERS,
           path, c->handler, c->n);
  *x = *n = *total = -1;
  status[0] = '\0';
  p = popen(cmd, "r");
  assert_non_null(p);
  while (fgets(line, sizeof line, p) != NULL) {
    char st[32];
    if (first && sscanf(line, "%lld", &v) == 1) *x = v, first = 0;
    else if (sscanf(line, "count %lld", &v) == 1) *n = v;
    else if (sscanf(line, "lraf: %lld %*s (%*[^)]), status %31s",
                    &v, st) == 2) {
      *total = v;
      strcpy(status, st);
    }
  }
  pclose(p);
}

/* What each combo costs alone: limited tenants run twice, the first
   time to learn x so that the second run's limit leaves the handler
   exactly its request limit. */
static void expected(void) {
  int c;
  for (c = 0; c < NCOMBOS; c++) {
    combo *k = &combos[c];
    int64_t limit = tenants[k->tenant].limit, x, n, total;
    char status[32], opts[64] = "";
    if (limit >= 0) {
      snprintf(opts, sizeof opts, "--limit %" PRId64, limit);
      drive(k, opts, &x, &n, &total, status);
      assert_true(x > 0);
      snprintf(opts, sizeof opts, "--limit %" PRId64, limit + x);
    }
    drive(k, opts, &x, &n, &total, status);
    assert_true(x > 0 && total > 0);
    k->count = n >= 0 ? n : total - x;
    if (strcmp(status, "ok") == 0)
      k->status = strcmp(k->handler, "fail") == 0 ? 201 : 200;
    else if (strcmp(status, "error") == 0) k->status = 500;
    else if (strcmp(status, "quota") == 0) k->status = 429;
    else if (strcmp(status, "memory") == 0) k->status = 507;
    else fail_msg("%s n=%d: lraf run said status '%s'", k->handler, k->n,
                  status);
  }
}

static void *client(void *arg) {
  int id = (int)(intptr_t)arg, i, fd = tutil_http_connect(port);
  for (i = id; i < nrequests; i += CLIENTS) {
    const combo *k = &combos[combo_of(i)];
    char target[128], extra[256], v[32];
    tutil_http r;
    if (fd < 0) break;
    snprintf(target, sizeof target, "/%s?n=%d", k->handler, k->n);
    snprintf(extra, sizeof extra, "X-Tenant: %s\r\nIdempotency-Key: k%d\r\n",
             tenants[k->tenant].name, i);
    if (tutil_http_do(fd, "POST", target, extra, "b", &r) != 0) {
      tutil_http_free(&r);
      break;
    }
    answers[i].status = r.status;
    answers[i].count = tutil_http_header(&r, "X-Lraf-Instructions", v,
                                         sizeof v)
                           ? strtoll(v, NULL, 10) : -1;
    tutil_http_free(&r);
  }
  if (fd >= 0) close(fd);
  return NULL;
}

static int64_t json_int(const char *body, const char *key) {
  char pat[64];
  const char *p;
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  p = strstr(body, pat);
  return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static int64_t metric(const char *body, const char *name, const char *t) {
  char pat[128];
  const char *p;
  snprintf(pat, sizeof pat, "%s{tenant=\"%s\"} ", name, t);
  p = strstr(body, pat);
  return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static void test_load(void **state) {
  char ledger[128], log[128], spec[160], lim[NTENANTS][64];
  const char *args[32];
  pthread_t th[CLIENTS];
  int64_t sum[NTENANTS] = {0}, usage[NTENANTS], charged[NTENANTS];
  int seen[5] = {0};
  int i, n = 0, bad = 0, st, c;
  struct timespec t0, t1;
  double secs;
  pid_t pid;
  sqlite3 *db;
  sqlite3_stmt *q;
  (void)state;
  for (c = 0; c < NCOMBOS; c++) total_weight += combos[c].weight;
  nrequests = getenv("LRAF_QUICK") ? 2000 : 20000;
  answers = calloc((size_t)nrequests, sizeof *answers);
  assert_non_null(answers);
  expected();
  snprintf(ledger, sizeof ledger, "%s/ledger.db", sh.dir);
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  snprintf(spec, sizeof spec, "sqlite:%s", ledger);
  args[n++] = "--port";
  args[n++] = "0";
  args[n++] = "--workers";
  args[n++] = "4";
  args[n++] = "--memory-limit";
  args[n++] = "4500000";
  args[n++] = "--ledger";
  args[n++] = spec;
  for (i = 0; i < NTENANTS; i++)
    if (tenants[i].limit >= 0) {
      snprintf(lim[i], sizeof lim[i], "%s=%" PRId64, tenants[i].name,
               tenants[i].limit);
      args[n++] = "--request-limit";
      args[n++] = lim[i];
    }
  args[n++] = HANDLERS;
  args[n] = NULL;
  pid = tutil_serve_start(args, log, &port);
  assert_true(pid > 0);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (i = 0; i < CLIENTS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, client,
                                    (void *)(intptr_t)i), 0);
  for (i = 0; i < CLIENTS; i++) pthread_join(th[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  secs = (double)(t1.tv_sec - t0.tv_sec) +
         (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
  printf("   %d requests from %d clients in %.2f s (%.0f/s)\n", nrequests,
         CLIENTS, secs, nrequests / secs);
  /* every answer against its run alone */
  for (i = 0; i < nrequests; i++) {
    const combo *k = &combos[combo_of(i)];
    if (answers[i].status != k->status || answers[i].count != k->count) {
      if (bad++ < 5)
        printf("   request %d (%s n=%d): status %d count %" PRId64
               ", alone: status %d count %" PRId64 "\n", i, k->handler, k->n,
               answers[i].status, answers[i].count, k->status, k->count);
    }
    sum[k->tenant] += answers[i].count;
    if (answers[i].status >= 100 && answers[i].status < 600)
      seen[answers[i].status == 429 ? 2 : answers[i].status == 507 ? 3
           : answers[i].status == 500 ? 4 : answers[i].status < 300 ? 1 : 0]++;
  }
  assert_int_equal(bad, 0);
  assert_true(seen[1] > 0 && seen[2] > 0 && seen[3] > 0 && seen[4] > 0);
  /* /usage and the managers' totals, while the server runs */
  for (i = 0; i < NTENANTS; i++) {
    tutil_http r;
    char target[64];
    snprintf(target, sizeof target, "/usage?tenant=%s", tenants[i].name);
    assert_int_equal(tutil_http_once(port, "GET", target, NULL, NULL, &r), 0);
    assert_int_equal(r.status, 200);
    usage[i] = json_int(r.body, "instructions");
    tutil_http_free(&r);
  }
  {
    tutil_http r;
    assert_int_equal(tutil_http_once(port, "GET", "/metrics", NULL, NULL, &r),
                     0);
    assert_int_equal(r.status, 200);
    for (i = 0; i < NTENANTS; i++)
      charged[i] = metric(r.body, "lraf_tenant_charged_total",
                          tenants[i].name);
    assert_non_null(strstr(r.body, "# EOF\n"));
    tutil_http_free(&r);
  }
  st = tutil_serve_stop(pid, SIGTERM);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  for (i = 0; i < NTENANTS; i++) {
    printf("   %s: responses %" PRId64 ", /usage %" PRId64 ", manager %"
           PRId64 "\n", tenants[i].name, sum[i], usage[i], charged[i]);
    assert_true(sum[i] == usage[i] && sum[i] == charged[i]);
  }
  /* the ledger: each request once, as answered, and nothing else */
  assert_int_equal(sqlite3_open_v2(ledger, &db, SQLITE_OPEN_READONLY, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT key, instructions, status,"
                                      " tenant FROM lraf_ledger", -1, &q,
                                      NULL), SQLITE_OK);
  {
    char *found = calloc((size_t)nrequests, 1);
    int rows = 0;
    assert_non_null(found);
    while (sqlite3_step(q) == SQLITE_ROW) {
      const char *key = (const char *)sqlite3_column_text(q, 0);
      /* the client's key k<i>, kept as k:k<i> */
      int k = key && strncmp(key, "k:k", 3) == 0 ? atoi(key + 3) : -1;
      rows++;
      assert_true(k >= 0 && k < nrequests && !found[k]);
      found[k] = 1;
      assert_int_equal(sqlite3_column_int64(q, 1), answers[k].count);
      assert_int_equal(sqlite3_column_int(q, 2), answers[k].status);
      assert_string_equal((const char *)sqlite3_column_text(q, 3),
                          tenants[combos[combo_of(k)].tenant].name);
    }
    assert_int_equal(rows, nrequests);
    free(found);
  }
  sqlite3_finalize(q);
  sqlite3_close(db);
  free(answers);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "serve");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
