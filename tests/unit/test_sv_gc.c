/*
** test_sv_gc.c - the collecting allocator of a worker's states
** (service/sv_gc.c), on a plain Lua state with its collector stopped,
** as a worker keeps it during a request:
**   - what it counts as held is what Lua counts (collectgarbage
**     "count"), after allocations, frees and collections;
**   - garbage made with the collector stopped is freed by emergency
**     collections: the state stays within about twice the 8 MiB floor,
**     where without the allocator (or with it off) it grows with the
**     garbage;
**   - no finalizer runs in those collections;
**   - one allocation larger than the floor still goes through;
**   - rebase sets the next collection at twice what is held; remove
**     gives the state its own allocator back.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sv.h"

#define FLOOR ((size_t)8 << 20)

/* Lua's own count of the bytes it holds. */
static size_t held(lua_State *L) {
  return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 +
         (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

static lua_State *stopped_state(void) {
  lua_State *L = luaL_newstate();
  assert_non_null(L);
  luaL_openlibs(L);
  lua_gc(L, LUA_GCSTOP, 0);
  return L;
}

static void run(lua_State *L, const char *code) {
  if (luaL_dostring(L, code) != LUA_OK)
    fail_msg("%s", lua_tostring(L, -1));
}

/* 16 MiB of garbage: 4,096 pairs of strings of 2 KiB, none kept. */
#define GARBAGE "for i = 1, 4096 do local s = string.rep('x', 2000) .. i end"

static void test_counts_what_lua_holds(void **state) {
  lua_State *L = stopped_state();
  sv_gc *g = sv_gc_install(L);
  (void)state;
  assert_non_null(g);
  assert_int_equal(g->inuse, held(L));
  run(L, "t = {} for i = 1, 1000 do t[i] = {i} end");
  assert_int_equal(g->inuse, held(L));
  run(L, "t = nil");
  lua_gc(L, LUA_GCCOLLECT, 0);
  assert_int_equal(g->inuse, held(L));
  sv_gc_remove(L, g);
  lua_close(L);
}

/* The peak of what L holds while it makes 40 MiB of garbage. */
static size_t peak_of_garbage(lua_State *L) {
  size_t peak = 0;
  int i;
  for (i = 0; i < 5; i++) {
    size_t h;
    run(L, "for i = 1, 1024 do local s = string.rep('x', 4000) .. i end");
    h = held(L);
    if (h > peak) peak = h;
  }
  return peak;
}

static void test_garbage_collected(void **state) {
  lua_State *L = stopped_state();
  sv_gc *g = sv_gc_install(L);
  size_t peak;
  (void)state;
  assert_non_null(g);
  peak = peak_of_garbage(L);
  assert_true(g->collections > 0);
  if (peak > 2 * FLOOR + (1 << 20))
    fail_msg("held %zu bytes at most, over twice the floor", peak);
  /* off: nothing is refused, the garbage stays */
  g->on = 0;
  sv_gc_rebase(g);
  {
    int64_t before = g->collections;
    peak = peak_of_garbage(L);
    assert_int_equal(g->collections, before);
    assert_true(peak > 3 * FLOOR);
  }
  sv_gc_remove(L, g);
  lua_close(L);
  /* and without the allocator, the same */
  L = stopped_state();
  assert_true(peak_of_garbage(L) > 3 * FLOOR);
  lua_close(L);
}

static void test_no_finalizer_runs(void **state) {
  lua_State *L = stopped_state();
  sv_gc *g = sv_gc_install(L);
  (void)state;
  assert_non_null(g);
  run(L, "ran = 0 "
         "for i = 1, 100 do setmetatable({}, {__gc = function() "
         "ran = ran + 1 end}) end "
         GARBAGE);
  assert_true(g->collections > 0);
  lua_getglobal(L, "ran");
  assert_int_equal(lua_tointeger(L, -1), 0);
  lua_pop(L, 1);
  sv_gc_remove(L, g);
  lua_close(L);
}

static void test_large_allocation(void **state) {
  lua_State *L = stopped_state();
  sv_gc *g = sv_gc_install(L);
  (void)state;
  assert_non_null(g);
  run(L, "big = string.rep('y', 3 * 8 * 1024 * 1024)");
  lua_getglobal(L, "big");
  assert_int_equal(lua_rawlen(L, -1), 3 * FLOOR);
  lua_pop(L, 1);
  assert_int_equal(g->inuse, held(L));
  /* held past the floor: the next collection at twice that */
  sv_gc_rebase(g);
  assert_int_equal(g->next, 2 * g->inuse);
  assert_int_equal(g->refused, 0);
  run(L, "big = nil");
  lua_gc(L, LUA_GCCOLLECT, 0);
  sv_gc_rebase(g);
  assert_int_equal(g->next, FLOOR);
  sv_gc_remove(L, g);
  lua_close(L);
}

static void test_remove_restores(void **state) {
  lua_State *L = stopped_state();
  void *ud0, *ud1;
  lua_Alloc f0 = lua_getallocf(L, &ud0), f1;
  sv_gc *g = sv_gc_install(L);
  (void)state;
  assert_non_null(g);
  f1 = lua_getallocf(L, &ud1);
  assert_true(f1 != f0);
  assert_ptr_equal(ud1, g);
  sv_gc_remove(L, g);
  f1 = lua_getallocf(L, &ud1);
  assert_true(f1 == f0);
  assert_ptr_equal(ud1, ud0);
  run(L, "x = {1, 2, 3}");
  /* NULL is nothing to do */
  sv_gc_rebase(NULL);
  sv_gc_remove(L, NULL);
  lua_close(L);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_counts_what_lua_holds),
    cmocka_unit_test(test_garbage_collected),
    cmocka_unit_test(test_no_finalizer_runs),
    cmocka_unit_test(test_large_allocation),
    cmocka_unit_test(test_remove_restores),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
