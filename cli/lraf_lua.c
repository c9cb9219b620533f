/*
** lraf_lua.c - lraf-lua: lua5.4's command line, with every instruction
** counted.  It takes exactly lua5.4's options (-e -l -i -v -E -W - --,
** LUA_INIT_5_4 / LUA_INIT) and fills arg as lua5.4 does, arg[-1] naming
** itself, so a script that runs arg[-1] again gets lraf-lua again.  The
** metering options come from the environment variable LRAF_OPTIONS
** (e.g. "--limit 1G --report -"), which child processes inherit; they
** are `lraf run`'s options, parsed by the same parser (cli_options.c)
** with the same values and messages, and mean what they mean there:
** the same stop messages, exit statuses 3 (quota) and 4 (memory), and
** the same report (JSON to a file, or a summary on stderr with -),
** written however the run ends, os.exit included.
** Ctrl-C raises "interrupted!" in the running code, as in lua5.4: a
** script ends with status 1 and a traceback, -i goes back to the prompt.
** -i edits lines with libreadline when it is installed (dlopen at run
** time, $LRAF_READLINELIB), as Debian's lua5.4 does, and takes "= expr".
** Uses include/lraf.h, Lua's C API and the command's shared helpers.
*/
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

#define EXIT_QUOTA CLI_EQUOTA
#define EXIT_MEMORY CLI_EMEMORY

static const char *progname = "lraf-lua";

typedef struct meter {
  cli_args a;          /* LRAF_OPTIONS */
  lraf_options opt;
  int native;
  const char *native_why;
  FILE *rfile;         /* the --report file, opened before anything runs */
  int reported;
  const char *script;  /* for the report */
  lraf_manager *m;
  lraf_state *S;
  int status;          /* the exit status so far */
  const char *ending;  /* how it ended: ok error quota memory exit */
  char *error;         /* the last error's message (the report's) */
  int loading;         /* the stop came while loading a chunk */
  double wall0, cpu0;
} meter;

static meter *active;  /* for os.exit */

static void message(const char *msg) {
  if (progname != NULL)  /* none in the interactive mode, as lua5.4 */
    fprintf(stderr, "%s: ", progname);
  fprintf(stderr, "%s\n", msg);
  fflush(stderr);
}

static void usage(const char *badoption) {
  if (badoption[1] == 'e' || badoption[1] == 'l')
    fprintf(stderr, "%s: '%s' needs argument\n", progname, badoption);
  else
    fprintf(stderr, "%s: unrecognized option '%s'\n", progname, badoption);
  fprintf(stderr,
          "usage: %s [options] [script [args]]\n"
          "Available options are:\n"
          "  -e stat   execute string 'stat'\n"
          "  -i        enter interactive mode after executing 'script'\n"
          "  -l mod    require library 'mod' into global 'mod'\n"
          "  -v        show version information\n"
          "  -E        ignore environment variables\n"
          "  -W        turn warnings on\n"
          "  --        stop handling options\n"
          "  -         stop handling options and execute stdin\n"
          "Metering options come from LRAF_OPTIONS: those of lraf run "
          "(lraf run --help),\ne.g. LRAF_OPTIONS=\"--limit 1G --report -\".\n",
          progname);
}

/* ---- LRAF_OPTIONS and the report ---- */

static double seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* lraf run's options from LRAF_OPTIONS (cli_options.c); 0 or the exit
   status (1, as lua5.4's for bad usage; -1 after --help). */
static int parse_options(meter *m) {
  const char *env = getenv("LRAF_OPTIONS");
  int rc;
  cli_set_prefix("lraf-lua: LRAF_OPTIONS: ");
  rc = cli_parse_text(cli_command_find("run"), env ? env : "", &m->a);
  if (rc == CLI_HELP) return -1;
  if (rc != CLI_OK) return EXIT_FAILURE;
  if (m->a.timeline != NULL || m->a.expect_share > 0 || m->a.contract != NULL) {
    cli_error("%s is lraf run's alone: run the script with lraf run",
              m->a.contract != NULL ? "--contract"
              : m->a.timeline != NULL ? "--timeline" : "--expect-share");
    return EXIT_FAILURE;
  }
  m->opt = m->a.opt;
  m->opt.traceback = 1;
  m->opt.keep_accounts = 1000;
  m->native = cli_native(&m->a, &m->native_why);
  m->opt.native = m->native;
  if (m->a.memory > 0) m->opt.memory_limit = (size_t)m->a.memory;
  return 0;
}

/* The report file, opened before anything runs (as lraf run does). */
static int open_report(meter *m) {
  const char *r = m->a.report;
  struct stat rs, ss;
  if (r == NULL || strcmp(r, "-") == 0) return 0;
  if (m->script != NULL && stat(r, &rs) == 0 && stat(m->script, &ss) == 0 &&
      rs.st_dev == ss.st_dev && rs.st_ino == ss.st_ino) {
    cli_error("the report %s would overwrite the script", r);
    return EXIT_FAILURE;
  }
  if ((m->rfile = fopen(r, "w")) == NULL) {
    cli_error("cannot write the report %s: %s", r, strerror(errno));
    return EXIT_FAILURE;
  }
  return 0;
}

static void outcome(const meter *m, cli_outcome *o, int code) {
  memset(o, 0, sizeof *o);
  o->script = m->script ? m->script : "(command line)";
  o->status = m->ending;
  o->exit_code = code;
  o->error = m->error;
  o->mode = m->opt.mode;
  o->exact = m->opt.exact;
  o->native = m->native;
  o->native_why = m->native_why;
  o->granularity = m->opt.granularity > 0 ? m->opt.granularity
                                          : LRAF_DEFAULT_GRANULARITY;
  o->limit = m->a.limit;
  o->memory = m->a.memory;
  o->rate = m->a.rate;
  o->loading = m->loading;
  o->wall = seconds(CLOCK_MONOTONIC) - m->wall0;
  o->cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - m->cpu0;
}

/* The report, once, however the run ends (code: the exit status). */
static void write_report(meter *m, int code) {
  cli_outcome o;
  if (m->a.report == NULL || m->reported) return;
  m->reported = 1;
  outcome(m, &o, code);
  fflush(stdout);
  if (m->rfile == NULL) {
    cli_outcome_summary(stderr, m->S, &o);
    return;
  }
  cli_outcome_json(m->rfile, m->S, &o);
  if (fclose(m->rfile) != 0)
    cli_error("cannot write the report %s: %s", m->a.report,
              strerror(errno));
  m->rfile = NULL;
}

static void set_error(meter *m, const char *ending, const char *msg) {
  m->ending = ending;
  free(m->error);
  m->error = msg ? strdup(msg) : NULL;
}

/* os.exit as lua5.4's, after the report (status "exit", its code). */
static int lua_exit(lua_State *L) {
  int code;
  if (lua_isboolean(L, 1))
    code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  fflush(stdout);
  if (active != NULL) {
    set_error(active, "exit", NULL);
    write_report(active, code);
  }
  if (lua_toboolean(L, 2)) lua_close(L);
  exit(code);
  return 0;
}

static int set_exit(lua_State *L) {
  if (lua_getglobal(L, "os") == LUA_TTABLE) {
    lua_pushcfunction(L, lua_exit);
    lua_setfield(L, -2, "exit");
  }
  return 0;
}

/* ---- running chunks ---- */

/* The exit status err stands for (printing it); 0 for LRAF_OK. */
static int report(meter *m, lraf_status st, const lraf_error *err) {
  int rc;
  const char *msg;
  cli_outcome o;
  if (st == LRAF_OK) return 0;
  msg = lraf_last_error(m->S)[0] != '\0' ? lraf_last_error(m->S)
                                         : err->message;
  if (st == LRAF_EQUOTA || st == LRAF_EMEMLIMIT) {
    rc = st == LRAF_EQUOTA ? EXIT_QUOTA : EXIT_MEMORY;
    set_error(m, rc == EXIT_QUOTA ? "quota" : "memory",
              rc == EXIT_QUOTA ? "quota exceeded" : "memory limit exceeded");
    outcome(m, &o, rc);
    fflush(stdout);
    cli_stop_message(&o, m->S);
  } else {
    rc = EXIT_FAILURE;
    set_error(m, "error", msg);
    message(msg);
  }
  if (m->status == 0) m->status = rc;
  return rc;
}

/* Calls the function below its arguments from a C function, as lua.c
   does from pmain (so that tracebacks end with "[C]: in ?" there too). */
static int trampoline(lua_State *L) {
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* Call the function under narg arguments; 0 or an exit status. */
static int docall(meter *m, int narg, int nres) {
  lua_State *L = lraf_lua(m->S);
  lraf_error err;
  lua_pushcfunction(L, trampoline);
  lua_insert(L, -(narg + 2));
  return report(m, cli_call_interruptible(m->S, narg + 1, nres, &err), &err);
}

static int dochunk(meter *m, lraf_status st, const lraf_error *err) {
  int rc;
  if (st != LRAF_OK) {
    m->loading = 1;
    rc = report(m, st, err);
    m->loading = 0;
    return rc;
  }
  return docall(m, 0, 0);
}

/* A script read once (a pipe or <(...) gives its text once), source or
   a chunk from lraf rewrite; path NULL: stdin. */
static lraf_status load_script(meter *m, const char *path, lraf_error *err) {
  cli_script s;
  lraf_status st = cli_script_read(path, &s, err);
  if (st != LRAF_OK) return st;
  st = cli_script_load(m->S, &s, err);
  cli_script_free(&s);
  return st;
}

static int dostring(meter *m, const char *s, const char *name) {
  lraf_error err;
  return dochunk(m, lraf_load_string(m->S, s, strlen(s), name, &err), &err);
}

static int dofile(meter *m, const char *name) {
  lraf_error err;
  return dochunk(m, load_script(m, name, &err), &err);
}

/* -l mod: mod = require('mod') (or g = require('mod') for -l g=mod) */
static int dolibrary(meter *m, const char *spec) {
  lua_State *L = lraf_lua(m->S);
  const char *eq = strchr(spec, '=');
  const char *mod = eq ? eq + 1 : spec;
  int rc;
  lua_getglobal(L, "require");
  lua_pushstring(L, mod);
  rc = docall(m, 1, 1);
  if (rc == 0) {
    if (eq) lua_pushlstring(L, spec, (size_t)(eq - spec));
    else lua_pushstring(L, mod);
    lua_insert(L, -2);
    lua_setglobal(L, lua_tostring(L, -2));
    lua_pop(L, 1);
  }
  return rc;
}

/* ---- the interactive mode ---- */

/* Whether the last load failed only because the text ended early. */
static int incomplete(lraf_state *S, const lraf_error *err) {
  const char *msg = lraf_last_error(S)[0] ? lraf_last_error(S)
                                          : err->message;
  size_t n = strlen(msg);
  return n >= 5 && strcmp(msg + n - 5, "<eof>") == 0;
}

/* Line editing and history as Debian's lua5.4 offers them, without a
   build dependency: on a terminal, libreadline is looked for at run
   time ($LRAF_READLINELIB, default libreadline.so.8; empty: none) and
   its readline and add_history are used when found; otherwise lines
   are read plainly. */
typedef char *(*readline_fn)(const char *prompt);
typedef void (*add_history_fn)(const char *line);
static readline_fn rl_read;
static add_history_fn rl_add;

static void open_readline(void) {
  const char *lib = getenv("LRAF_READLINELIB");
  void *h;
  if (!isatty(STDIN_FILENO)) return;
  if (lib == NULL) lib = "libreadline.so.8";
  h = lib[0] ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (h == NULL) return;
  rl_read = (readline_fn)(uintptr_t)dlsym(h, "readline");
  rl_add = (add_history_fn)(uintptr_t)dlsym(h, "add_history");
  if (rl_read == NULL || rl_add == NULL) rl_read = NULL;
}

/* One line with its newline into line (size bytes); 0 at the end. */
static int readline(const char *prompt, char *line, size_t size) {
  char *got;
  if (rl_read == NULL) {
    fputs(prompt, stdout);
    fflush(stdout);
    return fgets(line, (int)size, stdin) != NULL;
  }
  if ((got = rl_read(prompt)) == NULL) return 0;
  if (got[0] != '\0') rl_add(got);
  snprintf(line, size, "%.*s\n", (int)(size - 2), got);
  free(got);
  return 1;
}

/* Load the text at the top of L as "return TEXT", else as TEXT, reading
   more lines while it is incomplete.  Replaces the text by the
   function; LRAF_OK or why not (printed). */
static lraf_status load_line(meter *m, lua_State *L) {
  char line[512];
  lraf_error err;
  lraf_status st;
  const char *line0 = lua_tostring(L, -1);
  const char *text = lua_pushfstring(L, "return %s",
                                     line0 + (line0[0] == '='));
  st = lraf_load_string(m->S, text, strlen(text), "=stdin", &err);
  lua_remove(L, st == LRAF_OK ? -2 : -1);  /* "return ..." */
  while (st != LRAF_OK) {
    text = lua_tostring(L, -1);
    st = lraf_load_string(m->S, text, strlen(text), "=stdin", &err);
    if (st == LRAF_OK || !incomplete(m->S, &err)) break;
    if (!readline(">> ", line, sizeof line)) break;
    lua_pushstring(L, line);
    lua_concat(L, 2);
  }
  if (st != LRAF_OK) {
    report(m, st, &err);
    return st;
  }
  lua_remove(L, -2);  /* the text */
  return LRAF_OK;
}

/* The interactive mode: lines read with a prompt, results printed. */
static void repl(meter *m) {
  lua_State *L = lraf_lua(m->S);
  const char *name = progname;
  char line[512];
  progname = NULL;
  open_readline();
  while (readline("> ", line, sizeof line)) {
    int base = lua_gettop(L), n;
    lraf_error err;
    lraf_status st;
    lua_pushstring(L, line);
    if (load_line(m, L) == LRAF_OK) {
      st = cli_call_interruptible(m->S, 0, LUA_MULTRET, &err);
      if (st == LRAF_OK && (n = lua_gettop(L) - base) > 0) {
        lua_getglobal(L, "print");
        lua_insert(L, base + 1);
        st = cli_call_interruptible(m->S, n, 0, &err);
      }
      if (st != LRAF_OK) report(m, st, &err);
      if (st == LRAF_EQUOTA || st == LRAF_EMEMLIMIT) break;
    }
    if (m->status != EXIT_QUOTA && m->status != EXIT_MEMORY)
      set_error(m, "ok", NULL);
    m->status = 0;  /* an error in a line is not the session's */
    lua_settop(L, base);
  }
  fputs("\n", stdout);
  fflush(stdout);
  progname = name;
}

/* ---- the command line, as lua.c reads it ---- */

enum { HAS_ERROR = 1, HAS_I = 2, HAS_V = 4, HAS_E = 8, HAS_BIG_E = 16,
       HAS_W = 32 };

/* Scan the options; *first gets the index of the script (argc: none). */
static int collectargs(char **argv, int *first) {
  int args = 0, i;
  for (i = 1; argv[i] != NULL; i++) {
    *first = i;
    if (argv[i][0] != '-') return args;
    switch (argv[i][1]) {
      case '-':
        if (argv[i][2] != '\0') return HAS_ERROR;
        *first = i + 1;
        return args;
      case '\0':
        return args;
      case 'E':
        if (argv[i][2] != '\0') return HAS_ERROR;
        args |= HAS_BIG_E;
        break;
      case 'W':
        if (argv[i][2] != '\0') return HAS_ERROR;
        args |= HAS_W;
        break;
      case 'i':
        args |= HAS_I;  /* (-i implies -v) */
        /* FALLTHROUGH */
      case 'v':
        if (argv[i][2] != '\0') return HAS_ERROR;
        args |= HAS_V;
        break;
      case 'e':
        args |= HAS_E;
        /* FALLTHROUGH */
      case 'l':
        if (argv[i][2] == '\0') {
          i++;
          if (argv[i] == NULL || argv[i][0] == '-') return HAS_ERROR;
        }
        break;
      default:
        return HAS_ERROR;
    }
  }
  *first = i;
  return args;
}

/* arg: arg[0] the script, negative indices the interpreter and its
   options, positive ones the script's arguments. */
static void createargtable(lua_State *L, char **argv, int argc, int script) {
  int i;
  if (script == argc) script = 0;
  lua_createtable(L, argc - script - 1 > 0 ? argc - script - 1 : 0,
                  script + 1);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}

static int runargs(meter *m, char **argv, int n) {
  int i;
  for (i = 1; i < n; i++) {
    int option = argv[i][1];
    if (option == 'e' || option == 'l') {
      const char *extra = argv[i] + 2;
      int rc;
      if (*extra == '\0') extra = argv[++i];
      rc = option == 'e' ? dostring(m, extra, "=(command line)")
                         : dolibrary(m, extra);
      if (rc != 0) return rc;
    } else if (option == 'W') {
      lua_warning(lraf_lua(m->S), "@on", 0);
    }
  }
  return 0;
}

static int handle_luainit(meter *m) {
  const char *name = "=LUA_INIT_5_4";
  const char *init = getenv(name + 1);
  if (init == NULL) {
    name = "=LUA_INIT";
    init = getenv(name + 1);
  }
  if (init == NULL) return 0;
  if (init[0] == '@') return dofile(m, init + 1);
  return dostring(m, init, name);
}

static int handle_script(meter *m, char **argv, int argc, int script) {
  lua_State *L = lraf_lua(m->S);
  lraf_error err;
  const char *fname = argv[script];
  lraf_status st;
  int n, i;
  if (strcmp(fname, "-") == 0 && strcmp(argv[script - 1], "--") != 0)
    fname = NULL;  /* stdin */
  st = load_script(m, fname, &err);
  if (st != LRAF_OK) return dochunk(m, st, &err);
  n = argc - script - 1;
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = script + 1; i < argc; i++) lua_pushstring(L, argv[i]);
  return docall(m, n, 0);
}

int main(int argc, char **argv) {
  meter m;
  lraf_error err;
  int script = 0, args, rc = 0;
  memset(&m, 0, sizeof m);
  m.ending = "ok";
  if (argv[0] != NULL && argv[0][0] != '\0') progname = argv[0];
  args = collectargs(argv, &script);
  if (args == HAS_ERROR) {
    usage(argv[script]);
    return EXIT_FAILURE;
  }
  if ((rc = parse_options(&m)) != 0) return rc < 0 ? EXIT_SUCCESS : rc;
  if (script < argc) m.script = argv[script];
  rc = open_report(&m);  /* a bad --report is LRAF_OPTIONS' error */
  cli_set_prefix("lraf-lua: ");
  if (rc != 0) return rc;
  m.m = cli_manager_new(m.a.limit, m.a.rate);
  if (m.m == NULL) {
    message("not enough memory");
    return EXIT_FAILURE;
  }
  m.opt.manager = m.m;
  m.wall0 = seconds(CLOCK_MONOTONIC);
  m.cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  if (lraf_new(&m.opt, &m.S, &err) != LRAF_OK) {
    cli_new_failed(&m.opt, &err);
    lraf_manager_release(m.m);
    return EXIT_FAILURE;
  }
  active = &m;
  if (args & HAS_V) {
    fputs(LUA_COPYRIGHT "\n", stdout);
    cli_version(stdout);
    fflush(stdout);
  }
  if (args & HAS_BIG_E) {
    lua_pushboolean(lraf_lua(m.S), 1);
    lua_setfield(lraf_lua(m.S), LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  createargtable(lraf_lua(m.S), argv, argc, script);
  if (m.opt.env == LRAF_ENV_FULL) {
    lua_pushcfunction(lraf_lua(m.S), set_exit);
    rc = report(&m, lraf_call(m.S, 0, 0, &err), &err);
  }
  if (rc == 0 && !(args & HAS_BIG_E)) rc = handle_luainit(&m);
  if (rc == 0) rc = runargs(&m, argv, script);
  if (rc == 0 && script < argc) rc = handle_script(&m, argv, argc, script);
  if (rc == 0) {
    if (args & HAS_I) {
      repl(&m);
    } else if (script == argc && !(args & (HAS_E | HAS_V))) {
      if (isatty(0)) {
        fputs(LUA_COPYRIGHT "\n", stdout);
        cli_version(stdout);
        repl(&m);
      } else {
        rc = dofile(&m, NULL);
      }
    }
  }
  write_report(&m, m.status);
  active = NULL;
  lraf_close(m.S);
  lraf_manager_release(m.m);
  free(m.error);
  return m.status;
}
