/*
** cli_disasm.c - `lraf disasm FILE`: the full listing of a Lua
** source file, a binary chunk or an `lraf rewrite` output, in the
** layout of luac -l -l.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rt.h"

/* An `lraf rewrite` output: the cost-model line, then its functions. */
static lraf_status load_rewritten(const char *p, size_t n, vm_chunk **out,
                                  lraf_error *err) {
  const char *model;
  size_t mlen, skip;
  lraf_status st = rt_offline_header(p, n, &model, &mlen, &skip, err);
  if (st != LRAF_OK) return st;
  printf("lraf-rewritten chunk, cost model %.*s\n", (int)mlen, model);
  return vm_read_rewritten(p + skip, n - skip, NULL, out, err);
}

int cli_disasm(int argc, char **argv) {
  vm_chunk *chunk = NULL;
  lraf_error err;
  char *data = NULL;
  size_t n = 0;
  lraf_status st;
  if (argc != 2)
    return cli_error("usage: lraf disasm FILE.lua|FILE.luac|REWRITTEN");
  st = cli_read_file(argv[1], &data, &n, &err);
  if (st == LRAF_OK && n >= LRAF_OFFLINE_MAGIC_LEN &&
      memcmp(data, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN) == 0)
    st = load_rewritten(data, n, &chunk, &err);
  else if (st == LRAF_OK)
    st = cli_load_chunk(argv[1], &chunk, &err);
  free(data);
  if (st != LRAF_OK) return cli_report(&err);
  vm_list(stdout, chunk->main, 1);
  vm_chunk_free(chunk);
  return fflush(stdout) == 0 ? CLI_OK : cli_error("cannot write the listing");
}
