/*
** test_cli_serve_auth.c - who may ask lraf serve, on a real server with the
** SQLite ledger:
**   - with --tenants, a request without an API key, or with a wrong
**     one, gets 401 and leaves the ledger and the tenant's quota as
**     they were;
**   - a right key bills the key's tenant (any of its keys), as much as
**     the same request named by X-Tenant, and an X-Tenant naming
**     another tenant is refused (403, not billed);
**   - --admin-token-file guards /usage and /metrics;
**   - a malformed tenants file is refused naming its file and line, an
**     admin token file others may read is refused;
**   - lraf key hash prints the line the server reads;
**   - /metrics is OpenMetrics that Debian's prometheus_client parses
**     strictly, with the build, requests in flight and refused, the
**     quota left, the request and ledger commit latency histograms.
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
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_serve.h"
#include "tutil_sqlite.h"
#include "tutil_sh.h"

#define TOKEN "admin-token-0123456789abcdef"
#define ADMIN "Authorization: Bearer " TOKEN "\r\n"

static tutil_sh sh;
static char ledger[160], spec[180], keys[160], token[160];
static int64_t by_key;   /* what /sum is billed when a key names acme */

/* The ledger's rows and instructions, all tenants, read from the file.
   port > 0: the server is running; /usage first, which returns once the
   file has every record the server's journal holds. */
static void ledger_totals(int port, int64_t *rows, int64_t *units) {
  if (port > 0) assert_true(tutil_serve_usage(port, ADMIN, "acme",
                                              "requests") >= 0);
  *rows = tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_ledger");
  *units = tutil_sqlite_int(
      ledger, "SELECT coalesce(sum(instructions), 0) FROM lraf_ledger");
}

/* lraf key hash TENANT for key, its line appended to the keys file. */
static void add_key(const char *tenant, const char *key) {
  char *line;
  size_t len;
  FILE *f;
  assert_int_equal(tutil_sh_run(&sh, "printf '%%s\\n' '%s' | %s key hash %s",
                                key, tutil_sh_lraf(), tenant), 0);
  line = tutil_run_slurp(sh.out, &len);
  assert_non_null(line);
  assert_true(strncmp(line, tenant, strlen(tenant)) == 0);
  f = fopen(keys, "a");
  assert_non_null(f);
  fputs(line, f);
  fclose(f);
  free(line);
}

/* GET target with an Authorization (NULL: none) and an X-Tenant (NULL:
   none); the status. */
static int ask(int port, const char *target, const char *auth,
               const char *tenant, tutil_http *r) {
  char extra[512];
  int n = 0;
  extra[0] = '\0';
  if (auth != NULL)
    n += snprintf(extra + n, sizeof extra - (size_t)n, "Authorization: %s\r\n",
                  auth);
  if (tenant != NULL)
    snprintf(extra + n, sizeof extra - (size_t)n, "X-Tenant: %s\r\n", tenant);
  assert_int_equal(tutil_http_once(port, "GET", target, extra, NULL, r), 0);
  return r->status;
}

static int status_of(int port, const char *target, const char *auth,
                     const char *tenant) {
  tutil_http r;
  int st = ask(port, target, auth, tenant, &r);
  tutil_http_free(&r);
  return st;
}

/* Billed instructions of a request that ran (its header). */
static int64_t billed(int port, const char *auth, const char *tenant) {
  tutil_http r;
  char v[32];
  int64_t n;
  assert_int_equal(ask(port, "/sum", auth, tenant, &r), 200);
  assert_non_null(tutil_http_header(&r, "X-Lraf-Instructions", v, sizeof v));
  n = strtoll(v, NULL, 10);
  tutil_http_free(&r);
  assert_true(n > 0);
  return n;
}

static void test_wrong_key_not_billed(void **state) {
  static const char *const args[] = {"--tenants", keys, "--admin-token-file",
                                     token, "--quota", "acme=100000", NULL};
  const char *wrong[] = {NULL, "Bearer", "Bearer ", "Bearer wrong-key",
                         "Bearer key-of-acm", "Bearer key-of-acme2",
                         "Basic a2V5LW9mLWFjbWU=", "key-of-acme",
                         "Bearer sha256:0000"};
  int64_t rows0, units0, rows, units, first, n;
  tutil_http r;
  char v[128];
  int port, i, k;
  pid_t pid;
  (void)state;
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  first = by_key = billed(port, "Bearer key-of-acme", NULL);
  ledger_totals(port, &rows0, &units0);
  assert_int_equal(rows0, 1);
  assert_int_equal(units0, first);
  for (k = 0; k < 3; k++)
    for (i = 0; i < (int)(sizeof wrong / sizeof wrong[0]); i++) {
      /* with and without an X-Tenant naming the tenant */
      assert_int_equal(ask(port, "/sum", wrong[i], k == 1 ? "acme" : NULL,
                           &r), 401);
      assert_non_null(tutil_http_header(&r, "WWW-Authenticate", v, sizeof v));
      assert_non_null(strstr(v, "Bearer"));
      if (tutil_http_header(&r, "X-Request-Id", v, sizeof v) != NULL)
        fail_msg("a refused request got a request id: %s", v);
      tutil_http_free(&r);
    }
  ledger_totals(port, &rows, &units);
  if (rows != rows0 || units != units0)
    fail_msg("27 requests with no or a wrong key left the ledger at %"
             PRId64 " rows, %" PRId64 " instructions (was %" PRId64 ", %"
             PRId64 ")", rows, units, rows0, units0);
  assert_int_equal(tutil_serve_usage(port, ADMIN, "acme", "requests"), 1);
  /* the quota too: acme can still spend exactly what was left */
  n = billed(port, "Bearer key-of-acme", NULL);
  assert_int_equal(n, first);
  assert_int_equal(tutil_serve_usage(port, ADMIN, "acme", "instructions"),
                   2 * first);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  ledger_totals(0, &rows, &units);
  assert_int_equal(rows, 2);
  assert_int_equal(units, 2 * first);
}

static void test_key_bills_its_tenant(void **state) {
  static const char *const args[] = {"--tenants", keys, "--admin-token-file",
                                     token, NULL};
  int64_t a1, a2, g;
  char v[32];
  int port;
  pid_t pid;
  (void)state;
  unlink(ledger);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  a1 = billed(port, "Bearer key-of-acme", NULL);
  a2 = billed(port, "bearer   second-key-of-acme", "acme");
  g = billed(port, "Bearer key-of-globex", NULL);
  /* an X-Tenant other than the key's: refused, not billed */
  assert_int_equal(status_of(port, "/sum", "Bearer key-of-acme", "globex"),
                   403);
  assert_int_equal(status_of(port, "/sum", "Bearer key-of-globex", "acme"),
                   403);
  /* the handler does not see the key */
  {
    tutil_http r;
    assert_int_equal(ask(port, "/hdr", "Bearer key-of-globex", NULL, &r),
                     200);
    assert_string_equal(r.body, "nil");
    assert_non_null(tutil_http_header(&r, "X-Lraf-Instructions", v,
                                      sizeof v));
    g += strtoll(v, NULL, 10);
    tutil_http_free(&r);
  }
  assert_int_equal(tutil_serve_usage(port, ADMIN, "acme", "requests"), 2);
  assert_int_equal(tutil_serve_usage(port, ADMIN, "acme", "instructions"),
                   a1 + a2);
  assert_int_equal(tutil_serve_usage(port, ADMIN, "globex", "requests"), 2);
  assert_int_equal(tutil_serve_usage(port, ADMIN, "globex", "instructions"),
                   g);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
  assert_int_equal(
      tutil_sqlite_int(ledger,
                       "SELECT count(*) FROM lraf_ledger WHERE tenant = "
                       "'acme'"),
      2);
  assert_int_equal(
      tutil_sqlite_int(ledger,
                       "SELECT count(*) FROM lraf_ledger WHERE tenant = "
                       "'globex'"),
      2);
  assert_int_equal(
      tutil_sqlite_int(ledger, "SELECT count(*) FROM lraf_ledger"), 4);
}

static void test_admin_token(void **state) {
  static const char *const args[] = {"--admin-token-file", token, NULL};
  static const char *const paths[] = {"/usage", "/usage?tenant=t",
                                      "/metrics"};
  int port, i;
  pid_t pid;
  (void)state;
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  /* without --tenants, X-Tenant names the tenant, billed the same */
  assert_true(by_key > 0);
  assert_int_equal(billed(port, NULL, "t"), by_key);
  assert_int_equal(status_of(port, "/sum", NULL, NULL), 400);
  for (i = 0; i < 3; i++) {
    assert_int_equal(status_of(port, paths[i], NULL, NULL), 401);
    assert_int_equal(status_of(port, paths[i], "Bearer " TOKEN "x", NULL),
                     401);
    assert_int_equal(status_of(port, paths[i], "Bearer admin-token", NULL),
                     401);
    assert_int_equal(status_of(port, paths[i], "Basic " TOKEN, NULL), 401);
    assert_int_equal(status_of(port, paths[i], "Bearer " TOKEN, NULL), 200);
  }
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* lraf serve with these options exits 2 saying want. */
static void expect_refused(const char *opts, const char *want) {
  char *err;
  size_t len;
  int st = tutil_sh_lraf_run(&sh, "serve --port 0 --ledger none %s %s", opts,
                             sh.dir);
  err = tutil_run_slurp(sh.err, &len);
  assert_non_null(err);
  if (st != 2 || strstr(err, want) == NULL)
    fail_msg("status %d, '%s' (wanted 2 and '%s')", st, err, want);
  free(err);
}

static void test_bad_files(void **state) {
  char opts[300];
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "bad.keys", "# tenants\nacme "
                   "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15"
                   "d6c15b0f00a08\nglobex sha256:beef\n"), 0);
  snprintf(opts, sizeof opts, "--tenants %s/bad.keys", sh.dir);
  expect_refused(opts, "bad.keys:3: the key's hash");
  assert_int_equal(tutil_sh_write(&sh, "empty.keys", "\n# none\n"), 0);
  snprintf(opts, sizeof opts, "--tenants %s/empty.keys", sh.dir);
  expect_refused(opts, "empty.keys: no keys");
  snprintf(opts, sizeof opts, "--tenants %s/none.keys", sh.dir);
  expect_refused(opts, "none.keys");
  /* an admin token others may read, or too short */
  assert_int_equal(tutil_sh_write(&sh, "open.token", TOKEN "\n"), 0);
  snprintf(opts, sizeof opts, "%s/open.token", sh.dir);
  assert_int_equal(chmod(opts, 0644), 0);
  snprintf(opts, sizeof opts, "--admin-token-file %s/open.token", sh.dir);
  expect_refused(opts, "others may read it");
  assert_int_equal(tutil_sh_write(&sh, "short.token", "short\n"), 0);
  snprintf(opts, sizeof opts, "%s/short.token", sh.dir);
  assert_int_equal(chmod(opts, 0600), 0);
  snprintf(opts, sizeof opts, "--admin-token-file %s/short.token", sh.dir);
  expect_refused(opts, "at least 16");
  /* a keys file anyone may write */
  assert_int_equal(chmod(keys, 0666), 0);
  snprintf(opts, sizeof opts, "--tenants %s", keys);
  expect_refused(opts, "may be written by anyone");
  assert_int_equal(chmod(keys, 0600), 0);
}

/* The samples of /metrics as the strict OpenMetrics parser reads them,
   one "name{k=v,...} value" line each (labels sorted), in *out. */
#define PARSE "/usr/bin/python3 -c '\n" \
  "import sys\n" \
  "from prometheus_client.openmetrics.parser import " \
  "text_string_to_metric_families as parse\n" \
  "for f in parse(open(sys.argv[1]).read()):\n" \
  "  for s in f.samples:\n" \
  "    l = \",\".join(k + \"=\" + v for k, v in sorted(s.labels.items()))\n" \
  "    print(\"%%s{%%s} %%s\" %% (s.name, l, float(s.value)))\n" \
  "' "

static char *parsed_metrics(int port) {
  char path[160], *out, *err;
  tutil_http r;
  size_t len;
  FILE *f;
  assert_int_equal(ask(port, "/metrics", "Bearer " TOKEN, NULL, &r), 200);
  snprintf(path, sizeof path, "%s/metrics.txt", sh.dir);
  f = fopen(path, "w");
  assert_non_null(f);
  fwrite(r.body, 1, r.len, f);
  fclose(f);
  tutil_http_free(&r);
  if (tutil_sh_run(&sh, PARSE "%s", path) != 0) {
    err = tutil_run_slurp(sh.err, &len);
    fail_msg("/metrics is not OpenMetrics: %s", err ? err : "?");
  }
  out = tutil_run_slurp(sh.out, &len);
  assert_non_null(out);
  return out;
}

/* The value of the sample line that starts with head, or -1. */
static double sample(const char *text, const char *head) {
  const char *p = text;
  size_t n = strlen(head);
  for (; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (strncmp(p, head, n) == 0 && p[n] == ' ') return atof(p + n + 1);
  return -1;
}

static void test_metrics(void **state) {
  static const char *const args[] = {"--tenants", keys, "--admin-token-file",
                                     token, "--quota", "acme=100000", NULL};
  int64_t spent = 0;
  char *m;
  int port, i;
  pid_t pid;
  (void)state;
  unlink(ledger);
  pid = tutil_serve_start_in(sh.dir, spec, args, &port);
  assert_true(pid > 0);
  for (i = 0; i < 3; i++) spent += billed(port, "Bearer key-of-acme", NULL);
  assert_int_equal(status_of(port, "/sum", "Bearer nope", NULL), 401);
  assert_int_equal(status_of(port, "/sum", NULL, NULL), 401);
  assert_int_equal(status_of(port, "/metrics", NULL, NULL), 401);
  m = parsed_metrics(port);
  if (sample(m, "lraf_quota_remaining_instructions{tenant=acme}") !=
      (double)(100000 - spent))
    fail_msg("quota left: wanted %" PRId64 " in\n%s", 100000 - spent, m);
  assert_true(sample(m, "lraf_instructions_total{tenant=acme}") ==
              (double)spent);
  assert_true(sample(m, "lraf_requests_total{class=2xx,tenant=acme}") == 3);
  assert_true(sample(m, "lraf_requests_in_flight{}") == 0);
  assert_true(sample(m, "lraf_unauthorized_total{}") == 3);
  assert_true(sample(m, "lraf_ledger_errors_total{}") == 0);
  /* every request to a handler, refused ones too */
  assert_true(sample(m, "lraf_request_duration_seconds_count{}") == 5);
  assert_true(sample(m, "lraf_request_duration_seconds_bucket{le=+Inf}") ==
              5);
  assert_true(sample(m, "lraf_request_duration_seconds_sum{}") > 0);
  /* the ledger's commits: 3 records, each commit timed */
  assert_true(sample(m, "lraf_ledger_commit_records_sum{}") == 3);
  assert_true(sample(m, "lraf_ledger_commit_duration_seconds_count{}") ==
              sample(m, "lraf_ledger_commit_records_count{}"));
  assert_true(sample(m, "lraf_ledger_commit_duration_seconds_count{}") >= 1);
  assert_true(sample(m, "lraf_ledger_commit_duration_seconds_bucket"
                        "{le=+Inf}") >= 1);
  assert_true(sample(m, "lraf_ledger_commit_duration_seconds_sum{}") > 0);
  if (strstr(m, "lraf_build_info{cost_model=") == NULL ||
      strstr(m, ",version=" LRAF_VERSION ",vm=") == NULL)
    fail_msg("no build info in\n%s", m);
  free(m);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

static int setup(void **state) {
  FILE *f;
  (void)state;
  if (tutil_sh_init(&sh, "auth") != 0) return -1;
  snprintf(ledger, sizeof ledger, "%s/ledger.db", sh.dir);
  snprintf(spec, sizeof spec, "sqlite:%s", ledger);
  snprintf(keys, sizeof keys, "%s/tenants", sh.dir);
  snprintf(token, sizeof token, "%s/admin.token", sh.dir);
  if (tutil_sh_write(&sh, "sum.lua",
                     "return function(req)\n"
                     "  local s = 0\n"
                     "  for i = 1, 100 do s = s + i end\n"
                     "  return 200, tostring(s)\n"
                     "end\n") != 0 ||
      tutil_sh_write(&sh, "hdr.lua",
                     "return function(req)\n"
                     "  return 200, tostring(req.headers.authorization)\n"
                     "end\n") != 0)
    return -1;
  f = fopen(keys, "w");
  if (f == NULL) return -1;
  fputs("# the test's tenants\n", f);
  fclose(f);
  if (chmod(keys, 0600) != 0) return -1;
  add_key("acme", "key-of-acme");
  add_key("acme", "second-key-of-acme");
  add_key("globex", "key-of-globex");
  if (tutil_sh_write(&sh, "admin.token", TOKEN "\n") != 0 ||
      chmod(token, 0600) != 0)
    return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_wrong_key_not_billed),
    cmocka_unit_test(test_key_bills_its_tenant),
    cmocka_unit_test(test_admin_token),
    cmocka_unit_test(test_bad_files),
    cmocka_unit_test(test_metrics),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
