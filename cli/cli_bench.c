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
#define BENCH_MAX_RUNS 100000

static const char usage_text[] =
  "usage: lraf bench [-n N] [--exact] [--sandbox] [--native]\n"
  "                  [--granularity N] [--mode original|overhead|weighted]\n"
  "                  [--weights FILE] SCRIPT [SCRIPT2] [-- ARGS...]";

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

static int parse_runs(const char *s, int *runs) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < 1 || v > BENCH_MAX_RUNS) return 0;
  *runs = (int)v;
  return 1;
}

/* Options; *first gets the index of the first script, *nscripts their
   number, args what follows "--" after them. */
static int parse_args(int argc, char **argv, lraf_options *opt,
                      uint32_t *weights, int *runs, int *first,
                      int *nscripts, bench_args *args) {
  int i, j, mode_set = 0;
  const char *wfile = NULL;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "--exact") == 0) {
      opt->exact = 1;
    } else if (strcmp(a, "--sandbox") == 0) {
      opt->env = LRAF_ENV_SANDBOX;
    } else if (strcmp(a, "--native") == 0) {
      opt->native = 1;
    } else if (i + 1 >= argc) {
      return cli_error("%s needs a value\n%s", a, usage_text);
    } else if (strcmp(a, "-n") == 0) {
      if (!parse_runs(argv[++i], runs))
        return cli_error("-n needs a number of runs from 1 to %d",
                         BENCH_MAX_RUNS);
    } else if (strcmp(a, "--granularity") == 0) {
      int64_t g;
      if (!cli_parse_int(argv[++i], &g) || g == 0)
        return cli_error("--granularity needs a positive integer, not '%s'",
                         argv[i]);
      opt->granularity = g;
    } else if (strcmp(a, "--mode") == 0) {
      const char *m = argv[++i];
      mode_set = 1;
      if (strcmp(m, "original") == 0) opt->mode = LRAF_MODE_ORIGINAL;
      else if (strcmp(m, "overhead") == 0) opt->mode = LRAF_MODE_OVERHEAD;
      else if (strcmp(m, "weighted") == 0) opt->mode = LRAF_MODE_WEIGHTED;
      else return cli_error("unknown mode '%s'\n%s", m, usage_text);
    } else if (strcmp(a, "--weights") == 0) {
      wfile = argv[++i];
    } else {
      return cli_error("unknown option '%s'\n%s", a, usage_text);
    }
  }
  if (i >= argc || strcmp(argv[i], "--") == 0)
    return cli_error("no script\n%s", usage_text);
  for (j = i; j < argc && strcmp(argv[j], "--") != 0; j++)
    ;
  if (j - i > 2)
    return cli_error("at most two scripts (script arguments go after "
                     "\"--\")\n%s", usage_text);
  *first = i;
  *nscripts = j - i;
  args->v = j < argc ? &argv[j + 1] : NULL;
  args->n = j < argc ? argc - j - 1 : 0;
  if (wfile != NULL) {
    lraf_error err;
    char *text;
    size_t len;
    lraf_status st;
    if (mode_set && opt->mode != LRAF_MODE_WEIGHTED)
      return cli_error("--weights needs --mode weighted");
    if (cli_read_file(wfile, &text, &len, &err) != LRAF_OK)
      return cli_report(&err);
    st = lraf_parse_weights(text, len, weights, &err);
    free(text);
    if (st != LRAF_OK) return cli_report(&err);
    opt->mode = LRAF_MODE_WEIGHTED;
    opt->weights = weights;
  } else if (opt->mode == LRAF_MODE_WEIGHTED) {
    return cli_error("--mode weighted needs --weights FILE");
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
  lraf_default_options(&opt);
  opt.traceback = 1;
  rc = parse_args(argc, argv, &opt, weights, &runs, &first, &n, &args);
  if (rc != CLI_OK) return rc;
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
