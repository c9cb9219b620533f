/*
** fuzz_profile.c - libFuzzer target: the bytes as Lua source, run in an
** lraf sandbox state under lraf_profile_start/stop (a quota of 20000
** instructions, 64 MiB), and every output format of the profile
** (table, folded, json, callgrind, svg) checked against the profile's
** counts (tests/support/tutil_fuzz_profile.c).
*/
#include <stdio.h>
#include <stdlib.h>

#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[600];
  if (tutil_fuzz_profile(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_profile: %s\n", why);
    abort();
  }
  return 0;
}
