/*
** rt_loadlib.c - load, loadfile, dofile and require's searchers for
** Lua files, all compiling through the rewriter (rt_load.c) and, with
** native charging, charged by the bytes they compile (a reader's
** pieces as they come, a file by its size).  In the sandbox the C
** searcher looks only in the package.cpath the state was created with.
*/
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "nat_audit.h"
#include "nat_cost.h"

/* Results of load/loadfile: the function (with env as its first
   upvalue when given and it has one of its own) or fail plus the
   message.  A quota error that a reader function raised is raised
   again.  A function without upvalues of its own (a dumped one) has
   lraf's counter first on the stock target: env must not land there. */
static int load_result(lua_State *L, rt_loadres r, int envidx) {
  if (rt_stopping(L, r.status)) return rt_raise_quota(L);
  if (r.status == LUA_OK) {
    if (envidx != 0 && (rt_state(L)->opt.target == RW_LRAVM ||
                        rt_own_upvalues(L, -1) >= 1)) {
      lua_pushvalue(L, envidx);
      if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
  }
  luaL_pushfail(L);
  lua_insert(L, -2);
  return 2;
}

/* Slot above load's four arguments that keeps the reader's last piece
   alive while it is parsed. */
#define PIECE_SLOT 5

static const char *call_reader(lua_State *L, void *ud, size_t *size) {
  const char *s;
  (void)ud;
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    *size = 0;
    return NULL;
  }
  if (!lua_isstring(L, -1))
    luaL_error(L, "reader function must return a string");
  lua_replace(L, PIECE_SLOT);
  s = lua_tolstring(L, PIECE_SLOT, size);
  /* compiling and rewriting the piece, charged before either */
  if (rt_state(L)->native)
    nat_steps(L, nat_find("_G", "load"), (int64_t)*size);
  return s;
}

static int rt_lua_load(lua_State *L) {
  size_t len;
  const char *s = lua_tolstring(L, 1, &len);
  const char *mode = luaL_optstring(L, 3, "bt");
  int env = !lua_isnone(L, 4) ? 4 : 0;
  rt_loadres r;
  if (s != NULL) {
    const char *name = luaL_optstring(L, 2, s);
    r = rt_load_buffer(L, s, len, name, mode);
  } else {
    const char *name = luaL_optstring(L, 2, "=(load)");
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, PIECE_SLOT);
    r = rt_load_reader(L, call_reader, NULL, name, mode);
  }
  return load_result(L, r, env);
}

/* Compiling and rewriting a file the script names, charged by its size
   before either (a regular file; others are read as they come). */
static void charge_file(lua_State *L, const char *path) {
  struct stat st;
  if (rt_state(L)->native && path != NULL && stat(path, &st) == 0 &&
      S_ISREG(st.st_mode))
    nat_steps(L, nat_find("_G", "load"), (int64_t)st.st_size);
}

static int rt_lua_loadfile(lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
  const char *mode = luaL_optstring(L, 2, "bt");
  int env = !lua_isnone(L, 3) ? 3 : 0;
  charge_file(L, fname);
  return load_result(L, rt_load_file(L, fname, mode), env);
}

static int dofile_done(lua_State *L, int status, lua_KContext ctx) {
  (void)status;
  (void)ctx;
  return lua_gettop(L) - 1;
}

static int rt_lua_dofile(lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
  lua_settop(L, 1);
  charge_file(L, fname);
  if (rt_load_file(L, fname, "bt").status != LUA_OK) return lua_error(L);
  lua_callk(L, 0, LUA_MULTRET, 0, dofile_done);
  return dofile_done(L, 0, 0);
}

/* The package library's own searchpath and loadlib, kept where a
   script cannot change them (not as upvalues: the searchers have
   lua5.4's one upvalue, the package table). */
static const char tools_key = 0;

static void push_tool(lua_State *L, int i) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &tools_key);
  lua_rawgeti(L, -1, i);
  lua_remove(L, -2);
}

/* package.searchpath(name, path); pushes the file name, or the "no
   file" message and returns 0. */
static int search(lua_State *L, const char *name, const char *path) {
  if (rt_state(L)->native) {  /* charged as package.searchpath is */
    const nat_model *m = nat_find("package", "searchpath");
    if (m != NULL)
      rt_charge(L, nat_units(m, nat_audit_searchsize(
                       (int64_t)strlen(name), path, strlen(path))));
  }
  push_tool(L, 1);
  lua_pushstring(L, name);
  lua_pushstring(L, path);
  lua_call(L, 2, 2);
  if (lua_isnil(L, -2)) {
    lua_remove(L, -2);
    return 0;
  }
  lua_pop(L, 1);
  return 1;
}

/* require's searcher for Lua files on package.path (upvalue 1: the
   package table). */
static int searcher_lua(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *path, *filename;
  lua_getfield(L, lua_upvalueindex(1), "path");
  path = lua_tostring(L, -1);
  if (path == NULL) return luaL_error(L, "'package.path' must be a string");
  if (!search(L, name, path)) return 1;
  filename = lua_tostring(L, -1);
  charge_file(L, filename);
  if (rt_load_file(L, filename, "bt").status != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s",
                      name, filename, lua_tostring(L, -1));
  lua_pushstring(L, filename);
  return 2;
}

/* The sandbox's searcher for C modules: package.cpath as it was when
   the state was created (upvalue 1: the package table). */
static int searcher_c(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lraf_state *S = rt_state(L);
  const char *filename, *mark;
  luaL_Buffer b;
  int i;
  if (S->cpath == NULL || !search(L, name, S->cpath)) {
    if (S->cpath == NULL) lua_pushliteral(L, "no C modules in this state");
    return 1;
  }
  filename = lua_tostring(L, -1);
  mark = strchr(name, '-');
  for (i = 0; i < (mark ? 2 : 1); i++) {
    const char *part = i == 0 ? name : mark + 1;
    size_t n = i == 0 && mark ? (size_t)(mark - name) : strlen(part);
    size_t k;
    push_tool(L, 2);
    lua_pushstring(L, filename);
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "luaopen_");
    for (k = 0; k < n; k++) luaL_addchar(&b, part[k] == '.' ? '_' : part[k]);
    luaL_pushresult(&b);
    lua_call(L, 2, 3);
    if (lua_isfunction(L, -3)) {
      lua_pop(L, 2);
      lua_pushstring(L, filename);
      return 2;
    }
    if (i == 0 && mark && strcmp(lua_tostring(L, -1), "init") == 0) {
      lua_pop(L, 3);
      continue;
    }
    break;
  }
  return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s",
                    name, filename, lua_tostring(L, -2));
}

static const luaL_Reg load_funcs[] = {
  {"load", rt_lua_load}, {"loadfile", rt_lua_loadfile},
  {"dofile", rt_lua_dofile}, {NULL, NULL}
};

void rt_loadlib_open(lua_State *L, lraf_state *S) {
  lua_pushglobaltable(L);
  luaL_setfuncs(L, load_funcs, 0);
  lua_pop(L, 1);
  /* package.searchers[2] (Lua files); in the sandbox also [3] (C) */
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, LUA_LOADLIBNAME);
  lua_createtable(L, 2, 0);
  lua_getfield(L, -2, "searchpath");
  lua_rawseti(L, -2, 1);
  lua_getfield(L, -2, "loadlib");
  lua_rawseti(L, -2, 2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &tools_key);
  lua_getfield(L, -1, "searchers");
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, searcher_lua, 1);
  lua_rawseti(L, -2, 2);
  if (S->env == LRAF_ENV_SANDBOX) {
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, searcher_c, 1);
    lua_rawseti(L, -2, 3);
    lua_pushnil(L);
    lua_rawseti(L, -2, 4);
  }
  lua_pop(L, 3);
}
