/*
** cli_util.c - what every subcommand of the lraf command shares:
** printing an error, and reading a file or a script.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
  return cli_read_file_max(path, SIZE_MAX, data, size, err);
}

lraf_status cli_read_file_max(const char *path, size_t max, char **data,
                              size_t *size, lraf_error *err) {
  FILE *fp = fopen(path, "rb");
  char *buf = NULL;
  size_t len = 0, cap = 0;
  if (fp == NULL) return file_error(err, LRAF_EIO, "open", path, errno);
  for (;;) {
    size_t got;
    if (len > max) {
      free(buf);
      fclose(fp);
      err->code = LRAF_ELIMIT;
      snprintf(err->message, sizeof err->message, "cannot read %s: longer "
               "than %zu bytes, the most this file may have", path, max);
      return LRAF_ELIMIT;
    }
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
