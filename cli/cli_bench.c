/*
** cli_bench.c - `lraf bench [options] SCRIPT [SCRIPT2] [-- ARGS...]` or
** `lraf bench [options] --suite FILE`: run each benchmark N times
** (after --warmup runs), each time in a fresh lraf state with its
** arguments as arg[1..] and `...`, and report its instruction count,
** the primary figure, next to its wall time (mean ± σ, min, median,
** max).  The count should be the same on every run and on every
** machine; when it is not (the script reads the clock or addresses;
** with --no-deterministic also math.random, pairs order, sort's pivot)
** bench says why and exits with status 1.  With two scripts it also
** compares them by instruction count.  --save-baseline and --baseline
** keep and compare the counts (cli_baseline.c, through lraf diff's
** gate); cli_benchout.c writes the reports and exports.  The scripts'
** own output is discarded while they run, and their input is
** /dev/null.
**
** Exit status (cli.h): 0 ok, 1 a script failed or called os.exit with
** a failure status, or a count differs between runs, 2 usage or bad
** input, 3 quota (--limit), 4 memory limit (--memory-limit), 5 a
** regression past the gate or a count above its hard limit (--max-count,
** a suite's max=), 7 a baseline of another cost model, lraf
** version or VM.  os.exit ends a run (the count up to it is kept);
** progress is shown on stderr when it is a terminal.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>

#include <errno.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli_bench.h"

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

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User and system CPU seconds of the process, times sign, added to
   t[0] and t[1] (-1 at the start of a run, 1 at its end). */
static void cpu_times(double t[2], int sign) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return;
  t[0] += sign * ((double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6);
  t[1] += sign * ((double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
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
                            int64_t *count, double *wall, double cpu[2],
                            lraf_error *err) {
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
  cpu_times(cpu, -1);
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
  cpu_times(cpu, 1);
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

/* Wall-time statistics of r->times: mean, sample standard deviation
   (NAN for one run, as hyperfine gives none), median, min, max. */
static void statistics(cli_bench_result *r) {
  double *t = r->times, sum = 0, sq = 0, *sorted;
  int i, n = r->runs;
  for (i = 0; i < n; i++) sum += t[i];
  r->mean = sum / n;
  for (i = 0; i < n; i++) sq += (t[i] - r->mean) * (t[i] - r->mean);
  r->stddev = n > 1 ? sqrt(sq / (n - 1)) : NAN;
  sorted = t + n;  /* the second half of the buffer */
  memcpy(sorted, t, (size_t)n * sizeof *t);
  qsort(sorted, (size_t)n, sizeof *sorted, by_value);
  r->min = sorted[0];
  r->max = sorted[n - 1];
  r->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* Warm-up runs, then the timed runs of one benchmark. */
static lraf_status bench_script(const lraf_options *opt,
                                const cli_bench_item *it, bench_run *b,
                                int runs, int warmup, cli_bench_result *r,
                                lraf_error *err) {
  double t0 = now();
  lraf_status st;
  int i, saved, saved_in;
  cli_script src;
  bench_args args;
  args.v = it->args;
  args.n = it->nargs;
  r->item = it;
  r->runs = runs;
  r->warmup = warmup;
  /* read once: a pipe or <(...) gives its text only once */
  if ((st = cli_script_read(it->script, &src, err)) != LRAF_OK) {
    b->exited = 0;
    return st;
  }
  r->times = malloc(2 * (size_t)runs * sizeof *r->times);
  if (r->times == NULL) {
    cli_script_free(&src);
    err->code = LRAF_EMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
    return LRAF_EMEM;
  }
  saved = detach(STDOUT_FILENO);
  saved_in = detach(STDIN_FILENO);
  b->runs = warmup + runs;
  for (i = 0; i < warmup + runs && st == LRAF_OK; i++) {
    int64_t count = 0;
    double wall = 0, cpu[2] = {0, 0};
    b->run = i + 1;
    progress(it->script, i + 1, warmup + runs, t0);
    st = run_once(opt, it->script, &src, &args, b, &count, &wall, cpu, err);
    if (b->exited && b->exit_code != EXIT_SUCCESS) break;
    if (i < warmup) continue;
    r->times[i - warmup] = wall;
    r->user += cpu[0] / runs;
    r->system += cpu[1] / runs;
    if (i == warmup || count < r->count_min) r->count_min = count;
    if (i == warmup || count > r->count_max) r->count_max = count;
  }
  progress(it->script, b->runs + 1, b->runs, t0);
  reattach(STDIN_FILENO, saved_in);
  reattach(STDOUT_FILENO, saved);
  if (st == LRAF_OK && i == warmup + runs) statistics(r);
  cli_script_free(&src);
  return st;
}

/* unit: the cost model's (cli_unit_name). */
static void print_result(const cli_bench_result *r, const char *unit) {
  printf("%s\n", r->item->name);
  if (r->count_min == r->count_max)
    printf("  %s  %" PRId64 " (the same in all %d runs)\n", unit,
           r->count_min, r->runs);
  else
    printf("  %s  %" PRId64 " .. %" PRId64
           "  WARNING: THE COUNT DIFFERS BETWEEN RUNS (the script depends "
           "on the clock, random numbers or hash order)\n",
           unit, r->count_min, r->count_max);
  printf("  wall seconds  mean %.6f", r->mean);
  if (!isnan(r->stddev)) printf(" ± %.6f", r->stddev);
  printf("  min %.6f  median %.6f  max %.6f", r->min, r->median, r->max);
  if (r->warmup > 0) printf("  (after %d warm-up)", r->warmup);
  putchar('\n');
}

/* What the command line asked for. */
typedef struct bench_cmd {
  lraf_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  cli_args a;
  int runs, format;
  cli_bench_item *items;   /* n of them: the scripts, or the suite's */
  int n;
  cli_suite suite;
  char dir[4096];          /* the baselines' directory */
} bench_cmd;

/* The scripts of the command line as benchmarks (same arguments). */
static int items_of_args(bench_cmd *c, int argc, char **argv, bench_args *args) {
  const cli_command *cmd = cli_command_find("bench");
  int i = c->a.first, j, k;
  if (c->a.suite != NULL) {
    if (i < argc && i > 0 && strcmp(argv[i - 1], "--") == 0)
      return cli_error("--suite %s lists each benchmark's arguments (after "
                       "\"--\" on its line)", c->a.suite);
    if (i < argc)
      return cli_error("--suite %s lists the scripts: '%s' is not an "
                       "option", c->a.suite, argv[i]);
    return CLI_OK;
  }
  if (i >= argc || strcmp(argv[i], "--") == 0) {
    cli_error("no script (or --suite FILE)");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  for (j = i; j < argc && strcmp(argv[j], "--") != 0; j++)
    ;
  if (j - i > 2) {
    cli_error("at most two scripts (script arguments go after \"--\"; a "
              "suite file lists more)");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  args->v = j < argc ? &argv[j + 1] : NULL;
  args->n = j < argc ? argc - j - 1 : 0;
  c->n = j - i;
  c->items = calloc((size_t)c->n, sizeof *c->items);
  if (c->items == NULL) return cli_error("out of memory");
  for (k = 0; k < c->n; k++) {
    cli_bench_item *it = &c->items[k];
    it->script = argv[i + k];
    it->args = args->v;
    it->nargs = args->n;
    it->threshold = -1;
    it->min_change = -1;
    it->max_count = -1;
    if (!cli_bench_name(it->name, sizeof it->name, it->script, it->args,
                        it->nargs) &&
        (c->a.baseline != NULL || c->a.save_baseline != NULL))
      return cli_error("the benchmark's name (its script and arguments) is "
                       "longer than %d bytes: use a suite file with name=",
                       CLI_BENCH_NAME_MAX - 1);
  }
  if (c->n == 2 && strcmp(c->items[0].name, c->items[1].name) == 0 &&
      (c->a.baseline != NULL || c->a.save_baseline != NULL))
    return cli_error("both benchmarks are named '%s': a baseline needs "
                     "names apart", c->items[0].name);
  return CLI_OK;
}

static int load_suite(bench_cmd *c) {
  char *text;
  size_t len;
  lraf_error err;
  lraf_status st;
  if (cli_read_file_max(c->a.suite, CLI_WEIGHTS_MAX, &text, &len, &err) !=
      LRAF_OK)
    return cli_report(&err);
  st = cli_suite_parse(text, len, c->a.suite, &c->suite, &err);
  free(text);
  if (st != LRAF_OK) return cli_report(&err);
  c->items = c->suite.item;
  c->n = c->suite.n;
  return CLI_OK;
}

/* Options (cli_options.c) into c and b. */
static int parse_args(int argc, char **argv, bench_cmd *c, bench_args *args,
                      bench_run *b) {
  const cli_command *cmd = cli_command_find("bench");
  cli_args *a = &c->a;
  const char *why;
  int rc = cli_parse(cmd, argc, argv, a);
  if (rc != CLI_OK) return rc;
  if ((c->format = cli_report_format(a, "bench")) < 0) return CLI_EUSAGE;
  if (a->baseline != NULL && !cli_baseline_name_ok(a->baseline, &why))
    return cli_error("--baseline '%s': a baseline's name %s", a->baseline,
                     why);
  if (a->save_baseline != NULL &&
      !cli_baseline_name_ok(a->save_baseline, &why))
    return cli_error("--save-baseline '%s': a baseline's name %s",
                     a->save_baseline, why);
  if (a->baseline == NULL && (a->allow_mismatch || a->threshold >= 0 ||
                              a->min_change >= 0 || a->fail_on_set))
    return cli_error("--threshold, --min-change, --fail-on and "
                     "--allow-mismatch gate a comparison: give --baseline "
                     "NAME");
  snprintf(c->dir, sizeof c->dir, "%s",
           a->baseline_dir ? a->baseline_dir : CLI_BASELINE_DIR);
  if ((rc = a->suite ? load_suite(c) : CLI_OK) != CLI_OK) return rc;
  if ((rc = items_of_args(c, argc, argv, args)) != CLI_OK) return rc;
  c->opt = a->opt;
  c->opt.traceback = 1;
  /* a limit is a defence only if no C call does unbounded work for one
     unit: --limit and --memory-limit turn native charging on, as in
     lraf run (--no-native turns it off) */
  if (a->native >= 0) c->opt.native = a->native;
  else if (a->limit >= 0 || a->memory > 0) c->opt.native = 1;
  if (c->opt.deterministic == LRAF_DETERMINISTIC_AUTO)
    c->opt.deterministic = 1;
  if (a->runs > 0) c->runs = a->runs;
  b->limit = a->limit >= 0 ? a->limit : BENCH_DEFAULT_LIMIT;
  b->limit_said = a->limit >= 0;
  b->memory = a->memory;
  b->tl_path = a->timeline;
  b->expect_share = a->expect_share;
  if (a->opt.weights != NULL) {
    memcpy(c->weights, a->weights, sizeof a->weights);
    c->opt.weights = c->weights;
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

/* Write the timeline and its figures (its line to out); 0 when that
   failed. */
static int bench_timeline_done(bench_run *b, const char *title, FILE *out) {
  lraf_timeline_summary sum;
  int ok;
  if (b->timeline == NULL) return 1;
  fflush(stdout);
  ok = cli_timeline_finish(b->timeline, b->tl_file, b->tl_path, title,
                           b->expect_share, &sum);
  if (ok) cli_timeline_line(out, b->tl_path, &sum);
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

/* The baseline --baseline names; an exit status. */
static int read_baseline(const bench_cmd *c, cli_baseline *base,
                         char *path, size_t size) {
  char *text;
  size_t len;
  lraf_error err;
  lraf_status st;
  cli_baseline_path(path, size, c->dir, c->a.baseline);
  if (access(path, F_OK) != 0)
    return cli_error("no baseline '%s' (%s: %s); lraf bench --save-baseline "
                     "%s makes it", c->a.baseline, path, strerror(errno),
                     c->a.baseline);
  if (cli_read_file_max(path, (size_t)64 << 20, &text, &len, &err) !=
      LRAF_OK)
    return cli_report(&err);
  st = cli_baseline_parse(text, len, path, base, &err);
  free(text);
  return st == LRAF_OK ? CLI_OK : cli_report(&err);
}

/* A report or export into path ("-": standard output). */
static int write_to(const char *path, void (*fn)(FILE *, const cli_bench_run *),
                    const cli_bench_run *r) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  int ok;
  if (f == NULL) return cli_error("cannot write %s: %s", path, strerror(errno));
  fn(f, r);
  ok = fflush(f) == 0 && !ferror(f);
  if (f != stdout && fclose(f) != 0) ok = 0;
  if (!ok) return cli_error("cannot write %s", path);
  return CLI_OK;
}

/* After the runs: compare, report, export, save; an exit status. */
static int finish(bench_cmd *c, cli_bench_run *r, int differs, int over) {
  const char *save = c->a.save_baseline;
  int rc = CLI_OK;
  if (c->format == 0) cli_bench_text(stdout, r);
  else rc = write_to("-", c->format == 1 ? cli_bench_markdown
                                         : cli_bench_json, r);
  if (rc == CLI_OK && fflush(stdout) != 0)
    rc = cli_error("cannot write the report");
  cli_bench_complaints(stderr, r);
  if (rc == CLI_OK && c->a.export_json != NULL)
    rc = write_to(c->a.export_json, cli_bench_export_json, r);
  if (rc == CLI_OK && c->a.export_markdown != NULL)
    rc = write_to(c->a.export_markdown, cli_bench_export_markdown, r);
  if (rc == CLI_OK && save != NULL && differs) {
    cli_error("baseline %s not saved: a count differs between runs", save);
  } else if (rc == CLI_OK && save != NULL) {
    char path[4200];
    lraf_error err;
    cli_baseline_path(path, sizeof path, c->dir, save);
    if (cli_mkdirs(c->dir, &err) != LRAF_OK ||
        cli_baseline_save(r, save, path, &err) != LRAF_OK)
      return cli_report(&err);
    fprintf(stderr, "lraf bench: saved baseline %s (%s)\n", save, path);
  }
  if (rc != CLI_OK) return rc;
  if (differs) return CLI_EFAIL;
  if (r->mismatches > 0 && !r->allow_mismatch) return CLI_EMISMATCH;
  return r->fails > 0 || over ? CLI_EREGRESS : CLI_OK;
}

/* Whether result x is above its hard limit (the suite's max=, else
   --max-count); says so on stderr. */
static int over_max(const bench_cmd *c, const cli_bench_result *x,
                    const char *unit) {
  int64_t max = x->item->max_count >= 0 ? x->item->max_count
                                        : c->a.max_count;
  if (max < 0 || x->count_max <= max) return 0;
  fflush(stdout);
  cli_error("%s: %" PRId64 " %s, above its hard limit of %" PRId64 " (%s)",
            x->item->name, x->count_max, unit, max,
            x->item->max_count >= 0 ? "the suite's max=" : "--max-count");
  return 1;
}

/* The runs of every benchmark; an exit status. */
static int bench_all(bench_cmd *c, bench_run *b, cli_bench_run *r) {
  lraf_error err;
  int i, differs = 0, over = 0;
  for (i = 0; i < c->n; i++) {
    const cli_bench_item *it = &c->items[i];
    lraf_status st;
    if (access(it->script, R_OK) != 0)
      return cli_error("cannot read %s: %s", it->script, strerror(errno));
    st = bench_script(&c->opt, it, b, c->runs, c->a.warmup, &r->res[i], &err);
    if (st != LRAF_OK || (b->exited && b->exit_code != EXIT_SUCCESS)) {
      bench_timeline_done(b, it->script, c->format == 0 ? stdout : stderr);
      return run_failed(it->script, b, st, &err);
    }
    r->n = i + 1;
    if (c->format == 0) print_result(&r->res[i], r->unit);
    over += over_max(c, &r->res[i], r->unit);
    if (r->res[i].count_min != r->res[i].count_max) {
      cli_error("the count of %s differs between runs (%" PRId64 " .. %"
                PRId64 "): %s", it->name, r->res[i].count_min,
                r->res[i].count_max,
                c->opt.deterministic
                    ? "it reads the clock (os.time, os.clock, os.date) or "
                      "addresses (%p, tostring of a table or function)"
                    : "--no-deterministic: Lua's random hash seed, sort "
                      "pivot and math.random seed, and addresses");
      differs = 1;
    }
  }
  if (c->n == 2 && c->a.suite == NULL && c->format == 0) {
    const cli_bench_result *x = &r->res[0], *y = &r->res[1];
    double a = (double)x->count_max, b2 = (double)y->count_max;
    printf("comparison (%s)\n  %s / %s = %.4f\n", r->unit, x->item->script,
           y->item->script, b2 > 0 ? a / b2 : 0.0);
    printf("  wall time mean ratio %.4f (varies with the machine)\n",
           y->mean > 0 ? x->mean / y->mean : 0.0);
  }
  if (!bench_timeline_done(b, c->items[0].script,
                           c->format == 0 ? stdout : stderr))
    return CLI_EUSAGE;
  if (r->base != NULL) cli_bench_judge(r);
  return finish(c, r, differs, over);
}

int cli_bench(int argc, char **argv) {
  static bench_cmd c;
  bench_args args = {NULL, 0};
  bench_run b;
  cli_bench_run r;
  cli_baseline base;
  char model[256], path[4200];
  lraf_state *probe;
  lraf_error err;
  int rc, i;
  memset(&c, 0, sizeof c);
  memset(&b, 0, sizeof b);
  memset(&r, 0, sizeof r);
  memset(&base, 0, sizeof base);
  c.runs = BENCH_DEFAULT_RUNS;
  rc = parse_args(argc, argv, &c, &args, &b);
  if (rc != CLI_OK) goto done;
  if (c.a.baseline != NULL &&
      (rc = read_baseline(&c, &base, path, sizeof path)) != CLI_OK)
    goto done;
  /* the cost-model id, from a state that runs nothing */
  if (b.memory > 0) c.opt.memory_limit = (size_t)b.memory;
  if (lraf_new(&c.opt, &probe, &err) != LRAF_OK) {
    rc = cli_new_failed(&c.opt, &err);
    goto done;
  }
  c.opt.memory_limit = 0;
  snprintf(model, sizeof model, "%s", lraf_model(probe));
  lraf_close(probe);
  r.model = model;
  r.unit = cli_unit_name(c.opt.mode, strstr(model, "/native-") != NULL);
  r.vm = strncmp(model, "lraf-vm", 7) == 0 ? "lraf" : "stock";
  r.baseline_name = c.a.baseline;
  r.baseline_file = path;
  r.base = c.a.baseline ? &base : NULL;
  r.allow_mismatch = c.a.allow_mismatch;
  cli_gate_of(&c.a, &r.gate);
  r.res = calloc((size_t)c.n, sizeof *r.res);
  r.before = calloc((size_t)c.n, sizeof *r.before);
  r.verdict = calloc((size_t)c.n, sizeof *r.verdict);
  r.mismatch = calloc((size_t)c.n, sizeof *r.mismatch);
  if (!r.res || !r.before || !r.verdict || !r.mismatch) {
    rc = cli_error("out of memory");
    goto done;
  }
  if ((rc = bench_timeline_open(&b)) != CLI_OK) goto done;
  if (c.format == 0)
    printf("lraf bench: %d run%s each%s, model %s\n", c.runs,
           c.runs == 1 ? "" : "s", c.a.warmup > 0 ? " after warm-up" : "",
           model);
  rc = bench_all(&c, &b, &r);
done:
  for (i = 0; r.res != NULL && i < c.n; i++) free(r.res[i].times);
  free(r.res);
  free(r.before);
  free(r.verdict);
  free(r.mismatch);
  if (c.a.suite != NULL) cli_suite_free(&c.suite);
  else free(c.items);
  cli_baseline_free(&base);
  return rc == CLI_HELP ? CLI_OK : rc;
}
