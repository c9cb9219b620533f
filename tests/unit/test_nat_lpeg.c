/*
** test_nat_lpeg.c - lraf's metered LPeg (runtime/native/nat_lpeg.c): with
** native charging on, require "lpeg" loads it (its loader data says
** "lraf:metered"), with native charging off Debian's lpeg.so; a grammar
** that backtracks is charged by its matcher's steps (the charge grows
** with the steps, not with the subject), the instructions stay the count
** hook's, and a quota stops an endless loop of such matches within one
** slice of 4096 steps, pcall or not.  Skipped, with the reason, in a
** build without the metered LPeg (runtime/native/lpeg/fetch.sh failed).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "tutil_rt.h"
#include "tutil_run.h"

/* runtime/native/nat_lpeg.c's rate: units per 1024 steps */
#define STEP_RATE 512

/* a grammar that tries every split of a run of a's: about 2^n steps */
#define GRAMMAR "local lpeg = require 'lpeg'\n" \
  "local V = lpeg.V\n" \
  "local g = lpeg.P{'S', S = 'a' * V'S' * 'x' + 'a' * V'S' + lpeg.P(true)}\n"

/* What require "lpeg" says it loaded, in a state with native on/off. */
static void loaded_from(int native, char *buf, size_t size) {
  static const char src[] = "print((select(2, require 'lpeg')))";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  size_t len;
  const char *out;
  lraf_default_options(&opt);
  opt.native = native;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  out = tutil_rt_output(S, &len);
  snprintf(buf, size, "%.*s", (int)strcspn(out, "\n"), out);
  tutil_rt_close(S);
}

static void need_metered(void) {
  char where[256];
  loaded_from(1, where, sizeof where);
  if (strcmp(where, "lraf:metered") != 0) {
    printf("  SKIP: require 'lpeg' with native charging loads %s: built "
           "without the metered LPeg (runtime/native/lpeg/fetch.sh)\n", where);
    skip();
  }
}

static void test_which_lpeg(void **state) {
  char where[256];
  (void)state;
  need_metered();
  loaded_from(0, where, sizeof where);
  printf("  native off: %s\n", where);
  assert_true(strstr(where, "lpeg") != NULL);
  assert_string_not_equal(where, "lraf:metered");
}

/* Native units and instructions of one match of n a's. */
static void run_match(int n, int64_t *native, int64_t *instr,
                      long long *hook) {
  char src[512];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  tutil_run h;
  snprintf(src, sizeof src, GRAMMAR "local s = string.rep('a', %d)\n"
           "print(lpeg.match(g, s))\n", n);
  lraf_default_options(&opt);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  *native = lraf_native_units(S);
  *instr = tutil_rt_total(S) - *native;
  tutil_rt_close(S);
  tutil_run_hook(src, strlen(src), "=test", &h);
  assert_true(h.ok);
  *hook = h.count;
  tutil_run_free(&h);
}

/* Two more bytes of subject: about 4 times the steps, so about 4 times
   the charge (the linear model alone would add 2 units). */
static void test_charged_by_steps(void **state) {
  int64_t n12, n14, i12, i14;
  long long h12, h14;
  (void)state;
  need_metered();
  run_match(12, &n12, &i12, &h12);
  run_match(14, &n14, &i14, &h14);
  printf("  12 a's: %lld native units, 14 a's: %lld; instructions %lld "
         "and %lld, hook %lld and %lld\n", (long long)n12, (long long)n14,
         (long long)i12, (long long)i14, h12, h14);
  assert_true(n12 > 4 * STEP_RATE);  /* thousands of steps */
  assert_true(n14 > 3 * n12);
  assert_int_equal(i12, h12);
  assert_int_equal(i14, h14);
}

/* An endless loop of matches on 30 a's (about 10^9 steps each) under a
   quota, each in a pcall: stopped within one slice of steps. */
static void test_quota_stops_the_match(void **state) {
  static const char src[] = GRAMMAR
    "local s = string.rep('a', 30)\n"
    "while true do pcall(lpeg.match, g, s) end\n";
  const int64_t quota = 1000000, slice = 4096 * STEP_RATE / 1024;
  int64_t total;
  (void)state;
  need_metered();
  total = tutil_rt_native_quota(src, quota);
  printf("  quota %lld: %lld units charged (a slice: %lld)\n",
         (long long)quota, (long long)total, (long long)slice);
  assert_true(total >= quota && total <= quota + slice + 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_which_lpeg),
    cmocka_unit_test(test_charged_by_steps),
    cmocka_unit_test(test_quota_stops_the_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
