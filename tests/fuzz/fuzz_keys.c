/*
** fuzz_keys.c - libFuzzer target: the API key file reader of lraf
** serve --tenants (lraf_keys_parse) on arbitrary bytes.  A refused file
** must come with a message that names it, and the line when it names
** one must be a line of the input; an accepted one must hold at least
** one key, read the same a second time, and map a key only to a tenant
** of valid name.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bad(const char *why, const char *msg) {
  fprintf(stderr, "fuzz_keys: %s: '%s'\n", why, msg);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data, *t;
  lraf_keys *k, *again;
  lraf_error err;
  size_t i, lines = 1;
  for (i = 0; i < size; i++) lines += data[i] == '\n';
  if (lraf_keys_parse(text, size, "in", &k, &err) != LRAF_OK) {
    if (k != NULL) bad("a table with an error", err.message);
    if (strncmp(err.message, "in:", 3) != 0) bad("unnamed", err.message);
    if (err.message[3] >= '0' && err.message[3] <= '9' &&
        strtoul(err.message + 3, NULL, 10) > lines)
      bad("a line past the end", err.message);
    return 0;
  }
  if (lraf_keys_count(k) < 1) bad("no keys accepted", "");
  if (lraf_keys_parse(text, size, "in", &again, &err) != LRAF_OK ||
      lraf_keys_count(again) != lraf_keys_count(k))
    bad("read differently twice", err.message);
  lraf_keys_free(again);
  /* the input itself, or any of its lines, as a key */
  t = lraf_keys_tenant(k, text, size);
  for (i = 0; t != NULL && t[i]; i++)
    if (i >= 64 || strchr("\t\n\r #/", t[i]) != NULL) bad("tenant", t);
  lraf_keys_free(k);
  return 0;
}
