/*
** test_rt_module.c - require "lraf" (rt_module.c): count() reads the
** running thread's exact count (what the count hook counted up to that
** point, at every granularity, in exact mode), measure(f, ...) returns what f ran
** (its coroutines included) before f's results while the old manager
** is still charged for it, and a quota stops a measured function just
** as an unmeasured one; model() names the state's cost model.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_rt.h"
#include "tutil_run.h"

/* count() between two points: the difference between a program and
   the same program without its loop is what the count hook counts of
   that loop, at every granularity (in exact mode: the default mode
   charges a block when it starts, so a count read inside one is
   ahead). */
static long long diff_of(const lraf_options *opt, const char *src) {
  lraf_error err;
  char *out;
  long long n;
  if (tutil_rt_once(opt, src, &err, &out) != LRAF_OK)
    fail_msg("%s", err.message);
  n = atoll(out);
  free(out);
  return n;
}

static void test_count_is_exact(void **state) {
  /* plain Lua (the hook's run) gets a stand-in module */
#define STUB "package.preload.lraf = package.preload.lraf or\n" \
             "  function() return {count = function() return 0 end} end\n"
  static const char src[] = STUB
    "local lraf = require 'lraf'\n"
    "local a = lraf.count()\n"
    "local s = 0 for i = 1, 1000 do s = s + i % 7 end\n"
    "local b = lraf.count()\n"
    "print(b - a)\n";
  static const char without[] = STUB
    "local lraf = require 'lraf'\n"
    "local a = lraf.count()\n"
    "local s = 0\n"
    "local b = lraf.count()\n"
    "print(b - a)\n";
  static const struct { int64_t gran; int exact; } cases[] = {
    {1, 1}, {7, 1}, {100, 1}, {100000, 1},
  };
  tutil_run with, none;
  size_t i;
  (void)state;
  tutil_run_hook(src, strlen(src), "=c", &with);
  tutil_run_hook(without, strlen(without), "=c", &none);
  assert_true(with.ok && none.ok);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    long long got;
    lraf_default_options(&opt);
    opt.granularity = cases[i].gran;
    opt.exact = cases[i].exact;
    got = diff_of(&opt, src) - diff_of(&opt, without);
    if (got != with.count - none.count)
      fail_msg("granularity %lld exact %d: count %lld, hook %lld",
               (long long)cases[i].gran, cases[i].exact, got,
               with.count - none.count);
  }
  tutil_run_free(&with);
  tutil_run_free(&none);
}

/* measure: what f and its coroutine ran, returned first; the main
   account still pays all of it. */
static void test_measure(void **state) {
  static const char src[] =
    "local lraf = require 'lraf'\n"
    "local function work(n)\n"
    "  local co = coroutine.wrap(function()\n"
    "    local s = 0 for i = 1, n do s = s + i end return s end)\n"
    "  return co(), 'done'\n"
    "end\n"
    "local before = lraf.count()\n"
    "local used, sum, word = lraf.measure(work, 1000)\n"
    "local after = lraf.count()\n"
    "print(used, sum, word, after - before)\n";
  lraf_manager *m = lraf_total_new();
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  long long used, sum, diff;
  char word[16];
  (void)state;
  lraf_default_options(&opt);
  opt.manager = m;
  S = tutil_rt_new(&opt);
  assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
  assert_int_equal(sscanf(tutil_rt_output(S, NULL), "%lld %lld %15s %lld",
                          &used, &sum, word, &diff), 4);
  assert_int_equal(sum, 500500);
  assert_string_equal(word, "done");
  /* the loop alone runs 2 instructions per turn (ADD, FORLOOP) */
  assert_true(used >= 2000 && used < 2100);
  /* the main thread's count does not include the coroutine's work */
  assert_true(diff < used);
  assert_int_equal(lraf_manager_total(m), lraf_total(S));
  tutil_rt_close(S);
  lraf_manager_release(m);
}

/* A measured function stops at the quota as any other, and the stop
   cannot be caught by pcall around measure; an error in f comes back
   through measure. */
static void test_measure_errors(void **state) {
  static const struct {
    const char *src;
    lraf_status want;
    const char *out;
  } cases[] = {
    {"local lraf = require 'lraf'\n"
     "print(pcall(lraf.measure, function() while true do end end))\n",
     LRAF_EQUOTA, ""},
    {"local lraf = require 'lraf'\n"
     "print(pcall(lraf.measure, function() error('no', 0) end))\n",
     LRAF_OK, "false\tno\n"},
    {"local lraf = require 'lraf'\n"
     "print(pcall(lraf.measure, 42))\n",
     LRAF_OK, "false\tbad argument #1 to 'lraf.measure' (function expected, got "
              "number)\n"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_error err;
    char *out;
    lraf_default_options(&opt);
    opt.manager = lraf_limit_new(100000);
    assert_int_equal(tutil_rt_once(&opt, cases[i].src, &err, &out),
                     cases[i].want);
    assert_string_equal(out, cases[i].out);
    free(out);
    lraf_manager_release(opt.manager);
  }
}

static void test_model(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lraf_error err;
  const char *out;
  (void)state;
  assert_int_equal(tutil_rt_run(S, "print(require('lraf').model())", &err),
                   LRAF_OK);
  out = tutil_rt_output(S, NULL);
  assert_int_equal(strlen(out), strlen(lraf_model(S)) + 1);
  assert_memory_equal(out, lraf_model(S), strlen(lraf_model(S)));
  tutil_rt_close(S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_count_is_exact),
    cmocka_unit_test(test_measure),
    cmocka_unit_test(test_measure_errors),
    cmocka_unit_test(test_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
