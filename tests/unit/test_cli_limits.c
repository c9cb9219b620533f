/*
** test_cli_limits.c - cli/cli_limits.c, the limits of lraf run and
** lraf bench: a memory limit below what an empty state takes is a
** usage error naming both sizes, other failures are reported as they
** are; the manager over a run stops a script at its --limit, with or
** without a --rate, and only counts without either; native work is
** charged as the options decide (a table of command lines).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tutil_stderr.h"

static void test_new_failed(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  tutil_stderr c;
  char *said, want[200];
  unsigned long long peak;
  int st;
  (void)state;
  lraf_default_options(&opt);
  opt.memory_limit = 1000;
  assert_int_not_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(tutil_stderr_begin(&c), 0);
  st = cli_new_failed(&opt, &err);
  said = tutil_stderr_end(&c);
  assert_int_equal(st, CLI_EUSAGE);
  snprintf(want, sizeof want, "lraf: --memory-limit 1000 bytes is too small "
           "to start a Lua state (an empty state takes %%llu bytes)\n");
  assert_int_equal(sscanf(said, want, &peak), 1);
  assert_true(peak > 1000);
  snprintf(want, sizeof want, "lraf: --memory-limit 1000 bytes is too small "
           "to start a Lua state (an empty state takes %llu bytes)\n", peak);
  assert_string_equal(said, want);
  /* and a state does start under that much */
  opt.memory_limit = (size_t)peak * 2;
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  lraf_close(S);
  free(said);
  /* not about memory: the error as it is */
  opt.memory_limit = 0;
  err.code = LRAF_EIO;
  snprintf(err.message, sizeof err.message, "cannot read w.txt");
  assert_int_equal(tutil_stderr_begin(&c), 0);
  st = cli_new_failed(&opt, &err);
  said = tutil_stderr_end(&c);
  assert_int_equal(st, CLI_EUSAGE);
  assert_string_equal(said, "lraf: cannot read w.txt\n");
  free(said);
}

/* Run a loop of n turns under cli_manager_new(limit, rate). */
static lraf_status run(int64_t limit, double rate, int n, int64_t *total) {
  static const char fmt[] = "local s = 0 for i = 1, %d do s = s + i end";
  char src[100];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  lraf_manager *m = cli_manager_new(limit, rate);
  assert_non_null(m);
  lraf_default_options(&opt);
  opt.manager = m;
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  snprintf(src, sizeof src, fmt, n);
  assert_int_equal(lraf_load_string(S, src, strlen(src), "=l", &err),
                   LRAF_OK);
  st = lraf_call(S, 0, 0, &err);
  *total = lraf_total(S);
  lraf_close(S);
  lraf_manager_release(m);
  return st;
}

static void test_manager(void **state) {
  static const struct {
    int64_t limit;
    double rate;
    int n;
    lraf_status st;
  } rows[] = {
    {-1, 0, 100000, LRAF_OK},          /* a total: no stop */
    {5000, 0, 100, LRAF_OK},
    {5000, 0, 100000, LRAF_EQUOTA},
    {0, 0, 10, LRAF_EQUOTA},
    {-1, 1e9, 10000, LRAF_OK},         /* a rate alone: no stop */
    {5000, 1e9, 100000, LRAF_EQUOTA},  /* a limit over a rate */
    {5000, 1e9, 100, LRAF_OK},
  };
  int64_t plain;
  size_t k;
  (void)state;
  assert_int_equal(run(-1, 0, 100, &plain), LRAF_OK);
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    int64_t total;
    lraf_status st = run(rows[k].limit, rows[k].rate, rows[k].n, &total);
    if (st != rows[k].st)
      fail_msg("limit %lld rate %g, %d turns: %s", (long long)rows[k].limit,
               rows[k].rate, rows[k].n, lraf_status_name(st));
    /* what runs to its end counts the same under every manager */
    if (st == LRAF_OK && rows[k].n == 100) assert_true(total == plain);
    /* a stop comes near the limit */
    if (st == LRAF_EQUOTA) assert_true(total < rows[k].limit + 1000);
  }
}

/* What `lraf run OPTIONS x.lua` decides about native charging. */
static void test_native(void **state) {
  static const struct {
    const char *options;
    int native;
    const char *why;  /* how it starts */
  } rows[] = {
    {"", 0, "--limit, --memory-limit and --sandbox turn it on"},
    {"--limit 5", 1, "--limit"},
    {"--memory-limit 1M", 1, "--limit"},
    {"--sandbox", 1, "--limit"},
    {"--native", 1, "--native"},
    {"--no-native --limit 5 --sandbox", 0, "--native"},
    {"--rate 100", 0, "--limit"},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    char line[100], *argv[10], *w;
    int argc = 0;
    cli_args a;
    const char *why = NULL;
    snprintf(line, sizeof line, "run %s x.lua", rows[k].options);
    for (w = strtok(line, " "); w != NULL; w = strtok(NULL, " "))
      argv[argc++] = w;
    assert_int_equal(cli_parse(cli_command_find("run"), argc, argv, &a),
                     CLI_OK);
    if (cli_native(&a, &why) != rows[k].native ||
        strncmp(why, rows[k].why, strlen(rows[k].why)) != 0)
      fail_msg("run %s: native %d (%s)", rows[k].options, !rows[k].native,
               why);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_new_failed),
    cmocka_unit_test(test_manager),
    cmocka_unit_test(test_native),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
