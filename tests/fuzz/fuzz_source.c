/*
** fuzz_source.c - libFuzzer target: the bytes as Lua source, compiled,
** rewritten and loaded by an lraf sandbox state and run under a quota
** of 20000 instructions and 64 MiB of memory.
*/
#include <stdio.h>
#include <stdlib.h>

#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[600];
  if (tutil_fuzz_source(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_source: %s\n", why);
    abort();
  }
  return 0;
}
