/*
** test_cli_serve_http_fuzz.c - generated HTTP requests against lraf
** serve's HTTP front (cli/cli_serve_http.c; a generator-based robustness
** test): random methods, paths (traversal, percent escapes, very long),
** query strings, header names and values (tenants valid and not,
** idempotency keys, long and odd bytes) and bodies, plus raw garbage on
** connections of its own, 2,000 of them (300 with LRAF_QUICK) from a
** fixed seed.
**   - the server never stops answering, and exits cleanly at the end;
**   - every response to a well-framed request is HTTP with
**     X-Lraf-Instructions; every one that ran a handler (X-Request-Id)
**     has its ledger record, and the ledger holds nothing else;
**   - the ledger is intact and has no partial record.
** Traffic goes to 127.0.0.1 only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tutil_serve.h"
#include "tutil_sh.h"

static tutil_sh sh;  /* its dir holds the ledger and the server's files */
static uint64_t seed = 0x9e3779b97f4a7c15u;

static uint32_t rnd(uint32_t n) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return (uint32_t)(seed % n);
}

/* Random bytes from an alphabet into b (NUL-terminated). */
static void bytes(char *b, size_t n, const char *alphabet) {
  size_t i, k = strlen(alphabet);
  for (i = 0; i < n; i++) b[i] = alphabet[rnd((uint32_t)k)];
  b[n] = '\0';
}

static const char *const methods[] = {"GET", "POST", "PUT", "DELETE",
                                      "HEAD", "OPTIONS", "get", "PATCH"};
static const char *const paths[] = {
  "/echo", "/echo", "/echo", "/usage", "/metrics", "/", "/../echo",
  "/echo/x", "/nothere", "/.echo", "/echo.lua", "/%65cho", "/e%00cho",
  "/ECHO", "//echo", "/echo%2f..%2f"
};
static const char urlchars[] =
  "abcXYZ019-_.~%&=+;,/?#@!$'()*[]:";
static const char textchars[] =
  "abcdefXYZ0123456789 -_.:;,'\"\\/<>{}()[]=+*&^%$#@!~`|\t";

/* One generated request on a connection of its own; 1 when it was
   well framed. */
static int generate(char *req, size_t size) {
  char path[3000], q[600], tenant[80], key[260], body[4100], extra[2048];
  int framed = 1, n;
  size_t blen = 0;
  if (rnd(20) == 0) {   /* raw garbage */
    bytes(req, rnd(200) + 1, "GARBAGE \r\n/:HTTP1.\x01\xff");
    return 0;
  }
  snprintf(path, sizeof path, "%s",
           rnd(10) < 6 ? "/echo" : paths[rnd(sizeof paths / sizeof *paths)]);
  if (rnd(30) == 0) {
    size_t l = strlen(path);
    bytes(path + l, 2000 + rnd(900), "a");
  }
  q[0] = '\0';
  if (rnd(3) != 0) {
    char v[64], s[8];
    bytes(v, rnd(40), urlchars);
    snprintf(s, sizeof s, "%d", (int)rnd(700));
    snprintf(q, sizeof q, "?v=%s&status=%s&%s", v, s,
             rnd(2) ? "tenant=t1" : "a=&=b&&");
  }
  extra[0] = '\0';
  switch (rnd(10)) {
  case 0: tenant[0] = '\0'; break;                       /* none */
  case 1: case 2: bytes(tenant, 1 + rnd(70), textchars); break;  /* odd */
  default: snprintf(tenant, sizeof tenant, "t%d", (int)rnd(3)); break;
  }
  if (tenant[0] != '\0')
    snprintf(extra, sizeof extra, "X-Tenant: %s\r\n", tenant);
  if (rnd(4) == 0) {
    size_t l = strlen(extra);
    bytes(key, rnd(3) ? 1 + rnd(40) : 250, textchars);
    snprintf(extra + l, sizeof extra - l, "Idempotency-Key: %s\r\n", key);
  }
  if (rnd(4) == 0) {
    size_t l = strlen(extra);
    char name[40], value[600];
    bytes(name, 1 + rnd(30), "abcXYZ-_019");
    bytes(value, rnd(rnd(10) == 0 ? 590 : 50), textchars);
    snprintf(extra + l, sizeof extra - l, "%s: %s\r\n", name, value);
  }
  if (rnd(2)) {
    blen = rnd(rnd(10) == 0 ? 4096 : 100);
    bytes(body, blen, textchars);
  }
  n = snprintf(req, size, "%s %s%s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               "Connection: close\r\n%sContent-Length: %zu\r\n\r\n%s",
               rnd(10) < 7 ? (rnd(2) ? "GET" : "POST")
                           : methods[rnd(sizeof methods / sizeof *methods)],
               path, q, extra,
               blen, blen ? body : "");
  if (n < 0 || (size_t)n >= size) return 0;
  return framed;
}

/* Send req on a new connection and read until the server closes. */
static int exchange(int port, const char *req, char *resp, size_t size) {
  int fd = tutil_http_connect(port);
  size_t have = 0;
  struct timeval tv = {10, 0};
  if (fd < 0) return -1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
    close(fd);
    return 0;   /* the server may close on garbage before reading */
  }
  shutdown(fd, SHUT_WR);
  for (;;) {
    ssize_t k = recv(fd, resp + have, size - 1 - have, 0);
    if (k <= 0) break;
    have += (size_t)k;
    if (have == size - 1) break;
  }
  resp[have] = '\0';
  close(fd);
  return (int)have;
}

static void test_generated_requests(void **state) {
  char spec[160], log[128], ledger[128];
  const char *args[] = {"--port", "0", "--workers", "2", "--ledger", spec,
                        "--request-limit", "*=100000", "--memory-limit",
                        "8MiB", "tests/system/serve-fuzz", NULL};
  static char req[16384], resp[65536];
  int i, n = getenv("LRAF_QUICK") ? 300 : 2000, ran = 0, framed = 0, st;
  pid_t pid;
  int port;
  sqlite3 *db;
  sqlite3_stmt *q;
  (void)state;
  snprintf(ledger, sizeof ledger, "%s/ledger.db", sh.dir);
  snprintf(spec, sizeof spec, "sqlite:%s", ledger);
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  pid = tutil_serve_start(args, log, &port);
  assert_true(pid > 0);
  for (i = 0; i < n; i++) {
    int ok = generate(req, sizeof req), got;
    got = exchange(port, req, resp, sizeof resp);
    assert_true(got >= 0);   /* the server still accepts connections */
    if (!ok || strncmp(req, "HEAD ", 5) == 0) continue;
    framed++;
    if (strncmp(resp, "HTTP/1.1 ", 9) != 0)
      fail_msg("request %d got no HTTP response:\n%.300s", i, req);
    if (strstr(resp, "\r\nX-Request-Id: ") != NULL) ran++;
    if (strstr(resp, "\r\nX-Lraf-Instructions: ") == NULL &&
        strncmp(resp, "HTTP/1.1 431", 12) != 0 &&   /* MHD's own limits */
        strncmp(resp, "HTTP/1.1 414", 12) != 0 &&
        strncmp(resp, "HTTP/1.1 400", 12) != 0)
      fail_msg("request %d: a response without X-Lraf-Instructions:\n%.300s",
               i, resp);
  }
  printf("   %d requests, %d well framed, %d ran a handler\n", n, framed,
         ran);
  assert_true(ran > n / 4);
  st = tutil_serve_stop(pid, SIGTERM);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_int_equal(sqlite3_open_v2(ledger, &db, SQLITE_OPEN_READONLY, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*), sum(key IS NULL"
                   " OR tenant = '' OR handler <> 'echo' OR instructions < 0"
                   " OR status < 100 OR status > 599) FROM lraf_ledger", -1,
                   &q, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  /* a key seen before is answered from the ledger (409) and does not
     run, so every run has its record */
  assert_int_equal(sqlite3_column_int(q, 0), ran);
  assert_int_equal(sqlite3_column_int(q, 1), 0);
  sqlite3_finalize(q);
  assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q,
                                      NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(q, 0), "ok");
  sqlite3_finalize(q);
  sqlite3_close(db);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "fuzz");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_generated_requests),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
