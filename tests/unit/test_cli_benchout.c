/*
** test_cli_benchout.c - cli/cli_benchout.c, what lraf bench writes
** after its runs, for a run compared with a baseline (one benchmark
** regressed, one improved, one the same, one new, one removed): the
** result's name for every state of the gate (a table); the JSON
** summary read back with every count, change and verdict; the text and
** Markdown tables with a row per benchmark, names escaped; the gate
** line of both for gates of every kind, and a benchmark's own limits; the
** complaints naming each failing or mismatched benchmark; the
** hyperfine-shaped exports, times and relative counts included.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"
#include "tutil_bench.h"
#include "tutil_mem.h"

static const char baseline_text[] =
  "{\"format\": \"lraf-baseline\", \"version\": 1, \"name\": \"main\", "
  "\"benchmarks\": ["
  "{\"name\": \"up.lua\", \"script\": \"up.lua\", \"args\": [], "
  "\"count\": 1000, \"model\": \"m\", \"lraf_version\": \"" LRAF_VERSION
  "\", \"vm\": \"stock\"},"
  "{\"name\": \"down|pipe\", \"script\": \"down.lua\", \"args\": [\"7\"], "
  "\"count\": 1000, \"model\": \"m\", \"lraf_version\": \"" LRAF_VERSION
  "\", \"vm\": \"stock\"},"
  "{\"name\": \"same.lua\", \"script\": \"same.lua\", \"args\": [], "
  "\"count\": 500, \"model\": \"m\", \"lraf_version\": \"" LRAF_VERSION
  "\", \"vm\": \"stock\"},"
  "{\"name\": \"gone.lua\", \"script\": \"gone.lua\", \"args\": [], "
  "\"count\": 9, \"model\": \"m\", \"lraf_version\": \"" LRAF_VERSION
  "\", \"vm\": \"stock\"}]}";

static const char suite_text[] =
  "up.lua\n"
  "down.lua name=down|pipe -- 7\n"
  "same.lua\n"
  "new.lua\n";
static const int64_t counts[] = {1100, 400, 500, 2000};

/* The run above (of suite, suite_text or one like it with limits of its
   own), compared with the baseline through gate g. */
typedef struct compared {
  tutil_bench u;
  cli_baseline b;
  double times[4][3];
} compared;

static void compare_gate(compared *c, const char *suite, const cli_gate *g) {
  lraf_error err;
  int i, k;
  memset(c, 0, sizeof *c);
  assert_int_equal(tutil_bench_of(&c->u, suite, counts, "m"), 0);
  assert_int_equal(cli_baseline_parse(baseline_text, strlen(baseline_text),
                                      "main.json", &c->b, &err), LRAF_OK);
  c->u.r.baseline_name = "main";
  c->u.r.baseline_file = ".lraf/baselines/main.json";
  c->u.r.base = &c->b;
  c->u.r.gate = *g;
  for (i = 0; i < 4; i++) {
    cli_bench_result *x = &c->u.res[i];
    for (k = 0; k < 3; k++) c->times[i][k] = 0.001 * (i + 1) * (k + 1);
    x->times = c->times[i];
    x->runs = 3;
    x->warmup = 1;
    x->mean = x->median = 0.002 * (i + 1);
    x->stddev = 0.001 * (i + 1);
    x->min = 0.001 * (i + 1);
    x->max = 0.003 * (i + 1);
  }
  cli_bench_judge(&c->u.r);
}

/* Through the gate of --threshold threshold percent (and --fail-on
   change when change). */
static void compare(compared *c, int64_t threshold, int change) {
  cli_gate g = {1, threshold * CLI_THRESHOLD_SCALE, 0, change};
  compare_gate(c, suite_text, &g);
}

static void release(compared *c) {
  cli_baseline_free(&c->b);
  tutil_bench_free(&c->u);
}

static void test_result_name(void **state) {
  static const struct {
    int64_t threshold;  /* percent */
    int change;
    const char *result;
  } rows[] = {
    {0, 0, "regression"},    /* up.lua grew 10% */
    {20, 0, "pass"},         /* within 20%; down shrank 60% */
    {20, 1, "change"},       /* the improvement fails too */
    {70, 1, "pass"},
    {5, 1, "regression"},
  };
  size_t k;
  compared c;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    compare(&c, rows[k].threshold, rows[k].change);
    assert_string_equal(cli_bench_result_name(&c.u.r), rows[k].result);
    release(&c);
  }
  /* no baseline; a mismatch not allowed */
  compare(&c, 0, 0);
  c.u.r.baseline_name = NULL;
  assert_string_equal(cli_bench_result_name(&c.u.r), "no baseline");
  release(&c);
  assert_int_equal(tutil_bench_of(&c.u, suite_text, counts, "other"), 0);
  assert_int_equal(cli_baseline_parse(baseline_text, strlen(baseline_text),
                                      "b", &c.b, &(lraf_error){0}), LRAF_OK);
  c.u.r.baseline_name = "main";
  c.u.r.base = &c.b;
  c.u.r.gate.on = 1;
  cli_bench_judge(&c.u.r);
  assert_string_equal(cli_bench_result_name(&c.u.r), "mismatch");
  release(&c);
}

static const cli_json *bench(const cli_json *list, const char *name) {
  const cli_json *b;
  for (b = list->child; b != NULL; b = b->next)
    if (strcmp(cli_json_get(b, "name")->string, name) == 0) return b;
  fail_msg("no benchmark %s", name);
  return NULL;
}

static void test_json(void **state) {
  static const struct {
    const char *name, *verdict;
    int64_t count, change;
  } rows[] = {
    {"up.lua", "regression", 1100, 100},
    {"down|pipe", "improvement", 400, -600},
    {"same.lua", "same", 500, 0},
  };
  compared c;
  tutil_mem w;
  cli_json *v;
  const cli_json *list, *b;
  lraf_error err;
  char *text;
  size_t k;
  (void)state;
  compare(&c, 5, 0);
  cli_bench_json(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  assert_int_equal(cli_json_parse(text, w.len, "summary", &v, &err), LRAF_OK);
  assert_string_equal(cli_json_get(v, "format")->string, "lraf-bench");
  assert_string_equal(cli_json_get(v, "result")->string, "regression");
  assert_int_equal(cli_json_get(v, "regressions")->integer, 1);
  assert_int_equal(cli_json_get(v, "improvements")->integer, 1);
  assert_int_equal(cli_json_get(v, "added")->integer, 1);
  assert_int_equal(cli_json_get(v, "removed")->count, 1);
  assert_string_equal(cli_json_get(v, "removed")->child->string, "gone.lua");
  assert_true(cli_json_get(cli_json_get(v, "gate"), "threshold")->number == 5);
  list = cli_json_get(v, "benchmarks");
  assert_int_equal(list->count, 4);
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    b = bench(list, rows[k].name);
    assert_string_equal(cli_json_get(b, "verdict")->string, rows[k].verdict);
    assert_true(cli_json_get(b, "count")->integer == rows[k].count);
    assert_true(cli_json_get(b, "change")->integer == rows[k].change);
    assert_int_equal(cli_json_get(b, "exact")->integer, 1);
  }
  b = bench(list, "down|pipe");
  assert_string_equal(cli_json_get(b, "args")->child->string, "7");
  assert_true(cli_json_get(cli_json_get(b, "wall"), "max")->number == 0.006);
  b = bench(list, "new.lua");
  assert_string_equal(cli_json_get(b, "verdict")->string, "new");
  assert_int_equal(cli_json_get(b, "baseline")->kind, CLI_JSON_NULL);
  cli_json_free(v);
  free(text);
  release(&c);
}

/* The text and Markdown tables: a row per benchmark with its verdict,
   the removed one, the result; '|' in a name escaped in Markdown. */
static void test_tables(void **state) {
  static const char *const text_rows[] = {
    "regression   up.lua", "improvement  down|pipe", "same         same.lua",
    "new          new.lua", "removed      gone.lua",
    "result: regression (1 regressed, 1 improved, 1 new)",
  };
  compared c;
  tutil_mem w;
  char *text;
  size_t k;
  (void)state;
  compare(&c, 5, 0);
  cli_bench_text(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  for (k = 0; k < sizeof text_rows / sizeof text_rows[0]; k++)
    if (strstr(text, text_rows[k]) == NULL)
      fail_msg("no '%s' in:\n%s", text_rows[k], text);
  free(text);
  cli_bench_markdown(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  assert_non_null(strstr(text, "down\\|pipe"));
  assert_null(strstr(text, "down|pipe"));
  assert_non_null(strstr(text, "regression"));
  assert_non_null(strstr(text, "gone.lua"));
  free(text);
  release(&c);
}

/* The gate line of the text report, and the gate sentence of the
   Markdown one, as docs/bench.md shows them, for gates of every kind
   (the first: none given, a baseline's default gate, any growth); the
   result follows from the counts above: up.lua +100 (+10%), down|pipe
   -600 (-60%). */
static void test_gate_line(void **state) {
  static const struct {
    cli_gate gate;
    const char *line, *result;
  } rows[] = {
    {{0, 0, 0, 0}, "threshold 0%, min-change 0, fail on regression",
     "regression"},
    {{1, 12500000, 0, 0}, "threshold 12.5%, min-change 0, fail on regression",
     "pass"},
    {{1, 250000, 100, 0},
     "threshold 0.25%, min-change 100, fail on regression", "regression"},
    {{1, 2750000, 150, 1}, "threshold 2.75%, min-change 150, fail on change",
     "change"},
    {{1, 75000000, 0, 1}, "threshold 75%, min-change 0, fail on change", "pass"},
  };
  compared c;
  tutil_mem w;
  char want[256], *text;
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    compare_gate(&c, suite_text, &rows[k].gate);
    cli_bench_text(tutil_mem_start(&w), &c.u.r);
    text = tutil_mem_done(&w);
    snprintf(want, sizeof want, "\nbaseline main (.lraf/baselines/main.json), "
             "gate %s\n", rows[k].line);
    if (strncmp(text, want, strlen(want)) != 0)
      fail_msg("gate %zu: want '%s' first, got:\n%s", k, want, text);
    snprintf(want, sizeof want, "\nresult: %s (", rows[k].result);
    if (strstr(text, want) == NULL)
      fail_msg("gate %zu: no '%s' in:\n%s", k, want + 1, text);
    free(text);
    cli_bench_markdown(tutil_mem_start(&w), &c.u.r);
    text = tutil_mem_done(&w);
    snprintf(want, sizeof want, "; gate %s: **%s**.", rows[k].line,
             rows[k].result);
    if (strstr(text, want) == NULL)
      fail_msg("gate %zu: no '%s' in:\n%s", k, want, text);
    free(text);
    release(&c);
  }
}

/* A benchmark with limits of its own from the suite shows them after
   its name in the text report, as its gate (the command line's, with
   the suite's limits); the others show none. */
static void test_own_limits(void **state) {
  static const char suite[] =
    "up.lua threshold=1.5 min-change=50\n"
    "down.lua name=down|pipe min-change=700 -- 7\n"
    "same.lua\n"
    "new.lua\n";
  static const char *const rows[] = {
    "regression   up.lua  (threshold 1.5%, min-change 50)\n",
    "same         down|pipe  (threshold 0.5%, min-change 700)\n",
    "same         same.lua\n",
  };
  cli_gate g = {1, 500000, 20, 0};
  compared c;
  tutil_mem w;
  char *text;
  size_t k;
  (void)state;
  compare_gate(&c, suite, &g);
  cli_bench_text(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++)
    if (strstr(text, rows[k]) == NULL)
      fail_msg("no '%s' in:\n%s", rows[k], text);
  assert_non_null(strstr(text, ", gate threshold 0.5%, min-change 20, "
                         "fail on regression\n"));
  free(text);
  release(&c);
}

static void test_complaints(void **state) {
  compared c;
  tutil_mem w;
  char *text;
  (void)state;
  compare(&c, 5, 1);
  cli_bench_complaints(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  assert_string_equal(text,
    "lraf bench: regression: up.lua +100 (+10.00%; threshold 5%, "
    "min-change 0, fail on change)\n"
    "lraf bench: improvement: down|pipe -600 (-60.00%; threshold 5%, "
    "min-change 0, fail on change)\n");
  free(text);
  release(&c);
}

static void test_exports(void **state) {
  compared c;
  tutil_mem w;
  cli_json *v;
  const cli_json *r;
  lraf_error err;
  char *text;
  int i;
  (void)state;
  compare(&c, 5, 0);
  cli_bench_export_json(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  assert_int_equal(cli_json_parse(text, w.len, "export", &v, &err), LRAF_OK);
  assert_int_equal(cli_json_get(v, "results")->count, 4);
  for (r = cli_json_get(v, "results")->child, i = 0; r; r = r->next, i++) {
    assert_string_equal(cli_json_get(r, "command")->string,
                        c.u.suite.item[i].name);
    assert_int_equal(cli_json_get(r, "times")->count, 3);
    assert_int_equal(cli_json_get(r, "exit_codes")->count, 3);
    assert_true(cli_json_get(r, "times")->child->number == c.times[i][0]);
    assert_true(cli_json_get(r, "count")->integer == counts[i]);
  }
  cli_json_free(v);
  free(text);
  /* the relative column: each count over the least (down's 400) */
  cli_bench_export_markdown(tutil_mem_start(&w), &c.u.r);
  text = tutil_mem_done(&w);
  assert_non_null(strstr(text, "| `up.lua` | 1100 | 2.0 ± 1.0 | 1.0 | 3.0 | "
                         "2.75 |"));
  assert_non_null(strstr(text, "| `down\\|pipe` | 400 | 4.0 ± 2.0 | 2.0 | "
                         "6.0 | 1.00 |"));
  free(text);
  release(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_result_name),
    cmocka_unit_test(test_json),
    cmocka_unit_test(test_tables),
    cmocka_unit_test(test_gate_line),
    cmocka_unit_test(test_own_limits),
    cmocka_unit_test(test_complaints),
    cmocka_unit_test(test_exports),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
