/*
** fuzz_maxhdr.c - libFuzzer target: the bytes (up to the first NUL) as
** the value of an X-Lraf-Max-Instructions header, through lraf serve's
** parser (srv_max_instructions, cli/cli_serve_http.c, linked in).  It
** must take exactly the values of 1 to 18 decimal digits that are not
** all zeros, with their number, and refuse every other with a reason.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli_serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The rule, written apart from the parser. */
static int takes(const char *v, int64_t *n) {
  size_t len = strlen(v), i;
  int64_t x = 0;
  if (len < 1 || len > 18) return 0;
  for (i = 0; i < len; i++) {
    if (v[i] < '0' || v[i] > '9') return 0;
    x = x * 10 + (v[i] - '0');
  }
  *n = x;
  return x > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *v = malloc(size + 1);
  int64_t got = -1, want = -2;
  const char *why;
  if (v == NULL) return 0;
  memcpy(v, data, size);
  v[size] = '\0';
  why = srv_max_instructions(v, &got);
  if (takes(v, &want) != (why == NULL)) abort();
  if (why == NULL && got != want) abort();
  if (why != NULL && why[0] == '\0') abort();
  free(v);
  return 0;
}
