/*
** lraf_cli_disasm.c - `lraf disasm FILE`: the full listing of a Lua
** source file or binary chunk, in the layout of luac -l -l.
*/
#include <stdio.h>

#include "lraf_cli.h"

int cli_disasm(int argc, char **argv) {
  vm_chunk *chunk = NULL;
  lraf_error err;
  if (argc != 2)
    return cli_error("usage: lraf disasm FILE.lua|FILE.luac");
  if (cli_load_chunk(argv[1], &chunk, &err) != LRAF_OK)
    return cli_report(&err);
  vm_list(stdout, chunk->main, 1);
  vm_chunk_free(chunk);
  return fflush(stdout) == 0 ? CLI_OK : cli_error("cannot write the listing");
}
