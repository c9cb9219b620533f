/*
** rt_listing.c - lraf_listing: the bytecode listing (luac -l -l's
** layout) of Lua source, a binary chunk or an offline-rewritten chunk,
** as text for the host (the lraf command's disasm).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

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
