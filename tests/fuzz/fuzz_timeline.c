/*
** fuzz_timeline.c - libFuzzer target: the timeline's analysis and its
** JSON and SVG writers on samples decoded from arbitrary bytes
** (tests/support/tutil_fuzz_timeline.c says how, and what is checked).
*/
#include <stdio.h>
#include <stdlib.h>

#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[200];
  if (tutil_fuzz_timeline(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_timeline: %s\n", why);
    abort();
  }
  return 0;
}
