/*
** rt_dump.c - string.dump and the binary chunks it makes (stock target).
**
** string.dump(f) returns the bytes lua5.4 returns for the unmodified f:
** the original bytecode, never the rewritten one.  Every chunk that is
** loaded keeps its original dump (by source name); string.dump finds
** f's original by rewriting those candidates again and comparing code,
** then lets Lua itself load and dump it (with or without strip), so the
** bytes are lua5.4's own.  Results are cached per rewritten function.
**
** The full environment's load accepts a binary chunk only when these
** exact bytes came from this state's string.dump (a set kept in the
** registry; strings compare by content), and then rewrites it like
** source: a tampered copy is different bytes and is refused, and even
** an accepted one carries no accounting of its own to skip.  Binary
** chunks from anywhere else (luac, other states, files) are refused:
** Lua does not check bytecode, and forged bytecode can break the VM.
** The sandbox refuses every binary chunk.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "nat_cost.h"

static const char origins_key = 0;  /* source -> {original dump = true} */
static const char cache_key = 0;    /* rewritten dump -> original dump */
static const char dumped_key = 0;   /* {string.dump output = true} */

/* ---------------------------------------------------------------- */
/* Remembering originals                                             */
/* ---------------------------------------------------------------- */

typedef struct remember_args {
  const char *p;
  size_t n;
  const char *source;  /* the main function's source; NULL: none */
  size_t len;
} remember_args;

/* The main function's source in a dump made by lua_dump: after the
   32 bytes of header and upvalue count, a size (7 bits a byte, the last
   byte marked by its high bit) plus one, then the bytes. */
static void dump_source(remember_args *a) {
  size_t i = 32, x = 0;
  a->source = NULL;
  a->len = 0;
  while (i < a->n) {
    unsigned char b = (unsigned char)a->p[i++];
    x = (x << 7) | (b & 0x7f);
    if (b & 0x80) break;
  }
  if (x > 0 && x - 1 <= a->n - i) {
    a->source = a->p + i;
    a->len = x - 1;
  }
}

static int remember(lua_State *L) {
  remember_args *a = lua_touserdata(L, 1);
  lraf_state *S = rt_state(L);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &origins_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &origins_key);
  }
  rt_alloc_want(S, a->len, 1, 0);  /* the chunk name: the host's */
  lua_pushlstring(L, a->source ? a->source : "", a->len);
  rt_alloc_want(S, 0, 0, 0);
  lua_pushvalue(L, -1);
  if (lua_rawget(L, -3) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -2);
    lua_rawset(L, -5);
  }
  rt_alloc_want(S, a->n, 1, a->len);  /* the name's bytes in the dump */
  lua_pushlstring(L, a->p, a->n);
  rt_alloc_want(S, 0, 0, 0);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  return 0;
}

lraf_status rt_dump_remember(lua_State *L, const char *p, size_t n,
                             lraf_error *err) {
  remember_args a;
  a.p = p;
  a.n = n;
  dump_source(&a);
  if (!lua_checkstack(L, 2))
    return err_fail(err, LRAF_EMEM, "out of memory keeping a chunk");
  lua_pushcfunction(L, remember);
  lua_pushlightuserdata(L, &a);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    rt_alloc_want(rt_state(L), 0, 0, 0);
    lua_pop(L, 1);
    return err_fail(err, LRAF_EMEM, "out of memory keeping a chunk");
  }
  return LRAF_OK;
}

/* Push size bytes at data as a string and free data, also when Lua
   runs out of memory (then the error is raised after the free). */
static int push_bytes_f(lua_State *L) {
  lua_pushlstring(L, lua_touserdata(L, 1), (size_t)lua_tointeger(L, 2));
  return 1;
}

static void push_bytes(lua_State *L, char *data, size_t size) {
  int st;
  luaL_checkstack(L, 3, "too many nested functions");
  lua_pushcfunction(L, push_bytes_f);
  lua_pushlightuserdata(L, data);
  lua_pushinteger(L, (lua_Integer)size);
  st = lua_pcall(L, 2, 1, 0);
  free(data);
  if (st != LUA_OK) lua_error(L);
}

/* ---------------------------------------------------------------- */
/* Finding f's original                                              */
/* ---------------------------------------------------------------- */

static int same_proto(const bc_proto *a, const bc_proto *b) {
  return a->sizecode == b->sizecode && a->sizep == b->sizep &&
         a->linedefined == b->linedefined &&
         a->lastlinedefined == b->lastlinedefined &&
         a->numparams == b->numparams && a->is_vararg == b->is_vararg &&
         a->maxstacksize == b->maxstacksize && a->sizek == b->sizek &&
         memcmp(a->code, b->code, (size_t)a->sizecode * sizeof *a->code) == 0;
}

/* The node of orig at the place where rewritten (a tree of the same
   shape) has a function like want; NULL if none. */
static bc_proto *find(bc_proto *orig, const bc_proto *rewritten,
                      const bc_proto *want) {
  int i;
  if (orig->sizep != rewritten->sizep) return NULL;
  if (same_proto(rewritten, want)) return orig;
  for (i = 0; i < orig->sizep; i++) {
    bc_proto *p = find(orig->p[i], rewritten->p[i], want);
    if (p != NULL) return p;
  }
  return NULL;
}

/* Write the function f (a node of a tree whose main has source src) as
   a chunk of its own, the way lua_dump would write it. */
static lraf_status write_alone(bc_proto *f, const bc_string *src,
                               void **data, size_t *size) {
  bc_chunk c;
  bc_string keep = f->source;
  lraf_status st;
  if (!f->source.present && src->present) f->source = *src;
  c.nupvalues = (uint8_t)f->sizeupvalues;
  c.main = f;
  st = bc_write(&c, data, size, NULL);
  f->source = keep;
  return st;
}

/* Push the original dump of the rewritten chunk `want` (read from the
   rewritten function's dump) if one of the candidates at the top (a
   set of original dumps) rewrites to it; else push nothing. */
static int search(lua_State *L, const bc_proto *want) {
  lraf_state *S = rt_state(L);
  char *data = NULL;
  size_t size = 0;
  rw_options opt = S->opt;
  opt.refunds = !opt.lines;  /* as rt_pipeline_in_place rewrote it */
  lua_pushnil(L);
  while (data == NULL && lua_next(L, -2)) {
    size_t n;
    const char *p = lua_tolstring(L, -2, &n);
    bc_chunk *orig = NULL, *re = NULL;
    lua_pop(L, 1);
    if (bc_read(p, n, NULL, &orig, NULL) == LRAF_OK &&
        bc_read(p, n, NULL, &re, NULL) == LRAF_OK &&
        rw_rewrite(re, &opt, NULL, NULL) == LRAF_OK) {
      bc_proto *f = find(orig->main, re->main, want);
      void *d = NULL;
      if (f != NULL &&
          write_alone(f, &orig->main->source, &d, &size) == LRAF_OK)
        data = d;
      else
        free(d);
    }
    bc_chunk_free(orig);
    bc_chunk_free(re);
  }
  if (data == NULL) return 0;
  lua_pop(L, 1);  /* the key: the search ended early */
  push_bytes(L, data, size);
  return 1;
}

/* With native charging: the search rewrites candidates (the set at the
   top) until one matches; all their bytes are charged before it, as
   load charges a chunk's (whichever matches first, the charge is the
   same). */
static void charge_search(lua_State *L) {
  int64_t bytes = 0;
  if (!rt_state(L)->native) return;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    bytes += (int64_t)lua_rawlen(L, -1);
  }
  nat_steps(L, nat_find("_G", "load"), bytes);
}

/* Push the original (unstripped) dump of the rewritten function at
   idx, or raise "unable to dump given function". */
/* A userdata holding a chunk read while an error may be raised (a
   charge): its __gc frees what it still holds. */
static int chunk_box_gc(lua_State *L) {
  bc_chunk **box = lua_touserdata(L, 1);
  bc_chunk_free(*box);
  *box = NULL;
  return 0;
}

static bc_chunk **chunk_box(lua_State *L) {
  bc_chunk **box = lua_newuserdatauv(L, sizeof *box, 0);
  *box = NULL;
  if (luaL_newmetatable(L, "lraf.chunkbox")) {
    lua_pushcfunction(L, chunk_box_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return box;
}

static void original(lua_State *L, int idx) {
  char *data = NULL;
  size_t size = 0;
  bc_chunk *chunk = NULL, **box;
  int ok, boxidx;
  lua_pushvalue(L, idx);
  ok = rt_dump(L, 0, &data, &size, NULL) == LRAF_OK;
  lua_pop(L, 1);
  if (!ok) luaL_error(L, "not enough memory");
  push_bytes(L, data, size);  /* the key of the cache */
  lua_rawgetp(L, LUA_REGISTRYINDEX, &cache_key);
  lua_pushvalue(L, -2);
  if (lua_rawget(L, -2) == LUA_TSTRING) {
    lua_replace(L, -3);
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  {
    size_t n;
    const char *p = lua_tolstring(L, -2, &n);
    box = chunk_box(L);  /* frees the chunk if the charge below raises */
    boxidx = lua_gettop(L);
    ok = bc_read_rewritten(p, n, NULL, &chunk, NULL) == LRAF_OK;
    *box = chunk;
  }
  if (ok) {
    const bc_string *src = &chunk->main->source;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &origins_key);
    if (src->present)
      lua_pushlstring(L, src->data, src->len);
    else
      lua_pushliteral(L, "");
    ok = lua_type(L, -2) == LUA_TTABLE && lua_rawget(L, -2) == LUA_TTABLE &&
         (charge_search(L), search(L, chunk->main));
  }
  bc_chunk_free(chunk);
  *box = NULL;
  lua_remove(L, boxidx);
  if (!ok) luaL_error(L, "unable to dump given function");
  /* stack: key, cache, origins, set, original */
  lua_replace(L, -3);
  lua_pop(L, 1);
  lua_pushvalue(L, -3);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

/* ---------------------------------------------------------------- */
/* string.dump                                                       */
/* ---------------------------------------------------------------- */

/* lua_dump's writer into a luaL_Buffer opened at the first piece, above
   the function being dumped (as lua5.4's string.dump does). */
typedef struct dumpstate {
  int init;
  luaL_Buffer b;
} dumpstate;

static int writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dumpstate *d = ud;
  if (!d->init) {
    d->init = 1;
    luaL_buffinit(L, &d->b);
  }
  luaL_addlstring(&d->b, p, sz);
  return 0;
}

static const char *bytes_reader(lua_State *L, void *ud, size_t *size) {
  const char **s = ud;
  const char *p = s[0];
  (void)L;
  *size = (size_t)(s[1] - s[0]);
  s[0] = s[1];
  return *size ? p : NULL;
}

static int str_dump(lua_State *L) {
  dumpstate d;
  int strip = lua_toboolean(L, 2);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  /* rewritten functions: on the stock target the ones that carry lraf's
     upvalues; on the lraf VM every Lua function (rewritten in place) */
  if (rt_own_upvalues(L, 1) >= 0 ||
      (rt_state(L)->opt.target == RW_LRAVM && !lua_iscfunction(L, 1))) {
    /* Lua loads the original (its own compiler's bytes) unrewritten,
       only to dump it: it is never called */
    size_t n;
    const char *p, *s[2];
    original(L, 1);
    p = lua_tolstring(L, -1, &n);
    s[0] = p;
    s[1] = p + n;
    if (lua_load(L, bytes_reader, s, "=?", "b") != LUA_OK)
      return luaL_error(L, "unable to dump given function");
    lua_replace(L, 1);
    lua_settop(L, 1);
  }
  d.init = 0;
  if (lua_dump(L, writer, &d, strip) != 0 || !d.init)
    return luaL_error(L, "unable to dump given function");
  luaL_pushresult(&d.b);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &dumped_key);
  lua_pushvalue(L, -2);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  return 1;
}

int rt_dump_known(lua_State *L, const char *s, size_t len) {
  int known;
  if (rt_state(L)->env != LRAF_ENV_FULL || len < 4 ||
      memcmp(s, LUA_SIGNATURE, 4) != 0)
    return 0;
  luaL_checkstack(L, 2, "too many nested functions");
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &dumped_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushlstring(L, s, len);
  known = lua_rawget(L, -2) == LUA_TBOOLEAN;
  lua_pop(L, 2);
  return known;
}

void rt_dump_open(lua_State *L) {
  lua_newtable(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &cache_key);
  lua_newtable(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &dumped_key);
  if (lua_getglobal(L, LUA_STRLIBNAME) == LUA_TTABLE) {
    lua_pushcfunction(L, str_dump);
    lua_setfield(L, -2, "dump");
  }
  lua_pop(L, 1);
}
