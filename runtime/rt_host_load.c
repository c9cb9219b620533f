/*
** rt_host_load.c - the host's load functions, and load-and-call
** (lraf_run_*): source text, files, and chunks rewritten offline
** (lraf_rewrite, `lraf rewrite`), which carry LRAF_OFFLINE_MAGIC and
** their cost-model id and are verified again before they are loaded.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"

typedef struct load_args {
  const char *src;
  size_t len;
  const char *name;
  bc_chunk *chunk;
  lraf_status code;
} load_args;

static int load_string(lua_State *L) {
  load_args *a = lua_touserdata(L, 1);
  rt_loadres r = rt_load_buffer(L, a->src, a->len, a->name, "bt");
  a->code = r.code;
  return r.status == LUA_OK ? 1 : lua_error(L);
}

static int load_file(lua_State *L) {
  load_args *a = lua_touserdata(L, 1);
  rt_loadres r = rt_load_file(L, a->name, "bt");
  a->code = r.code;
  return r.status == LUA_OK ? 1 : lua_error(L);
}

static int load_chunk(lua_State *L) {
  load_args *a = lua_touserdata(L, 1);
  rt_loadres r = rt_load_rewritten(L, &a->chunk, "=(lraf offline)");
  a->code = r.code;
  return r.status == LUA_OK ? 1 : lua_error(L);
}

static lraf_status run(lraf_state *S, lua_CFunction f, load_args *a,
                       lraf_error *err) {
  lraf_status st;
  a->code = LRAF_OK;
  st = rt_protected(S, f, a, 1, err);
  if (st != LRAF_OK && st != LRAF_EMEMLIMIT && st != LRAF_EQUOTA &&
      a->code == LRAF_EMEM && S->mem_refused) {
    /* compiling or rewriting the chunk needed more than the memory
       limit leaves: the limit's stop, as when code runs */
    rt_stop_limit(S, NULL, 1);
    st = rt_stop_fail(S, 1, err);
  } else if (st != LRAF_OK && st != LRAF_EMEMLIMIT && st != LRAF_EQUOTA &&
             a->code != LRAF_OK && err != NULL) {  /* a stop stays one */
    err->code = st = a->code;
  }
  rt_leave(S);
  return st;
}

lraf_status lraf_load_string(lraf_state *S, const char *src, size_t len,
                             const char *name, lraf_error *err) {
  load_args a;
  if (S == NULL || src == NULL)
    return err_fail(err, LRAF_EARG, "lraf_load_string: no source");
  a.src = src;
  a.len = len;
  a.name = name ? name : "=(lraf)";
  return run(S, load_string, &a, err);
}

lraf_status lraf_load_file(lraf_state *S, const char *path,
                           lraf_error *err) {
  load_args a;
  if (S == NULL) return err_fail(err, LRAF_EARG, "lraf_load_file: no state");
  a.name = path;
  return run(S, load_file, &a, err);
}

/* Whether the rewritten chunk after the header (skip bytes) of an
   offline chunk looks signed to a host without a key: it reads without
   its last RT_MAC_LEN bytes (which, without the key, cannot be told
   from any other bytes).  Asked only on the way to an error. */
static int signed_chunk(lraf_state *S, const void *data, size_t size,
                        size_t skip) {
  rt_input in;
  bc_chunk *chunk = NULL;
  lraf_error scratch;
  if (size <= skip + RT_MAC_LEN) return 0;
  in.kind = RT_INPUT_REWRITTEN;
  in.data = (const char *)data + skip;
  in.size = size - skip - RT_MAC_LEN;
  if (rt_pipeline(&in, &S->opt, NULL, &chunk, &scratch) != LRAF_OK)
    return 0;
  bc_chunk_free(chunk);
  return 1;
}

static lraf_status refuse_signed(lraf_error *err) {
  return err_fail(err, LRAF_EFORMAT, "chunk rewritten offline ends in %d "
                  "bytes after its code, as a signed chunk does, and this "
                  "host has no key to check a signature with: give the "
                  "host the key (offline_key, --key-file), or rewrite the "
                  "chunk without one to run it unsigned", RT_MAC_LEN);
}

lraf_status lraf_load_rewritten(lraf_state *S, const void *data,
                                size_t size, lraf_error *err) {
  const char *model = NULL;
  size_t mlen = 0, skip = 0;
  bc_chunk *chunk = NULL;
  rt_input in;
  load_args a;
  lraf_status st;
  if (S == NULL || data == NULL)
    return err_fail(err, LRAF_EARG, "lraf_load_rewritten: no chunk");
  if (S->key != NULL) {
    /* signed chunks only: the last RT_MAC_LEN bytes */
    unsigned char mac[RT_MAC_LEN];
    if (size < RT_MAC_LEN + LRAF_OFFLINE_MAGIC_LEN)
      return err_fail(err, LRAF_EVERIFY, "chunk rewritten offline carries "
                      "no signature");
    size -= RT_MAC_LEN;
    rt_hmac(S->key, S->keylen, data, size, mac);
    if (!rt_hmac_equal(mac, (const unsigned char *)data + size))
      return err_fail(err, LRAF_EVERIFY, "chunk rewritten offline is not "
                      "signed with this host's key (changed, or signed "
                      "with another)");
  } else {
    /* unsigned: refused unless the host allows them, in both
       environments (a plain binary chunk gets the header's message) */
    st = rt_offline_header(data, size, &model, &mlen, &skip, err);
    if (st != LRAF_OK) return st;
    if (!S->allow_offline && signed_chunk(S, data, size, skip))
      return refuse_signed(err);
    if (!S->allow_offline)
      return err_fail(err, LRAF_EFORMAT,
                      "unsigned chunks rewritten offline are refused "
                      "(their accounting is checked for form, not proven "
                      "complete); the host may sign them (offline_key, "
                      "--key-file) or allow them (allow_offline, "
                      "--allow-offline)");
  }
  st = rt_offline_header(data, size, &model, &mlen, &skip, err);
  if (st != LRAF_OK) return st;
  if (mlen != strlen(S->rwmodel) || memcmp(model, S->rwmodel, mlen) != 0)
    return err_fail(err, LRAF_EFORMAT,
                    "chunk was rewritten for cost model %.*s, the state "
                    "counts %s", (int)mlen, model, S->rwmodel);
  in.kind = RT_INPUT_REWRITTEN;
  in.data = (const char *)data + skip;
  in.size = size - skip;
  st = rt_pipeline(&in, &S->opt, NULL, &chunk, err);
  if (st == LRAF_EFORMAT && S->key == NULL &&
      signed_chunk(S, data, size, skip))
    st = refuse_signed(err);
  if (st == LRAF_OK && S->opt.target == RW_STOCK &&
      chunk->main->sizeupvalues < 2)
    st = err_fail(err, LRAF_EVERIFY, "chunk has no counter upvalues");
  if (st != LRAF_OK) {
    bc_chunk_free(chunk);
    return st;
  }
  a.chunk = chunk;
  st = run(S, load_chunk, &a, err);
  bc_chunk_free(a.chunk);  /* NULL once loading freed it */
  return st;
}

lraf_status lraf_run_string(lraf_state *S, const char *src, const char *name,
                            lraf_error *err) {
  lraf_status st;
  if (src == NULL) return err_fail(err, LRAF_EARG, "lraf_run_string: no source");
  st = lraf_load_string(S, src, strlen(src), name ? name : src, err);
  return st == LRAF_OK ? lraf_call(S, 0, 0, err) : st;
}

lraf_status lraf_run_file(lraf_state *S, const char *path, lraf_error *err) {
  lraf_status st = lraf_load_file(S, path, err);
  return st == LRAF_OK ? lraf_call(S, 0, 0, err) : st;
}
