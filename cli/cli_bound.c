/*
** cli_bound.c - `lraf bound SCRIPT`: the declared cost of each function
** of SCRIPT (lraf_bound) as a table or JSON, and with --write-contract
** the execution contract that lraf run --contract enforces.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int write_text(const char *path, const char *text, size_t len) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  int bad;
  if (f == NULL) return cli_error("cannot write the contract to %s", path);
  bad = fwrite(text, 1, len, f) != len;
  bad |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
  return bad ? cli_error("cannot write %s", path) : CLI_OK;
}

int cli_bound(int argc, char **argv) {
  const cli_command *cmd = cli_command_find("bound");
  cli_args a;
  lraf_error err;
  char *data = NULL, *text = NULL, *name;
  const char *format;
  size_t n = 0, len = 0;
  lraf_status st;
  int rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  if (a.noperands != 1) {
    cli_error(a.noperands ? "one script only" : "no script to bound");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  if (a.opt.mode != LRAF_MODE_ORIGINAL)
    return cli_error("lraf bound proves bounds in the original cost model "
                     "only (--mode original)");
  format = a.format != NULL ? a.format : "table";
  if (strcmp(format, "table") && strcmp(format, "json"))
    return cli_error("unknown format '%s' (table or json)", format);
  st = cli_read_script(argv[a.first], &data, &n, &name, &err);
  if (st != LRAF_OK) return cli_report(&err);
  st = lraf_bound(data, n, name, format, &text, &len, &err);
  if (st == LRAF_OK && a.write_contract != NULL) {
    char *ctext = NULL;
    size_t clen = 0;
    st = lraf_bound(data, n, name, "contract", &ctext, &clen, &err);
    if (st == LRAF_OK) {
      rc = write_text(a.write_contract, ctext, clen);
      free(ctext);
    }
  }
  free(data);
  free(name);
  if (st != LRAF_OK) return cli_report(&err);
  if (rc == CLI_OK) rc = write_text("-", text, len);
  free(text);
  return rc;
}
