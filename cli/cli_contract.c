/*
** cli_contract.c - execution contracts for lraf run (docs/bound.md):
** a file of "FUNCTION MAX_INSTRUCTIONS" lines; each named global
** function, when the script first assigns it, is wrapped by a C
** function that binds the calling thread's account to a budget of the
** declaration for the length of each call (a child of the account's
** manager), so the script stops as soon as one call exceeds it, and
** checks the call's instructions again at its return.  The wrapper
** runs no Lua instruction, so the count is the same with and without
** it.
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

/* Bind account a to a budget of fn's declaration for one call; the
   slot, or -1 when none is free (the call is then judged at its return
   only). */
static int open_call(cli_contract *k, lraf_state *S, lraf_account *a,
                     int fn) {
  cli_contract_call *c = NULL;
  lraf_error err;
  int i;
  for (i = 0; i < k->ncall && k->call[i].child != NULL; i++)
    ;
  if (i == CLI_CONTRACT_CALLS || a == NULL) return -1;
  c = &k->call[i];
  c->outer = lraf_account_manager(a);
  c->child = lraf_hier_new(c->outer, k->fn[fn].max);
  if (c->child == NULL) return -1;
  lraf_manager_retain(c->outer);
  c->a = a;
  c->fn = fn;
  c->seq = ++k->seq;
  c->start = lraf_consumed(S, a);
  if (i == k->ncall) k->ncall++;
  /* a stop the flush to the outer manager reports stays with it: the
     next check stops the script */
  (void)lraf_set_manager(S, a, c->child, &err);
  return i;
}

/* Bind slot i's account back to its manager and free the slot. */
static void close_call(cli_contract *k, lraf_state *S, int i) {
  cli_contract_call *c = &k->call[i];
  lraf_error err;
  (void)lraf_set_manager(S, c->a, c->outer, &err);
  lraf_manager_release(c->child);
  lraf_manager_release(c->outer);
  c->child = c->outer = NULL;
}

/* The wrapper: upvalues the function, its index in the contract and the
   contract.  The call's slot and its thread's consumption before the
   call sit below the arguments. */
static int contract_call(lua_State *L) {
  cli_contract *k = lua_touserdata(L, lua_upvalueindex(3));
  int i = (int)lua_tointeger(L, lua_upvalueindex(2));
  lraf_state *S = lraf_from_lua(L);
  lraf_account *a = lraf_current_account(S);
  int n = lua_gettop(L);
  lua_pushinteger(L, lraf_consumed(S, a));
  lua_insert(L, 1);
  lua_pushinteger(L, open_call(k, S, a, i));
  lua_insert(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 3);
  lua_callk(L, n, LUA_MULTRET, 0, contract_done);
  return contract_done(L, LUA_OK, 0);
}

static int contract_done(lua_State *L, int status, lua_KContext ctx) {
  cli_contract *k = lua_touserdata(L, lua_upvalueindex(3));
  int i = (int)lua_tointeger(L, lua_upvalueindex(2));
  int slot = (int)lua_tointeger(L, 1);
  lraf_state *S = lraf_from_lua(L);
  int64_t used;
  (void)status; (void)ctx;
  if (slot >= 0) close_call(k, S, slot);
  used = lraf_consumed(S, lraf_current_account(S)) - lua_tointeger(L, 2);
  if (used > k->fn[i].max && !k->violated) {
    k->violated = 1;
    k->which = i;
    k->used = used;
    lraf_limit_set(k->stop, 0);
    /* a charge past the (now 0) budget raises the quota error, which
       no pcall catches; small charges would only wait */
    lraf_charge(L, INT64_MAX / 4);
  }
  return lua_gettop(L) - 2;
}

int cli_contract_blame(cli_contract *k, lraf_state *S) {
  cli_contract_call *c, *late = NULL;
  int i;
  if (k->violated) return 1;
  for (i = 0; i < k->ncall; i++) {
    c = &k->call[i];
    if (c->child != NULL && lraf_limit_remaining(c->child) < 0 &&
        (late == NULL || c->seq > late->seq))
      late = c;
  }
  if (late == NULL) return 0;
  k->violated = 1;
  k->which = late->fn;
  k->used = lraf_consumed(S, late->a) - late->start;
  return 1;
}

void cli_contract_free(cli_contract *k) {
  int i;
  if (k == NULL) return;
  for (i = 0; i < k->ncall; i++)
    if (k->call[i].child != NULL) {
      lraf_manager_release(k->call[i].child);
      lraf_manager_release(k->call[i].outer);
    }
  free(k);
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
