/*
** tutil_bench.h - a run of lraf bench made without running anything
** (cli_bench.h's cli_bench_run): the benchmarks of a suite file's text
** with the counts given, for the suites of the baselines and the
** reports (test_cli_baseline, test_cli_benchout).
*/
#ifndef TUTIL_BENCH_H
#define TUTIL_BENCH_H

#include <stdint.h>

#include "cli_bench.h"

#define TUTIL_BENCH_MAX 8

typedef struct tutil_bench {
  cli_suite suite;
  cli_bench_result res[TUTIL_BENCH_MAX];
  const cli_baseline_entry *before[TUTIL_BENCH_MAX];
  cli_verdict verdict[TUTIL_BENCH_MAX];
  int mismatch[TUTIL_BENCH_MAX];
  cli_bench_run r;
} tutil_bench;

/* u->r: the benchmarks of suite (at most TUTIL_BENCH_MAX), the i-th
   counting counts[i] (exactly), in cost model model, unit
   "instructions" and VM "stock", with no baseline.  0, or -1 when the
   suite does not parse (said on stderr). */
int tutil_bench_of(tutil_bench *u, const char *suite, const int64_t *counts,
                   const char *model);
void tutil_bench_free(tutil_bench *u);

#endif
