/*
** test_cli_gate.c - cli/cli_gate.c, the CI gate of lraf diff and lraf
** bench --baseline: a table of gates (as their options give them) and
** counts before and after, each with the verdict the documented rule
** gives (a change counts when it is at least --min-change units and
** more than --threshold percent; from 0 any growth counts) and whether
** it fails; the rule decided exactly (at, one unit past and one unit
** short of thresholds with decimals, counts at the ends of int64); the
** thresholds refused; the gate's result over many rows; the change as
** text; and the writers of JSON strings (read back by cli_json.c) and
** Markdown cells.
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
#include "tutil_mem.h"
#include "tutil_stderr.h"

/* What `lraf diff OPTIONS a.json b.json` parses into (a's strings
   live until the next call). */
static void args_of(const char *options, cli_args *a) {
  static char line[200];
  char *argv[20], *w;
  int argc = 0;
  snprintf(line, sizeof line, "diff %s a.json b.json", options);
  for (w = strtok(line, " "); w != NULL; w = strtok(NULL, " "))
    argv[argc++] = w;
  assert_int_equal(cli_parse(cli_command_find("diff"), argc, argv, a),
                   CLI_OK);
}

static void gate_of(const char *options, cli_gate *g) {
  cli_args a;
  args_of(options, &a);
  cli_gate_of(&a, g);
}

static const struct judged {
  const char *options;
  int64_t before, after;
  cli_verdict verdict;
  int fails;
} judged[] = {
  /* no gate: changes are named, nothing fails */
  {"",                          100, 101, CLI_REGRESSION, 0},
  {"",                          100,  99, CLI_IMPROVEMENT, 0},
  {"",                          100, 100, CLI_SAME, 0},
  /* --threshold: more than P percent */
  {"--threshold 2",             100, 102, CLI_SAME, 0},
  {"--threshold 2",             100, 103, CLI_REGRESSION, 1},
  {"--threshold 2",             100,  98, CLI_SAME, 0},
  {"--threshold 2",             100,  97, CLI_IMPROVEMENT, 0},
  {"--threshold 2",               0,   1, CLI_REGRESSION, 1},
  {"--threshold 2",               5,   0, CLI_IMPROVEMENT, 0},
  {"--threshold 2",               0,   0, CLI_SAME, 0},
  {"--threshold 0",             100, 101, CLI_REGRESSION, 1},
  {"--threshold 0.5",          1000, 1005, CLI_SAME, 0},
  {"--threshold 0.5",          1000, 1006, CLI_REGRESSION, 1},
  /* --min-change: at least N units */
  {"--min-change 10",           100, 109, CLI_SAME, 0},
  {"--min-change 10",           100, 110, CLI_REGRESSION, 1},
  {"--min-change 10",           100,  90, CLI_IMPROVEMENT, 0},
  {"--min-change 10",           100,  91, CLI_SAME, 0},
  /* both must hold */
  {"--threshold 5 --min-change 10", 1000, 1040, CLI_SAME, 0},
  {"--threshold 5 --min-change 10", 1000, 1060, CLI_REGRESSION, 1},
  {"--threshold 5 --min-change 10",  100,  109, CLI_SAME, 0},
  {"--threshold 5 --min-change 10",  100,  110, CLI_REGRESSION, 1},
  /* --fail-on change: improvements fail too */
  {"--fail-on change",          100,  99, CLI_IMPROVEMENT, 1},
  {"--fail-on change",          100, 101, CLI_REGRESSION, 1},
  {"--fail-on change",          100, 100, CLI_SAME, 0},
  {"--fail-on regression",      100,  99, CLI_IMPROVEMENT, 0},
  {"--fail-on change --threshold 10", 100, 89, CLI_IMPROVEMENT, 1},
  {"--fail-on change --threshold 10", 100, 90, CLI_SAME, 0},
  /* the ends of the range */
  {"--threshold 99",  0, INT64_MAX, CLI_REGRESSION, 1},
  {"--threshold 99",  INT64_MAX, 0, CLI_IMPROVEMENT, 0},
  /* one unit counts, however large the counts */
  {"--min-change 1",  INT64_C(1) << 52, (INT64_C(1) << 52) + 1,
   CLI_REGRESSION, 1},
};

/* Fails unless each of the n rows is judged as it says. */
static void expect_judged(const struct judged *rows, size_t n) {
  size_t k;
  for (k = 0; k < n; k++) {
    const struct judged *j = &rows[k];
    cli_gate g;
    cli_verdict v;
    gate_of(j->options, &g);
    v = cli_gate_judge(&g, j->before, j->after);
    if (v != j->verdict || cli_gate_fails(&g, v) != j->fails)
      fail_msg("'%s' %lld -> %lld: %s (fails %d), want %s (fails %d)",
               j->options, (long long)j->before, (long long)j->after,
               cli_verdict_name(v), cli_gate_fails(&g, v),
               cli_verdict_name(j->verdict), j->fails);
  }
}

static void test_judge(void **state) {
  (void)state;
  expect_judged(judged, sizeof judged / sizeof judged[0]);
}

/* Exactly at a threshold with decimals is within it; one unit more is
   past it.  before is 10^17, so that a unit is far below what a double
   of the counts tells apart: the rule is decided in integers. */
static void test_judge_at_threshold(void **state) {
  static const struct { const char *threshold; int64_t at; } rows[] = {
    /* at: the change that is exactly the threshold of 10^17 */
    {"0.1",      INT64_C(100000000000000)},
    {"0.3",      INT64_C(300000000000000)},
    {"12.5",     INT64_C(12500000000000000)},
    {"33.3",     INT64_C(33300000000000000)},
    {"1",        INT64_C(1000000000000000)},
    {"0.000001", INT64_C(1000000000)},
    {"99.999999", INT64_C(99999999000000000)},
  };
  const int64_t before = INT64_C(100000000000000000);
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    const struct { int64_t after; cli_verdict verdict; } cases[] = {
      {before + rows[k].at - 1, CLI_SAME},
      {before + rows[k].at,     CLI_SAME},
      {before + rows[k].at + 1, CLI_REGRESSION},
      {before - rows[k].at + 1, CLI_SAME},
      {before - rows[k].at,     CLI_SAME},
      {before - rows[k].at - 1, CLI_IMPROVEMENT},
    };
    char options[64];
    size_t c;
    cli_gate g;
    snprintf(options, sizeof options, "--threshold %s", rows[k].threshold);
    gate_of(options, &g);
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      cli_verdict v = cli_gate_judge(&g, before, cases[c].after);
      if (v != cases[c].verdict)
        fail_msg("'%s' %lld -> %lld: %s, want %s", options,
                 (long long)before, (long long)cases[c].after,
                 cli_verdict_name(v), cli_verdict_name(cases[c].verdict));
    }
  }
}

/* The ends of int64: counts a double cannot tell apart, changes that
   do not fit in int64 (counts below 0 are measured against |before|),
   growth from 0 past any threshold. */
static void test_judge_huge(void **state) {
  static const struct judged rows[] = {
    {"--threshold 0",  INT64_MAX, INT64_MAX - 1, CLI_IMPROVEMENT, 0},
    {"--threshold 0",  INT64_MAX - 1, INT64_MAX, CLI_REGRESSION, 1},
    {"--threshold 0",  INT64_MAX, INT64_MAX, CLI_SAME, 0},
    {"--threshold 0.000001", INT64_C(1) << 62, (INT64_C(1) << 62) + 1,
     CLI_SAME, 0},
    {"--min-change 1", (INT64_C(1) << 62) + 1, INT64_C(1) << 62,
     CLI_IMPROVEMENT, 0},
    {"--threshold 1000000000000", 0, 1, CLI_REGRESSION, 1},
    {"--threshold 1000000000000", 0, INT64_MAX, CLI_REGRESSION, 1},
    {"--threshold 1000000000000", 1, 10000000001, CLI_SAME, 0},
    {"--threshold 1000000000000", 1, 10000000002, CLI_REGRESSION, 1},
    {"--threshold 100", INT64_MAX, 0, CLI_SAME, 0},
    {"--threshold 99.999999", INT64_MAX, 0, CLI_IMPROVEMENT, 0},
    {"--min-change 9223372036854775807", 0, INT64_MAX, CLI_REGRESSION, 1},
    {"--min-change 9223372036854775807", 1, INT64_MAX, CLI_SAME, 0},
    /* after - before overflows int64 */
    {"--threshold 0",  -1, INT64_MAX, CLI_REGRESSION, 1},
    {"--threshold 0",  INT64_MIN, INT64_MAX, CLI_REGRESSION, 1},
    {"--threshold 0",  INT64_MAX, INT64_MIN, CLI_IMPROVEMENT, 0},
    {"--min-change 9223372036854775807", INT64_MIN, 0, CLI_REGRESSION, 1},
    {"--threshold 100", INT64_MIN, 0, CLI_SAME, 0},
    {"--threshold 99.999999", INT64_MIN, 0, CLI_REGRESSION, 1},
  };
  (void)state;
  expect_judged(rows, sizeof rows / sizeof rows[0]);
}

/* A threshold the gate cannot hold exactly is refused, with the option
   and the value named. */
static void test_threshold_refused(void **state) {
  static const char *const bad[] = {
    "0.1234567", "0.0000001", "1e3", "1000000000001", "-1", "-0", "+2",
    "nan", "inf", "", ".", "2%", "0x10", "1.2.3", "1,5",
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char *argv[] = {"diff", "--threshold", (char *)bad[k], "a.json",
                    "b.json"};
    char want[200], *said;
    cli_args a;
    tutil_stderr c;
    int st;
    assert_int_equal(tutil_stderr_begin(&c), 0);
    st = cli_parse(cli_command_find("diff"), 5, argv, &a);
    said = tutil_stderr_end(&c);
    assert_non_null(said);
    snprintf(want, sizeof want, "lraf: --threshold needs a percentage from "
             "0 to 1000000000000 with at most 6 decimals, not '%s'\n",
             bad[k]);
    if (st != CLI_EUSAGE || strcmp(said, want) != 0)
      fail_msg("--threshold '%s': status %d, said '%s'", bad[k], st, said);
    free(said);
  }
}

/* The gate over rows: fails rows failed, regressions of them grew. */
static void test_result(void **state) {
  static const struct {
    const char *options;
    int fails, regressions;
    const char *result;
  } rows[] = {
    {"",                  3, 3, "no gate"},
    {"--threshold 1",     0, 0, "pass"},
    {"--threshold 1",     2, 2, "regression"},
    {"--fail-on change",  0, 0, "pass"},
    {"--fail-on change",  2, 0, "change"},
    {"--fail-on change",  2, 1, "regression"},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    cli_gate g;
    gate_of(rows[k].options, &g);
    assert_string_equal(cli_gate_result(&g, rows[k].fails,
                                        rows[k].regressions),
                        rows[k].result);
  }
}

static void test_gate_text(void **state) {
  static const struct { const char *options, *text; } rows[] = {
    {"--threshold 2", "threshold 2%, min-change 0, fail on regression"},
    {"--threshold 0.25 --min-change 500 --fail-on change",
     "threshold 0.25%, min-change 500, fail on change"},
    /* exactly what was given, in plain decimals */
    {"--threshold 0.000001", "threshold 0.000001%, min-change 0, fail on "
     "regression"},
    {"--threshold 012.500", "threshold 12.5%, min-change 0, fail on "
     "regression"},
    {"--threshold 1000000000000", "threshold 1000000000000%, min-change 0, "
     "fail on regression"},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    cli_gate g;
    tutil_mem w;
    gate_of(rows[k].options, &g);
    cli_gate_text(tutil_mem_start(&w), &g);
    assert_string_equal(tutil_mem_done(&w), rows[k].text);
    free(w.buf);
  }
}

static void test_percent(void **state) {
  static const struct { int64_t before, after; const char *text; } rows[] = {
    {100, 101, "+1.00%"}, {200, 150, "-25.00%"}, {3, 4, "+33.33%"},
    {0, 5, "new"}, {5, 0, "gone"}, {8, 8, "+0.00%"},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    char buf[32];
    cli_percent(buf, sizeof buf, rows[k].before, rows[k].after);
    assert_string_equal(buf, rows[k].text);
  }
}

/* Every byte but NUL in a string, written by cli_json_str and read back
   by cli_json_parse, comes back the same. */
static void test_json_str(void **state) {
  char s[256];
  tutil_mem w;
  cli_json *v;
  lraf_error err;
  char *text;
  int c;
  (void)state;
  for (c = 1; c < 256; c++) s[c - 1] = (char)c;
  s[255] = '\0';
  cli_json_str(tutil_mem_start(&w), s);
  text = tutil_mem_done(&w);
  assert_int_equal(cli_json_parse(text, w.len, "s", &v, &err), LRAF_OK);
  assert_int_equal(v->kind, CLI_JSON_STRING);
  assert_string_equal(v->string, s);
  cli_json_free(v);
  free(text);
}

/* A Markdown cell: no '|' that ends it, no line break, no code span or
   tag opened by the text. */
static void test_md_cell(void **state) {
  tutil_mem w;
  char *text;
  const char *p;
  (void)state;
  cli_md_cell(tutil_mem_start(&w), "a|b\nc\r`d`<e>f");
  text = tutil_mem_done(&w);
  for (p = text; *p; p++) {
    assert_true(*p != '\n' && *p != '\r' && *p != '`' && *p != '<' &&
                *p != '>');
    if (*p == '|') assert_true(p > text && p[-1] == '\\');
  }
  assert_non_null(strstr(text, "a\\|b"));
  assert_non_null(strstr(text, "&#96;d&#96;&#60;e&#62;f"));
  free(text);
}

/* --format of diff and bench: text by default, markdown, json; anything
   else is said and refused. */
static void test_report_format(void **state) {
  static const struct { const char *options; int format; } rows[] = {
    {"", 0}, {"--format text", 0}, {"--format markdown", 1},
    {"--format json", 2}, {"--format svg", -1}, {"--format JSON", -1},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    cli_args a;
    args_of(rows[k].options, &a);
    assert_int_equal(cli_report_format(&a, "diff"), rows[k].format);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_judge),
    cmocka_unit_test(test_judge_at_threshold),
    cmocka_unit_test(test_judge_huge),
    cmocka_unit_test(test_threshold_refused),
    cmocka_unit_test(test_result),
    cmocka_unit_test(test_gate_text),
    cmocka_unit_test(test_percent),
    cmocka_unit_test(test_json_str),
    cmocka_unit_test(test_md_cell),
    cmocka_unit_test(test_report_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
