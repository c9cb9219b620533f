/*
** test_fuzz_regress.c - every input the fuzz targets (tests/fuzz/) found
** a problem with, replayed through the same code.
**
** tests/fuzz/regress/ holds one file per finding, named after the target
** that found it: read-*, rewrite-*, source-*, profile-*, timeline-*,
** ledger-* (on a ledger in a temporary directory), journal-* or http-*
** (sent to a real `lraf serve`, started for them on 127.0.0.1).  Each must now be processed
** or refused with an error value (the sanitizer build of make test
** catches crashes and leaks).  The findings that were refused at a
** precise place also have their error checked below.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "rw.h"
#include "tutil_fuzz.h"
#include "tutil_run.h"
#include "tutil_serve.h"
#include "tutil_sh.h"

#define REGRESS "tests/fuzz/regress"

static tutil_sh sh;     /* the ledgers and the server's files */
static pid_t server;    /* lraf serve for http-*, started at the first */
static int port;

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* lraf serve as fuzz_http runs it: 2 workers, the handlers of
   tests/system/serve-fuzz, a ledger in sh.dir. */
static int serve_port(void) {
  static char spec[128], log[128];
  const char *args[] = {"--port", "0", "--workers", "2", "--ledger", spec,
                        "--memory-limit", "16MiB", "tests/system/serve-fuzz",
                        NULL};
  if (server > 0) return port;
  snprintf(spec, sizeof spec, "sqlite:%s/serve.db", sh.dir);
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  server = tutil_serve_start(args, log, &port);
  assert_true(server > 0);
  return port;
}

static void test_replay_all(void **state) {
  DIR *d = opendir(REGRESS);
  struct dirent *e;
  int replayed = 0;
  (void)state;
  assert_non_null(d);
  while ((e = readdir(d)) != NULL) {
    char path[512], why[600];
    size_t len;
    char *data;
    int rc = -1;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, REGRESS "/%s", e->d_name);
    data = tutil_run_slurp(path, &len);
    assert_non_null(data);
    why[0] = '\0';
    if (starts(e->d_name, "read-"))
      rc = tutil_fuzz_read((const uint8_t *)data, len, why, sizeof why);
    else if (starts(e->d_name, "rewrite-"))
      rc = tutil_fuzz_rewrite((const uint8_t *)data, len, why, sizeof why);
    else if (starts(e->d_name, "source-"))
      rc = tutil_fuzz_source((const uint8_t *)data, len, why, sizeof why);
    else if (starts(e->d_name, "profile-"))
      rc = tutil_fuzz_profile((const uint8_t *)data, len, why, sizeof why);
    else if (starts(e->d_name, "timeline-"))
      rc = tutil_fuzz_timeline((const uint8_t *)data, len, why, sizeof why);
    else if (starts(e->d_name, "ledger-"))
      rc = tutil_fuzz_ledger(sh.dir, (const uint8_t *)data, len, why,
                             sizeof why);
    else if (starts(e->d_name, "journal-"))
      rc = tutil_fuzz_journal((const uint8_t *)data, len, why, sizeof why);
    else if (starts(e->d_name, "http-"))
      rc = tutil_fuzz_http(serve_port(), (const uint8_t *)data, len, why,
                           sizeof why);
    else
      fail_msg("%s: name does not say which target found it", path);
    if (rc != 0) fail_msg("%s: %s", path, why);
    printf("  %-40s ok\n", e->d_name);
    free(data);
    replayed++;
  }
  closedir(d);
  assert_true(replayed >= 1);
}

/* A chunk whose line deltas lead below line 0: Lua loads it, but the
   dump format cannot hold the negative line a rewrite would have to
   write, so bc_read refuses it and says where. */
static void test_negative_line_refused(void **state) {
  size_t len;
  char *data = tutil_run_slurp(REGRESS "/rewrite-negative-line", &len);
  bc_chunk *c = NULL;
  lraf_error err;
  (void)state;
  assert_non_null(data);
  assert_int_equal(bc_read(data, len, NULL, &c, &err), LRAF_EFORMAT);
  assert_null(c);
  assert_non_null(strstr(err.message, "line info gives line -"));
  assert_non_null(strstr(err.message, "at pc"));
  free(data);
}

/* A TFORPREP in the middle of a unit (between a CALL that leaves the
   stack top open and the instruction that consumes it): its target
   started no block, and the rewriter indexed block -1.  Now any control
   transfer inside a unit is refused, naming the instruction. */
static void test_jump_inside_unit_refused(void **state) {
  size_t len;
  char *data = tutil_run_slurp(REGRESS "/rewrite-jump-inside-unit", &len);
  bc_chunk *c = NULL;
  lraf_error err;
  rw_options opt;
  (void)state;
  assert_non_null(data);
  assert_int_equal(bc_read(data, len, NULL, &c, &err), LRAF_OK);
  rw_default_options(&opt);
  assert_int_equal(rw_rewrite(c, &opt, NULL, &err), LRAF_EREWRITE);
  assert_non_null(strstr(err.message, "TFORPREP at pc 45"));
  assert_non_null(strstr(err.message, "inside an instruction unit"));
  bc_chunk_free(c);
  free(data);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "fuzzreg");
}

static int teardown(void **state) {
  int st = server > 0 ? tutil_serve_stop(server, SIGTERM) : 0;
  (void)state;
  if (server > 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
    fprintf(stderr, "lraf serve did not exit cleanly (%#x)\n", st);
    tutil_sh_cleanup(&sh);
    return -1;
  }
  return tutil_sh_cleanup(&sh);
}

/* A chunk holding the lraf VM's ACCT, which no compiler writes: it was
   read, then rewritten for the stock target into a chunk that the
   verifier refused (and in the weighted mode ACCT's weight was read
   past the table).  The reader refuses it now; chunks that lraf wrote
   (bc_read_rewritten) may hold it. */
static void test_acct_in_input_refused(void **state) {
  size_t len;
  char *data = tutil_run_slurp(REGRESS "/rewrite-acct-in-input", &len);
  bc_chunk *c = NULL;
  lraf_error err;
  (void)state;
  assert_non_null(data);
  assert_int_equal(bc_read(data, len, NULL, &c, &err), LRAF_EFORMAT);
  assert_null(c);
  assert_non_null(strstr(err.message, "accounting instruction in a chunk "
                                      "lraf did not write"));
  assert_non_null(strstr(err.message, "ACCT at pc"));
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_replay_all),
    cmocka_unit_test(test_negative_line_refused),
    cmocka_unit_test(test_jump_inside_unit_refused),
    cmocka_unit_test(test_acct_in_input_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
