/*
** test_cli_serve_timeline.c - lraf serve --timeline FILE and the delivered
** share of its tenants (cli/cli_serve_timeline.c): every response says
** how long its request was queued, ran and waited for the ledger, and
** its instructions per second of running; /metrics has each tenant's
** delivered rate and share; at stop FILE passes the trace event schema,
** has a track per worker that ran, one slice per request whose counts
** are the responses', and each request's three phases; --expect-share
** flags a tenant's window that got less; an SVG file is refused.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <signal.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_serve.h"
#include "tutil_sh.h"

#define PY "/usr/bin/python3"
#define NREQ 6
static tutil_sh sh;
static char check[512], schema[512], dir[PATH_MAX];

static int setup(void **state) {
  char cwd[256];
  (void)state;
  if (getcwd(cwd, sizeof cwd) == NULL) return -1;
  snprintf(check, sizeof check, "%s/tests/system/timeline/check.py", cwd);
  snprintf(schema, sizeof schema,
           "%s/tests/system/timeline/trace-event.schema.json", cwd);
  if (tutil_sh_init(&sh, "serve_timeline") != 0) return -1;
  snprintf(dir, sizeof dir, "%s/handlers", sh.dir);
  if (tutil_sh_run(&sh, "mkdir -p '%s'", dir) != 0) return -1;
  return tutil_sh_write(&sh, "handlers/work.lua",
                        "return function(req)\n"
                        "  local s = 0\n"
                        "  for i = 1, 200000 do s = s + i % 7 end\n"
                        "  return 200, tostring(s)\n"
                        "end\n");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static double header(const tutil_http *r, const char *name) {
  char v[64];
  if (tutil_http_header(r, name, v, sizeof v) == NULL)
    fail_msg("no %s in the response:\n%s", name, r->head);
  return atof(v);
}

/* The last command's stdout, as a number. */
static double out_number(void) {
  size_t len;
  char *s = tutil_run_slurp(sh.out, &len);
  double v;
  assert_non_null(s);
  v = atof(s);
  free(s);
  return v;
}

static void test_phases_metrics_and_trace(void **state) {
  char log[PATH_MAX], trace[PATH_MAX];
  const char *args[] = {"--port", "0", "--workers", "2", "--ledger", "none",
                        "--timeline", trace, dir, NULL};
  double sum = 0;
  int port, i, fd;
  pid_t pid;
  tutil_http r;
  (void)state;
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  snprintf(trace, sizeof trace, "%s/t.json", sh.dir);
  pid = tutil_serve_start(args, log, &port);
  assert_true(pid > 0);
  fd = tutil_http_connect(port);
  assert_true(fd >= 0);
  for (i = 0; i < NREQ; i++) {
    double n, queued, running, ledger, rate;
    assert_int_equal(tutil_http_do(fd, "GET", "/work", "X-Tenant: a\r\n",
                                   NULL, &r), 0);
    assert_int_equal(r.status, 200);
    n = header(&r, "X-Lraf-Instructions");
    queued = header(&r, "X-Lraf-Queued");
    running = header(&r, "X-Lraf-Running");
    ledger = header(&r, "X-Lraf-Ledger");
    rate = header(&r, "X-Lraf-Rate");
    assert_true(n > 0 && queued >= 0 && running > 0 && ledger >= 0);
    /* the rate is the count over the running time, both as sent */
    assert_true(rate > 0.99 * n / running - 1 && rate < 1.01 * n / running + 1);
    sum += n;
    tutil_http_free(&r);
  }
  close(fd);
  assert_int_equal(tutil_http_once(port, "GET", "/metrics", NULL, NULL, &r),
                   0);
  assert_int_equal(r.status, 200);
  assert_non_null(strstr(r.body, "lraf_tenant_delivered_rate{tenant=\"a\"} "));
  assert_non_null(strstr(r.body, "lraf_tenant_delivered_share{tenant=\"a\","
                                 "figure=\"count\"} "));
  assert_non_null(strstr(r.body, "lraf_tenant_delivered_share{tenant=\"a\","
                                 "figure=\"cpu\"} "));
  assert_true(atof(strstr(r.body, "lraf_tenant_delivered_rate{tenant=\"a\"} ")
                   + strlen("lraf_tenant_delivered_rate{tenant=\"a\"} ")) > 0);
  tutil_http_free(&r);
  tutil_serve_stop(pid, SIGTERM);
  assert_int_equal(tutil_sh_run(&sh, PY " %s schema %s %s", check, trace,
                                schema), 0);
  /* the slices on the workers' tracks: one per request, the same counts */
  assert_int_equal(tutil_sh_run(&sh, PY " -c \"import json; e = json.load("
                                "open('%s'))['traceEvents']; print(sum(x['"
                                "args']['instructions'] for x in e if x['ph']"
                                " == 'X'))\"", trace), 0);
  assert_true(out_number() == sum);
  assert_int_equal(tutil_sh_run(&sh, PY " -c \"import json; e = json.load("
                                "open('%s'))['traceEvents']; print(sum(1 for "
                                "x in e if x['ph'] == 'X'))\"", trace), 0);
  assert_int_equal((int)out_number(), NREQ);
  assert_int_equal(tutil_sh_run(&sh, PY " -c \"import json; e = json.load("
                                "open('%s'))['traceEvents']; w = sum(1 for x "
                                "in e if x['ph'] == 'M' and x['name'] == "
                                "'thread_name'); print(w)\"", trace), 0);
  i = (int)out_number();
  assert_true(i >= 1 && i <= 2);
  /* each request's phases, begun and ended */
  assert_int_equal(tutil_sh_run(&sh, PY " -c \"import json; e = json.load("
                                "open('%s'))['traceEvents']; print(sum(1 for "
                                "x in e if x['ph'] in 'be' and x['name'] in "
                                "('queued', 'running', 'waiting for the "
                                "ledger')))\"", trace), 0);
  assert_int_equal((int)out_number(), 6 * NREQ);
}

/* --expect-share 100: a window in which the requests ran below their
   handler's best rate, which every window of two requests or more
   does, is flagged on stderr and counted in /metrics. */
static void test_expect_share(void **state) {
  char log[PATH_MAX];
  const char *args[] = {"--port", "0", "--workers", "1", "--ledger", "none",
                        "--expect-share", "100", dir, NULL};
  int port, i;
  pid_t pid;
  tutil_http r;
  size_t len;
  char *text;
  (void)state;
  snprintf(log, sizeof log, "%s/serve2.log", sh.dir);
  pid = tutil_serve_start(args, log, &port);
  assert_true(pid > 0);
  for (i = 0; i < 14; i++) {
    assert_int_equal(tutil_http_once(port, "GET", "/work", "X-Tenant: b\r\n",
                                     NULL, &r), 0);
    assert_int_equal(r.status, 200);
    tutil_http_free(&r);
    if (i == 9) {   /* the next request ends the first window */
      struct timespec pause = {1, 100000000};
      nanosleep(&pause, NULL);
    }
  }
  assert_int_equal(tutil_http_once(port, "GET", "/metrics", NULL, NULL, &r),
                   0);
  assert_non_null(strstr(r.body, "lraf_tenant_short_windows_total{tenant=\""
                                 "b\"} 1"));
  tutil_http_free(&r);
  tutil_serve_stop(pid, SIGTERM);
  text = tutil_run_slurp(log, &len);
  assert_non_null(text);
  assert_non_null(strstr(text, "lraf serve: tenant b: delivered share "));
  assert_non_null(strstr(text, "below --expect-share 100.0%"));
  free(text);
}

static void test_svg_refused(void **state) {
  size_t len;
  char *err;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "serve --port 0 --timeline t.svg "
                                     "'%s'", dir), 2);
  err = tutil_run_slurp(sh.err, &len);
  assert_non_null(err);
  assert_non_null(strstr(err, "writes the trace event JSON, not an SVG"));
  free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_phases_metrics_and_trace),
    cmocka_unit_test(test_expect_share),
    cmocka_unit_test(test_svg_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
