/*
** fuzz_bench.c - libFuzzer target: lraf bench's two readers on arbitrary
** bytes, the suite file (cli_suite_parse) and the baseline
** (cli_baseline_parse, over cli_json.c).  A refused input must come
** with a message naming the file and the line (suite) or the file
** (baseline); an accepted suite has named benchmarks with a script and
** no two of one name; an accepted baseline has entries of distinct
** names with a count of at least 0.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void suite(const char *text, size_t size) {
  cli_suite s;
  lraf_error err;
  int i, j;
  if (cli_suite_parse(text, size, "in", &s, &err) != LRAF_OK) {
    if (strncmp(err.message, "in:", 3) != 0 || err.message[3] < '1' ||
        err.message[3] > '9') {
      fprintf(stderr, "fuzz_bench: bad suite message '%s'\n", err.message);
      abort();
    }
    return;
  }
  for (i = 0; i < s.n; i++) {
    if (s.item[i].name[0] == '\0' || s.item[i].script == NULL ||
        s.item[i].script[0] == '\0' || s.item[i].nargs < 0) {
      fprintf(stderr, "fuzz_bench: benchmark %d without a name\n", i);
      abort();
    }
    for (j = 0; j < i; j++)
      if (strcmp(s.item[i].name, s.item[j].name) == 0) {
        fprintf(stderr, "fuzz_bench: two benchmarks named %s\n",
                s.item[i].name);
        abort();
      }
  }
  cli_suite_free(&s);
}

static void baseline(const char *text, size_t size) {
  cli_baseline b;
  lraf_error err;
  int i, j;
  if (cli_baseline_parse(text, size, "in", &b, &err) != LRAF_OK) {
    if (strncmp(err.message, "in: ", 4) != 0) {
      fprintf(stderr, "fuzz_bench: bad baseline message '%s'\n", err.message);
      abort();
    }
    return;
  }
  for (i = 0; i < b.n; i++) {
    if (b.entry[i].count < 0 || b.entry[i].name[0] == '\0' ||
        cli_baseline_find(&b, b.entry[i].name) != &b.entry[i]) {
      fprintf(stderr, "fuzz_bench: entry %d is not what was checked\n", i);
      abort();
    }
    for (j = 0; j < b.entry[i].nargs; j++)
      if (b.entry[i].args[j] == NULL) abort();
  }
  cli_baseline_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  suite((const char *)data, size);
  baseline((const char *)data, size);
  return 0;
}
