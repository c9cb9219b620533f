/*
** rt_load.c - every way code enters a state: Lua compiles the source
** (text only), the pipeline (rt_pipeline.c) rewrites and verifies it,
** this file writes it back and loads the result, whose counter and consume upvalues are then
** joined to the state's anchor closure.  Binary chunks are refused with
** a message of their own, except in the full environment the exact
** bytes this state's string.dump made (rt_dump.c), which are rewritten
** like source; Lua's mode argument keeps its meaning.  The original
** dump of every chunk is kept for string.dump (rt_dump_remember).
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"

#define BINARY_REFUSED \
  "attempt to load a binary chunk (lraf runs only Lua source, which it " \
  "rewrites, and in the full environment what string.dump made in this " \
  "state: other binary chunks could carry unaccounted or unsafe code)"
#define LUA_BINARY_ERROR "attempt to load a binary chunk (mode is 't')"

typedef struct bytes {
  const char *p;
  size_t n;
} bytes;

static const char *bytes_reader(lua_State *L, void *ud, size_t *size) {
  bytes *b = ud;
  (void)L;
  *size = b->n;
  b->n = 0;
  return *size ? b->p : NULL;
}

/* Host strings (rt_alloc.c): the chunk name a load makes is left out
   of the memory count.  A short one is made first and held below the
   load (Lua interns it, so the load makes no other); a long one is new
   at each use: the next uses string blocks of its size are left out. */
static int name_begin(lua_State *L, const char *name, int uses) {
  lraf_state *S = rt_state(L);
  size_t len = strlen(name);
  if (len > RT_SHORTSTR) {
    rt_alloc_want(S, len, uses, 0);
    return 0;
  }
  rt_alloc_want(S, len, 1, 0);  /* none when Lua has it already */
  lua_pushlstring(L, name, len);
  rt_alloc_want(S, 0, 0, 0);
  return 1;
}

/* After the load: the function or the message is on the top. */
static void name_end(lua_State *L, int held) {
  rt_alloc_want(rt_state(L), 0, 0, 0);
  if (held) lua_remove(L, -2);
}

rt_loadres rt_load_rewritten(lua_State *L, bc_chunk **chunk,
                             const char *name) {
  lraf_state *S = rt_state(L);
  rt_loadres r = {LUA_OK, LRAF_OK};
  lraf_error err;
  void *data = NULL;
  size_t size = 0, srclen = 0;
  bytes b;
  const bc_proto *main = (*chunk)->main;
  int n = main->sizeupvalues - 2;
  if (main->source.present) srclen = main->source.len;
  r.code = bc_write(*chunk, &data, &size, &err);
  bc_chunk_free(*chunk);
  *chunk = NULL;
  if (r.code != LRAF_OK) {
    lua_pushfstring(L, "lraf: %s", err.message);
    r.status = LUA_ERRSYNTAX;
    return r;
  }
  b.p = data;
  b.n = size;
  if (srclen > RT_SHORTSTR)
    rt_alloc_want(S, srclen, 1, 0);  /* read first */
  r.status = lua_load(L, bytes_reader, &b, name, "b");
  rt_alloc_want(S, 0, 0, 0);
  free(data);
  if (r.status != LUA_OK) {
    r.code = r.status == LUA_ERRMEM ? LRAF_EMEM : LRAF_EFORMAT;
    return r;
  }
  if (S->opt.target == RW_LRAVM) {
    /* the lraf VM: ACCT uses the state's counter, nothing to join */
  } else if (S->anchor_ref == LUA_NOREF || S->anchor_ref == LUA_REFNIL) {
    /* this is the anchor: it gets the cells everything else shares */
    S->counter_up = n + 1;
    lua_pushinteger(L, 0);
    lua_setupvalue(L, -2, n + 1);
    lua_pushcfunction(L, rt_consume);
    lua_setupvalue(L, -2, n + 2);
  } else {
    lua_rawgeti(L, LUA_REGISTRYINDEX, S->anchor_ref);
    lua_upvaluejoin(L, -2, n + 1, -1, S->counter_up);
    lua_upvaluejoin(L, -2, n + 2, -1, S->counter_up + 1);
    lua_pop(L, 1);
  }
  return r;
}

/* The chunk name's bytes in the dump of the function at the top (a
   host string: not counted, rt_alloc.c). */
static size_t name_bytes(lua_State *L, size_t size) {
  lua_Debug ar;
  lua_pushvalue(L, -1);
  if (!lua_getinfo(L, ">S", &ar) || ar.srclen > size) return 0;
  return ar.srclen;
}

/* The compiled function at the top becomes the rewritten one.  Lua
   compiled with mode "t"; mode is what the caller asked for. */
static rt_loadres finish(lua_State *L, int status, const char *mode,
                         int binary) {
  rt_loadres r = {status, LRAF_OK};
  lraf_state *S = rt_state(L);
  bc_chunk *chunk = NULL;
  lraf_error err;
  char *bytes = NULL;
  size_t size = 0, held = 0;
  const char *msg = status == LUA_ERRSYNTAX ? lua_tostring(L, -1) : NULL;
  if (msg != NULL && strcmp(msg, LUA_BINARY_ERROR) == 0) {
    lua_pop(L, 1);
    if (strchr(mode, 'b') != NULL)
      lua_pushliteral(L, BINARY_REFUSED);
    else
      lua_pushfstring(L, "attempt to load a binary chunk (mode is '%s')",
                      mode);
    r.code = LRAF_EFORMAT;
    return r;
  }
  if (!binary && strchr(mode, 't') == NULL &&
      (status == LUA_OK || status == LUA_ERRSYNTAX)) {
    lua_pop(L, 1);
    lua_pushfstring(L, "attempt to load a text chunk (mode is '%s')", mode);
    r.status = LUA_ERRSYNTAX;
    r.code = LRAF_EARG;
    return r;
  }
  switch (status) {
    case LUA_OK: break;
    case LUA_ERRMEM: r.code = LRAF_EMEM; return r;
    case LUA_ERRFILE: r.code = LRAF_EIO; return r;
    case LUA_ERRSYNTAX: r.code = LRAF_ESYNTAX; return r;
    default: r.code = LRAF_ERUN; return r;
  }
  /* the original bytes are kept for string.dump; the dump's size tells
     how much the rewriter will take: that is counted in the state
     (rt_alloc.c) while it works */
  r.code = rt_dump(L, 0, &bytes, &size, &err);
  if (r.code == LRAF_OK) r.code = rt_dump_remember(L, bytes, size, &err);
  if (r.code == LRAF_OK &&
      !rt_rwmem_reserve(L, size - name_bytes(L, size), &held))
    r.code = err_fail(&err, LRAF_EMEM,
                      "not enough memory to rewrite a chunk (memory limit)");
  if (S->opt.target == RW_LRAVM) {  /* the lraf VM: in memory */
    free(bytes);
    if (r.code == LRAF_OK)
      r.code = rt_pipeline_in_place(L, &S->opt, NULL, &err);
    rt_rwmem_release(L, held);
    if (r.code != LRAF_OK) {
      lua_pop(L, 1);
      lua_pushfstring(L, "lraf: %s", err.message);
      r.status = r.code == LRAF_EMEM ? LUA_ERRMEM : LUA_ERRSYNTAX;
    }
    return r;
  }
  lua_pop(L, 1);
  if (r.code == LRAF_OK) r.code = bc_read(bytes, size, NULL, &chunk, &err);
  free(bytes);  /* read: not held while the chunk is rewritten */
  if (r.code == LRAF_OK)
    r.code = rt_pipeline_chunk(chunk, 1, &S->opt, NULL, &chunk, &err);
  if (r.code != LRAF_OK) {
    rt_rwmem_release(L, held);
    lua_pushfstring(L, "lraf: %s", err.message);
    r.status = r.code == LRAF_EMEM ? LUA_ERRMEM : LUA_ERRSYNTAX;
    return r;
  }
  r = rt_load_rewritten(L, &chunk, "=(lraf)");
  rt_rwmem_release(L, held);
  return r;
}

rt_loadres rt_load_buffer(lua_State *L, const char *s, size_t len,
                          const char *name, const char *mode) {
  rt_loadres r;
  int held;
  if (strchr(mode, 'b') != NULL && rt_dump_known(L, s, len))
    return finish(L, luaL_loadbufferx(L, s, len, name, "b"), mode, 1);
  held = name_begin(L, name ? name : s, 1);
  r = finish(L, luaL_loadbufferx(L, s, len, name, "t"), mode, 0);
  name_end(L, held);
  return r;
}

rt_loadres rt_load_file(lua_State *L, const char *path, const char *mode) {
  rt_loadres r;
  int held = 0;
  if (path != NULL) {  /* luaL_loadfilex makes "@path", the parser too */
    lraf_state *S = rt_state(L);
    rt_alloc_want(S, strlen(path) + 1, 1, 0);
    lua_pushfstring(L, "@%s", path);
    rt_alloc_want(S, 0, 0, 0);
    held = lua_rawlen(L, -1) <= RT_SHORTSTR;
    if (!held) {
      rt_alloc_want(S, lua_rawlen(L, -1), 2, 0);
      lua_pop(L, 1);
    }
  }
  r = finish(L, luaL_loadfilex(L, path, "t"), mode, 0);
  name_end(L, held);
  return r;
}

rt_loadres rt_load_reader(lua_State *L, lua_Reader reader, void *ud,
                          const char *name, const char *mode) {
  rt_loadres r;
  int held = name_begin(L, name ? name : "?", 1);
  r = finish(L, lua_load(L, reader, ud, name, "t"), mode, 0);
  name_end(L, held);
  return r;
}
