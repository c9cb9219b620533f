/*
** test_diff_gen.c - differential test on generated programs.
**
** tests/gen/gen.lua makes a random terminating Lua program from a seed.
** For each seed of a fixed batch the program runs in-process three times:
** unmodified under a count hook of 1 (the oracle), rewritten in exact
** mode and rewritten in the default mode.  Outputs must be identical;
** the exact count must equal the hook's; so must the default count when
** the generator says the program abandons no accounting block (its last
** line "-- abandons: no"), otherwise it may only be larger.
**
** The batch is seeds 1..1000 (100 with LRAF_QUICK, as under the
** sanitizers).  LRAF_DIFF_START and LRAF_DIFF_SEEDS choose another
** range (make fuzz-diff).  Every failing seed is reported with the
** commands that reproduce it.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tutil_gen.h"
#include "tutil_run.h"

#define GEN TUTIL_GEN
#define MAX_REPORTED 10

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v != NULL && *v != '\0' ? strtol(v, NULL, 10) : dflt;
}

static int same_output(const tutil_run *a, const tutil_run *b) {
  return a->outlen == b->outlen &&
         (a->outlen == 0 || memcmp(a->output, b->output, a->outlen) == 0);
}

/* The first line where two outputs differ, for the report. */
static int first_diff_line(const tutil_run *a, const tutil_run *b) {
  size_t i, n = a->outlen < b->outlen ? a->outlen : b->outlen;
  int line = 1;
  for (i = 0; i < n && a->output[i] == b->output[i]; i++)
    line += a->output[i] == '\n';
  return line;
}

/* Check one seed; returns 0 when it passes, else fills why. */
static int check_seed(long seed, int *abandons, long long *counted,
                      char *why, size_t n) {
  size_t len;
  char err[512];
  char name[64];
  char *src = tutil_gen_program(seed, &len, err, sizeof err);
  tutil_run hook, ex, df;
  rw_options opt;
  long long grain = seed % 3 == 0 ? 1 + seed % 7 : 1000;
  int rc = 0;
  if (src == NULL) {
    snprintf(why, n, "generator failed: %.400s", err);
    return -1;
  }
  *abandons = strstr(src, "\n-- abandons: no") == NULL;
  snprintf(name, sizeof name, "=gen_%ld", seed);
  rw_default_options(&opt);
  tutil_run_hook(src, len, name, &hook);
  opt.exact = 1;
  tutil_run_rewritten(src, len, name, &opt, grain, 0, &ex);
  opt.exact = 0;
  tutil_run_rewritten(src, len, name, &opt, grain, 0, &df);
  if (!hook.ok)
    snprintf(why, n, "the unmodified program failed: %.400s", hook.error), rc = -1;
  else if (!ex.ok || !df.ok)
    snprintf(why, n, "rewritten program failed: exact: %.300s; default: %.300s",
             ex.ok ? "ok" : ex.error, df.ok ? "ok" : df.error), rc = -1;
  else if (!same_output(&hook, &ex))
    snprintf(why, n, "exact-mode output differs from the unmodified "
             "program's from output line %d", first_diff_line(&hook, &ex)),
        rc = -1;
  else if (!same_output(&hook, &df))
    snprintf(why, n, "default-mode output differs from the unmodified "
             "program's from output line %d", first_diff_line(&hook, &df)),
        rc = -1;
  else if (ex.count != hook.count)
    snprintf(why, n, "exact mode counted %lld, the count hook %lld",
             ex.count, hook.count), rc = -1;
  else if (!*abandons && df.count != hook.count)
    snprintf(why, n, "default mode counted %lld, the count hook %lld "
             "(the program abandons no block)", df.count, hook.count),
        rc = -1;
  else if (hook.outlen == 0 || strstr(hook.output, "checksum") == NULL)
    snprintf(why, n, "the program printed no checksum"), rc = -1;
  else if (*abandons && df.count < hook.count)
    snprintf(why, n, "default mode counted %lld, less than the count "
             "hook's %lld", df.count, hook.count), rc = -1;
  *counted += hook.count;
  tutil_run_free(&hook);
  tutil_run_free(&ex);
  tutil_run_free(&df);
  free(src);
  return rc;
}

static void test_generated_programs(void **state) {
  long quick = getenv("LRAF_QUICK") != NULL;
  long start = env_long("LRAF_DIFF_START", 1);
  long nseeds = env_long("LRAF_DIFF_SEEDS", quick ? 100 : 1000);
  long seed, failed = 0, exact_default = 0;
  long long counted = 0;
  (void)state;
  assert_true(nseeds > 0);
  for (seed = start; seed < start + nseeds; seed++) {
    char why[700];
    int abandons = 0;
    if (check_seed(seed, &abandons, &counted, why, sizeof why) != 0) {
      if (++failed <= MAX_REPORTED)
        printf("  seed %ld: %s\n    reproduce: LRAF_DIFF_START=%ld "
               "LRAF_DIFF_SEEDS=1 build/tests/test_diff_gen\n"
               "    or: lua5.4 " GEN " %ld > /tmp/gen_%ld.lua && "
               "build/lraf run --exact --report - /tmp/gen_%ld.lua\n",
               seed, why, seed, seed, seed, seed);
      fflush(stdout);
    }
    exact_default += !abandons;
  }
  printf("  seeds %ld..%ld: %ld programs, %ld failed, %lld instructions "
         "counted by the hook; default mode compared exactly on %ld\n",
         start, start + nseeds - 1, nseeds, failed, counted, exact_default);
  if (failed > 0)
    fail_msg("%ld of %ld generated programs differ (seeds listed above)",
             failed, nseeds);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_generated_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
