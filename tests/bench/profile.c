/*
** profile.c - what lraf profile costs, measured side by side in one run
** on the Lua library it is built against (Debian's liblua5.4, or the
** lraf VM's with make vm): each program plain (lua_State,
** luaL_loadfile), under lraf as lraf run runs it (lraf_new, load, call)
** and under lraf profile (the same with lraf_profile_start/stop and the
** JSON profile written out).  Variants are interleaved and the best of
** N runs is kept, by CPU time, so a noisy machine affects them alike.
** Prints, per program, the profile's time over plain Lua and over lraf,
** and the geometric means; with -r, one line per program of the three
** times only ("NAME PLAIN RUN PROFILE"), for tests/bench/profile.sh,
** which interleaves the two builds and puts them side by side.
**
** usage: profile [-nN] [-r] FILE.lua...
*/
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lraf.h"

enum { PLAIN, RUN, PROFILE, NVARIANTS };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One run of path as variant v; its time, or -1 when it fails. */
static double run(int v, const char *path, FILE *sink) {
  double t = now();
  if (v == PLAIN) {
    lua_State *L = luaL_newstate();
    int ok;
    luaL_openlibs(L);
    ok = luaL_loadfile(L, path) == LUA_OK && lua_pcall(L, 0, 0, 0) == LUA_OK;
    lua_close(L);
    if (!ok) return -1;
  } else {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_profile *P = NULL;
    int ok;
    lraf_default_options(&opt);
    if (lraf_new(&opt, &S, &err) != LRAF_OK) return -1;
    ok = v != PROFILE || lraf_profile_start(S, &err) == LRAF_OK;
    ok = ok && lraf_run_file(S, path, &err) == LRAF_OK;
    if (v == PROFILE) {
      ok = ok && lraf_profile_stop(S, &P, &err) == LRAF_OK &&
           lraf_profile_write(P, "json", 0, sink, &err) == LRAF_OK;
      lraf_profile_free(P);
    }
    lraf_close(S);
    if (!ok) {
      fprintf(stderr, "profile bench: %s: %s\n", path, err.message);
      return -1;
    }
  }
  return now() - t;
}

int main(int argc, char **argv) {
  int reps = 5, i, first = 1, nprog = 0, saved, null, raw = 0;
  double gl = 0, gr = 0, worst = 0;
  FILE *sink = fopen("/dev/null", "w");
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strncmp(argv[first], "-n", 2) == 0) reps = atoi(argv[first] + 2);
    else if (strcmp(argv[first], "-r") == 0) raw = 1;
    else return 1;
  }
  if (sink == NULL || reps < 1) return 1;
  if (!raw)
    printf("lraf profile: CPU time over plain lua5.4 and over lraf (lraf "
           "run), best of %d, interleaved\n\n%-16s %9s %9s %9s %9s %9s\n",
           reps, "program", "lua s", "lraf s", "profile s", "/lua", "/lraf");
  for (i = first; i < argc; i++) {
    double best[NVARIANTS] = {1e30, 1e30, 1e30};
    const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1
                                             : argv[i];
    int r, v, failed = 0;
    fflush(stdout);
    saved = dup(1);
    null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    close(null);
    for (r = 0; r < reps && !failed; r++)
      for (v = 0; v < NVARIANTS; v++) {
        double t = run(v, argv[i], sink);
        if (t < 0) failed = 1;
        else if (t < best[v]) best[v] = t;
      }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    if (failed) {
      printf("%-16s failed\n", name);
      continue;
    }
    if (raw) {
      printf("%s %.6f %.6f %.6f\n", name, best[PLAIN], best[RUN],
             best[PROFILE]);
      continue;
    }
    printf("%-16s %9.3f %9.3f %9.3f %8.2fx %8.2fx\n", name, best[PLAIN],
           best[RUN], best[PROFILE], best[PROFILE] / best[PLAIN],
           best[PROFILE] / best[RUN]);
    gl += log(best[PROFILE] / best[PLAIN]);
    gr += log(best[PROFILE] / best[RUN]);
    if (best[PROFILE] / best[RUN] > worst) worst = best[PROFILE] / best[RUN];
    nprog++;
  }
  if (nprog > 0)
    printf("\n%-16s %9s %9s %9s %8.2fx %8.2fx  (max %.2fx over lraf)\n",
           "geometric mean", "", "", "", exp(gl / nprog), exp(gr / nprog),
           worst);
  fclose(sink);
  return 0;
}
