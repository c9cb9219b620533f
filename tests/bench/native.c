/*
** native.c - calibration of the native cost model and the overhead of
** native charging, measured side by side in one run.
**
** 1. The time of one average VM instruction on this machine: the
**    benchmark programs run unmodified on stock Lua, divided by the
**    instructions lraf counts for them.
** 2. For each charged built-in: a loop of calls at a large size, run in
**    an lraf state with native charging and in one without.  The units
**    charged per call are the difference of the two counts; the native
**    time per call is the charged run's time minus its instructions'
**    time.  "time/unit" is that time over (units x instruction time):
**    1.00 means one unit takes as long as one instruction, and
**    "per_k fit" is the per_k that would make it so.
** 3. The benchmark programs in lraf states with and without native
**    charging, interleaved, best of N: the overhead charging adds.
** 4. The amplification suite (tests/amplify), each case run by `lraf
**    run --limit 10000000` to its stop: c = its CPU time over (limit x
**    instruction time), the constant of "a run's time stays under
**    N x c x the mean instruction time".  A case marked "-- gap: stock"
**    runs where the library is built for the lraf VM, "-- gap: lpeg"
**    where it has the metered LPeg.
**
** Built for the lraf VM (BUILD=build tests/bench/native.sh), 2.
** also times the VM's own size charges ("vm.*": long-string comparison,
** VARARG, SETLIST, CONCAT, an __index chain, a long-string key), whose
** rates runtime/rt_lravm.c sets; "per_k" is that rate.
**
** Times are the process's CPU time (the machine is shared: wall time
** moves with the other tenants' load, CPU time much less).
*/
#define _DEFAULT_SOURCE  /* wait4 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "lraf.h"
#include "nat_cost.h"
#include "tutil_run.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int quiet(lua_State *L) {
  (void)L;
  return 0;
}

static lraf_state *new_state(int native) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_default_options(&opt);
  opt.native = native;
  opt.granularity = 100000;
  if (lraf_new(&opt, &S, &err) != LRAF_OK) {
    fprintf(stderr, "native: %s\n", err.message);
    exit(1);
  }
  lua_pushcfunction(lraf_lua(S), quiet);
  lua_setglobal(lraf_lua(S), "print");
  return S;
}

/* Run src in a fresh state; returns its total count, *secs the time. */
static int64_t run_lraf(const char *src, size_t len, const char *name,
                        int native, double *secs) {
  lraf_state *S = new_state(native);
  lraf_error err;
  double t = now();
  int64_t n;
  if (lraf_load_string(S, src, len, name, &err) != LRAF_OK ||
      lraf_call(S, 0, 0, &err) != LRAF_OK) {
    fprintf(stderr, "native: %s: %s\n", name, err.message);
    exit(1);
  }
  *secs = now() - t;
  n = lraf_consumed(S, lraf_main_account(S));
  lraf_close(S);
  return n;
}

static const char *const programs[] = {
  "richards", "deltablue", "json", "nbody", "bounce", "list", "mandelbrot",
  "permute", "queens", "sieve", "storage", "towers", "raytrace", NULL
};

typedef struct prog {
  char *src;
  size_t len;
  char name[32];
} prog;

static int load_programs(prog *p) {
  int n = 0;
  for (; programs[n] != NULL; n++) {
    char path[128];
    snprintf(path, sizeof path, "tests/corpus/%s.lua", programs[n]);
    p[n].src = tutil_run_slurp(path, &p[n].len);
    if (p[n].src == NULL) {
      fprintf(stderr, "native: cannot read %s\n", path);
      exit(2);
    }
    snprintf(p[n].name, sizeof p[n].name, "%s", programs[n]);
  }
  return n;
}

/* Seconds per VM instruction, from the benchmark programs. */
static double instruction_time(prog *p, int n, int reps) {
  double tsum = 0, csum = 0;
  int i, r;
  for (i = 0; i < n; i++) {
    double best = 1e30, secs;
    int64_t count = run_lraf(p[i].src, p[i].len, p[i].name, 0, &secs);
    for (r = 0; r < reps; r++) {
      tutil_run res;
      double t = now();
      tutil_run_every(p[i].src, p[i].len, p[i].name, 0, &res);
      t = now() - t;
      tutil_run_free(&res);
      if (t < best) best = t;
    }
    tsum += best;
    csum += (double)count;
  }
  return tsum / csum;
}

typedef struct ncase {
  const char *model;  /* lib.name whose ratio this calibrates */
  const char *setup;  /* Lua, with N the size */
  const char *call;   /* the timed statement */
  long long n;        /* size */
  int k;              /* calls */
} ncase;

static const ncase cases[] = {
  {"string.rep", "", "local r = string.rep('abcd', N // 4)", 1000000, 40},
  {"string.format", "local s = string.rep('x', N // 2)",
   "local r = string.format('%s%s', s, s)", 1000000, 40},
  {"string.find", "local s = string.rep('a', N)",
   "local r = string.find(s, '%d')", 1000000, 10},
  {"string.find", "local s = string.rep('a', N)",
   "local r = string.find(s, '.-b')", 2000, 10},
  {"string.match", "local s = string.rep('a', N)",
   "local r = string.match(s, '(%d+)')", 1000000, 10},
  {"string.gmatch", "local s = string.rep('ab ', N // 3)",
   "for w in string.gmatch(s, '%a+') do end", 300000, 4},
  {"string.gsub", "local s = string.rep('a', N)",
   "local r = string.gsub(s, 'a', 'bb')", 300000, 4},
  {"string.sub", "local s = string.rep('a', N + 10)",
   "local r = string.sub(s, 2, N + 1)", 1000000, 40},
  {"string.upper", "local s = string.rep('a', N)",
   "local r = string.upper(s)", 1000000, 20},
  {"string.lower", "local s = string.rep('A', N)",
   "local r = string.lower(s)", 1000000, 20},
  {"string.reverse", "local s = string.rep('ab', N // 2)",
   "local r = string.reverse(s)", 1000000, 20},
  {"string.byte", "local s = string.rep('a', N)",
   "local r = string.byte(s, 1, N)", 100000, 20},
  {"string.pack", "local s = string.rep('a', N)",
   "local r = string.pack('s4', s)", 1000000, 40},
  {"string.unpack", "local s = string.pack('s4', string.rep('a', N))",
   "local r = string.unpack('s4', s)", 1000000, 40},
  {"table.concat", "local t = {} for i = 1, N // 8 do t[i] = 'abcdefg' end",
   "local r = table.concat(t)", 1000000, 10},
  {"table.sort",
   "local ts = {} for j = 1, 4 do local t = {} for i = 1, N do "
   "t[i] = (i * 7919) % 100003 end ts[j] = t end local j = 0",
   "j = j + 1 table.sort(ts[j])", 100000, 4},
  {"table.unpack", "local t = {} for i = 1, N do t[i] = i end",
   "local r = table.unpack(t, 1, N)", 100000, 20},
  {"table.insert", "local t = {} for i = 1, N do t[i] = i end",
   "table.insert(t, 1, 0) table.remove(t, 1)", 100000, 20},
  {"table.move", "local a, b = {}, {} for i = 1, N do a[i] = i end",
   "table.move(a, 1, N, 1, b)", 100000, 20},
  {"utf8.char", "local t = {} for i = 1, N do t[i] = 0x41 + i % 26 end",
   "local r = utf8.char(table.unpack(t, 1, N))", 100000, 10},
  {"utf8.codepoint", "local s = string.rep('a', N)",
   "local r = utf8.codepoint(s, 1, N)", 100000, 20},
  {"utf8.len", "local s = string.rep('a\\u{3b1}', N // 3)",
   "local r = utf8.len(s)", 1000000, 20},
  {"utf8.offset", "local s = string.rep('a', N)",
   "local r = utf8.offset(s, N // 4)", 1000000, 20},
  {"_G.tonumber", "local s = string.rep(' ', N) .. '1'",
   "local r = tonumber(s)", 1000000, 20},
  {"_G.load", "local s = string.rep('a = 1 + 2\\n', N // 10)",
   "local r = assert(load(s))", 100000, 4},
  {"_G.collectgarbage",
   "keep = {} for i = 1, N // 64 do keep[i] = {} end",
   "collectgarbage()", 1000000, 20},
  {"lpeg.match", "local lpeg = require 'lpeg' local p = lpeg.P'a'^0 "
   "local s = string.rep('a', N)", "local r = lpeg.match(p, s)", 1000000, 10},
  /* operations whose cost grows with their operands (size-dependent
     native charges) */
  {"string.find", "local s, p = string.rep('a', N), string.rep('a', 999) .. 'b'",
   "local r = string.find(s, p)", 1000000, 4},
  {"string.match", "local s, p = string.rep('a', N), string.rep('a', 99) .. 'b'",
   "local r = string.match(s, p)", 100000, 4},
  {"string.gsub", "local s, p = string.rep('a', N), string.rep('a', 99) .. 'b'",
   "local r = string.gsub(s, p, '')", 100000, 4},
  {"string.rep", "", "local r = string.rep('', N)", 10000000, 10},
  {"_G.next", "local t = {table.unpack({}, 1, N)}", "local r = next(t)",
   500000, 20},
  {"_G.next", "local t = {} for i = 1, N do t['k' .. i] = i end "
   "for k in pairs(t) do t[k] = nil end t.z = 1", "local r = next(t)",
   100000, 400},
  {"_G.select", "local a = {table.unpack({}, 1, N)} "
   "local function f(...) for i = 1, 50 do local n = select('#', ...) end end",
   "f(table.unpack(a, 1, N))", 100000, 4},
  {"_G.collectgarbage", "keep = {} for i = 1, N // 64 do keep[i] = {} end",
   "collectgarbage('generational') collectgarbage('incremental')", 1000000,
   10},
  {"_G.collectgarbage", "keep = {} for i = 1, N // 64 do keep[i] = {} end",
   "collectgarbage('step', 100000)", 1000000, 10},
  {"_G.rawequal", "local a, b = string.rep('x', N), string.rep('x', N - 1) .. 'x'",
   "local r = rawequal(a, b)", 10000000, 20},
  {"_G.assert", "local a = {} for i = 1, N do a[i] = i end",
   "local r = assert(table.unpack(a, 1, N))", 100000, 20},
  {"table.pack", "local a = {} for i = 1, N do a[i] = i end",
   "local r = table.pack(table.unpack(a, 1, N))", 100000, 20},
  {"math.max", "local a = {} for i = 1, N do a[i] = i end",
   "local r = math.max(table.unpack(a, 1, N))", 100000, 20},
  {"table.insert", "local t = setmetatable({}, {}) for i = 1, N do t[i] = i end",
   "table.insert(t, 1, 0) table.remove(t, 1)", 100000, 20},
  {"table.unpack", "local t = setmetatable({}, {}) for i = 1, N do t[i] = i end",
   "local r = table.unpack(t)", 100000, 20},
  {"table.concat", "local t = setmetatable({}, {}) "
   "for i = 1, N // 8 do t[i] = 'abcdefg' end", "local r = table.concat(t)",
   1000000, 10},
  {"table.sort",
   "local ts = {} for j = 1, 4 do local t = setmetatable({}, {}) "
   "for i = 1, N do t[i] = (i * 7919) % 100003 end ts[j] = t end local j = 0",
   "j = j + 1 table.sort(ts[j])", 100000, 4},
  {"utf8.offset", "local s = 'a' .. string.rep('\\x80', N)",
   "local r = utf8.offset(s, 2)", 1000000, 20},
  {"utf8.codes (step)", "local s = 'a' .. string.rep('\\x80', N) "
   "local f = utf8.codes(s)", "local r = f(s, 1)", 1000000, 20},
  {"string.dump", "local f = load(string.rep('a = a + 1 ', N // 10))",
   "local r = string.dump(f)", 1000000, 10},
  {"os.date", "local f = string.rep('%c', N // 2)", "local r = os.date(f)",
   100000, 10},
  {"string.packsize", "local f = string.rep('b', N)",
   "local r = string.packsize(f)", 1000000, 20},
  {"package.searchpath", "local p = string.rep('/no/?.x;', N // 8)",
   "local r = package.searchpath('m', p)", 80000, 4},
  {"_G.load", "local piece = string.rep('a=1 ', N // 40) .. '\\n'",
   "local i = 0 local r = load(function() i = i + 1 "
   "if i <= 10 then return piece end end)", 1000000, 4},
  {NULL, NULL, NULL, 0, 0}
};

/* The lraf VM's size charges (lravm/patches/lua-acct-work.patch), timed only in
   a build for the lraf VM; rate: runtime/rt_lravm.c's, per 1024. */
typedef struct vcase {
  ncase c;
  int rate;
} vcase;

#define BC_STR "local a, b = string.rep('x', N), string.rep('x', N - 1) .. 'x'"
static const vcase bc_cases[] = {
  {{"vm.== (bytes)", BC_STR, "local r = a == b", 1 << 25, 10}, 112},
  {{"vm.< (bytes)", BC_STR, "local r = a < b", 1 << 25, 10}, 112},
  {{"vm.VARARG (values)", "local a = {} for i = 1, N do a[i] = i end "
    "local function g() end local function f(...) for i = 1, 20 do g(...) "
    "end end", "f(table.unpack(a, 1, N))", 200000, 4}, 4096},
  {{"vm.SETLIST (values)", "local a = {} for i = 1, N do a[i] = i end "
    "local function f(...) for i = 1, 20 do local t = {...} end end",
    "f(table.unpack(a, 1, N))", 200000, 4}, 4096},
  {{"vm.CONCAT (bytes)", "local a = string.rep('x', N)",
    "local r = a .. 'z'", 1 << 25, 10}, 512},
  {{"vm.CONCAT (bytes)", "local a = string.rep('x', N)",
    "local r = a .. 'z'", 1 << 16, 400}, 512},
  {{"vm.__index (tables)", "local t = {} for i = 1, N do "
    "t = setmetatable({}, {__index = t}) end", "local r = t.missing", 1998,
    2000}, 7168},
  {{"vm.long key (bytes)", BC_STR " local u = {[a] = 1}", "local r = u[b]",
    1 << 25, 10}, 112},
  {{NULL, NULL, NULL, 0, 0}, 0}
};

/* The steps of lraf's metered LPeg (runtime/native/nat_lpeg.c's rate), in a
   build that has it (the run without charging uses Debian's lpeg.so) */
static const vcase lpeg_steps = {
  {"lpeg (steps)", "local lpeg = require 'lpeg' local V = lpeg.V "
   "local g = lpeg.P{'S', S = 'a' * V'S' * 'x' + 'a' * V'S' + lpeg.P(true)} "
   "local s = string.rep('a', N)", "local r = lpeg.match(g, s)", 18, 10},
  512};

static void case_source(const ncase *c, char *buf, size_t size) {
  snprintf(buf, size,
           "local N = %lld\n%s\nlocal lraf = require 'lraf'\n"
           "collectgarbage() collectgarbage('stop')\n"
           "local c0 = lraf.count()\n"
           "for _ = 1, %d do %s end\n"
           "RESULT = lraf.count() - c0 collectgarbage('restart')\n",
           c->n, c->setup, c->k, c->call);
}

/* One timed run of case c: its count and seconds of the timed loop
   (the setup is timed separately and subtracted). */
static void run_case(const ncase *c, int native, double *units,
                     double *secs) {
  char src[2048];
  lraf_state *S = new_state(native);
  lua_State *L = lraf_lua(S);
  lraf_error err;
  double t;
  case_source(c, src, sizeof src);
  if (lraf_load_string(S, src, strlen(src), c->model, &err) != LRAF_OK) {
    fprintf(stderr, "native: %s: %s\n", c->model, err.message);
    exit(1);
  }
  t = now();
  if (lraf_call(S, 0, 0, &err) != LRAF_OK) {
    fprintf(stderr, "native: %s: %s\n", c->model, err.message);
    exit(1);
  }
  t = now() - t;
  lua_getglobal(L, "RESULT");
  *units = (double)lua_tointeger(L, -1) / c->k;
  lua_pop(L, 1);
  *secs = t;
  lraf_close(S);
}

/* The same source with the loop emptied: the setup's time. */
static double setup_time(const ncase *c, int native) {
  ncase e = *c;
  double u, t;
  e.call = "";
  run_case(&e, native, &u, &t);
  return t;
}

static const nat_model *model_of(const char *id) {
  char lib[32];
  const char *dot = strchr(id, '.');
  if (dot == NULL) return NULL;
  snprintf(lib, sizeof lib, "%.*s", (int)(dot - id), id);
  return nat_find(lib, dot + 1);
}

/* Time case c (per_k: its model's or the VM's rate); adds its
   time/unit to *logsum, *n. */
static void calibrate_one(const ncase *c, long long per_k, double ns,
                          int reps, double *logsum, int *n) {
  double best_on = 1e30, best_off = 1e30, best_s = 1e30, uon = 0, uoff = 0;
  double native_s, ratio;
  int r;
  for (r = 0; r < reps; r++) {
    double u, t, s;
    run_case(c, 1, &u, &t);
    uon = u;
    if (t < best_on) best_on = t;
    run_case(c, 0, &u, &t);
    uoff = u;
    if (t < best_off) best_off = t;
    s = setup_time(c, 1);
    if (s < best_s) best_s = s;
  }
  /* time of the calls with charging, minus their instructions */
  native_s = (best_on - best_s) / c->k - uoff * ns;
  ratio = native_s / ((uon - uoff) * ns);
  printf("%-19s %9lld %12.0f %12.1f %9.2fx %8lld %8.0f\n", c->model, c->n,
         uon - uoff, native_s * 1e6, ratio, per_k, (double)per_k * ratio);
  if (ratio > 0) {
    *logsum += log(ratio);
    (*n)++;
  }
}

static void calibrate(double ns, int reps, int bc_only) {
  const ncase *c;
  const vcase *v;
  double logsum = 0;
  int n = 0;
  printf("\n%-19s %9s %12s %12s %10s %8s %8s\n", "built-in", "size",
         "units/call", "us/call", "time/unit", "per_k", "fit");
  for (c = cases; c->model != NULL && !bc_only; c++) {
    const nat_model *m = model_of(c->model);
    calibrate_one(c, m ? (long long)m->per_k : 0LL, ns, reps, &logsum, &n);
  }
  if (lraf_vm_builtin())
    for (v = bc_cases; v->c.model != NULL; v++)
      calibrate_one(&v->c, v->rate, ns, reps, &logsum, &n);
  else
    printf("(the lraf VM's own charges, vm.*: BUILD=build "
           "tests/bench/native.sh)\n");
  calibrate_one(&lpeg_steps.c, lpeg_steps.rate, ns, reps, &logsum, &n);
  printf("geomean time/unit: %.2fx (1.00x: one unit = one instruction)\n",
         n ? exp(logsum / n) : 0.0);
}

static void overhead(prog *p, int n, int reps) {
  double logsum = 0;
  int i, r;
  printf("\n%-12s %10s %10s %8s %14s\n", "program", "lraf s", "+native s",
         "ratio", "native units");
  for (i = 0; i < n; i++) {
    double best[2] = {1e30, 1e30};
    int64_t count[2] = {0, 0};
    for (r = 0; r < reps; r++) {
      int v;
      for (v = 0; v < 2; v++) {
        double t;
        count[v] = run_lraf(p[i].src, p[i].len, p[i].name, v, &t);
        if (t < best[v]) best[v] = t;
      }
    }
    printf("%-12s %10.3f %10.3f %7.3fx %14lld\n", p[i].name, best[0],
           best[1], best[1] / best[0], (long long)(count[1] - count[0]));
    logsum += log(best[1] / best[0]);
  }
  printf("geomean overhead of native charging: %+.2f%% (best of %d, "
         "interleaved)\n", (exp(logsum / n) - 1) * 100, reps);
}

/* CPU seconds of `lraf run ARGS... file` (user + system of the child). */
static double run_child(const char *file, int sandbox, long long limit) {
  const char *lraf = getenv("LRAF") ? getenv("LRAF") : "build/lraf";
  char lim[32];
  struct rusage ru;
  int st;
  pid_t pid;
  snprintf(lim, sizeof lim, "%lld", limit);
  fflush(stdout);  /* the child must not write our buffer out again */
  pid = fork();
  if (pid == 0) {
    FILE *null = freopen("/dev/null", "w", stdout);
    (void)null;
    null = freopen("/dev/null", "w", stderr);
    if (sandbox)
      execl(lraf, lraf, "run", "--sandbox", "--limit", lim, "--memory-limit",
            "200000000", file, (char *)NULL);
    else
      execl(lraf, lraf, "run", "--limit", lim, "--memory-limit",
            "200000000", file, (char *)NULL);
    _exit(127);
  }
  if (pid < 0 || wait4(pid, &st, 0, &ru) != pid) return -1;
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Whether a state with native charging loads lraf's metered LPeg. */
static int metered_lpeg(void) {
  static const char probe[] = "return (select(2, require 'lpeg'))";
  lraf_state *S = new_state(1);
  lraf_error err;
  int yes = lraf_load_string(S, probe, sizeof probe - 1, "=probe", &err) ==
                LRAF_OK &&
            lraf_call(S, 0, 1, &err) == LRAF_OK &&
            lua_isstring(lraf_lua(S), -1) &&
            strcmp(lua_tostring(lraf_lua(S), -1), "lraf:metered") == 0;
  lraf_close(S);
  return yes;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void amplification(double ns, int reps) {
  const long long limit = 10000000;
  char *names[64], path[512], line[2][128];
  int n = 0, i, r;
  double base = 1e30, cmax = 0, logsum = 0;
  int counted = 0;
  DIR *d = opendir("tests/amplify");
  struct dirent *e;
  if (d == NULL) return;
  while ((e = readdir(d)) != NULL && n < 64) {
    size_t l = strlen(e->d_name);
    if (l > 4 && strcmp(e->d_name + l - 4, ".lua") == 0)
      names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, by_name);
  {
    FILE *f = fopen("/tmp/lraf_bench_empty.lua", "w");
    if (f != NULL) fclose(f);
    for (r = 0; r < reps; r++) {
      double t = run_child("/tmp/lraf_bench_empty.lua", 1, limit);
      if (t < base) base = t;
    }
    remove("/tmp/lraf_bench_empty.lua");
  }
  printf("\n%-22s %10s %8s   (lraf run --limit %lld; start-up %.3f s "
         "subtracted)\n", "amplification case", "cpu s", "c", limit, base);
  for (i = 0; i < n; i++) {
    FILE *f;
    double best = 1e30, c;
    int gap = 0, full = 0;
    snprintf(path, sizeof path, "tests/amplify/%s", names[i]);
    f = fopen(path, "r");
    if (f == NULL) continue;
    line[1][0] = '\0';
    if (fgets(line[0], sizeof line[0], f) == NULL ||
        fgets(line[1], sizeof line[1], f) == NULL)
      line[1][0] = '\0';
    fclose(f);
    if (strncmp(line[1], "-- gap: stock ", 14) == 0)
      gap = !lraf_vm_builtin();
    else if (strncmp(line[1], "-- gap: lpeg ", 13) == 0)
      gap = !metered_lpeg();
    else
      gap = strncmp(line[1], "-- gap:", 7) == 0;
    full = strncmp(line[1], "-- env: full", 12) == 0;
    if (gap) {
      printf("%-22s %10s %8s\n", names[i], "-", "gap");
      continue;
    }
    for (r = 0; r < reps; r++) {
      double t = run_child(path, !full, limit);
      if (t < best) best = t;
    }
    c = (best - base) / ((double)limit * ns);
    printf("%-22s %10.3f %8.2f\n", names[i], best, c);
    if (c > cmax) cmax = c;
    if (c > 0) {
      logsum += log(c);
      counted++;
    }
  }
  printf("c: at most %.2f, geometric mean %.2f over %d cases\n", cmax,
         counted ? exp(logsum / counted) : 0.0, counted);
  for (i = 0; i < n; i++) free(names[i]);
}

int main(int argc, char **argv) {
  prog p[16];
  int n, reps = 5;
  int do_cal = 1, do_over = 1, do_amp = 1, bc_only = 0;
  double ns;
  int i;
  for (i = 1; i < argc; i++) {
    if (strncmp(argv[i], "-n", 2) == 0) reps = atoi(argv[i] + 2);
    else if (strcmp(argv[i], "--calibrate") == 0) do_over = do_amp = 0;
    else if (strcmp(argv[i], "--overhead") == 0) do_cal = do_amp = 0;
    else if (strcmp(argv[i], "--amplify") == 0) do_cal = do_over = 0;
    else if (strcmp(argv[i], "--vm") == 0) {  /* the vm.* cases alone */
      do_over = do_amp = 0;
      bc_only = 1;
    }
  }
  if (reps < 1) reps = 1;
  n = load_programs(p);
  ns = instruction_time(p, n, reps);
  printf("average VM instruction (stock Lua, %d programs): %.2f ns\n", n,
         ns * 1e9);
  if (do_cal) calibrate(ns, reps < 3 ? reps : 3, bc_only);
  if (do_over) overhead(p, n, reps);
  if (do_amp) amplification(ns, reps < 3 ? reps : 3);
  for (i = 0; i < n; i++) free(p[i].src);
  return 0;
}
