/*
** nat_hidden.c - hidden work: the sizes of work that no argument's
** length shows (hence the name): the frames that error(msg, level) and
** debug.traceback walk (probed dry, charged as the probe goes), the
** __name that tostring copies, a float that tostring formats, and the
** digits that a string's arithmetic metamethods convert; and the
** collector's parameters that would make every allocation collect the
** whole heap.
*/
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "nat_hidden.h"

/* The frames lua_getstack(L1, level) walks, at most level: L1 is probed
   at 2, 4, 8, ... levels, each probe charged (as frames of m) before it
   walks, so a deep stack is paid for as it is found. */
static int64_t frames_upto(lua_State *L, lua_State *L1,
                           const nat_model *m, int64_t level) {
  lua_Debug ar;
  int64_t k = 2;
  while (k < level) {
    nat_steps(L, m, k);
    if (k > INT_MAX / 2 || !lua_getstack(L1, (int)k, &ar)) return k;
    k *= 2;
  }
  return level;
}

/* error(msg, level): a string message gets the position of the frame
   level levels up (lua_getstack walks to it). */
int64_t nat_hidden_error(lua_State *L, const nat_model *m) {
  lua_Integer level;
  if (lua_type(L, 1) != LUA_TSTRING || lua_type(L, 2) != LUA_TNUMBER ||
      !lua_isinteger(L, 2))
    return 0;
  level = lua_tointeger(L, 2);
  return level > 2 ? frames_upto(L, L, m, (int64_t)level) : 0;
}

/* The thread a debug function looks at (its first argument when that
   is a thread) and the index of its next argument. */
static lua_State *db_thread(lua_State *L, int *arg) {
  if (lua_type(L, 1) == LUA_TTHREAD) {
    *arg = 2;
    return lua_tothread(L, 1);
  }
  *arg = 1;
  return L;
}

/* lraf's debug functions find a visible level by walking to each level
   below it (rt_debug.c, passing over consume's frames): lv^2 / 2 frames
   and a lua_getinfo each for level lv. */
static int64_t visible_walk(int64_t lv) {
  return lv * lv / 2 + lv;
}

/* debug.traceback([thread,] [msg [, level]]): luaL_traceback finds the
   last level by probing (d log d frames for a stack of d) and walks to
   each of the last 11 levels it prints (11 d); a level asked for is
   found by a visible walk first. */
int64_t nat_hidden_traceback(lua_State *L, const nat_model *m) {
  int arg, t;
  lua_State *L1 = db_thread(L, &arg);
  int64_t d, lg = 1, n;
  t = lua_type(L, arg);
  if (t != LUA_TNONE && t != LUA_TNIL && t != LUA_TSTRING &&
      t != LUA_TNUMBER)
    return 0;  /* the message is returned untouched */
  d = frames_upto(L, L1, m, INT_MAX);
  while (((int64_t)1 << lg) < d) lg++;
  n = d * (lg + 13);
  if (lua_isinteger(L, arg + 1) && lua_tointeger(L, arg + 1) > 0)
    n += visible_walk(lua_tointeger(L, arg + 1) < d
                          ? (int64_t)lua_tointeger(L, arg + 1) : d);
  return n;
}

/* debug.getinfo, getlocal, setlocal ([thread,] level, ...): the visible
   walk to a level (a function instead of a level walks nothing). */
int64_t nat_hidden_dblevel(lua_State *L, const nat_model *m) {
  int arg;
  lua_State *L1 = db_thread(L, &arg);
  lua_Integer level;
  if (!lua_isinteger(L, arg)) return 0;
  level = lua_tointeger(L, arg);
  if (level <= 0) return 0;
  return visible_walk(frames_upto(L, L1, m, (int64_t)level + 1));
}

/* tostring(v): a value without __tostring whose metatable has a string
   __name is written as "NAME: 0x...", copying the name; a number is
   formatted into a new string, and that string collected later: 240 ns
   an integer, 380 ns a float (measured in a loop), weighed as 768 and
   1200 bytes. */
int64_t nat_hidden_tostring(lua_State *L, const nat_model *m) {
  size_t len = 0;
  (void)m;
  if (lua_type(L, 1) == LUA_TNUMBER)
    return lua_isinteger(L, 1) ? 768 : 1200;
  if (!lua_checkstack(L, 2) || !lua_getmetatable(L, 1)) return 0;
  lua_pushliteral(L, "__tostring");
  if (lua_rawget(L, -2) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_pushliteral(L, "__name");
    if (lua_rawget(L, -2) == LUA_TSTRING) len = lua_rawlen(L, -1);
  }
  lua_pop(L, 2);
  return (int64_t)len;
}

/* A string's arithmetic metamethod (__add, ...): each string operand is
   converted to a number, reading all of it. */
int64_t nat_hidden_strarith(lua_State *L, const nat_model *m) {
  int64_t n = 0;
  int i;
  (void)m;
  for (i = 1; i <= 2; i++)
    if (lua_type(L, i) == LUA_TSTRING) n += (int64_t)lua_rawlen(L, i);
  return n;
}

/* collectgarbage: a pause of 100 or less starts each cycle before the
   heap has grown past what the last one left, so that every allocation
   drives a collection of the whole heap, uncharged (at pause 100, 3.5 us
   an allocation with a live heap of 50,000 tables; at 150 and 200, Lua's
   default, 0.15 us); a generational major multiplier under 100 makes
   every minor collection a major one.  A pause under 200 (Lua's
   default) is raised to 200 (a cycle waits until the heap has doubled:
   the work of a cycle is paid by the allocations since the last), a
   major multiplier under 100 to 100.  ("incremental"'s and "generational"'s 0 keep the
   value as it is.) */
int nat_hidden_collect(lua_State *L, lua_CFunction stock,
                      const nat_model *m) {
  const char *opt = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : "";
  int idx = 0, zero_keeps = 1, isnum;
  lua_Integer v, least = 200;
  (void)m;
  if (strcmp(opt, "incremental") == 0) {
    idx = 2;
  } else if (strcmp(opt, "setpause") == 0) {
    idx = 2;
    zero_keeps = 0;
  } else if (strcmp(opt, "generational") == 0) {
    idx = 3;
    least = 100;
  }
  if (idx != 0 && lua_type(L, idx) == LUA_TNUMBER) {
    v = lua_tointegerx(L, idx, &isnum);
    if (isnum && v < least && v >= (zero_keeps ? 1 : 0)) {
      lua_pushinteger(L, least);
      lua_replace(L, idx);
    }
  }
  return stock(L);
}

/* table.sort(t) without a comparator on a plain table of n: each
   comparison of two strings reads their common prefix (strcoll), at
   most the second longest string's length.  The extra weight of a
   comparison, in comparisons: a byte of prefix takes 0.09 ns, a
   comparison's charge stands for 15 ns (measured at 2000 strings). */
int64_t nat_hidden_sortweight(lua_State *L, int64_t n) {
  size_t first = 0, second = 0;
  int64_t i;
  if (!lua_isnoneornil(L, 2) || !lua_checkstack(L, 1)) return 0;
  for (i = 1; i <= n; i++) {
    if (lua_rawgeti(L, 1, (lua_Integer)i) == LUA_TSTRING) {
      size_t l = lua_rawlen(L, -1);
      if (l > first) {
        second = first;
        first = l;
      } else if (l > second) {
        second = l;
      }
    }
    lua_pop(L, 1);
  }
  return (int64_t)(second / 128);
}

/* string.format: the weight (in bytes) of argument arg.  A float
   written by %f (or %F) gets all its integer digits, up to 309, and
   glibc makes them with multiple-precision arithmetic: 1e300 with
   "%99.99f" takes 15 us.  Such an argument weighs 16 bytes per decimal
   digit of its magnitude; any other weighs 24 (not a string). */
int64_t nat_hidden_fmtweight(lua_State *L, int arg) {
  const char *f = lua_tostring(L, 1);
  int a = 1;
  double x;
  if (f == NULL || lua_type(L, arg) != LUA_TNUMBER || lua_isinteger(L, arg))
    return 24;
  for (; *f != '\0'; f++) {
    if (*f != '%') continue;
    if (*++f == '%') continue;
    f += strspn(f, "-+ #0123456789.");
    if (++a == arg) break;
  }
  if (a != arg || (*f != 'f' && *f != 'F')) return 24;
  x = fabs(lua_tonumber(L, arg));
  return x >= 10.0 && x <= DBL_MAX ? 24 + (int64_t)(log10(x) * 16.0) : 24;
}
