/*
** bench.c - overhead of instruction accounting, measured side by side in
** one run on the same stock Lua 5.4 library: the plain program, a count
** hook every 1000 instructions (the usual way scripts are limited), and
** the program rewritten by lraf in its default and exact modes.  Variants
** are interleaved and the best of N runs is kept, so a noisy machine
** affects them alike.  Times include lraf's rewriting of the chunk.
**
** It also reports how many accounting instructions the rewritten code
** runs per original instruction (from the overhead-mode count).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tutil_run.h"

enum { PLAIN, HOOK, LRAF, EXACT, NVARIANTS };
static const char *const variant_names[NVARIANTS] = {
  "plain", "hook/1000", "lraf", "lraf --exact"
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double run_variant(int v, const char *src, size_t len,
                          const char *name, tutil_run *r) {
  rw_options opt;
  double t = now();
  rw_default_options(&opt);
  opt.exact = v == EXACT;
  if (v == PLAIN || v == HOOK)
    tutil_run_every(src, len, name, v == HOOK ? 1000 : 0, r);
  else
    tutil_run_rewritten(src, len, name, &opt, 100000, 0, r);
  return now() - t;
}

/* Accounting instructions executed per original instruction. */
static double inserted_ratio(const char *src, size_t len, const char *name,
                             int exact) {
  tutil_run a, b;
  rw_options opt;
  double ratio;
  rw_default_options(&opt);
  opt.exact = exact;
  tutil_run_rewritten(src, len, name, &opt, 100000, 0, &a);
  opt.mode = RW_OVERHEAD;
  tutil_run_rewritten(src, len, name, &opt, 100000, 0, &b);
  ratio = a.count ? (double)(b.count - a.count) / (double)a.count : 0;
  tutil_run_free(&a);
  tutil_run_free(&b);
  return ratio;
}

int main(int argc, char **argv) {
  int reps = 5, i, v, r, nprog = 0;
  double logsum[NVARIANTS] = {0}, inslog[2] = {0};
  if (argc > 1 && strncmp(argv[1], "-n", 2) == 0) {
    reps = atoi(argv[1] + 2);
    argv++;
    argc--;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: bench [-nREPS] PROGRAM.lua...\n");
    return 2;
  }
  printf("%-16s %9s %10s %8s %13s %10s %10s\n", "program", "plain s",
         "hook/1000", "lraf", "lraf --exact", "ins/instr", "(exact)");
  for (i = 1; i < argc; i++) {
    size_t len;
    char *src = tutil_run_slurp(argv[i], &len);
    const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    double best[NVARIANTS], ins, insx;
    if (src == NULL) {
      fprintf(stderr, "bench: cannot read %s\n", argv[i]);
      return 2;
    }
    for (v = 0; v < NVARIANTS; v++) best[v] = 1e30;
    for (r = 0; r < reps; r++)
      for (v = 0; v < NVARIANTS; v++) {
        tutil_run res;
        double t = run_variant(v, src, len, name, &res);
        if (!res.ok) {
          fprintf(stderr, "bench: %s failed (%s): %s\n", name,
                  variant_names[v], res.error);
          return 1;
        }
        tutil_run_free(&res);
        if (t < best[v]) best[v] = t;
      }
    ins = inserted_ratio(src, len, name, 0);
    insx = inserted_ratio(src, len, name, 1);
    printf("%-16s %9.3f %9.2fx %7.2fx %12.2fx %10.2f %10.2f\n", name,
           best[PLAIN], best[HOOK] / best[PLAIN], best[LRAF] / best[PLAIN],
           best[EXACT] / best[PLAIN], ins, insx);
    for (v = 0; v < NVARIANTS; v++) logsum[v] += log(best[v] / best[PLAIN]);
    inslog[0] += ins;
    inslog[1] += insx;
    nprog++;
    free(src);
  }
  printf("%-16s %9s %9.2fx %7.2fx %12.2fx %10.2f %10.2f\n", "geomean", "",
         exp(logsum[HOOK] / nprog), exp(logsum[LRAF] / nprog),
         exp(logsum[EXACT] / nprog), inslog[0] / nprog, inslog[1] / nprog);
  printf("(ratios: time / plain time, best of %d interleaved runs; "
         "ins/instr: accounting instructions run per original one, mean)\n",
         reps);
  return 0;
}
