/*
** test_serve_hostile.c - lraf serve against hostile handlers: work a
** request leaves behind (a finalizer that spins, a suspended coroutine
** that a later request resumes) runs under a bound and is charged, the
** clean-up after a request that keeps 60,000 coroutines is linear, and
** a request of garbage does not grow the server without bound (the
** collector runs during requests, memory limit or not).
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
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tutil_serve.h"
#include "tutil_sh.h"

static tutil_sh sh;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Start lraf serve on sh.dir with args (NULL-terminated, at most 24). */
static pid_t start(const char *const *args, int *port) {
  const char *a[32];
  char log[160];
  int n = 0, i;
  pid_t pid;
  for (i = 0; args[i] != NULL && n < 24; i++) a[n++] = args[i];
  a[n++] = "--port";
  a[n++] = "0";
  a[n++] = sh.dir;
  a[n] = NULL;
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  pid = tutil_serve_start(a, log, port);
  assert_true(pid > 0);
  return pid;
}

/* One request with a receive timeout of secs: 0 when answered. */
static int ask(int port, const char *target, const char *tenant,
               int secs, tutil_http *r) {
  char extra[128];
  struct timeval tv = {secs, 0};
  int fd = tutil_http_connect(port), st;
  memset(r, 0, sizeof *r);
  if (fd < 0) return -1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  snprintf(extra, sizeof extra, "X-Tenant: %s\r\n", tenant);
  st = tutil_http_do(fd, "GET", target, extra, NULL, r);
  close(fd);
  return st;
}

static int64_t count_of(const tutil_http *r) {
  char v[32];
  return tutil_http_header(r, "X-Lraf-Instructions", v, sizeof v)
             ? strtoll(v, NULL, 10) : -1;
}

static void write_handler(const char *name, const char *src) {
  char file[96];
  snprintf(file, sizeof file, "%s.lua", name);
  assert_int_equal(tutil_sh_write(&sh, file, src), 0);
}

/* A finalizer that never ends, left by a request of a tenant without a
   quota: it runs after the request under a bound of its own, and the
   worker (the only one) answers the next request. */
static void test_finalizer_bounded(void **state) {
  static const char *const args[] = {"--workers", "1", "--ledger", "none",
                                     NULL};
  tutil_http r;
  int port;
  pid_t pid;
  (void)state;
  write_handler("gcspin",
                "return function(req)\n"
                "  setmetatable({}, {__gc = function() while true do end "
                "end})\n"
                "  return 200, 'left a finalizer'\n"
                "end\n");
  write_handler("hello", "return function(req) return 200, 'hi' end\n");
  pid = start(args, &port);
  assert_int_equal(ask(port, "/gcspin", "t", 20, &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  if (ask(port, "/hello", "u", 20, &r) != 0)
    fail_msg("no answer within 20 s after a request left a spinning "
             "finalizer");
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* A coroutine a request left suspended runs, when a later request
   resumes it, charged to that request and within its limit. */
static void test_leftover_coroutine(void **state) {
  static const char *const args[] = {"--workers", "1", "--ledger", "none",
                                     "--request-limit", "*=100000", NULL};
  tutil_http r;
  int port;
  pid_t pid;
  (void)state;
  write_handler("keepco",
                "local co\n"
                "return function(req)\n"
                "  if not co then\n"
                "    co = coroutine.create(function()\n"
                "      coroutine.yield()\n"
                "      while true do end\n"
                "    end)\n"
                "    coroutine.resume(co)\n"
                "    return 200, 'left a coroutine'\n"
                "  end\n"
                "  coroutine.resume(co)\n"
                "  return 200, 'resumed'\n"
                "end\n");
  pid = start(args, &port);
  assert_int_equal(ask(port, "/keepco", "t", 20, &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  if (ask(port, "/keepco", "t", 20, &r) != 0)
    fail_msg("no answer within 20 s from a request that resumed a "
             "left-over coroutine");
  assert_int_equal(r.status, 429);
  /* charged to the request: its limit, and no more than a granularity
     past it */
  assert_true(count_of(&r) >= 100000 && count_of(&r) <= 100000 + 20000);
  tutil_http_free(&r);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* A request that keeps 60,000 coroutines alive: the worker is free for
   the next request soon after (the clean-up is linear). */
static void test_many_coroutines(void **state) {
  static const char *const args[] = {"--workers", "1", "--ledger", "none",
                                     NULL};
  tutil_http r;
  int port;
  pid_t pid;
  double t0, t;
  (void)state;
  write_handler("manyco",
                "local keep\n"
                "return function(req)\n"
                "  local t = {}\n"
                "  for i = 1, 60000 do\n"
                "    t[i] = coroutine.create(function() end)\n"
                "  end\n"
                "  keep = t\n"
                "  return 200, 'kept ' .. #t\n"
                "end\n");
  write_handler("hello", "return function(req) return 200, 'hi' end\n");
  pid = start(args, &port);
  t0 = now();
  assert_int_equal(ask(port, "/manyco", "t", 60, &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  assert_int_equal(ask(port, "/hello", "t", 60, &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  t = now() - t0;
  printf("   60,000 kept coroutines: %.2f s for both requests\n", t);
  if (t > 8.0) fail_msg("60,000 kept coroutines took %.2f s (over 8 s)", t);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

/* The server's peak resident size in kB (VmHWM). */
static long peak_kb(pid_t pid) {
  char path[64], line[256];
  long kb = -1;
  FILE *f;
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  f = fopen(path, "r");
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  fclose(f);
  return kb;
}

/* A request that makes 3,000,000 garbage tables (about 200 MB if none
   were collected), without --memory-limit: the server stays small. */
static void test_garbage_collected(void **state) {
  static const char *const args[] = {"--workers", "1", "--ledger", "none",
                                     NULL};
  tutil_http r;
  int port;
  long before, after;
  pid_t pid;
  (void)state;
  write_handler("garbage",
                "return function(req)\n"
                "  for i = 1, 3000000 do local t = {i, i, i} end\n"
                "  return 200, 'made garbage'\n"
                "end\n");
  pid = start(args, &port);
  before = peak_kb(pid);
  assert_int_equal(ask(port, "/garbage", "t", 120, &r), 0);
  assert_int_equal(r.status, 200);
  tutil_http_free(&r);
  after = peak_kb(pid);
  printf("   3M garbage tables: peak resident %ld kB (%ld kB at start)\n",
         after, before);
  if (after - before > 100 * 1024)
    fail_msg("a request of garbage grew the server by %ld kB",
             after - before);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM), 0);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "serve-hostile");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_finalizer_bounded),
    cmocka_unit_test(test_leftover_coroutine),
    cmocka_unit_test(test_many_coroutines),
    cmocka_unit_test(test_garbage_collected),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
