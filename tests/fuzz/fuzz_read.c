/*
** fuzz_read.c - libFuzzer target: the chunk reader (bc_read) on
** arbitrary bytes; accepted chunks must write back byte for byte.
*/
#include <stdio.h>
#include <stdlib.h>

#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[600];
  if (tutil_fuzz_read(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_read: %s\n", why);
    abort();
  }
  return 0;
}
