/*
** test_cli_baseline.c - cli/cli_baseline.c, lraf bench's baselines: a
** run saved and read back gives every benchmark's name, script,
** arguments (odd bytes too), count, model, version and VM, and saving
** it again the same bytes; a write that cannot be done says which file
** and leaves none behind; every malformed baseline is refused naming
** the file and the member; names that may name a baseline; and the
** comparison of a run with a baseline (the suite's own limits, added,
** removed, mismatched and gated benchmarks).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"
#include "tutil_bench.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "baseline");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* A run of the benchmarks of suite text, the i-th counting counts[i]. */
static void run_of(tutil_bench *u, const char *text, const int64_t *counts,
                   const char *model) {
  assert_int_equal(tutil_bench_of(u, text, counts, model), 0);
}

/* Read the baseline file path back (LRAF_OK or the parse's status). */
static lraf_status load(const char *path, cli_baseline *b, lraf_error *err) {
  char *text;
  size_t len;
  lraf_status st;
  memset(b, 0, sizeof *b);
  if ((text = tutil_run_slurp(path, &len)) == NULL) return LRAF_EIO;
  st = cli_baseline_parse(text, len, path, b, err);
  free(text);
  return st;
}

static const char suite_text[] =
  "a.lua\n"
  "b.lua name=bee threshold=10 -- x \"q\" back\\slash tab\tnot\n"
  "c.lua min-change=100 -- \xc3\xa9 \x01\n";

static void test_round_trip(void **state) {
  static const int64_t counts[] = {0, 123456789012345, 7};
  tutil_bench u;
  cli_baseline b;
  lraf_error err;
  char path[256], *first, *second;
  size_t n1, n2;
  int i, k;
  (void)state;
  run_of(&u, suite_text, counts, "original-1");
  cli_baseline_path(path, sizeof path, sh.dir, "main");
  assert_int_equal(cli_baseline_save(&u.r, "main", path, &err), LRAF_OK);
  assert_int_equal(load(path, &b, &err), LRAF_OK);
  assert_string_equal(b.name, "main");
  assert_int_equal(b.n, u.suite.n);
  for (i = 0; i < b.n; i++) {
    const cli_bench_item *it = &u.suite.item[i];
    const cli_baseline_entry *e = cli_baseline_find(&b, it->name);
    assert_ptr_equal(e, &b.entry[i]);
    assert_string_equal(e->script, it->script);
    assert_int_equal(e->nargs, it->nargs);
    for (k = 0; k < it->nargs; k++) assert_string_equal(e->args[k], it->args[k]);
    assert_true(e->count == counts[i]);
    assert_string_equal(e->model, "original-1");
    assert_string_equal(e->lraf_version, LRAF_VERSION);
    assert_string_equal(e->vm, "stock");
  }
  assert_null(cli_baseline_find(&b, "d.lua"));
  cli_baseline_free(&b);
  /* the same run saves the same bytes */
  first = tutil_run_slurp(path, &n1);
  assert_int_equal(cli_baseline_save(&u.r, "main", path, &err), LRAF_OK);
  second = tutil_run_slurp(path, &n2);
  assert_int_equal(n1, n2);
  assert_memory_equal(first, second, n1);
  free(first);
  free(second);
  tutil_bench_free(&u);
}

/* A file that cannot be written: the error names it, and no temporary
   file is left next to it. */
static void test_save_fails(void **state) {
  static const int64_t counts[] = {1, 2, 3};
  tutil_bench u;
  lraf_error err;
  char path[256], want[300];
  DIR *d;
  struct dirent *de;
  (void)state;
  run_of(&u, suite_text, counts, "m");
  snprintf(path, sizeof path, "%s/sub", sh.dir);
  assert_int_equal(cli_mkdirs(path, &err), LRAF_OK);
  /* the target is a directory: the rename fails */
  assert_int_equal(cli_baseline_save(&u.r, "x", path, &err), LRAF_EIO);
  snprintf(want, sizeof want, "cannot write %s: ", path);
  assert_memory_equal(err.message, want, strlen(want));
  snprintf(path, sizeof path, "%s/none/x.json", sh.dir);
  assert_int_equal(cli_baseline_save(&u.r, "x", path, &err), LRAF_EIO);
  snprintf(want, sizeof want, "cannot write %s: No such file", path);
  assert_memory_equal(err.message, want, strlen(want));
  assert_non_null(d = opendir(sh.dir));
  while ((de = readdir(d)) != NULL)
    assert_null(strstr(de->d_name, ".tmp"));
  closedir(d);
  tutil_bench_free(&u);
}

static void test_mkdirs(void **state) {
  lraf_error err;
  char dir[256];
  (void)state;
  snprintf(dir, sizeof dir, "%s/m/n/o/", sh.dir);
  assert_int_equal(cli_mkdirs(dir, &err), LRAF_OK);
  assert_int_equal(cli_mkdirs(dir, &err), LRAF_OK);  /* already there */
  /* below a file */
  assert_int_equal(tutil_sh_write(&sh, "m/n/o/f", "x"), 0);
  snprintf(dir, sizeof dir, "%s/m/n/o/f/below", sh.dir);
  assert_int_equal(cli_mkdirs(dir, &err), LRAF_EIO);
  assert_non_null(strstr(err.message, "cannot make the directory "));
  assert_non_null(strstr(err.message, dir));
  assert_int_equal(cli_mkdirs("", &err), LRAF_EIO);
}

/* ---- malformed baselines ---- */

#define E1 "\"name\": \"a\", \"script\": \"a.lua\", \"args\": [], " \
           "\"model\": \"m\", \"lraf_version\": \"v\", \"vm\": \"stock\""
#define HEAD "{\"format\": \"lraf-baseline\", \"version\": 1, \"name\": \"n\", "

static const struct bad { const char *text, *what; } bads[] = {
  {"[]", "expected an object"},
  {"{\"version\": 1}", "\"format\": expected \"lraf-baseline\""},
  {"{\"format\": \"lraf-profile\"}", "\"format\": expected \"lraf-baseline\""},
  {"{\"format\": \"lraf-baseline\", \"version\": 2}",
   "\"version\": expected 1 (this lraf reads version 1)"},
  {"{\"format\": \"lraf-baseline\", \"version\": 1.0}",
   "\"version\": expected 1 (this lraf reads version 1)"},
  {"{\"format\": \"lraf-baseline\", \"version\": 1}",
   "\"name\": expected a string"},
  {HEAD "\"benchmarks\": {}}", "\"benchmarks\": expected an array"},
  {HEAD "\"benchmarks\": [3]}", "benchmarks[0]: expected an object"},
  {HEAD "\"benchmarks\": [{" E1 ", \"count\": 1}, {\"name\": 5}]}",
   "benchmarks[1].\"name\": expected a string"},
  {HEAD "\"benchmarks\": [{" E1 "}]}",
   "benchmarks[0].\"count\": expected an integer of at least 0"},
  {HEAD "\"benchmarks\": [{" E1 ", \"count\": -1}]}",
   "benchmarks[0].\"count\": expected an integer of at least 0"},
  {HEAD "\"benchmarks\": [{" E1 ", \"count\": 1.5}]}",
   "benchmarks[0].\"count\": expected an integer of at least 0"},
  {HEAD "\"benchmarks\": [{" E1 ", \"count\": \"1\"}]}",
   "benchmarks[0].\"count\": expected an integer of at least 0"},
  {HEAD "\"benchmarks\": [{\"name\": \"\", \"script\": \"a.lua\", "
   "\"model\": \"m\", \"lraf_version\": \"v\", \"vm\": \"s\", \"count\": 1}]}",
   "benchmarks[0].\"name\" is empty"},
  {HEAD "\"benchmarks\": [{\"name\": \"a\", \"script\": \"a.lua\", "
   "\"model\": \"m\", \"lraf_version\": \"v\", \"vm\": \"s\", \"count\": 1}]}",
   "benchmarks[0].\"args\": expected an array of strings"},
  {HEAD "\"benchmarks\": [{\"name\": \"a\", \"script\": \"a.lua\", "
   "\"args\": [\"x\", 2], \"model\": \"m\", \"lraf_version\": \"v\", "
   "\"vm\": \"s\", \"count\": 1}]}",
   "benchmarks[0].\"args\"[1]: expected a string"},
  {HEAD "\"benchmarks\": [{" E1 ", \"count\": 1}, {" E1 ", \"count\": 2}]}",
   "benchmarks[1]: the name 'a' is benchmarks[0]'s too"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    cli_baseline b;
    lraf_error err;
    char want[400];
    snprintf(want, sizeof want, "b.json: %s (not a baseline of lraf bench "
             "--save-baseline)", bads[k].what);
    memset(&err, 0, sizeof err);
    if (cli_baseline_parse(bads[k].text, strlen(bads[k].text), "b.json", &b,
                           &err) != LRAF_EFORMAT ||
        strcmp(err.message, want) != 0)
      fail_msg("%s: got '%s', want '%s'", bads[k].text, err.message, want);
    assert_int_equal(b.n, 0);
    assert_null(b.entry);
  }
}

/* Not JSON at all: cli_json's error, naming the file and the byte. */
static void test_not_json(void **state) {
  cli_baseline b;
  lraf_error err;
  (void)state;
  assert_int_equal(cli_baseline_parse("{\"format\" 1}", 12, "b.json", &b,
                                      &err), LRAF_EFORMAT);
  assert_string_equal(err.message, "b.json: byte 10: expected ':'");
}

static void test_names(void **state) {
  static const struct { const char *name, *why; } rows[] = {
    {"main", NULL}, {"v1.2_rc-3", NULL}, {"A", NULL},
    {"", "is empty"},
    {".hidden", "starts with '.'"},
    {"a/b", "may hold only letters, digits, '.', '_' and '-'"},
    {"a b", "may hold only letters, digits, '.', '_' and '-'"},
    {"caf\xc3\xa9", "may hold only letters, digits, '.', '_' and '-'"},
  };
  char longest[102];
  const char *why;
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    why = NULL;
    assert_int_equal(cli_baseline_name_ok(rows[k].name, &why),
                     rows[k].why == NULL);
    if (rows[k].why != NULL) assert_string_equal(why, rows[k].why);
  }
  memset(longest, 'x', 100);
  longest[100] = '\0';
  assert_int_equal(cli_baseline_name_ok(longest, &why), 1);
  longest[100] = 'x';
  longest[101] = '\0';
  assert_int_equal(cli_baseline_name_ok(longest, &why), 0);
  assert_string_equal(why, "is longer than 100 bytes");
}

/* ---- comparing a run with a baseline ---- */

static void test_judge(void **state) {
  /* saved: a 1000, b 1000 (threshold 10 in the suite), c 1000, gone 5 */
  static const int64_t saved[] = {1000, 1000, 1000, 5};
  static const int64_t now[] = {1001, 1090, 900, 4};
  tutil_bench base, u;
  cli_baseline b;
  lraf_error err;
  char path[256];
  int i;
  (void)state;
  run_of(&base, "a.lua\nb.lua threshold=10\nc.lua\ngone.lua\n", saved,
         "m");
  cli_baseline_path(path, sizeof path, sh.dir, "judge");
  assert_int_equal(cli_baseline_save(&base.r, "judge", path, &err), LRAF_OK);
  assert_int_equal(load(path, &b, &err), LRAF_OK);
  run_of(&u, "a.lua\nb.lua threshold=10\nc.lua\nnew.lua\n", now, "m");
  u.r.base = &b;
  cli_bench_judge(&u.r);
  /* a grew by one unit: any growth regresses against a baseline */
  assert_int_equal(u.verdict[0], CLI_REGRESSION);
  /* b grew 9%, within its suite's 10% */
  assert_int_equal(u.verdict[1], CLI_SAME);
  assert_int_equal(u.verdict[2], CLI_IMPROVEMENT);
  assert_null(u.before[3]);  /* new.lua is new */
  for (i = 0; i < 3; i++) assert_ptr_equal(u.before[i], &b.entry[i]);
  assert_int_equal(u.r.regressions, 1);
  assert_int_equal(u.r.improvements, 1);
  assert_int_equal(u.r.fails, 1);
  assert_int_equal(u.r.added, 1);
  assert_int_equal(u.r.mismatches, 0);
  assert_int_equal(cli_bench_removed(&u.r, 0), 3);
  assert_int_equal(cli_bench_removed(&u.r, 4), -1);
  tutil_bench_free(&u);
  /* another cost model: not compared, unless allowed */
  run_of(&u, "a.lua\nb.lua threshold=10\nc.lua\nnew.lua\n", now, "other");
  u.r.base = &b;
  cli_bench_judge(&u.r);
  assert_int_equal(u.r.mismatches, 3);
  assert_int_equal(u.mismatch[0], 1);
  assert_int_equal(u.r.fails + u.r.regressions + u.r.improvements, 0);
  tutil_bench_free(&u);
  run_of(&u, "a.lua\nb.lua threshold=10\nc.lua\nnew.lua\n", now, "other");
  u.r.base = &b;
  u.r.allow_mismatch = 1;
  cli_bench_judge(&u.r);
  assert_int_equal(u.r.mismatches, 3);
  assert_int_equal(u.r.regressions, 1);
  assert_int_equal(u.r.fails, 1);
  tutil_bench_free(&u);
  cli_baseline_free(&b);
  tutil_bench_free(&base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_save_fails),
    cmocka_unit_test(test_mkdirs),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_not_json),
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_judge),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
