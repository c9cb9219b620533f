/*
** rt_offline.c - offline rewriting (J-RAF2's offline mode): source or a
** trusted binary chunk in, LRAF_OFFLINE_MAGIC + model id + rewritten
** chunk out, and the reading of that header.  The marker keeps plain
** lua_load (and lraf's own load functions for binary chunks) from taking
** it; lraf_load_rewritten does.  And lraf_listing: the bytecode listing
** (luac -l -l's layout) of Lua source, a binary chunk or such a
** rewritten chunk, as text for the host (the lraf command's disasm).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

lraf_status lraf_rewrite(const lraf_options *o, const char *src, size_t len,
                         const char *name, void **result, size_t *outsize,
                         lraf_error *err) {
  lraf_options dflt;
  rw_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  char model[80];
  rt_input in;
  bc_chunk *chunk = NULL;
  void *data = NULL;
  size_t size = 0, mlen;
  lraf_status st;
  unsigned char *p;
  int keyed;
  if (src == NULL || result == NULL || outsize == NULL)
    return err_fail(err, LRAF_EARG, "lraf_rewrite: missing argument");
  if (o == NULL) {
    lraf_default_options(&dflt);
    o = &dflt;
  }
  st = rt_rw_options(o, &opt, weights, model, sizeof model, err);
  if (st != LRAF_OK) return st;
  in.data = src;
  in.size = len;
  in.name = name ? name : "=(lraf)";
  in.kind = len >= 4 && memcmp(src, "\x1bLua", 4) == 0 ? RT_INPUT_CHUNK
                                                       : RT_INPUT_SOURCE;
  if (in.kind == RT_INPUT_SOURCE && len >= 1 && src[0] == '\x1b')
    return err_fail(err, LRAF_EFORMAT, "%s is not Lua source nor a Lua 5.4 "
                    "binary chunk", name ? name : "input");
  st = rt_pipeline(&in, &opt, NULL, &chunk, err);
  if (st == LRAF_OK) st = bc_write(chunk, &data, &size, err);
  bc_chunk_free(chunk);
  if (st != LRAF_OK) return st;
  mlen = strlen(model);
  keyed = o->offline_key != NULL && o->offline_key_len > 0;
  p = malloc(LRAF_OFFLINE_MAGIC_LEN + 1 + mlen + size + RT_MAC_LEN);
  if (p == NULL) {
    free(data);
    return err_fail(err, LRAF_EMEM, "out of memory");
  }
  memcpy(p, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN);
  p[LRAF_OFFLINE_MAGIC_LEN] = (unsigned char)mlen;
  memcpy(p + LRAF_OFFLINE_MAGIC_LEN + 1, model, mlen);
  memcpy(p + LRAF_OFFLINE_MAGIC_LEN + 1 + mlen, data, size);
  free(data);
  *result = p;
  *outsize = LRAF_OFFLINE_MAGIC_LEN + 1 + mlen + size;
  if (keyed) {
    /* the signature of everything before it */
    rt_hmac(o->offline_key, o->offline_key_len, p, *outsize, p + *outsize);
    *outsize += RT_MAC_LEN;
  }
  return LRAF_OK;
}

lraf_status rt_offline_header(const void *data, size_t size,
                              const char **model, size_t *mlen,
                              size_t *skip, lraf_error *err) {
  const unsigned char *p = data;
  if (size < LRAF_OFFLINE_MAGIC_LEN ||
      memcmp(p, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN) != 0) {
    if (size >= 4 && memcmp(p, "\x1bLua", 4) == 0)
      return err_fail(err, LRAF_EFORMAT,
                      "a plain Lua binary chunk is not an lraf-rewritten "
                      "chunk; lraf loads binary chunks only from "
                      "`lraf rewrite`");
    return err_fail(err, LRAF_EFORMAT,
                    "not an lraf-rewritten chunk (no lraf marker)");
  }
  *mlen = size > LRAF_OFFLINE_MAGIC_LEN ? p[LRAF_OFFLINE_MAGIC_LEN] : 0;
  *skip = LRAF_OFFLINE_MAGIC_LEN + 1 + *mlen;
  if (size < *skip)
    return err_fail(err, LRAF_EFORMAT, "truncated lraf-rewritten chunk");
  *model = (const char *)p + LRAF_OFFLINE_MAGIC_LEN + 1;
  return LRAF_OK;
}

/* ---- listings (the lraf command's disasm) ---- */

lraf_status lraf_listing(const void *data, size_t size, const char *name,
                         char **out, size_t *outlen, lraf_error *err) {
  const char *p = data, *model = NULL;
  size_t mlen = 0, skip = 0;
  bc_chunk *chunk = NULL;
  rt_input in;
  lraf_status st;
  FILE *f;
  if (data == NULL || out == NULL || outlen == NULL)
    return err_fail(err, LRAF_EARG, "lraf_listing: missing argument");
  in.data = p;
  in.size = size;
  in.name = name ? name : "=(lraf)";
  if (size >= LRAF_OFFLINE_MAGIC_LEN &&
      memcmp(p, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN) == 0) {
    st = rt_offline_header(p, size, &model, &mlen, &skip, err);
    in.kind = RT_INPUT_REWRITTEN;
    in.data = p + skip;
    in.size = size - skip;
  } else {
    in.kind = size >= 4 && memcmp(p, "\x1bLua", 4) == 0 ? RT_INPUT_CHUNK
                                                        : RT_INPUT_SOURCE;
    st = LRAF_OK;
  }
  if (st == LRAF_OK) st = rt_pipeline(&in, NULL, NULL, &chunk, err);
  if (st != LRAF_OK) return st;
  *out = NULL;
  f = open_memstream(out, outlen);
  if (f == NULL) {
    bc_chunk_free(chunk);
    return err_fail(err, LRAF_EMEM, "out of memory listing a chunk");
  }
  if (model != NULL)
    fprintf(f, "lraf-rewritten chunk, cost model %.*s\n", (int)mlen, model);
  bc_list(f, chunk->main, 1);
  bc_chunk_free(chunk);
  if (fclose(f) != 0) {
    free(*out);
    *out = NULL;
    return err_fail(err, LRAF_EMEM, "out of memory listing a chunk");
  }
  return LRAF_OK;
}
