/*
** test_nat_units.c - the units a model of native work charges
** (nat_units.c): the per-call part alone for no size, a per_k for each
** 1024 units of size with a part of 1024 rounded up, never less for a
** larger size, saturated at RT_CHARGE_MAX; and nat_steps charging a dry
** run's steps as native units of the running thread, less the per-call
** part, nothing for no steps.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "nat_units.h"
#include "tutil_rt.h"

/* Models of the kinds the table holds: no per_k, small and large ones. */
static const nat_model models[] = {
  {"t", "none", NULL, 7, 0, NULL},
  {"t", "small", NULL, 1, 60, NULL},
  {"t", "k", NULL, 2, 1024, NULL},
  {"t", "large", NULL, 20, 44000, NULL},
};
#define NMODELS (sizeof models / sizeof *models)

static void test_no_size(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < NMODELS; i++) {
    assert_int_equal(nat_units(&models[i], 0), models[i].per_call);
    assert_int_equal(nat_units(&models[i], -5), models[i].per_call);
  }
}

/* k * 1024 units of size cost exactly k * per_k more than a call; a
   unit more starts a part of 1024 that costs its share of per_k,
   rounded up. */
static void test_per_k(void **state) {
  static const int64_t ks[] = {1, 3, 1000, (int64_t)1 << 20};
  size_t i, j;
  (void)state;
  for (i = 0; i < NMODELS; i++) {
    const nat_model *m = &models[i];
    for (j = 0; j < sizeof ks / sizeof *ks; j++) {
      int64_t size = ks[j] * 1024;
      assert_int_equal(nat_units(m, size), m->per_call + ks[j] * m->per_k);
      assert_int_equal(nat_units(m, size + 1),
                       m->per_call + ks[j] * m->per_k +
                           (m->per_k + 1023) / 1024);
    }
    /* one unit of size: a share of per_k, rounded up */
    assert_int_equal(nat_units(m, 1), m->per_call + (m->per_k + 1023) / 1024);
  }
}

static void test_monotonic_and_saturating(void **state) {
  static const int64_t sizes[] = {1, 100, 1023, 1024, 1025, 1 << 20,
                                  ((int64_t)1 << 40) - 1, (int64_t)1 << 40,
                                  ((int64_t)1 << 40) + 1, (int64_t)1 << 50,
                                  INT64_MAX / 2, INT64_MAX};
  size_t i, j;
  (void)state;
  for (i = 0; i < NMODELS; i++) {
    int64_t last = nat_units(&models[i], 0);
    for (j = 0; j < sizeof sizes / sizeof *sizes; j++) {
      int64_t u = nat_units(&models[i], sizes[j]);
      if (u < last || u > RT_CHARGE_MAX)
        fail_msg("%s: %lld units for size %lld after %lld",
                 models[i].name, (long long)u, (long long)sizes[j],
                 (long long)last);
      last = u;
    }
    if (models[i].per_k >= 1024)  /* more units than size: past the cap */
      assert_int_equal(nat_units(&models[i], INT64_MAX), RT_CHARGE_MAX);
  }
}

/* steps(i, n): nat_steps(L, &models[i], n) in the running thread. */
static int steps(lua_State *L) {
  lua_Integer i = luaL_checkinteger(L, 1);
  nat_steps(L, &models[i], (int64_t)luaL_checkinteger(L, 2));
  return 0;
}

/* The native units a call of nat_steps charges in a state with native
   charging on. */
static int64_t charged(size_t i, int64_t n) {
  char src[96];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t before;
  lraf_default_options(&opt);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  lua_register(lraf_lua(S), "steps", steps);
  snprintf(src, sizeof src, "steps(%zu, %lld)", i, (long long)n);
  before = lraf_native_units(S);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  before = lraf_native_units(S) - before;
  tutil_rt_close(S);
  return before;
}

static void test_steps_charged(void **state) {
  static const int64_t ns[] = {-3, 0, 1, 1024, 5000, 1 << 20};
  size_t i, j;
  (void)state;
  for (i = 0; i < NMODELS; i++)
    for (j = 0; j < sizeof ns / sizeof *ns; j++) {
      int64_t want = ns[j] > 0 ? nat_units(&models[i], ns[j]) -
                                     models[i].per_call
                               : 0;
      int64_t got = charged(i, ns[j]);
      if (got != want)
        fail_msg("%s, %lld steps: %lld units charged, %lld wanted",
                 models[i].name, (long long)ns[j], (long long)got,
                 (long long)want);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_no_size),
    cmocka_unit_test(test_per_k),
    cmocka_unit_test(test_monotonic_and_saturating),
    cmocka_unit_test(test_steps_charged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
