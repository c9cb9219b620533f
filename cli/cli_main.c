/*
** cli_main.c - main() of the lraf command: a dispatcher over the
** subcommands (cli_options.c has their table) and `lraf help`.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* `lraf help [COMMAND | --markdown]`. */
static int help(int argc, char **argv) {
  const cli_command *cmd;
  if (argc < 3) {
    cli_help_all(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[2], "--markdown") == 0) {
    cli_help_markdown(stdout);
    return CLI_OK;
  }
  if ((cmd = cli_command_find(argv[2])) == NULL)
    return cli_error("no command '%s' (try lraf --help)", argv[2]);
  cli_help(stdout, cmd);
  return CLI_OK;
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n >= m && strcmp(s + n - m, tail) == 0;
}

int main(int argc, char **argv) {
  const cli_command *cmd;
  if (argc < 2) {
    cli_help_all(stderr);
    return CLI_EUSAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    cli_help_all(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    cli_version(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[1], "help") == 0) return help(argc, argv);
  if ((cmd = cli_command_find(argv[1])) != NULL)
    return cmd->run(argc - 1, argv + 1);
  if (ends_with(argv[1], ".lua") || ends_with(argv[1], ".luac") ||
      access(argv[1], F_OK) == 0)
    return cli_error("unknown command '%s'; did you mean `lraf run %s`?",
                     argv[1], argv[1]);
  return cli_error("unknown command '%s' (try lraf --help)", argv[1]);
}
