/*
** bench.c - overhead of instruction accounting, measured side by side in
** one run on the same stock Lua 5.4 library: the plain program, a count
** hook every 1000 instructions (the usual way scripts are limited), and
** the program rewritten by lraf in its default and exact modes.  Variants
** are interleaved and the best of N runs is kept, so a noisy machine
** affects them alike.  Times include lraf's rewriting of the chunk.
**
** It also reports how many accounting instructions the rewritten code
** runs per original instruction (a count hook on the rewritten code
** against one on the plain code), how much the code grows (instructions
** after / before rewriting, default mode),
** and what rewriting costs next to compiling: the time of
** luaL_loadbuffer + lua_dump of the source against bc_read + rw_rewrite
** + bc_write of that dump (and with rw_verify, as lraf's loader does),
** timed alternately in the same run, best of many.  Freeing the results
** is left out of both.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "rt.h"
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

/* Best-of-n times of compiling src to a dump (cmp), and of reading,
   rewriting (default options) and writing that dump, without (rw) and
   with (rwv) verification. Returns 0 on success. */
static int rewrite_cost(const char *src, size_t len, const char *name,
                        int n, double *cmp, double *rw, double *rwv) {
  lua_State *L = luaL_newstate();
  char *dump = NULL;
  size_t dumpsize = 0;
  rw_options opt;
  int i, verify, ok = 1;
  rw_default_options(&opt);
  *cmp = *rw = *rwv = 1e30;
  for (i = 0; i < n && ok; i++) {
    lraf_error derr;
    double t = now();
    free(dump);
    dump = NULL;
    ok = luaL_loadbuffer(L, src, len, name) == LUA_OK &&
         rt_dump(L, 0, &dump, &dumpsize, &derr) == LRAF_OK;
    t = now() - t;
    if (!ok)
      fprintf(stderr, "bench: %s: cannot compile and dump: %s\n", name,
              lua_isstring(L, -1) ? lua_tostring(L, -1) : "dump failed");
    lua_settop(L, 0);
    if (t < *cmp) *cmp = t;
    for (verify = 0; verify <= 1 && ok; verify++) {
      lraf_error err;
      bc_chunk *chunk = NULL;
      void *bytes = NULL;
      size_t size = 0;
      lraf_status st;
      rt_input in;
      in.kind = RT_INPUT_CHUNK;
      in.data = dump;
      in.size = dumpsize;
      t = now();
      if (verify) {  /* the pipeline, as lraf's loader runs it */
        st = rt_pipeline(&in, &opt, NULL, &chunk, &err);
      } else {       /* its stages without rw_verify */
        st = bc_read(dump, dumpsize, NULL, &chunk, &err);
        if (st == LRAF_OK) st = rw_rewrite(chunk, &opt, NULL, &err);
      }
      if (st == LRAF_OK) st = bc_write(chunk, &bytes, &size, &err);
      t = now() - t;
      if (st != LRAF_OK) {
        fprintf(stderr, "bench: %s: %s\n", name, err.message);
        ok = 0;
      }
      bc_chunk_free(chunk);
      free(bytes);
      if (verify && t < *rwv) *rwv = t;
      if (!verify && t < *rw) *rw = t;
    }
    if (i % 16 == 15) lua_gc(L, LUA_GCCOLLECT);
  }
  free(dump);
  lua_close(L);
  return ok ? 0 : -1;
}

/* The lraf VM (built with LRAF_VM=1): best-of-n times of compiling src
   (luaL_loadbuffer, cmp), which is where rewriting in memory starts,
   and of rewriting the result in place (rt_pipeline_in_place, verified
   as lraf's loader does; rw and rwv alike).  Returns 0 on success. */
static int inplace_cost(const char *src, size_t len, const char *name,
                        int n, double *cmp, double *rw, double *rwv) {
  lua_State *L = luaL_newstate();
  rw_options opt;
  int i, ok = 1;
  rw_default_options(&opt);
  *cmp = *rw = 1e30;
  for (i = 0; i < n && ok; i++) {
    lraf_error err;
    double t = now();
    ok = luaL_loadbuffer(L, src, len, name) == LUA_OK;
    t = now() - t;
    if (t < *cmp) *cmp = t;
    if (ok) {
      t = now();
      ok = rt_pipeline_in_place(L, &opt, NULL, &err) == LRAF_OK;
      t = now() - t;
      if (!ok) fprintf(stderr, "bench: %s: %s\n", name, err.message);
      if (t < *rw) *rw = t;
    }
    lua_settop(L, 0);
    if (i % 16 == 15) lua_gc(L, LUA_GCCOLLECT);
  }
  *rwv = *rw;
  lua_close(L);
  return ok ? 0 : -1;
}

/* Accounting instructions executed per original instruction. */
static double inserted_ratio(const char *src, size_t len, const char *name,
                             int exact) {
  rw_options opt;
  rw_default_options(&opt);
  opt.exact = exact;
  return tutil_run_accounting_ratio(src, len, name, &opt, NULL);
}

int main(int argc, char **argv) {
  int reps = 5, i, v, r, nprog = 0;
  double logsum[NVARIANTS] = {0}, inslog[2] = {0};
  double growlog = 0, rwlog = 0, rwvlog = 0;
  double cmp_sum = 0, rw_sum = 0, rwv_sum = 0;
  long before_sum = 0, after_sum = 0;
  rw_options dflt;
  int lravm;
  rw_default_options(&dflt);
  lravm = dflt.target == RW_LRAVM;  /* built against the lraf VM */
  if (argc > 1 && strncmp(argv[1], "-n", 2) == 0) {
    reps = atoi(argv[1] + 2);
    argv++;
    argc--;
  }
  if (argc < 2) {
    fprintf(stderr, "usage: bench [-nREPS] PROGRAM.lua...\n");
    return 2;
  }
  printf("%-16s %9s %10s %8s %13s %10s %8s %7s %8s %7s %8s\n", "program",
         "plain s", "hook/1000", "lraf", "lraf --exact", "ins/instr",
         "(exact)", "code", "cmp ms", "rw/cmp", "+verify");
  for (i = 1; i < argc; i++) {
    size_t len;
    char *src = tutil_run_slurp(argv[i], &len);
    const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    double best[NVARIANTS], ins, insx, cmp, rw, rwv, grow;
    long before = 0, after = 0;
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
        if (v == LRAF) {
          before = res.stats.code_before;
          after = res.stats.code_after;
        }
        tutil_run_free(&res);
        if (t < best[v]) best[v] = t;
      }
    ins = inserted_ratio(src, len, name, 0);
    insx = inserted_ratio(src, len, name, 1);
    if ((lravm ? inplace_cost : rewrite_cost)(src, len, name, 20 * reps,
                                              &cmp, &rw, &rwv) != 0)
      return 1;
    grow = before ? (double)after / (double)before : 0;
    printf("%-16s %9.3f %9.2fx %7.2fx %12.2fx %10.2f %8.2f %6.2fx %8.3f "
           "%6.2fx %7.2fx\n", name, best[PLAIN], best[HOOK] / best[PLAIN],
           best[LRAF] / best[PLAIN], best[EXACT] / best[PLAIN], ins, insx,
           grow, cmp * 1e3, rw / cmp, rwv / cmp);
    for (v = 0; v < NVARIANTS; v++) logsum[v] += log(best[v] / best[PLAIN]);
    inslog[0] += ins;
    inslog[1] += insx;
    growlog += log(grow);
    rwlog += log(rw / cmp);
    rwvlog += log(rwv / cmp);
    before_sum += before;
    after_sum += after;
    cmp_sum += cmp;
    rw_sum += rw;
    rwv_sum += rwv;
    nprog++;
    free(src);
  }
  printf("%-16s %9s %9.2fx %7.2fx %12.2fx %10.2f %8.2f %6.2fx %8s "
         "%6.2fx %7.2fx\n", "geomean", "", exp(logsum[HOOK] / nprog),
         exp(logsum[LRAF] / nprog), exp(logsum[EXACT] / nprog),
         inslog[0] / nprog, inslog[1] / nprog, exp(growlog / nprog), "",
         exp(rwlog / nprog), exp(rwvlog / nprog));
  printf("%-16s %9s %10s %8s %13s %10s %8s %6.2fx %8.3f %6.2fx %7.2fx\n",
         "total", "", "", "", "", "", "",
         before_sum ? (double)after_sum / (double)before_sum : 0,
         cmp_sum * 1e3, rw_sum / cmp_sum, rwv_sum / cmp_sum);
  printf("(hook/1000, lraf, lraf --exact: time / plain time, best of %d "
         "interleaved runs, rewriting included;\n"
         " ins/instr, (exact): accounting instructions run per original "
         "one, mean in the geomean row;\n"
         " code: instructions after / before rewriting, default mode, "
         "total = sum after / sum before;\n"
         " cmp ms: luaL_loadbuffer + lua_dump of the source, best of %d; "
         "rw/cmp: bc_read + rw_rewrite + bc_write\n"
         " of that dump / cmp ms, +verify: the same with rw_verify (lraf's "
         "loader), total = sum / sum)\n", reps, 20 * reps);
  if (lravm)
    printf("(lraf VM build: plain is the lraf VM running unrewritten code; "
           "cmp ms is luaL_loadbuffer alone and\n"
           " rw/cmp, +verify both rt_pipeline_in_place, rewriting in memory "
           "with verification; the hook never\n"
           " sees ACCT, so ins/instr counts only stub and LFALSESKIP "
           "instructions)\n");
  return 0;
}
