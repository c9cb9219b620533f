/*
** fuzz_billing.c - libFuzzer target: the parsers of billing periods and
** windows (lraf_quota_parse, lraf_time_parse, lraf_window_parse,
** lraf_period_parse) on arbitrary bytes; what is checked:
** tests/support/tutil_fuzz_billing.c.
*/
#include <stdio.h>
#include <stdlib.h>

#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[512];
  if (tutil_fuzz_billing(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_billing: %s\n", why);
    abort();
  }
  return 0;
}
