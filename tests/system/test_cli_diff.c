/*
** test_cli_diff.c - cli/cli_diff.c, `lraf diff A.json B.json` on
** profiles made by lraf profile: identical runs diff to exit 0 and
** similarity 1; a corpus benchmark edited three ways (functions moved,
** one line changed, a cost halved) gives the rows, verdicts and exit
** statuses of the gate in text, Markdown and JSON; the differential
** flame graph; profiles of two cost models are compared but not gated;
** usage errors are status 2.  Runs $LRAF from the repository's root.
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

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "diff");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static void test_diff_identical(void **state) {
  char *out;
  (void)state;
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "profile --format json -o %s/a.json "
                                      "tests/corpus/deltablue.lua",
                                      sh.dir),
                   0);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "profile --format json -o %s/b.json "
                                      "tests/corpus/deltablue.lua",
                                      sh.dir),
                   0);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "diff --threshold 0 %s/a.json %s/b.json",
                                      sh.dir, sh.dir),
                   0);
  out = tutil_sh_slurp(&sh, "out.txt");
  assert_non_null(strstr(out, "similarity 1.000000"));
  free(out);
}

/* Replace the first occurrence of from in s (of at most 1 MB). */
static char *replace(const char *s, const char *from, const char *to) {
  const char *p = strstr(s, from);
  char *r;
  size_t a, b = strlen(to), c;
  assert_non_null(p);
  a = (size_t)(p - s);
  c = strlen(p + strlen(from));
  r = malloc(a + b + c + 1);
  assert_non_null(r);
  memcpy(r, s, a);
  memcpy(r + a, to, b);
  memcpy(r + a + b, p + strlen(from), c + 1);
  return r;
}

/* s with "-- a comment\n" inserted above every line that starts with
   "local function " (every function of a corpus benchmark moves). */
static char *comment_functions(const char *s) {
  size_t n = strlen(s), k = 0;
  char *r = malloc(2 * n + 1);
  const char *p = s;
  assert_non_null(r);
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
    if (strncmp(p, "local function ", 15) == 0) {
      memcpy(r + k, "-- a comment\n", 13);
      k += 13;
    }
    memcpy(r + k, p, len);
    k += len;
    p += len;
  }
  r[k] = '\0';
  return r;
}

/* Profile text as DIR/towers.lua (DIR a or b: the diff follows the file
   to its new directory) into DIR.json. */
static void profile_as(const char *dir, const char *text) {
  char name[64];
  snprintf(name, sizeof name, "%s/towers.lua", dir);
  tutil_sh_put(&sh, name, text);
  assert_int_equal(
      tutil_sh_lraf_here(&sh, "profile --format json -o %s/%s.json %s/%s",
                         sh.dir, dir, sh.dir, name),
      0);
}

/* The first function row of diff's text output (after the totals). */
static char *first_row(char *out) {
  char *row = strstr(out, "(total)\n");
  if (row == NULL) fail_msg("no totals in lraf diff's output:\n%s", out);
  row = strchr(row, '\n') + 1;
  *strchr(row, '\n') = '\0';
  return row;
}

static double json_similarity(void) {
  char *j = tutil_sh_slurp(&sh, "out.txt"), *p = strstr(j, "\"similarity\": ");
  double v;
  if (p == NULL) fail_msg("no similarity in:\n%s", j);
  v = strtod(p + 14, NULL);
  free(j);
  return v;
}

/* A corpus benchmark edited three ways.  A comment above every function
   moves them all: the diff matches them by name and file, similarity 1,
   exit 0 at the strictest gate.  A one-line change in one function puts
   it first and exits with the regression status.  Halving a function's
   cost passes and is listed as an improvement (and fails with
   --fail-on change). */
static void test_diff_edits(void **state) {
  size_t len;
  char *src = tutil_run_slurp("tests/corpus/towers.lua", &len);
  char *moved, *changed, *halved, *out, *row;
  (void)state;
  assert_non_null(src);
  assert_int_equal(tutil_sh_run(&sh, "mkdir -p %s/a %s/b", sh.dir, sh.dir),
                   0);
  profile_as("a", src);

  moved = comment_functions(src);
  profile_as("b", moved);
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "diff --threshold 0.1 --format json %s/a.json "
                         "%s/b.json",
                         sh.dir, sh.dir),
      0);
  assert_true(json_similarity() == 1.0);
  out = tutil_sh_slurp(&sh, "out.txt");
  assert_non_null(strstr(out, "\"added\": 0, \"removed\": 0, \"moved\": 6"));
  assert_non_null(strstr(out, "\"result\": \"pass\""));
  /* the threshold as given, not as a double prints it */
  assert_non_null(strstr(out, "\"gate\": {\"threshold\": 0.1, "));
  free(out);

  changed = replace(src, "  moves = moves + 1\n",
                    "  moves = moves + 1 + 0 * moves\n");
  profile_as("b", changed);
  assert_int_equal(tutil_sh_lraf_here(&sh, "diff %s/a.json %s/b.json", sh.dir,
                                      sh.dir),
                   0);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "diff --threshold 1 %s/a.json %s/b.json",
                                      sh.dir, sh.dir),
                   5);
  out = tutil_sh_slurp(&sh, "out.txt");
  row = first_row(out);
  if (strstr(row, "regression") == NULL || strstr(row, "move_top (") == NULL)
    fail_msg("move_top is not the first row, as a regression: %s", row);
  free(out);
  out = tutil_sh_slurp(&sh, "err.txt");
  assert_non_null(strstr(out, "regression: move_top ("));
  free(out);
  /* below the absolute floor it passes */
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "diff --threshold 1 --min-change 10000000 %s/a.json "
                         "%s/b.json",
                         sh.dir, sh.dir),
      0);

  halved = replace(src, "for m = 1, (1 << n) - 1 do",
                   "for m = 1, (1 << n) - 1, 2 do");
  profile_as("b", halved);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "diff --threshold 1 %s/a.json %s/b.json",
                                      sh.dir, sh.dir),
                   0);
  out = tutil_sh_slurp(&sh, "out.txt");
  row = strstr(out, "\nimprovements (");
  if (row == NULL || strstr(row, "iterative (") == NULL)
    fail_msg("iterative is not listed as an improvement:\n%s", out);
  free(out);
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "diff --threshold 1 --fail-on change %s/a.json "
                         "%s/b.json",
                         sh.dir, sh.dir),
      5);
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "diff --threshold 1 --format markdown %s/a.json "
                         "%s/b.json",
                         sh.dir, sh.dir),
      0);
  out = tutil_sh_slurp(&sh, "out.txt");
  assert_non_null(strstr(out, "| function | before | after |"));
  assert_non_null(strstr(out, "improvement |"));
  free(out);
  free(src);
  free(moved);
  free(changed);
  free(halved);
}

/* Two cost models: compared, said on stderr, never gated. */
static void test_cost_models(void **state) {
  char *err;
  (void)state;
  tutil_sh_put(&sh, "m.lua", "local s = 0\nfor i = 1, 100 do s = s + i end\n");
  assert_int_equal(
      tutil_sh_lraf_here(&sh, "profile --format json -o %s/o.json %s/m.lua",
                         sh.dir, sh.dir),
      0);
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "profile --mode overhead --format json -o %s/v.json "
                         "%s/m.lua",
                         sh.dir, sh.dir),
      0);
  assert_int_equal(tutil_sh_lraf_here(&sh, "diff %s/o.json %s/v.json", sh.dir,
                                      sh.dir),
                   0);
  err = tutil_sh_slurp(&sh, "err.txt");
  assert_non_null(strstr(err, "lraf diff: the profiles have different cost "
                         "models ("));
  free(err);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "diff --threshold 1 %s/o.json %s/v.json",
                                      sh.dir, sh.dir),
                   2);
  err = tutil_sh_slurp(&sh, "err.txt");
  assert_non_null(strstr(err, "lraf: lraf diff: no gate across cost models: "
                         "profile both with the same one\n"));
  free(err);
}

/* --format svg: the differential flame graph, an SVG document. */
static void test_svg(void **state) {
  char *out;
  (void)state;
  tutil_sh_put(&sh, "s.lua",
               "local function f(n) local s = 0 for i = 1, n do s = s + i "
               "end return s end\nf(100) f(200)\n");
  assert_int_equal(
      tutil_sh_lraf_here(&sh, "profile --format json -o %s/s.json %s/s.lua",
                         sh.dir, sh.dir),
      0);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "diff --format svg %s/s.json %s/s.json",
                                      sh.dir, sh.dir),
                   0);
  out = tutil_sh_slurp(&sh, "out.txt");
  assert_non_null(strstr(out, "<svg"));
  assert_non_null(strstr(out, "</svg>"));
  free(out);
}

static void test_refusals(void **state) {
  static const struct { const char *args, *err; } rows[] = {
    {"x.json", "lraf: lraf diff needs two JSON profiles\n"},
    {"--format xml a b", "lraf: lraf diff --format needs text, markdown, "
     "json or svg, not 'xml'\n"},
    {"DIR/missing.json DIR/missing.json", "lraf: cannot open "},
    {"DIR/notjson.json DIR/notjson.json", "lraf: "},
    {"--threshold -1 a b", "lraf: --threshold "},
  };
  size_t k;
  (void)state;
  tutil_sh_put(&sh, "notjson.json", "hello");
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    char args[512], *err, *p;
    int st;
    snprintf(args, sizeof args, "%s", rows[k].args);
    while ((p = strstr(args, "DIR")) != NULL) {  /* DIR: the suite's */
      char rest[512];
      snprintf(rest, sizeof rest, "%s", p + 3);
      snprintf(p, sizeof args - (size_t)(p - args), "%s%s", sh.dir, rest);
    }
    st = tutil_sh_lraf_here(&sh, "diff %s", args);
    err = tutil_sh_slurp(&sh, "err.txt");
    if (st != 2 || strncmp(err, rows[k].err, strlen(rows[k].err)) != 0)
      fail_msg("lraf diff %s: %d '%s'", args, st, err);
    free(err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_diff_identical),
    cmocka_unit_test(test_diff_edits),
    cmocka_unit_test(test_cost_models),
    cmocka_unit_test(test_svg),
    cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
