/*
** rt_sort.c - table.sort for deterministic states on the stock target.
**
** Lua 5.4's sort is a quicksort on the median of three that, after a
** badly unbalanced partition, picks its pivots from clock() and time()
** (l_randomizePivot): how many comparisons a sort makes, and so its
** count, changes from run to run.  The lraf VM fixes that pivot
** (lua-determinism.patch); on stock Lua this sort stands in for it: the
** same algorithm, comparisons and swaps in the same order as Lua's with
** the lraf VM's fixed pivot, the same errors, only the pivot after a
** bad partition is fixed.
*/
#include <limits.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"

typedef unsigned int sort_idx;

/* Intervals at least this long take the fixed pivot after a bad
   partition (Lua's RANLIMIT). */
#define SPREAD_MIN 100u
/* What the lraf VM's pivot source returns in a deterministic state. */
#define FIXED_PIVOT (~0u)

/* Is the value at a less than the one at b (negative indices)? */
static int less(lua_State *L, int a, int b) {
  int r;
  if (lua_isnil(L, 2)) return lua_compare(L, a, b, LUA_OPLT);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, a - 1);  /* each push moves a and b one further */
  lua_pushvalue(L, b - 2);
  lua_call(L, 2, 1);
  r = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return r;
}

/* t[i] = the top value, t[j] = the one below it (both popped). */
static void put2(lua_State *L, sort_idx i, sort_idx j) {
  lua_seti(L, 1, i);
  lua_seti(L, 1, j);
}

/* Split [lo, up] around the pivot P (on the top of the stack, and in
   t[up - 1]); returns P's final place. */
static sort_idx split(lua_State *L, sort_idx lo, sort_idx up) {
  sort_idx i = lo, j = up - 1;
  for (;;) {
    for (lua_geti(L, 1, ++i); less(L, -1, -2); lua_geti(L, 1, ++i)) {
      if (i == up - 1) luaL_error(L, "invalid order function for sorting");
      lua_pop(L, 1);
    }
    for (lua_geti(L, 1, --j); less(L, -3, -1); lua_geti(L, 1, --j)) {
      if (j < i) luaL_error(L, "invalid order function for sorting");
      lua_pop(L, 1);
    }
    if (j < i) {
      lua_pop(L, 1);
      put2(L, up - 1, i);  /* P goes to i, t[i] to up - 1 */
      return i;
    }
    put2(L, i, j);
  }
}

/* Order t[lo], t[mid] and t[up]; leaves the stack as it was. */
static void order3(lua_State *L, sort_idx lo, sort_idx mid, sort_idx up,
                   int three) {
  lua_geti(L, 1, lo);
  lua_geti(L, 1, up);
  if (less(L, -1, -2)) put2(L, lo, up);
  else lua_pop(L, 2);
  if (!three) return;
  lua_geti(L, 1, mid);
  lua_geti(L, 1, lo);
  if (less(L, -2, -1)) {
    put2(L, mid, lo);
    return;
  }
  lua_pop(L, 1);
  lua_geti(L, 1, up);
  if (less(L, -1, -2)) put2(L, mid, up);
  else lua_pop(L, 2);
}

static void quick(lua_State *L, sort_idx lo, sort_idx up, unsigned spread) {
  while (lo < up) {
    sort_idx p, small;
    if (up - lo == 1) {
      order3(L, lo, 0, up, 0);
      return;
    }
    if (up - lo < SPREAD_MIN || spread == 0) {
      p = (lo + up) / 2;
    } else {
      sort_idx q = (up - lo) / 4;
      p = spread % (q * 2) + (lo + q);
    }
    order3(L, lo, p, up, 1);
    if (up - lo == 2) return;
    lua_geti(L, 1, p);  /* the pivot: swapped with t[up - 1] */
    lua_pushvalue(L, -1);
    lua_geti(L, 1, up - 1);
    put2(L, p, up - 1);
    p = split(L, lo, up);
    if (p - lo < up - p) {
      quick(L, lo, p - 1, spread);
      small = p - lo;
      lo = p + 1;
    } else {
      quick(L, p + 1, up, spread);
      small = up - p;
      up = p - 1;
    }
    if ((up - lo) / 128 > small) spread = FIXED_PIVOT;
  }
}

/* Lua's rule for what sort takes: a table, or a value with __index,
   __newindex and __len. */
static void check_sortable(lua_State *L) {
  int ok;
  if (lua_type(L, 1) == LUA_TTABLE) return;
  ok = lua_getmetatable(L, 1);
  if (ok) {
    static const char *const fields[] = {"__index", "__newindex", "__len"};
    int i;
    for (i = 0; i < 3 && ok; i++) {
      lua_pushstring(L, fields[i]);
      ok = lua_rawget(L, -2) != LUA_TNIL;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  if (!ok) luaL_checktype(L, 1, LUA_TTABLE);
}

int rt_sort(lua_State *L) {
  lua_Integer n;
  check_sortable(L);
  n = luaL_len(L, 1);
  if (n > 1) {
    luaL_argcheck(L, n < INT_MAX, 1, "array too big");
    if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_settop(L, 2);
    quick(L, 1, (sort_idx)n, 0);
  }
  return 0;
}

void rt_sort_open(lua_State *L) {
  if (lua_getglobal(L, LUA_TABLIBNAME) == LUA_TTABLE) {
    lua_pushcfunction(L, rt_sort);
    lua_setfield(L, -2, "sort");
  }
  lua_pop(L, 1);
}
