/*
** cli_run.c - `lraf run [options] SCRIPT [ARGS...]`: run a script
** like lua5.4 SCRIPT ARGS (same arg table and ..., LUA_INIT, traceback
** on errors), with every instruction accounted; optionally a quota, a
** rate, and a report (JSON to a file, or a summary on stderr with -).
**
** Exit status: 0 ok, 1 script error, 2 usage or bad input, 3 quota,
** 4 memory limit.  Native work is charged (lraf.h, "Native work") with
** --native, and by default with --limit, --memory-limit or --sandbox
** (--no-native turns it off).
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

#define MAX_THREADS_LISTED 1000

typedef struct run_ctx {
  lraf_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  int64_t limit;       /* < 0: none */
  int64_t memory;      /* memory limit in bytes, < 0: none */
  int native;          /* < 0: not said */
  double rate;         /* 0: none */
  const char *report;  /* NULL, "-" or a file */
  const char *script;
  lraf_state *S;
  lraf_manager *m;
  double wall0, cpu0;
  int reported;
} run_ctx;

static run_ctx *active;  /* for os.exit */

static double seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the report ---- */

typedef struct entry {
  int64_t id, n;
  int alive;
} entry;

typedef struct tally {
  entry *e;
  size_t n, cap;
  int64_t total;
} tally;

static void each(lraf_account *a, int64_t n, int alive, void *ud) {
  tally *t = ud;
  t->total += n;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    entry *e = realloc(t->e, cap * sizeof *e);
    if (e == NULL) return;
    t->e = e;
    t->cap = cap;
  }
  t->e[t->n].id = lraf_account_id(a);
  t->e[t->n].n = n;
  t->e[t->n].alive = alive;
  t->n++;
}

static int by_id(const void *a, const void *b) {
  int64_t x = ((const entry *)a)->id, y = ((const entry *)b)->id;
  return (x > y) - (x < y);
}

/* Every account of the state, sorted by id, and the grand total. */
static void collect(run_ctx *c, tally *t, int64_t *rcount, int64_t *rsum) {
  memset(t, 0, sizeof *t);
  lraf_foreach_account(c->S, each, t);
  if (t->n > 1) qsort(t->e, t->n, sizeof *t->e, by_id);
  *rsum = lraf_retired(c->S, rcount);
  t->total += *rsum;
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void write_json(run_ctx *c, FILE *f, const char *status, int code,
                       double wall, double cpu) {
  tally t;
  int64_t rcount, rsum;
  size_t i;
  collect(c, &t, &rcount, &rsum);
  fputs("{\n  \"script\": ", f);
  json_string(f, c->script);
  fprintf(f, ",\n  \"status\": \"%s\",\n  \"exit_code\": %d,\n", status,
          code);
  fprintf(f, "  \"instructions\": %" PRId64 ",\n", t.total);
  fputs("  \"model\": ", f);
  json_string(f, lraf_model(c->S));
  fprintf(f, ",\n  \"exact\": %s,\n  \"granularity\": %" PRId64 ",\n",
          c->opt.exact ? "true" : "false", c->opt.granularity);
  if (c->limit >= 0) fprintf(f, "  \"limit\": %" PRId64 ",\n", c->limit);
  else fputs("  \"limit\": null,\n", f);
  if (c->rate > 0) fprintf(f, "  \"rate\": %.17g,\n", c->rate);
  else fputs("  \"rate\": null,\n", f);
  {
    size_t in_use, peak;
    lraf_memory(c->S, &in_use, &peak);
    fprintf(f, "  \"native\": %s,\n", c->opt.native ? "true" : "false");
    if (c->memory >= 0)
      fprintf(f, "  \"memory_limit\": %" PRId64 ",\n", c->memory);
    else
      fputs("  \"memory_limit\": null,\n", f);
    fprintf(f, "  \"memory_peak\": %zu,\n", peak);
  }
  fprintf(f, "  \"wall_seconds\": %.6f,\n  \"cpu_seconds\": %.6f,\n", wall,
          cpu);
  fprintf(f, "  \"instructions_per_cpu_second\": %.0f,\n",
          cpu > 0 ? (double)t.total / cpu : 0.0);
  fputs("  \"threads\": [", f);
  for (i = 0; i < t.n; i++)
    fprintf(f, "%s\n    {\"id\": %" PRId64 ", \"instructions\": %" PRId64
            ", \"alive\": %s}", i ? "," : "", t.e[i].id, t.e[i].n,
            t.e[i].alive ? "true" : "false");
  fprintf(f, "\n  ],\n  \"threads_not_listed\": {\"count\": %" PRId64
          ", \"instructions\": %" PRId64 "}\n}\n", rcount, rsum);
  free(t.e);
}

static void write_summary(run_ctx *c, const char *status, double wall,
                          double cpu) {
  tally t;
  int64_t rcount, rsum, co = 0;
  size_t i;
  collect(c, &t, &rcount, &rsum);
  for (i = 0; i < t.n; i++)
    if (t.e[i].id != 0) co += t.e[i].n;
  fprintf(stderr, "lraf: %" PRId64 " instructions (%s), status %s\n",
          t.total, lraf_model(c->S), status);
  if (t.n > 1 || rcount > 0)
    fprintf(stderr, "lraf: main thread %" PRId64 ", %" PRId64
            " coroutines %" PRId64 "\n", t.total - co - rsum,
            (int64_t)t.n - 1 + rcount, co + rsum);
  fprintf(stderr, "lraf: wall %.3f s, cpu %.3f s, %.1f M instructions per "
          "cpu second\n", wall, cpu,
          cpu > 0 ? (double)t.total / cpu / 1e6 : 0.0);
  free(t.e);
}

static void report(run_ctx *c, const char *status, int code) {
  double wall = seconds(CLOCK_MONOTONIC) - c->wall0;
  double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c->cpu0;
  FILE *f;
  if (c->report == NULL || c->reported || c->S == NULL) return;
  c->reported = 1;
  if (strcmp(c->report, "-") == 0) {
    write_summary(c, status, wall, cpu);
    return;
  }
  f = fopen(c->report, "w");
  if (f == NULL) {
    cli_error("cannot write the report %s", c->report);
    return;
  }
  write_json(c, f, status, code, wall, cpu);
  if (fclose(f) != 0) cli_error("cannot write the report %s", c->report);
}

/* os.exit: write the report, then exit as the original would. */
static int run_exit(lua_State *L) {
  int code = EXIT_SUCCESS;
  if (lua_isboolean(L, 1))
    code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  fflush(stdout);
  if (active != NULL) report(active, code == 0 ? "ok" : "error", code);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 0);
  return 0;
}

/* ---- running ---- */

/* The options (cli_options.c), then what they imply for lraf run:
   native charging by default with a limit or the sandbox. */
static int parse_args(run_ctx *c, int argc, char **argv, int *script) {
  cli_args a;
  int rc = cli_parse(cli_command_find("run"), argc, argv, &a);
  if (rc != CLI_OK) return rc;
  if (a.noperands == 0) {
    cli_error("no script");
    cli_usage(stderr, cli_command_find("run"));
    return CLI_EUSAGE;
  }
  c->opt = a.opt;
  memcpy(c->weights, a.weights, sizeof c->weights);
  if (a.opt.weights != NULL) c->opt.weights = c->weights;
  c->limit = a.limit;
  c->memory = a.memory;
  c->native = a.native;
  c->rate = a.rate;
  c->report = a.report;
  if (c->native < 0)
    c->native = c->limit >= 0 || c->memory >= 0 ||
                c->opt.env == LRAF_ENV_SANDBOX;
  c->opt.native = c->native;
  if (c->memory > 0) c->opt.memory_limit = (size_t)c->memory;
  *script = a.first;
  return CLI_OK;
}

/* The manager chain: a limit (hierarchical when there is a rate) over
   an optional rate; a plain total otherwise. */
static lraf_manager *make_manager(run_ctx *c) {
  lraf_manager *rate = NULL, *m;
  if (c->rate > 0 && (rate = lraf_rate_new(c->rate, 0.1, NULL)) == NULL)
    return NULL;
  if (c->limit >= 0) {
    m = lraf_hier_new(rate, c->limit);
    lraf_manager_release(rate);
    return m;
  }
  return rate ? rate : lraf_total_new();
}

static void set_globals(run_ctx *c, int argc, char **argv, int script) {
  lua_State *L = lraf_lua(c->S);
  int i;
  /* Like lua.c: the script at 0, its arguments at 1.., and the command
     line before it at negative indices, down to the program's name
     (argv[-1]: the dispatcher passes main's argv + 1). */
  lua_createtable(L, argc - script - 1, script + 2);
  for (i = -1; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
  if (c->opt.env == LRAF_ENV_FULL) {
    if (lua_getglobal(L, "os") == LUA_TTABLE) {
      lua_getfield(L, -1, "exit");
      lua_pushcclosure(L, run_exit, 1);
      lua_setfield(L, -2, "exit");
    }
    lua_pop(L, 1);
  }
  lua_gc(L, LUA_GCGEN, 0, 0);
}

static lraf_status run_init(run_ctx *c, lraf_error *err) {
  const char *name = "=LUA_INIT_5_4";
  const char *init = getenv("LUA_INIT_5_4");
  lraf_status st;
  if (c->opt.env != LRAF_ENV_FULL) return LRAF_OK;
  if (init == NULL) {
    name = "=LUA_INIT";
    init = getenv("LUA_INIT");
  }
  if (init == NULL) return LRAF_OK;
  if (init[0] == '@')
    st = lraf_load_file(c->S, init + 1, err);
  else
    st = lraf_load_string(c->S, init, strlen(init), name, err);
  return st == LRAF_OK ? lraf_call(c->S, 0, 0, err) : st;
}

/* Source, or a chunk made by `lraf rewrite`. */
static lraf_status load_script(run_ctx *c, const char *path,
                               lraf_error *err) {
  char *data;
  size_t size;
  lraf_status st;
  FILE *f = path ? fopen(path, "rb") : NULL;
  char magic[LRAF_OFFLINE_MAGIC_LEN];
  int offline = f != NULL &&
                fread(magic, 1, sizeof magic, f) == sizeof magic &&
                memcmp(magic, LRAF_OFFLINE_MAGIC, sizeof magic) == 0;
  if (f != NULL) fclose(f);
  if (!offline) return lraf_load_file(c->S, path, err);
  st = cli_read_file(path, &data, &size, err);
  if (st != LRAF_OK) return st;
  st = lraf_load_rewritten(c->S, data, size, err);
  free(data);
  return st;
}

static int finish(run_ctx *c, lraf_status st, const lraf_error *err,
                  int loading) {
  int code;
  const char *status = "ok";
  fflush(stdout);
  if (st == LRAF_OK) {
    code = CLI_OK;
  } else if (st == LRAF_EQUOTA) {
    status = "quota";
    code = CLI_EQUOTA;
    if (c->limit >= 0)
      fprintf(stderr, "lraf: instruction quota exceeded (limit %" PRId64
              ")\n", c->limit);
    else
      fprintf(stderr, "lraf: instruction quota exceeded\n");
  } else if (st == LRAF_EMEMLIMIT) {
    status = "memory";
    code = CLI_EMEMORY;
    fprintf(stderr, "lraf: memory limit exceeded (limit %" PRId64
            " bytes)\n", c->memory);
  } else {
    const char *msg = lraf_last_error(c->S);
    status = "error";
    code = loading && st != LRAF_ESYNTAX && st != LRAF_ERUN ? CLI_EUSAGE
                                                            : CLI_EFAIL;
    fprintf(stderr, "lraf: %s\n", *msg ? msg : err->message);
  }
  report(c, status, code);
  return code;
}

int cli_run(int argc, char **argv) {
  run_ctx c;
  lraf_error err;
  lraf_status st;
  int script = 0, rc, nargs, i;
  lua_State *L;
  memset(&c, 0, sizeof c);
  if ((rc = parse_args(&c, argc, argv, &script)) != CLI_OK)
    return rc == CLI_HELP ? CLI_OK : rc;
  c.script = argv[script];
  c.opt.keep_accounts = MAX_THREADS_LISTED;
  c.opt.traceback = 1;
  c.m = make_manager(&c);
  if (c.m == NULL) return cli_error("out of memory");
  c.opt.manager = c.m;
  c.wall0 = seconds(CLOCK_MONOTONIC);
  c.cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  st = lraf_new(&c.opt, &c.S, &err);
  lraf_manager_release(c.m);
  if (st != LRAF_OK) return cli_report(&err);
  active = &c;
  set_globals(&c, argc, argv, script);
  st = run_init(&c, &err);
  if (st != LRAF_OK) {
    rc = finish(&c, st, &err, 0);
  } else {
    const char *path = c.script;
    if (strcmp(path, "-") == 0 && strcmp(argv[script - 1], "--") != 0)
      path = NULL;
    st = load_script(&c, path, &err);
    if (st != LRAF_OK) {
      rc = finish(&c, st, &err, 1);
    } else {
      L = lraf_lua(c.S);
      nargs = argc - script - 1;
      luaL_checkstack(L, nargs + 3, "too many arguments to script");
      for (i = script + 1; i < argc; i++) lua_pushstring(L, argv[i]);
      st = lraf_call(c.S, nargs, 0, &err);
      rc = finish(&c, st, &err, 0);
    }
  }
  active = NULL;
  lraf_close(c.S);
  return rc;
}
