/*
** test_cli_suite.c - cli/cli_suite.c, lraf bench's suite files: every
** refusal names FILE:LINE (the line of the case's mistake, comments and
** blank lines counted) and what is wrong; a suite read back gives each
** benchmark its script, name, limits and arguments, in order; names
** too long for a baseline entry are refused, not cut.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"

static lraf_status parse(const char *text, size_t len, cli_suite *s,
                         lraf_error *err) {
  memset(err, 0, sizeof *err);
  return cli_suite_parse(text, len, "s.txt", s, err);
}

/* ---- refusals ---- */

static const struct bad {
  const char *text;
  int line;
  const char *what;
} bads[] = {
  {"", 1, "no benchmark in the suite"},
  {"# only a comment\n\n   \n", 3, "no benchmark in the suite"},
  {"a.lua\nb.lua threshold=x\n", 2,
   "threshold= needs a percentage from 0 to "
   "1000000000000 with at most 6 decimals, not 'x'"},
  {"a.lua threshold=-1\n", 1,
   "threshold= needs a percentage from 0 to "
   "1000000000000 with at most 6 decimals, not '-1'"},
  {"a.lua threshold=inf\n", 1,
   "threshold= needs a percentage from 0 to "
   "1000000000000 with at most 6 decimals, not 'inf'"},
  {"a.lua threshold=nan\n", 1,
   "threshold= needs a percentage from 0 to "
   "1000000000000 with at most 6 decimals, not 'nan'"},
  {"a.lua threshold=0.1234567\n", 1,
   "threshold= needs a percentage from 0 to "
   "1000000000000 with at most 6 decimals, not '0.1234567'"},
  {"a.lua threshold=2%\n", 1,
   "threshold= needs a percentage from 0 to "
   "1000000000000 with at most 6 decimals, not '2%'"},
  {"# c\na.lua min-change=1T\n", 2, "min-change= needs a non-negative "
   "integer (k, M, G allowed), not '1T'"},
  {"a.lua min-change=\n", 1, "min-change= needs a non-negative "
   "integer (k, M, G allowed), not ''"},
  {"a.lua max=-5\n", 1, "max= needs a non-negative integer (k, M, G "
   "allowed), not '-5'"},
  {"a.lua max=99999999999999999999\n", 1, "max= needs a non-negative "
   "integer (k, M, G allowed), not '99999999999999999999'"},
  {"a.lua max=10000000000G\n", 1, "max= needs a non-negative integer "
   "(k, M, G allowed), not '10000000000G'"},
  {"a.lua name=\n", 1, "name= is empty"},
  {"a.lua speed=3\n", 1, "unknown setting 'speed=' (threshold=, "
   "min-change=, max=, name=)"},
  {"\n\na.lua 3\n", 3, "'3': arguments go after \"--\""},
  {"-- a.lua\n", 1, "expected a script first, found '--'"},
  {"max=3 a.lua\n", 1, "expected a script first, found 'max=3'"},
  {"a.lua\nb.lua\n\na.lua\n", 4, "benchmark 'a.lua' is already on line 1 "
   "(name= tells two apart)"},
  {"a.lua\nb.lua name=x\nc.lua name=a.lua\n", 3, "benchmark 'a.lua' is "
   "already on line 1 (name= tells two apart)"},
  {"a.lua -- 1\na.lua -- 2\na.lua -- 1\n", 3, "benchmark 'a.lua 1' is "
   "already on line 1 (name= tells two apart)"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    cli_suite s;
    lraf_error err;
    char want[400];
    snprintf(want, sizeof want, "s.txt:%d: %s", bads[k].line, bads[k].what);
    if (parse(bads[k].text, strlen(bads[k].text), &s, &err) != LRAF_EFORMAT
        || strcmp(err.message, want) != 0)
      fail_msg("'%s': got '%s', want '%s'", bads[k].text, err.message, want);
    /* a refused suite holds nothing */
    assert_int_equal(s.n, 0);
    assert_null(s.item);
  }
}

/* A NUL byte: not a text file, said on the line it is on. */
static void test_nul(void **state) {
  static const char text[] = "a.lua\nb.lua\nc\0.lua\n";
  cli_suite s;
  lraf_error err;
  (void)state;
  assert_int_equal(parse(text, sizeof text - 1, &s, &err), LRAF_EFORMAT);
  assert_string_equal(err.message, "s.txt:3: a NUL byte (not a text file)");
}

/* A name as long as a baseline entry may hold is taken; one byte more
   is refused, whether from name= or from the script and arguments. */
static void test_name_lengths(void **state) {
  char name[CLI_BENCH_NAME_MAX + 1], text[2 * CLI_BENCH_NAME_MAX];
  cli_suite s;
  lraf_error err;
  char want[200];
  (void)state;
  memset(name, 'n', sizeof name);
  name[CLI_BENCH_NAME_MAX - 1] = '\0';
  snprintf(text, sizeof text, "a.lua name=%s\n", name);
  assert_int_equal(parse(text, strlen(text), &s, &err), LRAF_OK);
  assert_int_equal(strlen(s.item[0].name), CLI_BENCH_NAME_MAX - 1);
  cli_suite_free(&s);
  name[CLI_BENCH_NAME_MAX - 1] = 'n';
  name[CLI_BENCH_NAME_MAX] = '\0';
  snprintf(text, sizeof text, "a.lua name=%s\n", name);
  assert_int_equal(parse(text, strlen(text), &s, &err), LRAF_EFORMAT);
  snprintf(want, sizeof want, "s.txt:1: name= is longer than %d bytes",
           CLI_BENCH_NAME_MAX - 1);
  assert_string_equal(err.message, want);
  /* "a.lua -- nnn...": the script, a blank and the argument */
  name[CLI_BENCH_NAME_MAX - 7] = '\0';
  snprintf(text, sizeof text, "a.lua -- %s\n", name);
  assert_int_equal(parse(text, strlen(text), &s, &err), LRAF_OK);
  assert_int_equal(strlen(s.item[0].name), CLI_BENCH_NAME_MAX - 1);
  cli_suite_free(&s);
  name[CLI_BENCH_NAME_MAX - 7] = 'n';
  name[CLI_BENCH_NAME_MAX - 6] = '\0';
  snprintf(text, sizeof text, "a.lua -- %s\n", name);
  assert_int_equal(parse(text, strlen(text), &s, &err), LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "s.txt:1: the benchmark's name (its "
                         "script and arguments) is longer than"));
}

/* ---- what a suite holds ---- */

static void test_items(void **state) {
  static const char text[] =
    "# benchmarks\n"
    "fib.lua\n"
    "\n"
    "  fib.lua\tthreshold=2.5 min-change=3k max=1G -- 30  x=1 --\r\n"
    "sort.lua name=sort-big max=7M -- 100000\n"
    "sort.lua min-change=12 --\n"
    "   # indented comment\n"
    "last.lua name=z";
  cli_suite s;
  lraf_error err;
  const cli_bench_item *it;
  (void)state;
  assert_int_equal(parse(text, strlen(text), &s, &err), LRAF_OK);
  assert_int_equal(s.n, 5);
  it = &s.item[0];
  assert_string_equal(it->script, "fib.lua");
  assert_string_equal(it->name, "fib.lua");
  assert_int_equal(it->nargs, 0);
  assert_true(it->threshold < 0 && it->min_change < 0 && it->max_count < 0);
  it = &s.item[1];  /* blanks, a tab and a CR are word breaks */
  assert_string_equal(it->script, "fib.lua");
  assert_true(it->threshold == 2500000);
  assert_int_equal(it->min_change, 3000);
  assert_int_equal(it->max_count, 1000000000);
  assert_int_equal(it->nargs, 3);  /* after "--" everything is an argument */
  assert_string_equal(it->args[0], "30");
  assert_string_equal(it->args[1], "x=1");
  assert_string_equal(it->args[2], "--");
  assert_string_equal(it->name, "fib.lua 30 x=1 --");
  it = &s.item[2];
  assert_string_equal(it->name, "sort-big");
  assert_int_equal(it->max_count, 7000000);
  assert_int_equal(it->nargs, 1);
  it = &s.item[3];  /* "--" with nothing after it */
  assert_string_equal(it->name, "sort.lua");
  assert_int_equal(it->min_change, 12);
  assert_int_equal(it->nargs, 0);
  it = &s.item[4];  /* the last line has no line break */
  assert_string_equal(it->script, "last.lua");
  assert_string_equal(it->name, "z");
  cli_suite_free(&s);
  assert_int_equal(s.n, 0);
}

/* cli_bench_name: "script a b", 0 when it does not fit. */
static void test_bench_name(void **state) {
  char *args[] = {"1", "two", ""};
  char buf[16];
  (void)state;
  assert_int_equal(cli_bench_name(buf, sizeof buf, "s.lua", args, 3), 1);
  assert_string_equal(buf, "s.lua 1 two ");
  assert_int_equal(cli_bench_name(buf, sizeof buf, "s.lua", args, 0), 1);
  assert_string_equal(buf, "s.lua");
  assert_int_equal(cli_bench_name(buf, 12, "s.lua", args, 3), 0);
  assert_int_equal(cli_bench_name(buf, sizeof buf, "fifteen-bytes.l",
                                  args, 0), 1);
  assert_int_equal(cli_bench_name(buf, sizeof buf, "sixteen-bytes.lu",
                                  args, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_nul),
    cmocka_unit_test(test_name_lengths),
    cmocka_unit_test(test_items),
    cmocka_unit_test(test_bench_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
