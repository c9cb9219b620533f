/*
** cli_contract.c - execution contracts for lraf run (docs/bound.md):
** a file of "FUNCTION MAX_INSTRUCTIONS" lines; each named global
** function, when the script first assigns it, is wrapped by a C
** function that measures the instructions of every call and stops the
** script when one call exceeds its declaration.  The wrapper runs no
** Lua instruction, so the count is the same with and without it.
*/
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

static int contract_done(lua_State *L, int status, lua_KContext ctx);

/* Parse one non-empty line "NAME N" into k's next entry. */
static int parse_line(cli_contract *k, const char *path, int line, char *s) {
  char *name = s, *end;
  long long v;
  while (*s && !isspace((unsigned char)*s)) s++;
  if (*s) *s++ = '\0';
  while (isspace((unsigned char)*s)) s++;
  errno = 0;
  v = strtoll(s, &end, 10);
  while (isspace((unsigned char)*end)) end++;
  if (end == s || *end != '\0' || v < 0 || errno != 0)
    return cli_error("%s:%d: expected \"FUNCTION MAX_INSTRUCTIONS\" (a "
                     "whole number of at least 0)", path, line);
  if (k->n == CLI_MAX_CONTRACTS)
    return cli_error("%s:%d: more than %d functions", path, line,
                     CLI_MAX_CONTRACTS);
  if (strlen(name) >= sizeof k->fn[0].name)
    return cli_error("%s:%d: function name longer than %d bytes", path, line,
                     (int)sizeof k->fn[0].name - 1);
  strcpy(k->fn[k->n].name, name);
  k->fn[k->n++].max = (int64_t)v;
  return CLI_OK;
}

int cli_contract_load(const char *path, cli_contract *k) {
  lraf_error err;
  char *data, *p;
  size_t n;
  int line = 0, rc = CLI_OK;
  memset(k, 0, sizeof *k);
  char *raw;
  if (cli_read_file(path, &raw, &n, &err) != LRAF_OK) return cli_report(&err);
  if (memchr(raw, '\0', n) != NULL) {
    free(raw);
    return cli_error("%s: a contract is text", path);
  }
  data = malloc(n + 1);  /* the lines are parsed as C strings */
  if (data == NULL) {
    free(raw);
    return cli_error("out of memory");
  }
  memcpy(data, raw, n);
  data[n] = '\0';
  free(raw);
  for (p = data; rc == CLI_OK && p != NULL && *p; ) {
    char *eol = strchr(p, '\n'), *hash, *e;
    if (eol) *eol = '\0';
    line++;
    if ((hash = strchr(p, '#')) != NULL) *hash = '\0';
    while (isspace((unsigned char)*p)) p++;
    e = p + strlen(p);
    while (e > p && isspace((unsigned char)e[-1])) *--e = '\0';
    if (*p) rc = parse_line(k, path, line, p);
    p = eol ? eol + 1 : NULL;
  }
  free(data);
  return rc;
}

int cli_contract_find(const cli_contract *k, const char *name,
                      int64_t *max) {
  int i;
  for (i = k->n - 1; i >= 0; i--)
    if (strcmp(k->fn[i].name, name) == 0) {
      *max = k->fn[i].max;
      return 1;
    }
  return 0;
}

/* The wrapper: upvalues the function, its index in the contract and the
   contract.  The calling thread's consumption before the call sits
   below the arguments. */
static int contract_call(lua_State *L) {
  cli_contract *k = lua_touserdata(L, lua_upvalueindex(3));
  lraf_state *S = lraf_from_lua(L);
  int n = lua_gettop(L);
  lua_pushinteger(L, lraf_consumed(S, lraf_current_account(S)));
  lua_insert(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 2);
  (void)k;
  lua_callk(L, n, LUA_MULTRET, 0, contract_done);
  return contract_done(L, LUA_OK, 0);
}

static int contract_done(lua_State *L, int status, lua_KContext ctx) {
  cli_contract *k = lua_touserdata(L, lua_upvalueindex(3));
  int i = (int)lua_tointeger(L, lua_upvalueindex(2));
  lraf_state *S = lraf_from_lua(L);
  int64_t used = lraf_consumed(S, lraf_current_account(S)) -
                 lua_tointeger(L, 1);
  (void)status; (void)ctx;
  if (used > k->fn[i].max && !k->violated) {
    k->violated = 1;
    k->which = i;
    k->used = used;
    lraf_limit_set(k->stop, 0);
    /* a charge past the (now 0) budget raises the quota error, which
       no pcall catches; small charges would only wait */
    lraf_charge(L, INT64_MAX / 4);
  }
  return lua_gettop(L) - 1;
}

/* __newindex of the globals: wrap a contracted Lua function. */
static int contract_newindex(lua_State *L) {
  cli_contract *k = lua_touserdata(L, lua_upvalueindex(1));
  int i;
  if (lua_type(L, 2) == LUA_TSTRING && lua_isfunction(L, 3) &&
      !lua_iscfunction(L, 3)) {
    const char *name = lua_tostring(L, 2);
    for (i = 0; i < k->n; i++)
      if (strcmp(k->fn[i].name, name) == 0) {
        lua_pushvalue(L, 3);
        lua_pushinteger(L, i);
        lua_pushlightuserdata(L, k);
        lua_pushcclosure(L, contract_call, 3);
        lua_replace(L, 3);
        break;
      }
  }
  lua_rawset(L, 1);
  return 0;
}

int cli_contract_install(lua_State *L, cli_contract *k) {
  lua_pushglobaltable(L);
  if (lua_getmetatable(L, -1)) {
    lua_pop(L, 2);
    return 0;
  }
  lua_createtable(L, 0, 1);
  lua_pushlightuserdata(L, k);
  lua_pushcclosure(L, contract_newindex, 1);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
  return 1;
}
