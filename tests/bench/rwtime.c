/*
** rwtime.c - what rewriting costs next to compiling, alone: for each
** program, luaL_loadbuffer of the source (cmp) against rewriting its
** result as lraf's loader does (rw), timed alternately in one run, best
** of N, CPU time.  Built against the lraf VM (LRAF_VM) rw is
** rt_pipeline_in_place (rewriting in memory, verified); against stock
** Lua cmp also dumps the function and rw is rt_pipeline on that dump
** (read, rewrite, verify) plus bc_write, as bench.c measures it.
**
**   rwtime [-nREPS] [-x] PROGRAM.lua...      the table (make bench-rw)
**   rwtime -lLOOPS [-x] PROGRAM.lua...       only rewrite, LOOPS times
**                                            each (a loop for perf)
**
** -x rewrites in exact mode.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt.h"
#include "rt_pipeline.h"
#include "tutil_run.h"

static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Compile src (and on stock Lua dump it into *dump); the time taken. */
static double compile(lua_State *L, const char *src, size_t len,
                      const char *name, char **dump, size_t *dumpsize) {
  double t = cpu();
  lraf_error err;
  int ok = luaL_loadbuffer(L, src, len, name) == LUA_OK;
#ifndef LRAF_VM
  if (ok) {
    free(*dump);
    *dump = NULL;
    ok = rt_dump(L, 0, dump, dumpsize, &err) == LRAF_OK;
  }
#else
  (void)dump;
  (void)dumpsize;
  (void)err;
#endif
  t = cpu() - t;
  if (!ok) {
    fprintf(stderr, "rwtime: %s: cannot compile\n", name);
    exit(1);
  }
  return t;
}

/* Rewrite what compile left (the function at the top of L, or *dump) as
   lraf's loader does; the time taken. */
static double rewrite(lua_State *L, const rw_options *opt, const char *dump,
                      size_t dumpsize, const char *name) {
  lraf_error err;
  lraf_status st;
  double t = cpu();
#ifdef LRAF_VM
  (void)dump;
  (void)dumpsize;
  st = rt_pipeline_in_place(L, opt, NULL, &err);
#else
  (void)L;
  {
    bc_chunk *chunk = NULL;
    void *bytes = NULL;
    size_t size = 0;
    rt_input in;
    in.kind = RT_INPUT_CHUNK;
    in.data = dump;
    in.size = dumpsize;
    st = rt_pipeline(&in, opt, NULL, &chunk, &err);
    if (st == LRAF_OK) st = bc_write(chunk, &bytes, &size, &err);
    bc_chunk_free(chunk);
    free(bytes);
  }
#endif
  t = cpu() - t;
  if (st != LRAF_OK) {
    fprintf(stderr, "rwtime: %s: %s\n", name, err.message);
    exit(1);
  }
  return t;
}

int main(int argc, char **argv) {
  int reps = 200, loops = 0, exact = 0, i, r, nprog = 0;
  double logsum = 0, cmp_sum = 0, rw_sum = 0;
  rw_options opt;
  for (; argc > 1 && argv[1][0] == '-'; argv++, argc--) {
    if (argv[1][1] == 'n') reps = atoi(argv[1] + 2);
    else if (argv[1][1] == 'l') loops = atoi(argv[1] + 2);
    else if (argv[1][1] == 'x') exact = 1;
    else break;
  }
  if (argc < 2 || reps < 1) {
    fprintf(stderr, "usage: rwtime [-nREPS | -lLOOPS] [-x] PROGRAM.lua...\n");
    return 2;
  }
  rw_default_options(&opt);
  opt.exact = exact;
  if (!loops)
    printf("%-16s %9s %9s %8s\n", "program", "cmp ms", "rw ms", "rw/cmp");
  for (i = 1; i < argc; i++) {
    size_t len, dumpsize = 0;
    char *src = tutil_run_slurp(argv[i], &len), *dump = NULL;
    const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1
                                             : argv[i];
    lua_State *L = luaL_newstate();
    double cmp = 1e30, rw = 1e30, t;
    if (src == NULL || L == NULL) {
      fprintf(stderr, "rwtime: cannot read %s\n", argv[i]);
      return 2;
    }
    for (r = 0; r < (loops ? loops : reps); r++) {
      if (loops && r > 0) {
#ifdef LRAF_VM
        compile(L, src, len, name, &dump, &dumpsize);
#endif
      } else {
        t = compile(L, src, len, name, &dump, &dumpsize);
        if (t < cmp) cmp = t;
      }
      t = rewrite(L, &opt, dump, dumpsize, name);
      if (t < rw) rw = t;
      lua_settop(L, 0);
      if (r % 16 == 15) lua_gc(L, LUA_GCCOLLECT);
    }
    if (!loops)
      printf("%-16s %9.3f %9.3f %7.2fx\n", name, cmp * 1e3, rw * 1e3,
             rw / cmp);
    logsum += log(rw / cmp);
    cmp_sum += cmp;
    rw_sum += rw;
    nprog++;
    free(dump);
    free(src);
    lua_close(L);
  }
  if (!loops) {
    printf("%-16s %9s %9s %7.2fx\n", "geomean", "", "", exp(logsum / nprog));
    printf("%-16s %9.3f %9.3f %7.2fx\n", "total", cmp_sum * 1e3,
           rw_sum * 1e3, rw_sum / cmp_sum);
    printf("(%s; cmp: luaL_loadbuffer%s; rw: %s; best of %d, alternating, "
           "CPU time)\n", exact ? "exact mode" : "default mode",
#ifdef LRAF_VM
           "", "rt_pipeline_in_place, verified",
#else
           " + lua_dump", "rt_pipeline (read, rewrite, verify) + bc_write",
#endif
           reps);
  }
  return 0;
}
