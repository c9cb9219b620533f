/*
** sortbench.c - example: reproducible benchmarking.
**
** Compares three sorting algorithms (the .lua files in examples/sort) by the number
** of Lua instructions they execute, not by time.  Each script runs in a
** fresh lraf state with its own total manager.  The counts are the same
** on every run and on every machine (and equal what a count hook of 1
** sees on the unmodified scripts), so they can go in a paper or a CI
** check; timings cannot.  The scripts avoid what would make a count vary:
** math.random (seeded at random), the clock, pairs over string keys.
**
**   usage: sortbench [SORT_DIR]     (default examples/sort)
**
** `lraf bench SORT_DIR/quick.lua SORT_DIR/insertion.lua` gives the same
** counts next to wall times.
*/
#include <inttypes.h>
#include <stdio.h>

#include "lraf.h"

static const char *const algorithms[] = {"insertion", "merge", "quick"};
#define NALGO (int)(sizeof algorithms / sizeof algorithms[0])

/* Run dir/name.lua in a fresh state; its instruction count, or -1. */
static int64_t count(const char *dir, const char *name) {
  char path[512];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *total = lraf_total_new();
  int64_t n = -1;
  lraf_default_options(&opt);
  opt.manager = total;               /* the state takes its own reference */
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  if (lraf_new(&opt, &S, &err) == LRAF_OK) {
    if (lraf_run_file(S, path, &err) == LRAF_OK)
      n = lraf_manager_total(total);   /* flushed when the run returned */
    else
      fprintf(stderr, "%s: %s\n", path, err.message);
    lraf_close(S);
  }
  lraf_manager_release(total);
  return n;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "examples/sort";
  int64_t n[NALGO], best = INT64_MAX;
  int i;
  for (i = 0; i < NALGO; i++) {
    if ((n[i] = count(dir, algorithms[i])) < 0) return 1;
    if (n[i] < best) best = n[i];
  }
  printf("\n%-10s %12s  %s\n", "algorithm", "instructions", "x fastest");
  for (i = 0; i < NALGO; i++)
    printf("%-10s %12" PRId64 "  %.2f\n", algorithms[i], n[i],
           (double)n[i] / (double)best);
  return 0;
}
