/*
** tutil_gen.c - the program tests/gen/gen.lua writes for a seed, run in
** a plain Lua state whose io.write collects it (tutil_gen.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tutil_gen.h"

typedef struct gen_buf {
  char *p;
  size_t n;
} gen_buf;

static int gen_write(lua_State *L) {
  gen_buf *b = lua_touserdata(L, lua_upvalueindex(1));
  int i, n = lua_gettop(L);
  for (i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_checklstring(L, i, &len);
    char *q = realloc(b->p, b->n + len + 1);
    if (q == NULL) return luaL_error(L, "out of memory");
    memcpy(q + b->n, s, len);
    b->n += len;
    q[b->n] = '\0';
    b->p = q;
  }
  return 0;
}

char *tutil_gen_program(long seed, size_t *len, char *err, size_t errsize) {
  lua_State *L = luaL_newstate();
  gen_buf b = {NULL, 0};
  int st;
  luaL_openlibs(L);
  lua_getglobal(L, "io");
  lua_pushlightuserdata(L, &b);
  lua_pushcclosure(L, gen_write, 1);
  lua_setfield(L, -2, "write");
  lua_pop(L, 1);
  lua_createtable(L, 1, 1);
  lua_pushstring(L, TUTIL_GEN);
  lua_rawseti(L, -2, 0);
  lua_pushfstring(L, "%d", (int)seed);
  lua_rawseti(L, -2, 1);
  lua_setglobal(L, "arg");
  st = luaL_loadfile(L, TUTIL_GEN);
  if (st == LUA_OK) st = lua_pcall(L, 0, 0, 0);
  if (st != LUA_OK) {
    snprintf(err, errsize, "%s", lua_tostring(L, -1));
    free(b.p);
    b.p = NULL;
  }
  lua_close(L);
  *len = b.n;
  return b.p;
}
