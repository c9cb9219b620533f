/*
** fuzz_pfjson.c - libFuzzer target: lraf diff's JSON profile reader
** (pf_read_json) on arbitrary bytes.  Refused input must come with a
** message naming the byte offset; an accepted profile must diff with
** itself to similarity 1 (or 0 rows of counts) without a change, and
** its differential flame graph (SVG, to /dev/null) must not crash.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pf_read r;
  pf_diff d;
  lraf_error err;
  int i;
  if (pf_read_json((const char *)data, size, "in", &r, &err) != LRAF_OK) {
    if (strncmp(err.message, "in: byte ", 9) != 0) {
      fprintf(stderr, "fuzz_pfjson: bad message '%s'\n", err.message);
      abort();
    }
    return 0;
  }
  if (pf_diff_make(&r, &r, &d, &err) == LRAF_OK) {
    for (i = 0; i < d.n; i++)
      if (d.row[i].before != d.row[i].after) {
        fprintf(stderr, "fuzz_pfjson: a profile differs from itself\n");
        abort();
      }
    if (d.n > r.n || (d.similarity < 0.999999 && d.similarity != 0)) {
      fprintf(stderr, "fuzz_pfjson: similarity %g with itself\n",
              d.similarity);
      abort();
    }
    {
      static FILE *null;
      if (null == NULL) null = fopen("/dev/null", "w");
      if (null != NULL) pf_diff_svg(&r, &r, &d, "a<&\"", "b", null);
    }
    pf_diff_free(&d);
  }
  pf_read_free(&r);
  return 0;
}
