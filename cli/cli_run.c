/*
** cli_run.c - `lraf run [options] SCRIPT [ARGS...]`: run a script
** like lua5.4 SCRIPT ARGS (same arg table and ..., LUA_INIT, the same
** stderr on errors, traceback included), with every instruction
** accounted; optionally a quota, a rate, a memory limit, and a report
** (JSON to a file, or a summary on stderr with -).
**
** Exit status (cli.h): 0 ok, 1 script error, 2 usage or bad input, 3
** quota, 4 memory limit; os.exit(n) exits with n.  Native work is
** charged (lraf.h, "Native work") with --native and in the sandbox
** (--no-native turns it off), as lraf_options' default does: a limit
** does not change what is counted.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
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
  const char *native_why;
  double rate;         /* 0: none */
  const char *report;  /* NULL, "-" or a file */
  FILE *rfile;         /* the report file, opened before the run */
  const char *script;
  int argc, iscript;   /* the subcommand's argv and the script's index */
  char **argv;
  lraf_state *S;
  lraf_manager *m;
  double wall0, cpu0;
  int reported;
  int report_failed;   /* the report could not be written */
  cli_args args;               /* what the options said */
  const cli_run_hooks *hooks;  /* lraf profile's, or NULL */
  int hooked, hook_rc;
  lraf_manager *timeline;      /* --timeline's manager (a reference) */
  FILE *tfile;                 /* its file, opened before the run */
  lraf_timeline_summary tsum;
  cli_contract *contract;      /* --contract, or NULL */
} run_ctx;

static run_ctx *active;  /* for os.exit */

static double seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Native charging: on with --native, and by default with a limit, a
   memory limit or the sandbox; --no-native turns it off. */
static void native_default(run_ctx *c) {
  c->native = cli_native(&c->args, &c->native_why);
  c->opt.native = c->native;
}

/* ---- the report ---- */

static void outcome(const run_ctx *c, cli_outcome *o, const char *status,
                    int code, const char *error) {
  memset(o, 0, sizeof *o);
  o->script = c->script;
  o->status = status;
  o->exit_code = code;
  o->error = error;
  o->mode = c->opt.mode;
  o->exact = c->opt.exact;
  o->native = c->native;
  o->deterministic = c->S != NULL && lraf_deterministic(c->S);
  o->native_why = c->native_why;
  o->granularity = c->opt.granularity;
  o->limit = c->limit;
  o->memory = c->memory;
  o->rate = c->rate;
  o->wall = seconds(CLOCK_MONOTONIC) - c->wall0;
  o->cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c->cpu0;
}

/* --timeline: write the file and the figures of the report, once;
   --expect-share: say which window got less. */
static void timeline_done(run_ctx *c, cli_outcome *o) {
  if (c->tfile == NULL) return;
  if (cli_timeline_finish(c->timeline, c->tfile, c->args.timeline,
                          c->script, c->args.expect_share, &c->tsum)) {
    o->timeline = c->args.timeline;
    o->tsum = &c->tsum;
    o->expect_share = c->args.expect_share;
  }
  c->tfile = NULL;
}

/* Write the report once: the summary on stderr, or the JSON file (a
   failed write sets report_failed: the run then exits 2, not 0).  A
   hook's after() (lraf profile) runs first, once, while the state is
   still there; the timeline is written before the report. */
static void report(run_ctx *c, const cli_outcome *given) {
  cli_outcome o0 = *given, *o = &o0;
  if (c->hooks != NULL && !c->hooked && c->S != NULL) {
    c->hooked = 1;
    c->hook_rc = c->hooks->after(c->S, c->hooks->ud);
  }
  if (c->S != NULL && c->tfile != NULL) lraf_flush(c->S, NULL);
  timeline_done(c, o);
  if (c->report == NULL || c->reported) return;
  c->reported = 1;
  if (c->rfile == NULL) {
    cli_outcome_summary(stderr, c->S, o);
    return;
  }
  cli_outcome_json(c->rfile, c->S, o);
  errno = EIO;
  if ((fflush(c->rfile) != 0) | ferror(c->rfile) | (fclose(c->rfile) != 0)) {
    cli_error("cannot write the report %s: %s", c->report, strerror(errno));
    c->report_failed = 1;
  }
  c->rfile = NULL;
}

/* Open the report file before anything runs: an unwritable one is a
   usage error, not a surprise after the script. */
static int open_report(run_ctx *c) {
  struct stat r, s;
  if (c->report == NULL || strcmp(c->report, "-") == 0) return CLI_OK;
  if (stat(c->report, &r) == 0 && stat(c->script, &s) == 0 &&
      r.st_dev == s.st_dev && r.st_ino == s.st_ino)
    return cli_error("the report %s would overwrite the script",
                     c->report);
  c->rfile = fopen(c->report, "w");
  if (c->rfile == NULL)
    return cli_error("cannot write the report %s: %s", c->report,
                     strerror(errno));
  return CLI_OK;
}

/* The timeline's file, opened before anything runs, as the report's. */
static int open_timeline(run_ctx *c) {
  return cli_timeline_open(c->args.timeline, &c->tfile);
}

/* os.exit: write the report, then do what lua5.4's os.exit does (close
   the state when asked, exit); while a stop propagates, an error, and
   the stop is what the run reports.  No upvalues, so that debug.getinfo and
   debug.getupvalue see it as they see lua5.4's. */
static int run_exit(lua_State *L) {
  int code = EXIT_SUCCESS;
  /* a __close or __gc handler while a stop propagates: the stop stays */
  if (lraf_stopping(lraf_from_lua(L)) != LRAF_OK)
    return luaL_error(L, "os.exit during a stop");
  if (lua_isboolean(L, 1))
    code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  fflush(stdout);
  if (active != NULL) {
    cli_outcome o;
    outcome(active, &o, "exit", code, NULL);
    report(active, &o);
    if (active->report_failed && code == EXIT_SUCCESS) code = CLI_EUSAGE;
  }
  if (lua_toboolean(L, 2)) lua_close(L);
  exit(code);
  return 0;
}

/* ---- running ---- */

/* The options (cli_options.c), then what they imply for lraf run:
   native charging by default with a limit or the sandbox. */
static int parse_args(run_ctx *c, int argc, char **argv, int *script) {
  cli_args a;
  const cli_command *cmd = cli_command_find(argv[0]);  /* run, profile */
  int rc;
  if (cmd == NULL) cmd = cli_command_find("run");
  rc = cli_parse(cmd, argc, argv, &a);
  if (rc != CLI_OK) return rc;
  if (a.noperands == 0) {
    cli_error("no script");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  c->args = a;
  c->opt = a.opt;
  memcpy(c->weights, a.weights, sizeof c->weights);
  if (a.opt.weights != NULL) c->opt.weights = c->weights;
  c->limit = a.limit;
  c->memory = a.memory;
  c->native = a.native;
  c->rate = a.rate;
  c->report = a.report;
  native_default(c);
  /* lraf profile: deterministic unless said (lraf run: the sandbox) */
  if (c->opt.deterministic == LRAF_DETERMINISTIC_AUTO && c->hooks != NULL)
    c->opt.deterministic = 1;
  if (c->memory > 0) c->opt.memory_limit = (size_t)c->memory;
  if (a.contract != NULL) {
    if (a.opt.env == LRAF_ENV_SANDBOX)
      return cli_error("--contract does not work with --sandbox");
    if ((c->contract = malloc(sizeof *c->contract)) == NULL)
      return cli_error("out of memory");
    if ((rc = cli_contract_load(a.contract, c->contract)) != CLI_OK)
      return rc;
  }
  *script = a.first;
  return CLI_OK;
}

/* The manager chain: a limit (hierarchical when there is a rate) over
   an optional rate; a plain total otherwise. */
static lraf_manager *chain(run_ctx *c) {
  lraf_manager *rate = NULL, *m;
  if (c->contract == NULL) return cli_manager_new(c->limit, c->rate);
  /* a contract stops the script through a limit (budget 0), one without
     a quota of its own when --limit is not given */
  if (c->rate > 0 && (rate = lraf_rate_new(c->rate, 0.1, NULL)) == NULL)
    return NULL;
  m = lraf_hier_new(rate, c->limit >= 0 ? c->limit : -1);
  lraf_manager_release(rate);
  c->contract->stop = m;
  return m;
}

/* The chain, under a timeline with --timeline. */
static lraf_manager *make_manager(run_ctx *c) {
  lraf_manager *m = chain(c), *tl;
  if (m == NULL || c->args.timeline == NULL) return m;
  tl = lraf_timeline_new(m);
  lraf_manager_release(m);
  c->timeline = lraf_manager_retain(tl);
  return tl;
}

/* The arg table and os.exit, as lua.c sets them up; run protected (it
   allocates, and a memory limit may stop it). */
static int set_globals(lua_State *L) {
  run_ctx *c = lua_touserdata(L, 1);
  int i;
  /* Like lua.c: the script at 0, its arguments at 1.., and the command
     line before it at negative indices, down to the program's name
     (argv[-1]: the dispatcher passes main's argv + 1). */
  lua_createtable(L, c->argc - c->iscript - 1, c->iscript + 2);
  lraf_host_strings(c->S, 1);  /* paths: not the script's memory */
  for (i = -1; i < c->argc; i++) {
    lua_pushstring(L, c->argv[i]);
    lua_rawseti(L, -2, i - c->iscript);
  }
  lraf_host_strings(c->S, 0);
  lua_setglobal(L, "arg");
  if (c->contract != NULL && !cli_contract_install(L, c->contract))
    return luaL_error(L, "--contract: the globals have a metatable");
  if (c->opt.env == LRAF_ENV_FULL) {
    if (lua_getglobal(L, "os") == LUA_TTABLE) {
      lua_pushcfunction(L, run_exit);
      lua_setfield(L, -2, "exit");
    }
    lua_pop(L, 1);
  }
  lua_gc(L, LUA_GCGEN, 0, 0);
  return 0;
}

/* Like lua.c's pmain: a C function below the chunk, which gets the
   script's arguments (so the traceback ends with "[C]: in ?" as lua5.4's
   does).  Stack: run_ctx, the chunk, 1 to pass the arguments. */
static int call_chunk(lua_State *L) {
  run_ctx *c = lua_touserdata(L, 1);
  int i, n = lua_toboolean(L, 3) ? c->argc - c->iscript - 1 : 0;
  lua_settop(L, 2);
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = 0; i < n; i++) lua_pushstring(L, c->argv[c->iscript + 1 + i]);
  lua_call(L, n, 0);
  return 0;
}

/* Call the chunk on the top of the stack through call_chunk. */
static lraf_status call(run_ctx *c, int args, lraf_error *err) {
  lua_State *L = lraf_lua(c->S);
  lua_pushcfunction(L, call_chunk);
  lua_insert(L, -2);
  lua_pushlightuserdata(L, c);
  lua_insert(L, -2);
  lua_pushboolean(L, args);
  return cli_call_interruptible(c->S, 3, 0, err);
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
  return st == LRAF_OK ? call(c, 0, err) : st;
}

/* Source, or a chunk made by `lraf rewrite`: read once, so that a pipe,
   /dev/stdin, a FIFO or <(...) works as a file does. */
static lraf_status load_script(run_ctx *c, const char *path,
                               lraf_error *err) {
  cli_script s;
  lraf_status st = cli_script_read(path, &s, err);
  (void)c;
  if (st != LRAF_OK) return st;
  st = cli_script_load(c->S, &s, err);
  cli_script_free(&s);
  return st;
}

/* The exit status, the message on stderr and the report of a run that
   ended with st. */
static int finish(run_ctx *c, lraf_status st, const lraf_error *err,
                  int loading) {
  int code;
  const char *status = "ok", *msg = NULL;
  cli_outcome o;
  fflush(stdout);
  if (st == LRAF_OK) {
    code = CLI_OK;
  } else if (st == LRAF_EQUOTA && c->contract &&
             cli_contract_blame(c->contract, c->S)) {
    const cli_contract *k = c->contract;
    status = "contract";
    code = CLI_ECONTRACT;
    fprintf(stderr, "lraf: contract violation: one call of %s ran %lld "
            "instructions, more than the %lld declared\n",
            k->fn[k->which].name, (long long)k->used,
            (long long)k->fn[k->which].max);
    msg = "contract violation";
  } else if (st == LRAF_EQUOTA) {
    status = "quota";
    code = CLI_EQUOTA;
  } else if (st == LRAF_EMEMLIMIT) {
    status = "memory";
    code = CLI_EMEMORY;
  } else {
    msg = lraf_last_error(c->S);
    if (*msg == '\0') msg = err->message;
    status = "error";
    code = loading && st != LRAF_ESYNTAX && st != LRAF_ERUN ? CLI_EUSAGE
                                                            : CLI_EFAIL;
    fprintf(stderr, "lraf: %s\n", msg);
  }
  outcome(c, &o, status, code, msg);
  if (code == CLI_EQUOTA || code == CLI_EMEMORY) {
    o.loading = loading;
    cli_stop_message(&o, c->S);
    o.error = st == LRAF_EQUOTA ? "quota exceeded" : "memory limit exceeded";
  }
  report(c, &o);
  return c->report_failed && code == CLI_OK ? CLI_EUSAGE : code;
}

/* The report of a run that never started (no state). */
static int not_started(run_ctx *c, int code) {
  cli_outcome o;
  outcome(c, &o, "usage", code, "no state could be created");
  report(c, &o);
  return code;
}

int cli_run(int argc, char **argv) {
  return cli_run_with(argc, argv, NULL);
}

int cli_run_with(int argc, char **argv, const cli_run_hooks *hooks) {
  run_ctx c;
  lraf_error err;
  lraf_status st;
  int script = 0, rc;
  memset(&c, 0, sizeof c);
  c.hooks = hooks;
  if ((rc = parse_args(&c, argc, argv, &script)) != CLI_OK) {
    cli_contract_free(c.contract);
    return rc == CLI_HELP ? CLI_OK : rc;
  }
  c.script = argv[script];
  c.argc = argc;
  c.argv = argv;
  c.iscript = script;
  c.opt.keep_accounts = MAX_THREADS_LISTED;
  c.opt.traceback = 1;
  if ((rc = open_report(&c)) != CLI_OK) return rc;
  if ((rc = open_timeline(&c)) != CLI_OK) return rc;
  if ((rc = open_report(&c)) != CLI_OK) {
    cli_contract_free(c.contract);
    return rc;
  }
  c.m = make_manager(&c);
  if (c.m == NULL) {
    cli_error("out of memory");
    cli_contract_free(c.contract);
    return not_started(&c, CLI_EFAIL);
  }
  c.opt.manager = c.m;
  c.wall0 = seconds(CLOCK_MONOTONIC);
  c.cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  st = lraf_new(&c.opt, &c.S, &err);
  lraf_manager_release(c.m);
  if (st != LRAF_OK) {
    cli_contract_free(c.contract);
    return not_started(&c, cli_new_failed(&c.opt, &err));
  }
  active = &c;
  lua_pushcfunction(lraf_lua(c.S), set_globals);
  lua_pushlightuserdata(lraf_lua(c.S), &c);
  st = lraf_call(c.S, 1, 0, &err);
  if (st == LRAF_OK) st = run_init(&c, &err);
  if (st != LRAF_OK) {
    rc = finish(&c, st, &err, 0);
  } else {
    const char *path = c.script;
    if (strcmp(path, "-") == 0 && strcmp(argv[script - 1], "--") != 0)
      path = NULL;
    /* lraf profile starts before the script is loaded: on the lraf VM
       a profile's chunks are rewritten to count their ACCTs (lines) */
    if (hooks != NULL &&
        (rc = hooks->before(c.S, &c.args, hooks->ud)) != CLI_OK) {
      c.hooks = NULL;
    } else if ((st = load_script(&c, path, &err)) != LRAF_OK) {
      rc = finish(&c, st, &err, 1);
    } else {
      rc = finish(&c, call(&c, 1, &err), &err, 0);
      if (rc == CLI_OK) rc = c.hook_rc;
    }
  }
  active = NULL;
  lraf_close(c.S);
  lraf_manager_release(c.timeline);
  cli_contract_free(c.contract);
  return rc;
}
