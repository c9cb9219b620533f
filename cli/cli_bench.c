/*
** cli_bench.c - `lraf bench [-n N] [options] SCRIPT [SCRIPT2]
** [-- ARGS...]`: run a script N times, each time in a fresh lraf state
** with ARGS as its arg[1..] and `...`, and report its
** instruction count next to its wall time (min, median, max).  The
** count should be the same on every run and on every machine; when it
** is not (the script reads the clock, math.random, pairs order over
** string keys...) bench says so loudly.  With two scripts it also
** compares them by instruction count.  The scripts' own output is
** discarded while they run.
**
** Exit status: 0 ok, 1 a script failed, 2 usage or bad input.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <lua.h>

#include "cli.h"

#define BENCH_DEFAULT_RUNS 10

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

/* Send stdout to /dev/null while a script runs (saved: the real one). */
static int mute_stdout(void) {
  int saved, null;
  fflush(stdout);
  saved = dup(STDOUT_FILENO);
  null = open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0) {
    if (saved >= 0) close(saved);
    if (null >= 0) close(null);
    return -1;
  }
  dup2(null, STDOUT_FILENO);
  close(null);
  return saved;
}

static void unmute_stdout(int saved) {
  if (saved < 0) return;
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
}

/* One run in a fresh state: the instructions it took, finalizers run
   by lraf_close included, and its wall time. */
static lraf_status run_once(const lraf_options *base, const char *script,
                            const bench_args *args, int64_t *count,
                            double *wall, lraf_error *err) {
  lraf_options opt = *base;
  lraf_state *S;
  lraf_status st;
  lraf_manager *m = lraf_total_new();
  lua_State *L;
  double t0;
  int i;
  if (m == NULL) {
    err->code = LRAF_EMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return LRAF_EMEM;
  }
  opt.manager = m;
  st = lraf_new(&opt, &S, err);
  if (st != LRAF_OK) {
    lraf_manager_release(m);
    return st;
  }
  L = lraf_lua(S);
  lua_createtable(L, args->n, 1);  /* arg, as lraf run gives it */
  lua_pushstring(L, script);
  lua_rawseti(L, -2, 0);
  for (i = 0; i < args->n; i++) {
    lua_pushstring(L, args->v[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setglobal(L, "arg");
  t0 = now();
  st = lraf_load_file(S, script, err);
  if (st == LRAF_OK) {
    if (!lua_checkstack(L, args->n + 3)) {
      lua_pop(L, 1);
      err->code = st = LRAF_EMEM;
      snprintf(err->message, sizeof err->message,
               "too many arguments to %s", script);
    } else {
      for (i = 0; i < args->n; i++) lua_pushstring(L, args->v[i]);
      st = lraf_call(S, args->n, 0, err);
    }
  }
  lraf_close(S);
  *wall = now() - t0;
  *count = lraf_manager_total(m);
  lraf_manager_release(m);
  return st;
}

static lraf_status bench_script(const lraf_options *opt, const char *script,
                                const bench_args *args, int runs,
                                bench_result *r, lraf_error *err) {
  double *walls = malloc((size_t)runs * sizeof *walls);
  lraf_status st = LRAF_OK;
  int i, saved;
  if (walls == NULL) {
    err->code = LRAF_EMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return LRAF_EMEM;
  }
  r->script = script;
  saved = mute_stdout();
  for (i = 0; i < runs && st == LRAF_OK; i++) {
    int64_t count = 0;
    st = run_once(opt, script, args, &count, &walls[i], err);
    if (i == 0 || count < r->count_min) r->count_min = count;
    if (i == 0 || count > r->count_max) r->count_max = count;
  }
  unmute_stdout(saved);
  if (st == LRAF_OK) {
    qsort(walls, (size_t)runs, sizeof *walls, by_value);
    r->wall_min = walls[0];
    r->wall_max = walls[runs - 1];
    r->wall_median = runs % 2 ? walls[runs / 2]
                              : (walls[runs / 2 - 1] + walls[runs / 2]) / 2;
  }
  free(walls);
  return st;
}

static void print_result(const bench_result *r, int runs) {
  printf("%s\n", r->script);
  if (r->count_min == r->count_max)
    printf("  instructions  %" PRId64 " (the same in all %d runs)\n",
           r->count_min, runs);
  else
    printf("  instructions  %" PRId64 " .. %" PRId64
           "  WARNING: THE COUNT DIFFERS BETWEEN RUNS (the script depends "
           "on the clock, random numbers or hash order)\n",
           r->count_min, r->count_max);
  printf("  wall seconds  min %.6f  median %.6f  max %.6f\n", r->wall_min,
         r->wall_median, r->wall_max);
}

/* Options (cli_options.c); *first gets the index of the first script,
   *nscripts their number, args what follows "--" after them. */
static int parse_args(int argc, char **argv, lraf_options *opt,
                      uint32_t *weights, int *runs, int *first,
                      int *nscripts, bench_args *args) {
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
  if (a.native >= 0) opt->native = a.native;
  if (a.runs > 0) *runs = a.runs;
  if (a.opt.weights != NULL) {
    memcpy(weights, a.weights, sizeof a.weights);
    opt->weights = weights;
  }
  return CLI_OK;
}

int cli_bench(int argc, char **argv) {
  lraf_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  bench_result res[2];
  bench_args args = {NULL, 0};
  int runs = BENCH_DEFAULT_RUNS, first = 0, n = 0, i, rc;
  lraf_state *probe;
  lraf_error err;
  rc = parse_args(argc, argv, &opt, weights, &runs, &first, &n, &args);
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  /* the cost-model id, from a state that runs nothing */
  if (lraf_new(&opt, &probe, &err) != LRAF_OK) return cli_report(&err);
  printf("lraf bench: %d run%s each, model %s\n", runs, runs == 1 ? "" : "s",
         lraf_model(probe));
  lraf_close(probe);
  for (i = 0; i < n; i++) {
    const char *script = argv[first + i];
    lraf_status st;
    if (access(script, R_OK) != 0)
      return cli_error("cannot read %s", script);
    st = bench_script(&opt, script, &args, runs, &res[i], &err);
    if (st != LRAF_OK) {
      fflush(stdout);
      cli_error("%s", err.message);
      return st == LRAF_ERUN || st == LRAF_ESYNTAX || st == LRAF_EMEM
                 ? CLI_EFAIL
                 : CLI_EUSAGE;
    }
    print_result(&res[i], runs);
    if (res[i].count_min != res[i].count_max)
      cli_error("WARNING: the instruction count of %s differs between "
                "runs (%" PRId64 " .. %" PRId64 ")", script,
                res[i].count_min, res[i].count_max);
  }
  if (n == 2) {
    double a = (double)res[0].count_max, b = (double)res[1].count_max;
    printf("comparison (instructions)\n  %s / %s = %.4f\n", res[0].script,
           res[1].script, b > 0 ? a / b : 0.0);
    printf("  wall time median ratio %.4f (varies with the machine)\n",
           res[1].wall_median > 0 ? res[0].wall_median / res[1].wall_median
                                  : 0.0);
  }
  return CLI_OK;
}
