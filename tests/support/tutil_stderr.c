/*
** tutil_stderr.c - standard error kept in a temporary file
** (tutil_stderr.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tutil_stderr.h"

int tutil_stderr_begin(tutil_stderr *c) {
  FILE *f = tmpfile();
  fflush(stderr);
  if (f == NULL) return -1;
  c->saved = dup(2);
  if (c->saved < 0 || dup2(fileno(f), 2) < 0) {
    if (c->saved >= 0) close(c->saved);
    fclose(f);
    return -1;
  }
  c->file = f;
  return 0;
}

char *tutil_stderr_end(tutil_stderr *c) {
  FILE *f = c->file;
  long n;
  char *text = NULL;
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) != NULL) {
    if (fread(text, 1, (size_t)n, f) != (size_t)n) {
      free(text);
      text = NULL;
    } else {
      text[n] = '\0';
    }
  }
  fclose(f);
  return text;
}
