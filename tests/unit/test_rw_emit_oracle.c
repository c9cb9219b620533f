/*
** test_rw_emit_oracle.c - the code the emitter writes (rw_emit.c and the
** files it calls) against Lua's count hook.
**
** Every corpus program runs unmodified under a count hook of 1 and
** rewritten by lraf; outputs must be identical and counts equal.  In
** exact mode the counts match for every program; in the default mode a
** block is charged when it starts, so programs that abandon a block (a
** caught error, a coroutine never resumed) may only count more.  Lua
** runs __gc finalizers with hooks off, so programs with finalizers count
** more under lraf, which does charge them.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_corpus.h"
#include "tutil_run.h"

/* Programs that load binary chunks, which this harness (the rewriter
   without the runtime's string.dump) refuses. */
static const char *const loads_binary[] = {"loadkx.lua", NULL};

/* Under the sanitizers (LRAF_QUICK set) Lua's allocations are slow, so
   only these programs run to the end; the others are rewritten, loaded
   and run until their 20th consume() call. */
static const char *const quick_full[] = {"errors.lua", "storage.lua", NULL};

static void check_file(const tutil_corpus_file *cf, int exact, int *compared) {
  size_t len;
  char *src = tutil_run_slurp(cf->path, &len);
  tutil_run hook, rw;
  rw_options opt;
  assert_non_null(src);
  rw_default_options(&opt);
  opt.exact = exact;
  if (tutil_corpus_quick() && !tutil_corpus_listed(quick_full, cf->name)) {
    tutil_run_consume_limit = 20;
    tutil_run_rewritten(src, len, cf->name, &opt, 1000, 0, &rw);
    tutil_run_consume_limit = 0;
    if (!rw.ok && strstr(rw.error, "consume limit") == NULL &&
        !tutil_corpus_listed(loads_binary, cf->name))
      fail_msg("%s: %s", cf->name, rw.error);
    tutil_run_free(&rw);
    free(src);
    (*compared)++;
    return;
  }
  tutil_run_hook(src, len, cf->name, &hook);
  tutil_run_rewritten(src, len, cf->name, &opt, 1000, 0, &rw);
  if (tutil_corpus_listed(loads_binary, cf->name)) {
    assert_false(rw.ok);
    assert_non_null(strstr(rw.error, "binary"));
  } else {
    if (!hook.ok || !rw.ok)
      fail_msg("%s: hook ok=%d (%s), lraf ok=%d (%s)", cf->name, hook.ok,
               hook.error, rw.ok, rw.error);
    if (!tutil_run_same_output(&hook, &rw))
      fail_msg("%s: output differs after rewriting", cf->name);
    if (tutil_corpus_listed(tutil_corpus_has_finalizers, cf->name) ||
        (!exact &&
         tutil_corpus_listed(tutil_corpus_abandons_blocks, cf->name))) {
      if (rw.count < hook.count)
        fail_msg("%s: lraf %lld < hook %lld", cf->name, rw.count, hook.count);
    } else if (rw.count != hook.count) {
      fail_msg("%s (%s): lraf counted %lld, the hook %lld", cf->name,
               exact ? "exact" : "default", rw.count, hook.count);
    }
    (*compared)++;
  }
  printf("  %-18s %-7s hook %10lld  lraf %10lld  code %ld -> %ld\n",
         cf->name, exact ? "exact" : "default", hook.count, rw.count,
         rw.stats.code_before, rw.stats.code_after);
  tutil_run_free(&hook);
  tutil_run_free(&rw);
  free(src);
}

static void test_corpus_default(void **state) {
  (void)state;
  tutil_corpus_check_all(0, check_file);
}

static void test_corpus_exact(void **state) {
  (void)state;
  tutil_corpus_check_all(1, check_file);
}

/* Counts do not depend on the granularity, nor on folding. */
static void test_granularity_and_folding(void **state) {
  static const long long grains[] = {1, 2, 7, 1000, 1000000000LL};
  size_t len;
  const char *file = tutil_corpus_quick() ? TUTIL_CORPUS "/storage.lua"
                                          : TUTIL_CORPUS "/richards.lua";
  char *src = tutil_run_slurp(file, &len);
  tutil_run hook, rw;
  rw_options opt;
  size_t g;
  (void)state;
  assert_non_null(src);
  tutil_run_hook(src, len, "richards", &hook);
  rw_default_options(&opt);
  for (g = 0; g < sizeof grains / sizeof grains[0]; g++) {
    tutil_run_rewritten(src, len, "richards", &opt, grains[g], 0, &rw);
    assert_true(rw.ok);
    assert_int_equal(rw.count, hook.count);
    if (grains[g] == 1)
      assert_true(rw.consumes > hook.count / 20);
    tutil_run_free(&rw);
  }
  opt.fold = 0;
  tutil_run_rewritten(src, len, "richards", &opt, 1000, 0, &rw);
  assert_true(rw.ok);
  assert_int_equal(rw.count, hook.count);
  tutil_run_free(&rw);
  tutil_run_free(&hook);
  free(src);
}

/* Overhead mode: the count equals what a count hook sees on the
   rewritten code itself (plus the consume path, charged by the binder). */
static void test_overhead_mode(void **state) {
  static const char *const files[] = {"storage.lua", "richards.lua", "nbody.lua",
                                      "mandelbrot.lua", "sieve.lua"};
  size_t i;
  (void)state;
  for (i = 0; i < (tutil_corpus_quick() ? 1 : sizeof files / sizeof files[0]);
       i++) {
    char path[256];
    size_t len;
    char *src;
    tutil_run seen, counted;
    rw_options opt;
    snprintf(path, sizeof path, TUTIL_CORPUS "/%s", files[i]);
    src = tutil_run_slurp(path, &len);
    assert_non_null(src);
    rw_default_options(&opt);
    opt.mode = RW_OVERHEAD;
    tutil_run_rewritten(src, len, files[i], &opt, 1000, 1, &seen);
    tutil_run_rewritten(src, len, files[i], &opt, 1000, 0, &counted);
    assert_true(seen.ok && counted.ok);
    printf("  overhead %-14s hook on rewritten %lld, lraf %lld\n", files[i],
           seen.count, counted.count);
    assert_int_equal(counted.count, seen.count);
    tutil_run_free(&seen);
    tutil_run_free(&counted);
    free(src);
  }
}

/* Weighted mode: all weights 1 is the original metric; weighting one
   opcode at a time partitions the count. */
static void test_weighted_mode(void **state) {
  const char *src =
      "local t = {}\n"
      "for i = 1, 200 do t[i] = i * 2 + (i % 3) end\n"
      "local s = 0\n"
      "for _, v in ipairs(t) do if v > 100 then s = s + v else s = s - 1 end end\n"
      "local function f(n) if n < 2 then return n end return f(n-1) + f(n-2) end\n"
      "print(s, f(12), ('x'):rep(3) .. #t)\n";
  size_t len = strlen(src);
  uint32_t w[BC_NUM_OPCODES];
  tutil_run base, run;
  rw_options opt;
  long long sum = 0;
  int op;
  (void)state;
  rw_default_options(&opt);
  tutil_run_rewritten(src, len, "w", &opt, 1000, 0, &base);
  assert_true(base.ok);
  opt.mode = RW_WEIGHTED;
  opt.weights = w;
  for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = 1;
  tutil_run_rewritten(src, len, "w", &opt, 1000, 0, &run);
  assert_int_equal(run.count, base.count);
  tutil_run_free(&run);
  for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = 3;
  tutil_run_rewritten(src, len, "w", &opt, 1000, 0, &run);
  assert_int_equal(run.count, 3 * base.count);
  tutil_run_free(&run);
  /* large weights: increments, and the negative ones that take back a
     branch charged ahead, go through ADDK constants */
  for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = 1000;
  tutil_run_rewritten(src, len, "w", &opt, 1000, 0, &run);
  assert_true(run.stats.branch_folds > 0);
  assert_int_equal(run.count, 1000 * base.count);
  tutil_run_free(&run);
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    int k;
    for (k = 0; k < BC_NUM_OPCODES; k++) w[k] = (k == op);
    tutil_run_rewritten(src, len, "w", &opt, 1000, 0, &run);
    assert_true(run.ok);
    sum += run.count;
    tutil_run_free(&run);
  }
  assert_int_equal(sum, base.count);
  tutil_run_free(&base);
}

static void test_weights_file(void **state) {
  uint32_t w[BC_NUM_OPCODES];
  lraf_error err;
  const char *good = "# costs\nCALL 10\n  GETTABLE 3 # table access\n\nADD 1\n";
  rw_options a, b;
  char ida[64], idb[64];
  (void)state;
  assert_int_equal(rw_parse_weights(good, strlen(good), w, &err), LRAF_OK);
  assert_int_equal(w[BC_OP_CALL], 10);
  assert_int_equal(w[BC_OP_GETTABLE], 3);
  assert_int_equal(w[BC_OP_MOVE], 1);
  assert_int_equal(rw_parse_weights("FOO 3\n", 6, w, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "line 1: unknown opcode 'FOO'"));
  assert_int_equal(rw_parse_weights("\nCALL x\n", 8, w, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "line 2"));
  assert_int_equal(rw_parse_weights("CALL 3 4\n", 9, w, &err), LRAF_EARG);
  assert_int_equal(rw_parse_weights("CALL 99999999\n", 14, w, &err), LRAF_EARG);
  rw_default_options(&a);
  rw_default_options(&b);
  rw_model_id(&a, ida, sizeof ida);
  assert_string_equal(ida, TUTIL_VM "/original");
  a.exact = 1;
  rw_model_id(&a, ida, sizeof ida);
  assert_string_equal(ida, TUTIL_VM "/original/exact");
  a.exact = 0;
  b.mode = RW_WEIGHTED;
  rw_parse_weights(good, strlen(good), w, &err);
  b.weights = w;
  rw_model_id(&b, idb, sizeof idb);
  assert_non_null(strstr(idb, TUTIL_VM "/weighted/"));
  w[BC_OP_CALL] = 11;
  rw_model_id(&b, ida, sizeof ida);
  assert_string_not_equal(ida, idb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_corpus_default),
    cmocka_unit_test(test_corpus_exact),
    cmocka_unit_test(test_granularity_and_folding),
    cmocka_unit_test(test_overhead_mode),
    cmocka_unit_test(test_weighted_mode),
    cmocka_unit_test(test_weights_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
