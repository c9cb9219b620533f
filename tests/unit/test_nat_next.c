/*
** test_nat_next.c - next charged by the slots it scans (nat_next.c).
** nat_next_size is called on tables whose layout the test makes with
** lua_createtable: an array slot counts 1 and a hash node the same
** weight as every other node; next(t, k) scans from after k to the next
** entry; a whole traversal scans every slot once, however full the
** table (the hint finds each key's node); a key that is not in the
** table costs the search of every node and then Lua's scan of every
** node.  In Lua, a call of next is charged nat_units of that size, and
** pairs hands out that charging next.
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

#include "rt.h"
#include "nat_cost.h"
#include "nat_next.h"
#include "tutil_rt.h"

static lraf_state *native_state(void) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.native = 1;
  return tutil_rt_new(&opt);
}

static const nat_model *next_model(void) {
  const nat_model *m = nat_find("_G", "next");
  assert_non_null(m);
  assert_ptr_equal(m->size, nat_next_size);
  return m;
}

/* A table of narr array slots and nrec hash nodes on L's stack, nothing
   in it. */
static void new_table(lua_State *L, int narr, int nrec) {
  lua_settop(L, 0);
  lua_createtable(L, narr, nrec);
}

/* The size of next(t, key) for t at 1: key is the value at idx (0:
   none). */
static int64_t size_after(lua_State *L, int idx) {
  int64_t n;
  int top = lua_gettop(L);
  lua_pushvalue(L, 1);
  if (idx) lua_pushvalue(L, idx);
  else lua_pushnil(L);
  lua_rotate(L, 1, 2);     /* t, key, then the rest */
  n = nat_next_size(L, next_model());
  lua_rotate(L, 1, -2);
  lua_settop(L, top);
  return n;
}

/* The weight of one hash node: the size of scanning 64 empty ones. */
static int64_t node_weight(lua_State *L) {
  int64_t n;
  new_table(L, 0, 64);
  n = size_after(L, 0);
  assert_true(n > 0);
  assert_int_equal(n % 64, 0);
  new_table(L, 0, 256);
  assert_int_equal(size_after(L, 0), 4 * n);  /* the same per node */
  return n / 64;
}

static void test_array_slots(void **state) {
  lraf_state *S = native_state();
  lua_State *L = lraf_lua(S);
  int64_t w = node_weight(L);
  static const int sizes[] = {1, 10, 1000, 20000};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    int n = sizes[i];
    new_table(L, n, 0);
    /* empty: every slot, then the one (empty) node */
    assert_int_equal(size_after(L, 0), n + w);
    lua_pushboolean(L, 1);
    lua_seti(L, 1, n);             /* the last slot only */
    assert_int_equal(size_after(L, 0), n);
    lua_pushinteger(L, n);
    assert_int_equal(size_after(L, 2), w);  /* after it: the node */
    lua_pop(L, 1);
    if (n > 2) {
      lua_pushboolean(L, 1);
      lua_seti(L, 1, 2);
      lua_pushinteger(L, 2);       /* after slot 2: up to slot n */
      assert_int_equal(size_after(L, 2), n - 2);
      lua_pop(L, 1);
    }
  }
  tutil_rt_close(S);
}

/* A traversal by next of a table of 64 nodes holding keys keys: the sum
   of the sizes of its calls. */
static int64_t traversal(lua_State *L, int keys) {
  int64_t sum = 0;
  int i;
  new_table(L, 0, 64);
  for (i = 0; i < keys; i++) {
    char name[32];
    snprintf(name, sizeof name, "key%d", i);
    lua_pushinteger(L, i);
    lua_setfield(L, 1, name);
  }
  lua_pushnil(L);                  /* the key, at 2 */
  for (;;) {
    sum += size_after(L, 2);
    if (!lua_next(L, 1)) break;    /* the stock next, to the next key */
    lua_pop(L, 1);
  }
  lua_settop(L, 1);
  return sum;
}

static void test_traversal_scans_once(void **state) {
  lraf_state *S = native_state();
  lua_State *L = lraf_lua(S);
  int64_t w = node_weight(L);
  static const int fills[] = {0, 1, 20, 50};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof fills / sizeof *fills; i++) {
    int64_t sum = traversal(L, fills[i]);
    if (sum != 64 * w)
      fail_msg("%d keys: a traversal scanned %lld, not %lld", fills[i],
               (long long)sum, (long long)(64 * w));
  }
  tutil_rt_close(S);
}

static void test_missing_key(void **state) {
  lraf_state *S = native_state();
  lua_State *L = lraf_lua(S);
  int64_t w = node_weight(L);
  (void)state;
  new_table(L, 0, 64);
  lua_pushinteger(L, 1);
  lua_setfield(L, 1, "present");
  lua_pushstring(L, "absent");
  /* searched in every node, then scanned by Lua in every node */
  assert_int_equal(size_after(L, 2), 2 * 64 * w);
  /* a key in the array part's range is a slot, not a search */
  new_table(L, 100, 64);
  lua_pushinteger(L, 50);
  assert_int_equal(size_after(L, 2), 50 + 64 * w);
  /* not a table: size 0, next raises its own error */
  lua_settop(L, 0);
  lua_pushinteger(L, 7);
  lua_pushnil(L);
  assert_int_equal(nat_next_size(L, next_model()), 0);
  tutil_rt_close(S);
}

/* In Lua: next(t) on N empty slots and a last one set is charged the
   units of N; the next that pairs returns is the charging one. */
static void test_charged_in_lua(void **state) {
  static const long long sizes[] = {100, 3000};
  const nat_model *m = next_model();
  size_t i;
  (void)state;
  for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    long long n = sizes[i];
    int64_t c = tutil_rt_native_charge(
        "local t = {table.unpack({}, 1, N)} t[N] = true", "local k = next(t)",
        n);
    int64_t p = tutil_rt_native_charge(
        "local t = {table.unpack({}, 1, N)} t[N] = true",
        "local f, s = pairs(t) local k = f(s)", n);
    if (c != nat_units(m, n))
      fail_msg("next over %lld slots: charged %lld, the model says %lld", n,
               (long long)c, (long long)nat_units(m, n));
    if (p != c)
      fail_msg("pairs' next over %lld slots: charged %lld, next %lld", n,
               (long long)p, (long long)c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_array_slots),
    cmocka_unit_test(test_traversal_scans_once),
    cmocka_unit_test(test_missing_key),
    cmocka_unit_test(test_charged_in_lua),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
