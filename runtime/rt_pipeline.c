/*
** rt_pipeline.c - source or a chunk in, a rewritten and verified chunk
** out: compile, dump, read, rewrite, verify (see rt_pipeline.h).
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt_pipeline.h"

typedef struct dumpbuf {
  char *p;
  size_t n, cap;
} dumpbuf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dumpbuf *b = ud;
  (void)L;
  if (b->n + sz > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    char *q;
    while (cap < b->n + sz) cap *= 2;
    q = realloc(b->p, cap);
    if (q == NULL) return 1;
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, p, sz);
  b->n += sz;
  return 0;
}

lraf_status rt_dump(lua_State *L, int strip, char **data, size_t *size,
                    lraf_error *err) {
  dumpbuf b = {NULL, 0, 0};
  if (lua_dump(L, dump_writer, &b, strip) != 0) {
    free(b.p);
    return err_fail(err, LRAF_EMEM, "out of memory dumping a chunk");
  }
  *data = b.p;
  *size = b.n;
  return LRAF_OK;
}

lraf_status rt_compile(const char *src, size_t len, const char *name,
                       int strip, char **data, size_t *size,
                       lraf_error *err) {
  lua_State *L = luaL_newstate();
  lraf_status st;
  if (L == NULL)
    return err_fail(err, LRAF_EMEM, "cannot create a Lua state");
  if (luaL_loadbufferx(L, src, len, name, "t") != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    st = err_fail(err, LRAF_ESYNTAX, "%s", msg ? msg : "syntax error");
  } else if ((st = rt_dump(L, strip, data, size, err)) != LRAF_OK) {
    err_fail(err, st, "out of memory dumping %s", name);
  }
  lua_close(L);
  return st;
}

lraf_status rt_pipeline(const rt_input *in, const rw_options *opt,
                        rw_stats *stats, bc_chunk **out, lraf_error *err) {
  bc_chunk *chunk = NULL;
  char *bytes = NULL;
  size_t size = 0;
  lraf_status st;
  switch (in->kind) {
    case RT_INPUT_TOP:
      st = rt_dump(in->L, 0, &bytes, &size, err);
      lua_pop(in->L, 1);
      if (st == LRAF_OK) st = bc_read(bytes, size, NULL, &chunk, err);
      break;
    case RT_INPUT_SOURCE:
      st = rt_compile(in->data, in->size, in->name, 0, &bytes, &size, err);
      if (st == LRAF_OK) st = bc_read(bytes, size, NULL, &chunk, err);
      break;
    case RT_INPUT_CHUNK:
      st = bc_read(in->data, in->size, NULL, &chunk, err);
      break;
    default:
      st = bc_read_rewritten(in->data, in->size, NULL, &chunk, err);
      break;
  }
  free(bytes);
  if (st != LRAF_OK) return st;
  if (opt == NULL) {
    *out = chunk;
    return LRAF_OK;
  }
  return rt_pipeline_chunk(chunk, in->kind != RT_INPUT_REWRITTEN, opt,
                           stats, out, err);
}

lraf_status rt_pipeline_chunk(bc_chunk *chunk, int rewrite,
                              const rw_options *opt, rw_stats *stats,
                              bc_chunk **out, lraf_error *err) {
  lraf_status st = LRAF_OK;
  if (rewrite) st = rw_rewrite(chunk, opt, stats, err);
  if (st == LRAF_OK) st = rw_verify_target(chunk, opt->target, err);
  if (st != LRAF_OK) {
    bc_chunk_free(chunk);
    return st;
  }
  *out = chunk;
  return LRAF_OK;
}
