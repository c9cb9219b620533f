/*
** tutil_bench.c - a run of lraf bench made without running anything
** (tutil_bench.h).
*/
#include <stdio.h>
#include <string.h>

#include "tutil_bench.h"

int tutil_bench_of(tutil_bench *u, const char *suite, const int64_t *counts,
                   const char *model) {
  lraf_error err;
  int i;
  memset(u, 0, sizeof *u);
  if (cli_suite_parse(suite, strlen(suite), "suite", &u->suite, &err) !=
      LRAF_OK || u->suite.n > TUTIL_BENCH_MAX) {
    fprintf(stderr, "tutil_bench_of: %s\n", err.message);
    return -1;
  }
  for (i = 0; i < u->suite.n; i++) {
    u->res[i].item = &u->suite.item[i];
    u->res[i].count_min = u->res[i].count_max = counts[i];
  }
  u->r.model = model;
  u->r.unit = "instructions";
  u->r.vm = "stock";
  u->r.res = u->res;
  u->r.n = u->suite.n;
  u->r.before = u->before;
  u->r.verdict = u->verdict;
  u->r.mismatch = u->mismatch;
  return 0;
}

void tutil_bench_free(tutil_bench *u) {
  cli_suite_free(&u->suite);
}
