/*
** nat_lpeg.c - lraf's metered LPeg.  With native charging on, require
** "lpeg" loads the LPeg built into the library (1.0.2 or 1.1.0, the
** installed lua-lpeg's release) from Debian's lua-lpeg source with
** runtime/native/lpeg/lpeg-steps-RELEASE.patch (fetched by
** runtime/native/lpeg/fetch.sh, compiled when that succeeded:
** LRAF_LPEG).  Its matcher calls the step hook here every 4096 steps
** and when a match ends, and so does every call that builds or compiles
** patterns (its own steps only); the hook charges the steps as native
** work, so a limit stops a grammar that backtracks within 4096 steps.
** The loader's data (the second result of require) says
** "lraf:metered".  Without the sources, or with native charging off,
** require finds Debian's lpeg.so.
*/
#include <string.h>

#include <lauxlib.h>

#include "rt.h"

#ifdef LRAF_LPEG

/* Units per 1024 steps of LPeg's matcher: a step of a grammar that
   backtracks takes 1.4 ns, 0.43 mean instruction times (make
   bench-native, "lpeg (steps)"). */
#define STEP_RATE 512

int lpm_luaopen_lpeg(lua_State *L);  /* LPeg's luaopen_lpeg, renamed */

/* Called directly by LPeg's matcher with the steps on top of the stack;
   may raise the quota error. */
static int lpeg_steps(lua_State *L) {
  lua_Integer n = lua_tointeger(L, -1);
  if (n > 0) rt_charge(L, (int64_t)((n * STEP_RATE + 1023) / 1024));
  return 0;
}

static int lpeg_loader(lua_State *L) {
  lua_pushcfunction(L, lpeg_steps);
  lua_setfield(L, LUA_REGISTRYINDEX, "lraf.lpeg.steps");
  return lpm_luaopen_lpeg(L);
}

int nat_lpeg_search(lua_State *L) {
  if (strcmp(luaL_checkstring(L, 1), "lpeg") != 0) return 0;
  lua_pushcfunction(L, lpeg_loader);
  lua_pushliteral(L, "lraf:metered");
  return 1;
}

#else

int nat_lpeg_search(lua_State *L) {
  (void)L;
  return 0;
}

#endif
