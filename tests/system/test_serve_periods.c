/*
** test_serve_periods.c - billing periods, windows, adjustments and
** exports of lraf serve with the SQLite ledger:
**   - a monthly quota spent on January 31 refuses the tenant (billed 0),
**     across a restart too, and is whole again on February 1 (the
**     server's clock is a file, LRAF_TEST_CLOCK);
**   - /usage?from=&to=&period= gives the window with per-period totals,
**     and a bad query gets 400 naming what is wrong;
**   - lraf ledger adjust appends a record and changes no other;
**   - lraf ledger export (CSV, JSON lines, CloudEvents) round-trips: the
**     export's sum per tenant and month equals /usage's and lraf ledger
**     verify's, each record's idempotency key its event id; beside a
**     running server too, whose answered records are still in its
**     journal alone (it is stopped with the database locked);
**   - the same request bills the same count from lraf serve, from the C
**     billing API (lraf_billing_run) and from lraf run (lraf.measure).
** Runs the command named by $LRAF; traffic goes to 127.0.0.1 only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_serve.h"
#include "tutil_sh.h"
#include "tutil_sqlite.h"

static tutil_sh sh;
static char ledger[160], spec[180], clock_file[160];

static const char sum_src[] =
    "return function(req)\n"
    "  local s = 0\n"
    "  for i = 1, 500 do s = s + i end\n"
    "  return 200, 'ok'\n"
    "end\n";

static void set_clock(const char *iso) {
  FILE *f = fopen(clock_file, "w");
  assert_non_null(f);
  fprintf(f, "%s\n", iso);
  fclose(f);
}

/* GET /NAME as tenant; the status, and the count in *billed. */
static int ask(int port, const char *name, const char *tenant,
               int64_t *billed) {
  char target[64], extra[128], v[32];
  tutil_http r;
  int status;
  snprintf(target, sizeof target, "/%s", name);
  snprintf(extra, sizeof extra, "X-Tenant: %s\r\n", tenant);
  assert_int_equal(tutil_http_once(port, "GET", target, extra, NULL, &r), 0);
  status = r.status;
  if (billed != NULL)
    *billed = tutil_http_header(&r, "X-Lraf-Instructions", v, sizeof v)
                  ? strtoll(v, NULL, 10) : -1;
  tutil_http_free(&r);
  return status;
}

/* The body of GET target (status in *status). */
static char *get(int port, const char *target, int *status) {
  tutil_http r;
  char *body;
  assert_int_equal(tutil_http_once(port, "GET", target, NULL, NULL, &r), 0);
  *status = r.status;
  body = strdup(r.body);
  tutil_http_free(&r);
  return body;
}

/* The number after "name": in the object that follows "period": "P". */
static int64_t period_field(const char *json, const char *period,
                            const char *name) {
  char pat[64];
  const char *p;
  snprintf(pat, sizeof pat, "\"period\": \"%s\"", period);
  if ((p = strstr(json, pat)) == NULL) return INT64_MIN;
  snprintf(pat, sizeof pat, "\"%s\": ", name);
  if ((p = strstr(p, pat)) == NULL) return INT64_MIN;
  return strtoll(p + strlen(pat), NULL, 10);
}

static void test_month_boundary(void **state) {
  static const char *const args[] = {"--quota", "t=1000/month", NULL};
  int64_t billed, spent;
  char *u;
  int port, st;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "month.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  set_clock("2026-01-31T23:59:50Z");
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(ask(port, "spin", "t", &spent), 429);
  assert_true(spent >= 1000);
  assert_int_equal(ask(port, "hello", "t", &billed), 429);
  assert_int_equal(billed, 0);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  /* a restart in the same month: still spent */
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(ask(port, "hello", "t", &billed), 429);
  assert_int_equal(billed, 0);
  /* the month turns while the server runs: the quota is whole again */
  set_clock("2026-02-01T00:00:05Z");
  assert_int_equal(ask(port, "hello", "t", &billed), 200);
  assert_true(billed > 0);
  assert_int_equal(ask(port, "spin", "t", &spent), 429);
  assert_true(spent >= 1000 - billed);
  assert_int_equal(ask(port, "hello", "t", &billed), 429);
  assert_int_equal(billed, 0);
  u = get(port, "/usage?tenant=t&from=2026-01-01&to=2026-03-01&period=month",
          &st);
  assert_int_equal(st, 200);
  assert_int_equal(period_field(u, "2026-01", "requests"), 3);
  assert_true(period_field(u, "2026-01", "instructions") >= 1000);
  assert_int_equal(period_field(u, "2026-02", "requests"), 3);
  assert_true(period_field(u, "2026-02", "instructions") >= 1000);
  free(u);
  /* the window of February alone */
  u = get(port, "/usage?tenant=t&from=2026-02-01&to=2026-03-01", &st);
  assert_int_equal(st, 200);
  assert_non_null(strstr(u, "\"requests\": 3,"));
  assert_int_equal(period_field(u, "2026-01", "requests"), INT64_MIN);
  free(u);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

static void test_usage_bad_query(void **state) {
  static const char *const args[] = {NULL};
  static const struct {
    const char *query, *says;
  } bad[] = {
    {"from=2026-13-01", "from: '2026-13-01'"},
    {"to=yesterday", "to: 'yesterday'"},
    {"from=2026-02-01&to=2026-01-01", "not before"},
    {"period=week", "'week' is not a period"},
    {"from=2026-01-01T25:00Z", "no such time"},
  };
  char target[160], *u;
  size_t i;
  int port, st;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "bad.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(target, sizeof target, "/usage?%s", bad[i].query);
    u = get(port, target, &st);
    assert_int_equal(st, 400);
    if (strstr(u, bad[i].says) == NULL)
      fail_msg("/usage?%s: '%s' does not say %s", bad[i].query, u,
               bad[i].says);
    free(u);
  }
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* Sum per tenant and month of an export: lines of tenant,month,units. */
typedef struct tally {
  char key[8][48];
  int64_t units[8], rows[8];
  int n;
} tally;

static void tally_add(tally *t, const char *tenant, const char *time,
                      int64_t units, int request) {
  char key[48];
  int i;
  snprintf(key, sizeof key, "%.39s %.7s", tenant, time);
  for (i = 0; i < t->n && strcmp(t->key[i], key) != 0; i++) {}
  if (i == t->n) {
    assert_true(t->n < 8);
    snprintf(t->key[t->n++], sizeof t->key[0], "%s", key);
  }
  t->units[i] += units;
  t->rows[i] += request;
}

/* Read a JSON string member's value after p ("name": "VALUE"). */
static void member(const char *line, const char *name, char *out,
                   size_t size) {
  char pat[64];
  const char *p, *e;
  snprintf(pat, sizeof pat, "\"%s\": \"", name);
  p = strstr(line, pat);
  assert_non_null(p);
  p += strlen(pat);
  e = strchr(p, '"');
  assert_non_null(e);
  snprintf(out, size, "%.*s", (int)(e - p), p);
}

static void tally_export(const char *format, tally *t, int *ids) {
  char cmd[600], *text, *line, *next;
  size_t len;
  memset(t, 0, sizeof *t);
  *ids = 0;
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger export --ledger %s "
                                     "--from 2026-01-01 --to 2026-04-01 "
                                     "--format %s -o %s/export.txt", spec,
                                     format, sh.dir), 0);
  snprintf(cmd, sizeof cmd, "%s/export.txt", sh.dir);
  text = tutil_run_slurp(cmd, &len);
  assert_non_null(text);
  for (line = text; *line; line = next) {
    char tenant[80], time[40], id[80], outcome[40];
    int64_t units;
    next = strchr(line, '\n');
    assert_non_null(next);
    *next++ = '\0';
    if (strcmp(format, "csv") == 0) {
      if (strncmp(line, "id,", 3) == 0) continue;
      assert_int_equal(sscanf(line, "%79[^,],%79[^,],%39[^,],%*[^,],"
                              "%39[^,],%*[^,],%*[^,],%" SCNd64, id, tenant,
                              time, outcome, &units), 5);
    } else {
      const char *p = strstr(line, "\"instructions\": ");
      member(line, "id", id, sizeof id);
      member(line, "tenant", tenant, sizeof tenant);
      member(line, "event_time", time, sizeof time);
      member(line, "outcome", outcome, sizeof outcome);
      assert_non_null(p);
      units = strtoll(p + 16, NULL, 10);
      if (strcmp(format, "cloudevents") == 0) {
        char src[80], subject[80];
        assert_non_null(strstr(line, "\"specversion\": \"1.0\""));
        member(line, "source", src, sizeof src);
        member(line, "subject", subject, sizeof subject);
        assert_string_equal(subject, tenant);
        assert_int_equal(strncmp(src, "lraf/", 5), 0);
      }
    }
    /* the event id is the record's idempotency key */
    assert_true(strncmp(id, "r:", 2) == 0 || strncmp(id, "k:", 2) == 0 ||
                strncmp(id, "a:", 2) == 0);
    if (strcmp(id, "k:order-9") == 0) (*ids)++;
    tally_add(t, tenant, time, units, strcmp(outcome, "adjustment") != 0);
  }
  free(text);
}

static void test_export_roundtrip(void **state) {
  static const char *const args[] = {NULL};
  static const char *const formats[] = {"csv", "jsonl", "cloudevents"};
  char extra[128], *u, *v, target[200];
  tutil_http r;
  tally t;
  int port, st, i, k, ids;
  int64_t billed;
  size_t len;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "export.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  set_clock("2026-01-20T10:00:00Z");
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(ask(port, "sum", "acme", &billed), 200);
  assert_int_equal(ask(port, "hello", "globex", &billed), 200);
  snprintf(extra, sizeof extra, "X-Tenant: acme\r\nIdempotency-Key: "
           "order-9\r\n");
  assert_int_equal(tutil_http_once(port, "GET", "/sum", extra, NULL, &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  set_clock("2026-02-03T08:30:00+01:00");
  assert_int_equal(ask(port, "sum", "acme", &billed), 200);
  assert_int_equal(ask(port, "sum", "acme", &billed), 200);
  set_clock("2026-03-31T23:59:59Z");
  assert_int_equal(ask(port, "hello", "globex", &billed), 200);
  /* a correction: appended, nothing else changes */
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger adjust --ledger %s "
                                     "--tenant acme --units -7 --reason "
                                     "'a test credit'", spec), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger adjust --ledger %s "
                                     "--tenant acme --units 0 --reason x",
                                     spec), 2);
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger adjust --ledger %s "
                                     "--tenant acme --units -3", spec), 2);
  for (k = 0; k < 3; k++) {
    tally_export(formats[k], &t, &ids);
    assert_int_equal(ids, 1);
    /* the January to March export has no adjustment (made today) */
    for (i = 0; i < t.n; i++) {
      char tenant[65], month[8];
      assert_int_equal(sscanf(t.key[i], "%64s %7s", tenant, month), 2);
      snprintf(target, sizeof target, "/usage?tenant=%s&from=2026-01-01"
               "&to=2026-04-01&period=month", tenant);
      u = get(port, target, &st);
      assert_int_equal(st, 200);
      if (period_field(u, month, "instructions") != t.units[i] ||
          period_field(u, month, "requests") != t.rows[i])
        fail_msg("%s: export %s sums %" PRId64 " in %" PRId64 " records; "
                 "/usage says %s", formats[k], t.key[i], t.units[i],
                 t.rows[i], u);
      free(u);
    }
    assert_int_equal(t.n, 4);   /* acme Jan, Feb; globex Jan, Mar */
  }
  /* verify: every tenant-period matches, and its sums are the export's */
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger verify --ledger %s "
                                     "--from 2026-01-01 --to 2026-04-01",
                                     spec), 0);
  v = tutil_run_slurp(sh.out, &len);
  assert_non_null(v);
  for (i = 0; i < t.n; i++) {
    char tenant[65], month[8], row[160];
    assert_int_equal(sscanf(t.key[i], "%64s %7s", tenant, month), 2);
    snprintf(row, sizeof row, "%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64
             ",%" PRId64 ",ok\n", tenant, month, t.rows[i], t.units[i],
             t.rows[i], t.units[i]);
    if (strstr(v, row) == NULL) fail_msg("verify lacks %s in:\n%s", row, v);
  }
  free(v);
  /* everything, the adjustment included: the totals still agree */
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger verify --ledger %s",
                                     spec), 0);
  v = tutil_run_slurp(sh.out, &len);
  assert_non_null(strstr(v, ",-7,0,-7,ok\n"));
  free(v);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* An export beside a running server counts every request it answered,
   those whose records are still in its journal too: the server is
   stopped (SIGSTOP) while the test holds the database's write lock, so
   that the export alone can move them. */
static void test_export_beside_server(void **state) {
  static const char *const args[] = {NULL};
  sqlite3 *db = NULL;
  tally t;
  int port, i, ids, status = 0;
  int64_t billed, sum = 0;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "beside.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  set_clock("2026-01-20T10:00:00Z");
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(ask(port, "sum", "acme", &billed), 200);
  sum += billed;
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);   /* its tables */
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(sqlite3_open_v2(ledger, &db, SQLITE_OPEN_READWRITE, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                   SQLITE_OK);
  for (i = 0; i < 6; i++) {
    assert_int_equal(ask(port, "sum", "acme", &billed), 200);
    sum += billed;
  }
  /* stopped for sure before the lock goes (kill only sends the signal) */
  assert_int_equal(kill(pid, SIGSTOP), 0);
  assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
  assert_true(WIFSTOPPED(status));
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
  assert_int_equal(tutil_sqlite_int(ledger, "SELECT count(*) FROM "
                                    "lraf_ledger"), 1);
  tally_export("csv", &t, &ids);
  assert_int_equal(kill(pid, SIGCONT), 0);
  assert_int_equal(t.n, 1);
  assert_string_equal(t.key[0], "acme 2026-01");
  assert_int_equal(t.rows[0], 7);
  assert_int_equal(t.units[0], sum);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  assert_int_equal(tutil_sqlite_int(ledger, "SELECT count(*) FROM "
                                    "lraf_ledger"), 7);
}

/* Same request, same count: lraf serve, lraf_billing_run, lraf run. */
static void test_determinism(void **state) {
  static const char *const args[] = {NULL};
  lraf_pool_options po;
  lraf_billing_options bo;
  lraf_pool *pool;
  lraf_billing *b;
  lraf_request rq;
  lraf_bill bill;
  lraf_error err;
  int64_t served, again, run_count;
  char *out;
  size_t len;
  int port;
  pid_t pid;
  (void)state;
  tutil_ledger_fresh(sh.dir, "det.db", ledger, sizeof ledger, spec,
                     sizeof spec);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  assert_int_equal(ask(port, "sum", "d", &served), 200);
  assert_int_equal(ask(port, "sum", "d", &again), 200);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  assert_int_equal(served, again);
  assert_true(served > 1000);   /* 500 iterations */
  lraf_pool_default_options(&po);
  po.workers = 1;
  assert_int_equal(lraf_pool_new(&po, &pool, &err), LRAF_OK);
  lraf_billing_default_options(&bo);
  bo.pool = pool;
  assert_int_equal(lraf_billing_open(&bo, &b, &err), LRAF_OK);
  memset(&rq, 0, sizeof rq);
  rq.tenant = "d";
  rq.handler = "sum";
  rq.source = sum_src;
  rq.source_len = strlen(sum_src);
  rq.method = "GET";
  rq.path = "/sum";
  assert_int_equal(lraf_billing_run(b, &rq, NULL, &bill, &err), LRAF_OK);
  assert_int_equal(bill.outcome, LRAF_BILL_RAN);
  assert_int_equal(bill.status, 200);
  assert_int_equal(bill.instructions, served);
  lraf_bill_free(&bill);
  lraf_pool_close(pool);
  lraf_billing_close(b);
  /* lraf run: the handler called under lraf.measure */
  assert_int_equal(tutil_sh_write(&sh, "measure.lua",
                   "local lraf = require 'lraf'\n"
                   "local h = dofile(arg[1])\n"
                   "print(lraf.measure(h, {method = 'GET', path = '/sum',\n"
                   "  query = {}, headers = {}, body = ''}))\n"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --native %s/measure.lua "
                                     "%s/sum.lua", sh.dir, sh.dir), 0);
  out = tutil_run_slurp(sh.out, &len);
  assert_non_null(out);
  run_count = strtoll(out, NULL, 10);
  free(out);
  assert_int_equal(run_count, served);
}

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "serve-periods") != 0) return -1;
  snprintf(clock_file, sizeof clock_file, "%s/clock", sh.dir);
  setenv("LRAF_TEST_CLOCK", clock_file, 1);
  if (tutil_sh_write(&sh, "hello.lua",
                     "return function(req) return 200, 'hi' end\n") != 0 ||
      tutil_sh_write(&sh, "spin.lua",
                     "return function(req) while true do end end\n") != 0 ||
      tutil_sh_write(&sh, "sum.lua", sum_src) != 0)
    return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unsetenv("LRAF_TEST_CLOCK");
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_month_boundary),
    cmocka_unit_test(test_usage_bad_query),
    cmocka_unit_test(test_export_roundtrip),
    cmocka_unit_test(test_export_beside_server),
    cmocka_unit_test(test_determinism),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
