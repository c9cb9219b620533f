/*
** cli_disasm.c - `lraf disasm FILE`: the full listing of a Lua
** source file, a binary chunk or an `lraf rewrite` output, in the
** layout of luac -l -l (lraf_listing).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_disasm(int argc, char **argv) {
  const cli_command *cmd = cli_command_find("disasm");
  cli_args a;
  lraf_error err;
  char *data = NULL, *text = NULL, *name;
  size_t n = 0, len = 0;
  lraf_status st;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  if (a.noperands != 1) {
    cli_error(a.noperands ? "one file only" : "no file to list");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  st = cli_read_script(argv[a.first], &data, &n, &name, &err);
  if (st != LRAF_OK) return cli_report(&err);
  st = lraf_listing(data, n, name, &text, &len, &err);
  free(data);
  free(name);
  if (st != LRAF_OK) return cli_report(&err);
  fwrite(text, 1, len, stdout);
  free(text);
  return fflush(stdout) == 0 ? CLI_OK : cli_error("cannot write the listing");
}
