/*
** rt_sandbox.c - what the sandbox lets a script reach on the file
** system and among C modules.
**
** Files: loadfile, dofile, require's Lua searcher and package.searchpath
** see only files whose real path (symbolic links and ".." resolved) lies
** in a directory the host allowed (lraf_options.allow_dirs, `lraf run
** --allow-dir DIR`; none by default).  A path outside gets the same
** answer whether or not the file exists.  Changing package.path only
** changes which allowed files are tried.
** C modules: require loads only the ones the host allowed (LPeg always,
** lraf_options.allow_modules, `--allow-module NAME`), from the
** package.cpath the state started with (rt_loadlib.c), whatever the
** script sets package.cpath to; package.loadlib does not exist.
*/
#define _XOPEN_SOURCE 700  /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"

#define REFUSED "not allowed in the sandbox"

/* ---------------------------------------------------------------- */
/* The host's lists                                                  */
/* ---------------------------------------------------------------- */

static void free_list(char **list) {
  size_t i;
  if (list == NULL) return;
  for (i = 0; list[i] != NULL; i++) free(list[i]);
  free(list);
}

void rt_sandbox_free(lraf_state *S) {
  free_list(S->allow_dirs);
  free_list(S->allow_modules);
  S->allow_dirs = S->allow_modules = NULL;
}

/* A copy of the NULL-terminated list in (directories: their real
   paths), with extra (if not NULL) first. */
static lraf_status copy_list(const char *const *in, const char *extra,
                             int dirs, char ***out, lraf_error *err) {
  size_t n = 0, i, k = 0;
  char **list;
  while (in != NULL && in[n] != NULL) n++;
  list = calloc(n + 2, sizeof *list);
  if (list == NULL) return err_fail(err, LRAF_EMEM, "out of memory");
  *out = list;
  if (extra != NULL && (list[k++] = strdup(extra)) == NULL)
    return err_fail(err, LRAF_EMEM, "out of memory");
  for (i = 0; i < n; i++) {
    if (dirs) {
      char *p = realpath(in[i], NULL);
      if (p == NULL)
        return err_fail(err, LRAF_EARG, "allowed directory '%s' not found",
                        in[i]);
      list[k++] = p;
    } else if ((list[k++] = strdup(in[i])) == NULL) {
      return err_fail(err, LRAF_EMEM, "out of memory");
    }
  }
  return LRAF_OK;
}

lraf_status rt_sandbox_options(lraf_state *S, const lraf_options *o,
                               lraf_error *err) {
  lraf_status st = copy_list(o->allow_dirs, NULL, 1, &S->allow_dirs, err);
  if (st == LRAF_OK)
    st = copy_list(o->allow_modules, "lpeg", 0, &S->allow_modules, err);
  if (st != LRAF_OK) rt_sandbox_free(S);
  return st;
}

/* Whether the resolved path real is below an allowed directory (or,
   with self, is one). */
static int below_allowed(lraf_state *S, const char *real, int self) {
  size_t i;
  for (i = 0; S->allow_dirs[i] != NULL; i++) {
    const char *d = S->allow_dirs[i];
    size_t n = strlen(d);
    if (strncmp(real, d, n) == 0 &&
        (real[n] == '/' || d[n - 1] == '/' || (self && real[n] == '\0')))
      return 1;
  }
  return 0;
}

/* Whether path names a file in an allowed directory. */
static int allowed_file(lraf_state *S, const char *path) {
  char *real = realpath(path, NULL);
  int ok;
  if (real == NULL) return 0;
  ok = below_allowed(S, real, 0);
  free(real);
  return ok;
}

/* Whether the directory of path is allowed: a file missing there is
   "no file"; one elsewhere is "not allowed", whether it exists or not
   (the sandbox learns nothing of files outside its directories). */
static int allowed_dir_of(lraf_state *S, const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir, *real;
  int ok = 0;
  if (slash == NULL) dir = strdup(".");
  else if (slash == path) dir = strdup("/");
  else dir = strndup(path, (size_t)(slash - path));
  if (dir == NULL) return 0;
  real = realpath(dir, NULL);
  free(dir);
  if (real == NULL) return 0;
  ok = below_allowed(S, real, 1);
  free(real);
  return ok;
}

static int allowed_module(lraf_state *S, const char *name) {
  size_t i;
  for (i = 0; S->allow_modules[i] != NULL; i++)
    if (strcmp(S->allow_modules[i], name) == 0) return 1;
  return 0;
}

/* ---------------------------------------------------------------- */
/* loadfile, dofile                                                  */
/* ---------------------------------------------------------------- */

/* Raise (dofile) or return fail plus the message (loadfile) unless the
   file at argument 1 is allowed; 0 when it is. */
static int refuse_file(lua_State *L, int raise) {
  const char *path = luaL_optstring(L, 1, NULL);
  if (path != NULL && allowed_file(rt_state(L), path)) return 0;
  if (path == NULL)
    lua_pushliteral(L, "cannot read stdin (" REFUSED ")");
  else
    lua_pushfstring(L, "cannot open %s (" REFUSED ")", path);
  if (raise) return lua_error(L);
  luaL_pushfail(L);
  lua_insert(L, -2);
  return 2;
}

/* The state's own function (upvalue 1) with the same arguments. */
static int delegate(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

static int sb_loadfile(lua_State *L) {
  int n = refuse_file(L, 0);
  return n ? n : delegate(L);
}

static int sb_dofile(lua_State *L) {
  refuse_file(L, 1);
  return delegate(L);
}

/* ---------------------------------------------------------------- */
/* package.searchpath and require's searchers                        */
/* ---------------------------------------------------------------- */

/* The first allowed file for name on path (templates separated by
   ';', '?' replaced by name with sep replaced by rep): pushes its name
   and returns 1, or pushes the "no file" list and returns 0. */
static int search(lua_State *L, const char *name, const char *path,
                  const char *sep, const char *rep) {
  lraf_state *S = rt_state(L);
  const char *p = path;
  if (*sep != '\0' && strchr(name, *sep) != NULL)
    name = luaL_gsub(L, name, sep, rep);
  else
    lua_pushstring(L, name);
  lua_pushliteral(L, "");  /* the "no file" list */
  while (*p != '\0') {
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *file;
    p += len + (end != NULL);
    if (len == 0) continue;
    lua_pushlstring(L, p - len - (end != NULL), len);
    file = luaL_gsub(L, lua_tostring(L, -1), "?", name);
    lua_remove(L, -2);
    if (allowed_file(S, file)) {
      lua_replace(L, -3);  /* over the name; the list goes */
      lua_pop(L, 1);
      return 1;
    }
    if (allowed_dir_of(S, file))
      lua_pushfstring(L, "\n\tno file '%s'", file);
    else
      lua_pushfstring(L, "\n\tfile '%s' " REFUSED " (outside its "
                      "directories: --allow-dir)", file);
    lua_remove(L, -2);
    lua_concat(L, 2);
  }
  lua_remove(L, -2);
  {
    /* without the first "\n\t", as Lua's own */
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (n >= 2) {
      lua_pushlstring(L, s + 2, n - 2);
      lua_remove(L, -2);
    }
  }
  return 0;
}

static int sb_searchpath(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *path = luaL_checkstring(L, 2);
  const char *sep = luaL_optstring(L, 3, ".");
  const char *rep = luaL_optstring(L, 4, LUA_DIRSEP);
  if (search(L, name, path, sep, rep)) return 1;
  luaL_pushfail(L);
  lua_insert(L, -2);
  return 2;
}

/* require's searcher for Lua files (upvalue 1: the package table). */
static int sb_searcher_lua(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *path, *file;
  lua_getfield(L, lua_upvalueindex(1), "path");
  path = lua_tostring(L, -1);
  if (path == NULL) return luaL_error(L, "'package.path' must be a string");
  if (!search(L, name, path, ".", LUA_DIRSEP)) return 1;
  file = lua_tostring(L, -1);
  if (rt_load_file(L, file, "t").status != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s",
                      name, file, lua_tostring(L, -1));
  lua_pushstring(L, file);
  return 2;
}

/* require's searcher for C modules: only allowed names, then the
   state's own searcher (upvalue 1). */
static int sb_searcher_c(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  if (!allowed_module(rt_state(L), name)) {
    lua_pushfstring(L, "no C module '%s' (" REFUSED ")", name);
    return 1;
  }
  return delegate(L);
}

static void wrap_global(lua_State *L, const char *name, lua_CFunction f) {
  lua_getglobal(L, name);
  lua_pushcclosure(L, f, 1);
  lua_setglobal(L, name);
}

void rt_sandbox_open(lua_State *L) {
  wrap_global(L, "loadfile", sb_loadfile);
  wrap_global(L, "dofile", sb_dofile);
  lua_getglobal(L, LUA_LOADLIBNAME);
  lua_pushcfunction(L, sb_searchpath);
  lua_setfield(L, -2, "searchpath");
  lua_getfield(L, -1, "searchers");
  lua_pushvalue(L, -2);
  lua_pushcclosure(L, sb_searcher_lua, 1);
  lua_rawseti(L, -2, 2);
  lua_rawgeti(L, -1, 3);
  lua_pushcclosure(L, sb_searcher_c, 1);
  lua_rawseti(L, -2, 3);
  lua_pop(L, 2);
}
