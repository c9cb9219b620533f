/*
** cli_bench.c - `lraf bench [-n N] [options] SCRIPT [SCRIPT2]
** [-- ARGS...]`: run a script N times, each time in a fresh lraf state
** with ARGS as its arg[1..] and `...`, and report its
** instruction count next to its wall time (min, median, max).  The
** count should be the same on every run and on every machine; when it
** is not (the script reads the clock or addresses; with
** --no-deterministic also math.random, pairs order, sort's pivot) bench
** says why and exits with status 1.  With two scripts it also
** compares them by instruction count.  The scripts' own output is
** discarded while they run, and their input is /dev/null.
**
** Exit status (cli.h): 0 ok, 1 a script failed or called os.exit with
** a failure status, 2 usage or bad input, 3 quota (--limit), 4 memory
** limit (--memory-limit).  os.exit ends a run (the count up to it is
** kept); progress is shown on stderr when it is a terminal.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <errno.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

#define BENCH_DEFAULT_RUNS 10
/* Without --limit every run stops after this many instructions (a few
   seconds of Lua code; a C call's own work is bounded only with native
   charging, which --limit turns on). */
#define BENCH_DEFAULT_LIMIT INT64_C(1000000000)

/* The arguments every run gets (after "--"). */
typedef struct bench_args {
  char **v;
  int n;
} bench_args;

/* What N runs of one script measured. */
typedef struct bench_result {
  const char *script;
  int64_t count_min, count_max;
  double wall_min, wall_median, wall_max;
} bench_result;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Point fd (stdout, or stdin: a script that reads input must not wait
   for a terminal while its output is hidden) at /dev/null while the
   scripts run; returns the saved descriptor, -1 when that failed. */
static int detach(int fd) {
  int saved, null;
  fflush(stdout);
  saved = dup(fd);
  null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
  if (saved < 0 || null < 0) {
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    return -1;
  }
  dup2(null, fd);
  close(null);
  return saved;
}

static void reattach(int fd, int saved) {
  if (saved < 0) return;
  fflush(stdout);
  dup2(saved, fd);
  close(saved);
}

/* Limits of every run, and what stopped one. */
typedef struct bench_run {
  int64_t limit;         /* the quota of each run */
  int limit_said;        /* --limit gave it (else the default) */
  int64_t memory;        /* bytes, < 0: none */
  int run, runs;         /* this run (from 1) and how many */
  lraf_manager *m;       /* the run's manager (a limit) */
  int exited;            /* the script called os.exit */
  int exit_code;
  int64_t exit_count;    /* the count when it did */
  char where[192];       /* where a failed run stopped */
  int native;            /* native charging was on */
  int64_t native_units;  /* and added this much */
  lraf_manager *timeline;  /* --timeline: above every run's limit */
  const char *tl_path;   /* --timeline's file, or NULL */
  FILE *tl_file;
  double expect_share;   /* --expect-share (a fraction), 0: none */
} bench_run;

/* os.exit inside a benchmarked script ends that run, not lraf: the
   count so far is kept, and the manager stops whatever runs next (the
   quota error cannot be caught by the script). */
static int bench_exit(lua_State *L) {
  bench_run *b = lua_touserdata(L, lua_upvalueindex(1));
  lraf_state *S = lraf_from_lua(L);
  if (lua_isboolean(L, 1))
    b->exit_code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    b->exit_code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  b->exited = 1;
  lraf_flush(S, NULL);
  /* what ran: on the lraf VM in exact mode the frames charged the rest
     of their blocks ahead, which lraf_consumed leaves out */
  b->exit_count = lraf_manager_total(b->m) +
                  (lraf_consumed(S, lraf_current_account(S)) -
                   lraf_account_flushed(lraf_current_account(S)));
  lraf_limit_set(b->m, 0);
  lraf_charge(L, 1);
  return 0;
}

/* The arg table as lraf run gives it, and os.exit (protected: it
   allocates). */
static int bench_globals(lua_State *L) {
  const bench_args *args = lua_touserdata(L, 1);
  const char *script = lua_tostring(L, 2);
  int i;
  lua_createtable(L, args->n, 1);
  lua_pushstring(L, script);
  lua_rawseti(L, -2, 0);
  for (i = 0; i < args->n; i++) {
    lua_pushstring(L, args->v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setglobal(L, "arg");
  if (lua_getglobal(L, "os") == LUA_TTABLE &&
      lua_getfield(L, -1, "exit") == LUA_TFUNCTION) {  /* not sandboxed */
    lua_pop(L, 1);
    lua_pushvalue(L, 3);
    lua_pushcclosure(L, bench_exit, 1);
    lua_setfield(L, -2, "exit");
  }
  return 0;
}

/* The chunk with the script's arguments (protected, like lraf run). */
static int bench_call(lua_State *L) {
  const bench_args *args = lua_touserdata(L, 1);
  int i;
  luaL_checkstack(L, args->n + 3, "too many arguments to script");
  for (i = 0; i < args->n; i++) lua_pushstring(L, args->v[i]);
  lua_call(L, args->n, 0);
  return 0;
}

/* One run in a fresh state: the instructions it took, finalizers run
   by lraf_close included, and its wall time. */
static lraf_status run_once(const lraf_options *base, const char *script,
                            const cli_script *src, const bench_args *args, bench_run *b,
                            int64_t *count, double *wall, lraf_error *err) {
  lraf_options opt = *base;
  lraf_state *S;
  lraf_status st;
  lraf_manager *m = b->timeline != NULL ? lraf_hier_new(b->timeline, b->limit)
                                        : lraf_limit_new(b->limit);
  lua_State *L;
  double t0;
  if (m == NULL) {
    err->code = LRAF_EMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return LRAF_EMEM;
  }
  opt.manager = m;
  if (b->memory > 0) opt.memory_limit = (size_t)b->memory;
  b->m = m;
  b->exited = 0;
  st = lraf_new(&opt, &S, err);
  if (st != LRAF_OK) {
    lraf_manager_release(m);
    return st;
  }
  L = lraf_lua(S);
  lua_pushcfunction(L, bench_globals);
  lua_pushlightuserdata(L, (void *)args);
  lraf_host_strings(S, 1);  /* the arg table's paths (bench_globals) */
  lua_pushstring(L, script);
  lua_pushlightuserdata(L, b);
  st = lraf_call(S, 3, 0, err);
  lraf_host_strings(S, 0);
  t0 = now();
  if (st == LRAF_OK) st = cli_script_load(S, src, err);
  if (st == LRAF_OK) {
    lua_pushcfunction(L, bench_call);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, (void *)args);
    lua_insert(L, -2);
    st = lraf_call(S, 2, 0, err);
  }
  if (b->exited) {
    lraf_limit_set(m, b->limit);
    st = LRAF_OK;
  }
  snprintf(b->where, sizeof b->where, "%s", lraf_last_where(S));
  b->native = strstr(lraf_model(S), "/native-") != NULL;
  b->native_units = lraf_native_units(S);
  lraf_close(S);
  *wall = now() - t0;
  *count = b->exited ? b->exit_count : lraf_manager_total(m);
  lraf_manager_release(m);
  return st;
}

/* "run 3/10" on a terminal (stderr), nothing otherwise. */
static void progress(const char *script, int run, int runs, double t0) {
  if (!isatty(STDERR_FILENO)) return;
  if (run > runs)
    fputs("\r\033[K", stderr);
  else
    fprintf(stderr, "\r\033[K%s: run %d/%d, %.1f s", script, run, runs,
            now() - t0);
  fflush(stderr);
}

static lraf_status bench_script(const lraf_options *opt, const char *script,
                                const bench_args *args, bench_run *b,
                                int runs, bench_result *r, lraf_error *err) {
  double *walls, t0 = now();
  lraf_status st;
  int i, saved, saved_in;
  cli_script src;
  /* read once: a pipe or <(...) gives its text only once */
  if ((st = cli_script_read(script, &src, err)) != LRAF_OK) {
    b->exited = 0;
    return st;
  }
  walls = malloc((size_t)runs * sizeof *walls);
  if (walls == NULL) {
    cli_script_free(&src);
    err->code = LRAF_EMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return LRAF_EMEM;
  }
  r->script = script;
  saved = detach(STDOUT_FILENO);
  saved_in = detach(STDIN_FILENO);
  b->runs = runs;
  for (i = 0; i < runs && st == LRAF_OK; i++) {
    int64_t count = 0;
    b->run = i + 1;
    progress(script, i + 1, runs, t0);
    st = run_once(opt, script, &src, args, b, &count, &walls[i], err);
    if (i == 0 || count < r->count_min) r->count_min = count;
    if (i == 0 || count > r->count_max) r->count_max = count;
    if (b->exited && b->exit_code != EXIT_SUCCESS) break;
  }
  progress(script, runs + 1, runs, t0);
  reattach(STDIN_FILENO, saved_in);
  reattach(STDOUT_FILENO, saved);
  if (st == LRAF_OK && i == runs) {  /* every run done */
    qsort(walls, (size_t)runs, sizeof *walls, by_value);
    r->wall_min = walls[0];
    r->wall_max = walls[runs - 1];
    r->wall_median = runs % 2 ? walls[runs / 2]
                              : (walls[runs / 2 - 1] + walls[runs / 2]) / 2;
  }
  free(walls);
  cli_script_free(&src);
  return st;
}

/* unit: the cost model's (cli_unit_name). */
static void print_result(const bench_result *r, int runs, const char *unit) {
  printf("%s\n", r->script);
  if (r->count_min == r->count_max)
    printf("  %s  %" PRId64 " (the same in all %d runs)\n", unit,
           r->count_min, runs);
  else
    printf("  %s  %" PRId64 " .. %" PRId64
           "  WARNING: THE COUNT DIFFERS BETWEEN RUNS (the script depends "
           "on the clock, random numbers or hash order)\n",
           unit, r->count_min, r->count_max);
  printf("  wall seconds  min %.6f  median %.6f  max %.6f\n", r->wall_min,
         r->wall_median, r->wall_max);
}

/* Options (cli_options.c); *first gets the index of the first script,
   *nscripts their number, args what follows "--" after them. */
static int parse_args(int argc, char **argv, lraf_options *opt,
                      uint32_t *weights, int *runs, int *first,
                      int *nscripts, bench_args *args, bench_run *b) {
  const cli_command *cmd = cli_command_find("bench");
  cli_args a;
  int i, j, rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK) return rc;
  i = a.first;
  if (i >= argc || strcmp(argv[i], "--") == 0) {
    cli_error("no script");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  for (j = i; j < argc && strcmp(argv[j], "--") != 0; j++)
    ;
  if (j - i > 2) {
    cli_error("at most two scripts (script arguments go after \"--\")");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  *first = i;
  *nscripts = j - i;
  args->v = j < argc ? &argv[j + 1] : NULL;
  args->n = j < argc ? argc - j - 1 : 0;
  *opt = a.opt;
  opt->traceback = 1;
  /* a limit is a defence only if no C call does unbounded work for one
     unit: --limit and --memory-limit turn native charging on, as in
     lraf run (--no-native turns it off) */
  if (a.native >= 0) opt->native = a.native;
  else if (a.limit >= 0 || a.memory > 0) opt->native = 1;
  if (opt->deterministic == LRAF_DETERMINISTIC_AUTO) opt->deterministic = 1;
  if (a.runs > 0) *runs = a.runs;
  b->limit = a.limit >= 0 ? a.limit : BENCH_DEFAULT_LIMIT;
  b->limit_said = a.limit >= 0;
  b->memory = a.memory;
  b->tl_path = a.timeline;
  b->expect_share = a.expect_share;
  if (a.opt.weights != NULL) {
    memcpy(weights, a.weights, sizeof a.weights);
    opt->weights = weights;
  }
  return CLI_OK;
}

/* --timeline: one timeline above every run's limit, so that its file
   shows the runs one after another. */
static int bench_timeline_open(bench_run *b) {
  int rc = cli_timeline_open(b->tl_path, &b->tl_file);
  if (rc != CLI_OK || b->tl_file == NULL) return rc;
  b->timeline = lraf_timeline_new(NULL);
  if (b->timeline == NULL) {
    fclose(b->tl_file);
    return cli_error("out of memory");
  }
  return CLI_OK;
}

/* Write the timeline and its figures; 0 when that failed. */
static int bench_timeline_done(bench_run *b, const char *title) {
  lraf_timeline_summary sum;
  int ok;
  if (b->timeline == NULL) return 1;
  fflush(stdout);
  ok = cli_timeline_finish(b->timeline, b->tl_file, b->tl_path, title,
                           b->expect_share, &sum);
  if (ok) cli_timeline_line(stdout, b->tl_path, &sum);
  lraf_manager_release(b->timeline);
  b->timeline = NULL;
  return ok;
}

/* A run that failed: the message and the status of the table in cli.h. */
static int run_failed(const char *script, const bench_run *b, lraf_status st,
                      const lraf_error *err) {
  fflush(stdout);
  if (b->exited) {
    cli_error("%s called os.exit(%d) in run %d of %d: bench counts only "
              "scripts that return (or exit with a success status)",
              script, b->exit_code, b->run, b->runs);
    return CLI_EFAIL;
  }
  if (st == LRAF_EQUOTA) {
    char native[96];
    if (b->native)
      snprintf(native, sizeof native, "native charging was on and added %"
               PRId64 " units", b->native_units);
    else
      snprintf(native, sizeof native, "native charging was off");
    cli_error("%s: quota exceeded (limit %" PRId64 " %s%s) in run %d%s%s; "
              "%s", script, b->limit, b->native ? "units" : "instructions",
              b->limit_said ? "" : ", the default of lraf bench; --limit "
              "sets another", b->run, *b->where ? " at " : "", b->where,
              native);
    return CLI_EQUOTA;
  }
  if (st == LRAF_EMEMLIMIT) {
    cli_error("%s: memory limit exceeded (limit %" PRId64 " bytes) in run "
              "%d%s%s", script, b->memory, b->run, *b->where ? " at " : "",
              b->where);
    return CLI_EMEMORY;
  }
  cli_error("%s", err->message);
  return st == LRAF_ERUN || st == LRAF_ESYNTAX || st == LRAF_EMEM
             ? CLI_EFAIL
             : CLI_EUSAGE;
}

int cli_bench(int argc, char **argv) {
  lraf_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  bench_result res[2];
  bench_args args = {NULL, 0};
  bench_run b;
  int runs = BENCH_DEFAULT_RUNS, first = 0, n = 0, i, rc, differs = 0;
  lraf_state *probe;
  lraf_error err;
  const char *unit;
  memset(&b, 0, sizeof b);
  rc = parse_args(argc, argv, &opt, weights, &runs, &first, &n, &args, &b);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  /* the cost-model id, from a state that runs nothing */
  if (b.memory > 0) opt.memory_limit = (size_t)b.memory;
  if (lraf_new(&opt, &probe, &err) != LRAF_OK)
    return cli_new_failed(&opt, &err);
  opt.memory_limit = 0;
  if ((rc = bench_timeline_open(&b)) != CLI_OK) return rc;
  printf("lraf bench: %d run%s each, model %s\n", runs, runs == 1 ? "" : "s",
         lraf_model(probe));
  unit = cli_unit_name(opt.mode, strstr(lraf_model(probe), "/native-") != NULL);
  lraf_close(probe);
  for (i = 0; i < n; i++) {
    const char *script = argv[first + i];
    lraf_status st;
    if (access(script, R_OK) != 0)
      return cli_error("cannot read %s: %s", script, strerror(errno));
    st = bench_script(&opt, script, &args, &b, runs, &res[i], &err);
    if (st != LRAF_OK || (b.exited && b.exit_code != EXIT_SUCCESS)) {
      bench_timeline_done(&b, script);
      return run_failed(script, &b, st, &err);
    }
    print_result(&res[i], runs, unit);
    if (res[i].count_min != res[i].count_max) {
      cli_error("the count of %s differs between runs (%" PRId64 " .. %"
                PRId64 "): %s", script, res[i].count_min, res[i].count_max,
                opt.deterministic
                    ? "it reads the clock (os.time, os.clock, os.date) or "
                      "addresses (%p, tostring of a table or function)"
                    : "--no-deterministic: Lua's random hash seed, sort "
                      "pivot and math.random seed, and addresses");
      differs = 1;
    }
  }
  if (n == 2) {
    double a = (double)res[0].count_max, b2 = (double)res[1].count_max;
    printf("comparison (%s)\n  %s / %s = %.4f\n", unit, res[0].script,
           res[1].script, b2 > 0 ? a / b2 : 0.0);
    printf("  wall time median ratio %.4f (varies with the machine)\n",
           res[1].wall_median > 0 ? res[0].wall_median / res[1].wall_median
                                  : 0.0);
  }
  if (!bench_timeline_done(&b, argv[first])) return CLI_EUSAGE;
  return differs ? CLI_EFAIL : CLI_OK;
}
