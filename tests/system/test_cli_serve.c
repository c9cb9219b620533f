/*
** test_cli_serve.c - lraf serve's command line: --help lists every
** option, and each bad option, missing directory, unopenable SQLite file
** or unreachable PostgreSQL server gets exit status 2 and one clear
** line on stderr, before anything listens.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static void test_help(void **state) {
  static const char *const opts[] = {
    "--port N", "--bind ADDR", "--workers N", "--request-limit T=N",
    "--quota T=N", "--rate T=N", "--memory-limit BYTES", "--ledger SPEC",
    "--slice N", "--no-metering", "--max-tenants N", "--max-connections N",
    "--max-connections-per-ip N", "--idle-timeout SECONDS", NULL
  };
  char *out;
  int i;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "serve --help"), 0);
  out = tutil_sh_read(sh.out);
  for (i = 0; opts[i] != NULL; i++)
    if (strstr(out, opts[i]) == NULL) fail_msg("--help lacks %s", opts[i]);
  free(out);
}

static void test_errors(void **state) {
  static const struct {
    const char *args, *message;
  } cases[] = {
    {"serve --quota acme .", "--quota needs TENANT=N (got 'acme')"},
    {"serve --request-limit 'a=x' .", "--request-limit needs a non-negative"},
    {"serve --rate 'a=0' .", "--rate needs a positive integer"},
    {"serve --port 65536 .", "--port 65536 is too large"},
    {"serve --workers 0 .", "--workers needs a positive integer"},
    {"serve --max-tenants 0 .", "--max-tenants needs"},
    {"serve --idle-timeout x .", "--idle-timeout needs"},
    {"serve --memory-limit 1x .", "--memory-limit needs a positive size"},
    {"serve --frobnicate .", "unknown option '--frobnicate' for lraf serve"},
    {"serve --port", "--port needs a value"},
    {"serve", "lraf serve needs one DIR"},
    {"serve no/such/dir", "no/such/dir is not a directory"},
    {"serve --bind 0.0.0.x --port 0 .", "--bind needs an IPv4 address"},
    {"serve --ledger mysql://x --port 0 .",
     "expected sqlite:PATH or postgresql://"},
    {"serve --ledger sqlite:no/such/dir/l.db --port 0 .",
     "cannot open no/such/dir/l.db"},
    {"serve --ledger 'postgresql:///x?host=/nonexistent&connect_timeout=2'"
     " --port 0 .", "cannot connect to the ledger database"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *err;
    int st = tutil_sh_lraf_run(&sh, "%s", cases[i].args);
    err = tutil_sh_read(sh.err);
    if (st != 2 || strstr(err, cases[i].message) == NULL ||
        strncmp(err, "lraf: ", 6) != 0)
      fail_msg("lraf %s: status %d, stderr:\n%s(expected '%s')",
               cases[i].args, st, err, cases[i].message);
    free(err);
  }
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "serve-cli");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_help),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
