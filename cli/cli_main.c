/*
** cli_main.c - main() of the lraf command: a dispatcher over the
** subcommands (cli_options.c has their table), `lraf help`, and the
** helpers they share (errors, reading a file).
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
    printf("lraf %s\n", LRAF_VERSION);
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

/* ------------------------------------------------------------------ */
/* Shared helpers                                                       */
/* ------------------------------------------------------------------ */

int cli_error(const char *fmt, ...) {
  va_list ap;
  fputs("lraf: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return CLI_EUSAGE;
}

int cli_report(const lraf_error *err) {
  cli_error("%s", err->message);
  return err->code == LRAF_EMEM ? CLI_EFAIL : CLI_EUSAGE;
}

static lraf_status file_error(lraf_error *err, lraf_status code,
                              const char *what, const char *path, int e) {
  err->code = code;
  snprintf(err->message, sizeof err->message, "cannot %s %s: %s", what,
           path, strerror(e));
  return code;
}

lraf_status cli_read_file(const char *path, char **data, size_t *size,
                          lraf_error *err) {
  FILE *fp = fopen(path, "rb");
  char *buf = NULL;
  size_t len = 0, cap = 0;
  if (fp == NULL) return file_error(err, LRAF_EIO, "open", path, errno);
  for (;;) {
    size_t got;
    if (len == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
      if (nb == NULL) {
        free(buf);
        fclose(fp);
        return file_error(err, LRAF_EMEM, "read", path, ENOMEM);
      }
      buf = nb;
    }
    got = fread(buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0) break;
  }
  if (ferror(fp)) {
    int e = errno;
    free(buf);
    fclose(fp);
    return file_error(err, LRAF_EIO, "read", path, e);
  }
  fclose(fp);
  *data = buf;
  *size = len;
  return LRAF_OK;
}

lraf_status cli_read_script(const char *path, char **data, size_t *size,
                            char **name, lraf_error *err) {
  lraf_status st = cli_read_file(path, data, size, err);
  if (st != LRAF_OK) return st;
  *name = malloc(strlen(path) + 2);
  if (*name == NULL) {
    free(*data);
    return file_error(err, LRAF_EMEM, "read", path, ENOMEM);
  }
  (*name)[0] = '@';
  strcpy(*name + 1, path);
  if (*size > 0 && (*data)[0] == '#') {
    size_t k = 0;
    while (k < *size && (*data)[k] != '\n') (*data)[k++] = ' ';
  }
  return LRAF_OK;
}
