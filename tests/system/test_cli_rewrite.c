/*
** test_cli_rewrite.c - cli/cli_rewrite.c, `lraf rewrite IN -o OUT`: in
** every cost model, OUT run by `lraf run --allow-offline` with the same
** model prints what the source prints and counts what it counts, and
** is refused under another model; a chunk signed with --key-file runs
** with that key only; a luac5.4 chunk is rewritten too; each usage
** error is status 2 with a line saying what is missing or wrong.
** Runs the command named by $LRAF.
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

static const char program[] =
  "#!/usr/bin/env lua\n"
  "local t = {}\n"
  "for i = 1, 50 do t[i] = i * i end\n"
  "local function sum(n) if n == 0 then return 0 end return t[n] + sum(n - 1) end\n"
  "print(#t, sum(50), ...)\n";

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "rewrite") != 0) return -1;
  return tutil_sh_write(&sh, "p.lua", program) ||
         tutil_sh_write(&sh, "w.txt", "ADD 3\nGETTABLE 5\n") ||
         tutil_sh_write(&sh, "k1", "first key") ||
         tutil_sh_write(&sh, "k2", "second key");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The "count" of the report r.json of the last run. */
static long long report_count(void) {
  char path[256], *text, *p;
  long long n;
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  text = tutil_sh_read(path);
  p = strstr(text, "\"count\":");
  assert_non_null(p);
  n = strtoll(p + 8, NULL, 10);
  free(text);
  return n;
}

/* `lraf run OPTS FILE a`: stdout (free it) and the count. */
static char *run(const char *opts, const char *file, long long *count) {
  int st = tutil_sh_lraf_run(&sh, "run %s --report r.json %s a", opts, file);
  if (st != 0) fail_msg("lraf run %s %s: %d: %s", opts, file, st,
                        tutil_sh_read(sh.err));
  *count = report_count();
  return tutil_sh_read(sh.out);
}

static const char *const models[] = {
  "", "--exact", "--mode overhead", "--mode weighted --weights w.txt",
};

static void test_same_run(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof models / sizeof models[0]; k++) {
    long long want, got;
    char *src_out, *out;
    src_out = run(models[k], "p.lua", &want);
    assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite %s p.lua -o p.luac",
                                       models[k]), 0);
    out = run(models[k], "--allow-offline p.luac", &got);
    assert_string_equal(out, src_out);
    if (got != want)
      fail_msg("%s: rewritten counts %lld, source %lld", models[k], got,
               want);
    free(out);
    free(src_out);
    /* any other model refuses it, naming the cost model */
    assert_int_equal(tutil_sh_lraf_run(&sh, "run --allow-offline %s p.luac",
                                       k == 2 ? "" : "--mode overhead"), 2);
    out = tutil_sh_read(sh.err);
    if (strstr(out, "cost model") == NULL)
      fail_msg("%s under another model: '%s'", models[k], out);
    free(out);
  }
}

/* Signed with a key: runs with that key, without --allow-offline;
   unsigned or with another key it is refused. */
static void test_signed(void **state) {
  static const struct { const char *opts; int status; } rows[] = {
    {"--key-file k1", 0},
    {"--key-file k2", 2},
    {"", 2},
  };
  size_t k;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite --key-file k1 p.lua -o "
                                     "s.luac"), 0);
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    int st = tutil_sh_lraf_run(&sh, "run %s s.luac", rows[k].opts);
    if (st != rows[k].status)
      fail_msg("lraf run %s s.luac: %d: %s", rows[k].opts, st,
               tutil_sh_read(sh.err));
  }
}

/* A chunk luac5.4 compiled is rewritten like its source. */
static void test_luac_chunk(void **state) {
  long long want, got;
  char *a, *b;
  (void)state;
  if (system("command -v luac5.4 >/dev/null") != 0) skip();
  assert_int_equal(tutil_sh_run(&sh, "cd %s && luac5.4 -o p.bin p.lua",
                                sh.dir), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite p.bin -o b.luac"), 0);
  a = run("", "p.lua", &want);
  b = run("", "--allow-offline b.luac", &got);
  assert_string_equal(a, b);
  assert_true(got == want);
  free(a);
  free(b);
}

static const struct bad { const char *args, *err; } bads[] = {
  {"p.lua", "lraf: no output file: say where the rewritten chunk goes "
   "with -o OUT\n"},
  {"-o x.luac", "lraf: no input file (the Lua source or luac chunk to "
   "rewrite)\n"},
  {"p.lua q.lua -o x.luac", "lraf: one input file only, not 'q.lua' too\n"},
  {"missing.lua -o x.luac", "lraf: cannot open missing.lua: No such file "
   "or directory\n"},
  {"bad.lua -o x.luac", "lraf: bad.lua:2: "},
  {"p.lua -o /nonexistent/x.luac", "lraf: cannot write /nonexistent/x.luac:"
   " No such file or directory\n"},
  {"--mode fast p.lua -o x.luac", "lraf: unknown mode 'fast' (original, "
   "overhead or weighted)\n"},
  {"--granularity 7 p.lua -o x.luac", "lraf: unknown option "
   "'--granularity' for lraf rewrite\n"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "bad.lua", "local a = 1\nlocal = 2\n"),
                   0);
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    char *err;
    int st = tutil_sh_lraf_run(&sh, "rewrite %s", bads[k].args);
    err = tutil_sh_read(sh.err);
    if (st != 2 || strncmp(err, bads[k].err, strlen(bads[k].err)) != 0)
      fail_msg("lraf rewrite %s: %d '%s'", bads[k].args, st, err);
    free(err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_run),
    cmocka_unit_test(test_signed),
    cmocka_unit_test(test_luac_chunk),
    cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
