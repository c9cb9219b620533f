/*
** test_cli_profile.c - cli/cli_profile.c, the lraf profile command, run
** as a user runs it (the binary named by $LRAF, default build/lraf) in a
** temporary directory: every format to a file, the same counts as lraf
** run in every cost model, usage errors, Callgrind's format under
** recursion.  lraf diff is test_cli_diff's.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_prof.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "pcli");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The count lraf run reports for script (from its JSON report). */
static long long run_count(const char *script) {
  char *rep, *p;
  long long n;
  assert_int_equal(tutil_sh_lraf_here(&sh, "run --report %s/rep.json %s",
                                      sh.dir, script),
                   0);
  rep = tutil_sh_slurp(&sh, "rep.json");
  p = strstr(rep, "\"count\"");
  if (p == NULL) fail_msg("no count in lraf run's report: %s", rep);
  n = atoll(strchr(p, ':') + 1);
  free(rep);
  return n;
}

static long long json_total(const char *name) {
  char *j = tutil_sh_slurp(&sh, name), *p = strstr(j, "\"total\": ");
  long long n;
  assert_non_null(p);
  n = atoll(p + 9);
  free(j);
  return n;
}

static void test_formats(void **state) {
  static const char *const formats[] = {"table", "folded", "callgrind",
                                        "svg", "json", NULL};
  const char *script = "tests/corpus/richards.lua";
  long long count = run_count(script);
  int i;
  (void)state;
  for (i = 0; formats[i] != NULL; i++) {
    char name[64], *text, *out;
    snprintf(name, sizeof name, "p.%s", formats[i]);
    assert_int_equal(tutil_sh_lraf_here(&sh, "profile --format %s -o %s/%s %s",
                                        formats[i], sh.dir, name, script),
                     0);
    text = tutil_sh_slurp(&sh, name);
    out = tutil_sh_slurp(&sh, "out.txt");
    assert_true(strlen(text) > 100);
    /* the script's own output still goes to standard output */
    assert_non_null(strstr(out, "count=1000 queued="));
    free(text);
    free(out);
  }
  assert_int_equal(json_total("p.json"), count);
  {
    char *t = tutil_sh_slurp(&sh, "p.table"), head[128];
    snprintf(head, sizeof head, "lraf profile: %lld instructions, cost model "
             TUTIL_VM "/original", count);
    assert_non_null(strstr(t, head));
    free(t);
  }
  /* without -o the profile alone is standard output: what the script
     prints goes to standard error, not into the profile */
  tutil_sh_put(&sh, "prints.lua",
               "print('fake;frame 99') io.write('more 1\\n')\n"
               "io.stdout:write('third 2\\n')\n");
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "profile --format folded %s/prints.lua",
                                      sh.dir),
                   0);
  {
    char *out = tutil_sh_slurp(&sh, "out.txt"),
         *err = tutil_sh_slurp(&sh, "err.txt");
    if (strstr(out, "fake;frame") || strstr(out, "more 1") ||
        strstr(out, "third 2"))
      fail_msg("the script's output is in the profile:\n%s", out);
    assert_non_null(strstr(out, "main chunk ("));
    assert_non_null(strstr(err, "fake;frame 99\nmore 1\nthird 2\n"));
    free(out);
    free(err);
  }
  assert_int_equal(tutil_sh_lraf_here(
                       &sh, "profile --format json tests/corpus/richards.lua"),
                   0);
  {
    char *out = tutil_sh_slurp(&sh, "out.txt");
    assert_true(out[0] == '{');
    assert_null(strstr(out, "count=1000 queued="));
    free(out);
  }
  /* standard output without -o; run options pass through */
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "profile --exact --granularity 777 --format folded "
                         "tests/corpus/queens.lua"),
      0);
  {
    char *out = tutil_sh_slurp(&sh, "out.txt");
    assert_non_null(strstr(out, "main chunk (tests/corpus/queens.lua:0)"));
    free(out);
  }
}

/* Every cost model: the profile's total is lraf run's count and the
   profile names the model. */
static void test_cost_models(void **state) {
  static const char *const models[] = {"--mode overhead", "--exact",
    "--weights w.txt", "--native", "--sandbox", NULL};
  int i;
  (void)state;
  tutil_sh_put(&sh, "w.txt", "ADD 5\nGETTABLE 3\nCALL 7\n");
  for (i = 0; models[i] != NULL; i++) {
    char opts[128], *rep, *prof, *p, *q;
    long long want, got;
    snprintf(opts, sizeof opts, "%s", models[i]);
    if (strstr(opts, "w.txt")) snprintf(opts, sizeof opts,
                                        "--weights %s/w.txt", sh.dir);
    assert_int_equal(tutil_sh_lraf_here(&sh,
                                        "run %s --report %s/rep.json "
                                        "tests/corpus/deltablue.lua",
                                        opts, sh.dir),
                     0);
    rep = tutil_sh_slurp(&sh, "rep.json");
    assert_int_equal(tutil_sh_lraf_here(&sh,
                                        "profile %s --format json -o %s/m.json "
                                        "tests/corpus/deltablue.lua",
                                        opts, sh.dir),
                     0);
    prof = tutil_sh_slurp(&sh, "m.json");
    p = strstr(rep, "\"count\"");
    q = strstr(prof, "\"total\": ");
    assert_non_null(p);
    assert_non_null(q);
    want = atoll(strchr(p, ':') + 1);
    got = atoll(q + 9);
    if (want != got)
      fail_msg("%s: lraf run %lld, lraf profile %lld", opts, want, got);
    p = strstr(rep, "\"model\": \"");
    assert_non_null(p);
    {
      char model[128];
      snprintf(model, sizeof model, "\"model\": \"%.*s",
               (int)(strchr(p + 10, '"') - (p + 10)), p + 10);
      if (strstr(prof, model) == NULL)
        fail_msg("%s: the profile does not name %s", opts, model);
    }
    free(rep);
    free(prof);
  }
}

static void test_usage_errors(void **state) {
  char *err;
  (void)state;
  assert_int_equal(
      tutil_sh_lraf_here(&sh, "profile --format xml tests/corpus/queens.lua"),
      2);
  err = tutil_sh_slurp(&sh, "err.txt");
  assert_non_null(strstr(err, "unknown format 'xml'"));
  free(err);
  assert_int_equal(tutil_sh_lraf_here(&sh, "profile -o"), 2);
  assert_int_equal(tutil_sh_lraf_here(&sh, "diff only-one.json"), 2);
  assert_int_equal(tutil_sh_lraf_here(&sh,
                                      "diff %s/missing.json %s/missing.json",
                                      sh.dir, sh.dir),
                   2);
  err = tutil_sh_slurp(&sh, "err.txt");
  assert_non_null(strstr(err, "missing.json"));
  free(err);
  tutil_sh_put(&sh, "bad.json",
               "{\"format\": \"lraf-profile\", \"total\": 5, "
               "\"functions\": [{\"frame\": \"f\", \"self\": -3}]}");
  assert_int_equal(tutil_sh_lraf_here(&sh, "diff %s/bad.json %s/bad.json",
                                      sh.dir, sh.dir),
                   2);
  err = tutil_sh_slurp(&sh, "err.txt");
  assert_non_null(strstr(err, "bad.json: byte"));
  assert_non_null(strstr(err, "\"self\" must be an integer"));
  free(err);
  tutil_sh_put(&sh, "notjson.json", "hello");
  assert_int_equal(tutil_sh_lraf_here(&sh, "diff %s/notjson.json %s/bad.json",
                                      sh.dir, sh.dir),
                   2);
  assert_int_equal(tutil_sh_lraf_here(&sh, "diff --threshold -1 a b"), 2);
}

/* Callgrind's format under recursion: callgrind_annotate --inclusive=yes
   shows no function above 100%, each call line's cost is the callee's
   inclusive count (callees with one caller), and calls= lines give the
   line of the call. */
static const char merge_sort_lua[] = TUTIL_PROF_MERGE_SORT("300");

/* callgrind_annotate's inclusive count of the function named name. */
static long long annotated(const char *text, const char *name) {
  const char *p = strstr(text, name);
  long long v = 0;
  const char *q;
  if (p == NULL) fail_msg("%s is not in callgrind_annotate's output", name);
  q = p;
  while (q > text && q[-1] != '\n') q--;  /* the start of its line */
  for (; q < p && *q != '('; q++)
    if (*q >= '0' && *q <= '9') v = v * 10 + (*q - '0');
  return v;
}

static void test_callgrind_recursion(void **state) {
  char *cg, *ann, *p;
  int checked = 0;
  (void)state;
  if (system("command -v callgrind_annotate >/dev/null 2>&1") != 0) {
    print_message("skipped: callgrind_annotate (valgrind) is not "
                  "installed\n");
    skip();
  }
  tutil_sh_put(&sh, "msort.lua", merge_sort_lua);
  assert_int_equal(
      tutil_sh_lraf_here(&sh,
                         "profile --format callgrind -o %s/ms.cg %s/msort.lua",
                         sh.dir, sh.dir),
      0);
  assert_int_equal(tutil_sh_run(&sh, "callgrind_annotate --inclusive=yes "
                                "%s/ms.cg", sh.dir), 0);
  cg = tutil_sh_slurp(&sh, "ms.cg");
  ann = tutil_sh_slurp(&sh, "out.txt");
  assert_non_null(strstr(cg, "\nevents: Ir\n"));
  assert_non_null(strstr(cg, "\nevent: Ir : lraf units (cost model "));
  /* no function above 100% */
  for (p = ann; (p = strstr(p, "%)")) != NULL; p += 2) {
    const char *q = p;
    while (q > ann && q[-1] != '(') q--;
    if (strtod(q, NULL) > 100.0)
      fail_msg("a function above 100%%:\n%s", ann);
  }
  /* the calls from the main chunk and from merge_sort, at their lines */
  p = strstr(cg, "fn=main chunk (");
  assert_non_null(p);
  p = strstr(p, "cfn=merge_sort (");
  assert_non_null(p);
  p = strchr(p, '\n') + 1;
  assert_true(strncmp(p, "calls=1 ", 8) == 0);
  p = strchr(p, '\n') + 1;
  assert_true(strncmp(p, "20 ", 3) == 0);
  assert_int_equal(atoll(p + 3), annotated(ann, ":merge_sort ("));
  checked++;
  p = strstr(cg, "\nfn=merge_sort (");
  assert_non_null(p);
  p = strstr(p, "cfn=merge (");
  assert_non_null(p);
  p = strchr(strchr(p, '\n') + 1, '\n') + 1;
  assert_true(strncmp(p, "16 ", 3) == 0);
  assert_int_equal(atoll(p + 3), annotated(ann, ":merge ("));
  checked++;
  assert_int_equal(checked, 2);
  /* every callee: its call lines add up to its inclusive count (no
     mutual recursion here), and a Lua caller's call lines are at a line
     of the call (after the line where the caller is defined) */
  {
    const char *fn = NULL, *q;
    char callees[16][160];
    long long sums[16];
    int ncallee = 0, k;
    for (q = cg; (q = strchr(q, '\n')) != NULL; ) {
      q++;
      if (strncmp(q, "fn=", 3) == 0) fn = q + 3;
      if (strncmp(q, "cfn=", 4) == 0) {
        const char *end = strchr(q, '\n'), *cost;
        char name[160];
        long long line;
        assert_non_null(end);
        assert_true((size_t)(end - q - 4) < sizeof name);
        memcpy(name, q + 4, (size_t)(end - q - 4));
        name[end - q - 4] = '\0';
        assert_true(strncmp(end + 1, "calls=", 6) == 0);
        cost = strchr(end + 1, '\n') + 1;
        line = atoll(cost);
        assert_non_null(fn);
        if (strncmp(fn, "[C]", 3) != 0) {
          const char *def = strstr(fn, ".lua:");
          assert_non_null(def);
          if (line <= atoll(def + 5))
            fail_msg("the call of %s from %.40s is at line %lld", name, fn,
                     line);
        }
        for (k = 0; k < ncallee && strcmp(callees[k], name) != 0; k++) {}
        if (k == ncallee) {
          assert_true(ncallee < 16);
          snprintf(callees[ncallee], sizeof callees[0], "%s", name);
          sums[ncallee++] = 0;
        }
        sums[k] += atoll(strchr(cost, ' ') + 1);
      }
    }
    assert_true(ncallee >= 5);
    for (k = 0; k < ncallee; k++) {
      char key[200];
      snprintf(key, sizeof key, ":%.160s\n", callees[k]);
      print_message("%s: call lines %lld, inclusive %lld\n", callees[k],
                    sums[k], annotated(ann, key));
      assert_int_equal(sums[k], annotated(ann, key));
    }
  }
  free(cg);
  free(ann);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_formats),
    cmocka_unit_test(test_cost_models),
    cmocka_unit_test(test_usage_errors),
    cmocka_unit_test(test_callgrind_recursion),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
