/*
** tutil_capture.c - print and io.write into a buffer (see
** tutil_capture.h).  The buffer is reached through the two light
** userdata upvalues of the replacement functions.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "tutil_capture.h"

static void append(lua_State *L, const char *p, size_t n) {
  char **data = lua_touserdata(L, lua_upvalueindex(1));
  size_t *len = lua_touserdata(L, lua_upvalueindex(2));
  char *q = realloc(*data, *len + n + 1);
  if (q == NULL) return;
  memcpy(q + *len, p, n);
  *len += n;
  q[*len] = '\0';
  *data = q;
}

static int cap_print(lua_State *L) {
  int n = lua_gettop(L), i;
  for (i = 1; i <= n; i++) {
    size_t len;
    const char *s = luaL_tolstring(L, i, &len);
    if (i > 1) append(L, "\t", 1);
    append(L, s, len);
    lua_pop(L, 1);
  }
  append(L, "\n", 1);
  return 0;
}

static int cap_write(lua_State *L) {
  int n = lua_gettop(L), i;
  for (i = 1; i <= n; i++) {
    char buf[64];
    size_t len;
    const char *s;
    if (lua_type(L, i) == LUA_TNUMBER) {
      if (lua_isinteger(L, i))
        snprintf(buf, sizeof buf, LUA_INTEGER_FMT, lua_tointeger(L, i));
      else
        snprintf(buf, sizeof buf, LUA_NUMBER_FMT, lua_tonumber(L, i));
      s = buf;
      len = strlen(buf);
    } else {
      s = luaL_checklstring(L, i, &len);
    }
    append(L, s, len);
  }
  lua_getglobal(L, "io");
  return 1;
}

void tutil_capture(lua_State *L, char **data, size_t *len) {
  lua_pushlightuserdata(L, data);
  lua_pushlightuserdata(L, len);
  lua_pushcclosure(L, cap_print, 2);
  lua_setglobal(L, "print");
  if (lua_getglobal(L, "io") == LUA_TTABLE) {
    lua_pushlightuserdata(L, data);
    lua_pushlightuserdata(L, len);
    lua_pushcclosure(L, cap_write, 2);
    lua_setfield(L, -2, "write");
  }
  lua_pop(L, 1);
}
