/*
** cli_rewrite.c - `lraf rewrite IN.lua|IN.luac -o OUT`: offline
** rewriting (J-RAF2's offline mode).  OUT carries lraf's marker and
** cost-model id, so only lraf_load_rewritten (and `lraf run`) load it.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_rewrite(int argc, char **argv) {
  const cli_command *cmd = cli_command_find("rewrite");
  cli_args a;
  const char *in, *out;
  char *src, *name;
  size_t len, size;
  void *data;
  lraf_error err;
  FILE *f;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  if (a.noperands != 1 || a.output == NULL) {
    if (a.noperands == 0)
      cli_error("no input file (the Lua source or luac chunk to rewrite)");
    else if (a.noperands > 1)
      cli_error("one input file only, not '%s' too", argv[a.first + 1]);
    else
      cli_error("no output file: say where the rewritten chunk goes "
                "with -o OUT");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  in = argv[a.first];
  out = a.output;
  if (cli_read_script(in, &src, &len, &name, &err) != LRAF_OK)
    return cli_report(&err);
  if (lraf_rewrite(&a.opt, src, len, name, &data, &size, &err) != LRAF_OK) {
    free(src);
    free(name);
    return cli_report(&err);
  }
  free(src);
  free(name);
  f = fopen(out, "wb");
  if (f == NULL || fwrite(data, 1, size, f) != size) {
    if (f != NULL) fclose(f);
    free(data);
    return cli_error("cannot write %s: %s", out, strerror(errno));
  }
  free(data);
  return fclose(f) == 0 ? CLI_OK
                        : cli_error("cannot write %s: %s", out,
                                    strerror(errno));
}
