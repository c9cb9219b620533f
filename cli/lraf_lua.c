/*
** lraf_lua.c - lraf-lua: lua5.4's command line, with every instruction
** counted.  It takes exactly lua5.4's options (-e -l -i -v -E -W - --,
** LUA_INIT_5_4 / LUA_INIT) and fills arg as lua5.4 does, arg[-1] naming
** itself, so a script that runs arg[-1] again gets lraf-lua again.  The
** metering options come from the environment variable LRAF_OPTIONS
** (e.g. "--limit 1e9 --report -"), which child processes inherit:
**   --limit N         stop after N instructions (exit 3)
**   --memory-limit N  stop above N bytes held (exit 4)
**   --granularity N   instructions between reports to the manager
**   --exact           exact even when errors are caught
**   --sandbox         the sandbox environment (docs/security.md)
**   --report -        "lraf-lua: N instructions (MODEL), status S" on
**                     stderr at the end
** -i edits lines with libreadline when it is installed (dlopen at run
** time, $LRAF_READLINELIB), as Debian's lua5.4 does.
** Uses include/lraf.h and Lua's C API only.
*/
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "lraf.h"

#define EXIT_QUOTA 3
#define EXIT_MEMORY 4

static const char *progname = "lraf-lua";

typedef struct meter {
  lraf_options opt;
  int64_t limit;   /* < 0: none */
  int report;
  lraf_manager *m;
  lraf_state *S;
  int status;      /* the exit status so far */
} meter;

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
          "Metering options come from LRAF_OPTIONS (--limit N, "
          "--memory-limit N,\n--granularity N, --exact, --sandbox, "
          "--report -).\n", progname);
}

/* ---- LRAF_OPTIONS ---- */

static int number(const char *s, int64_t *v) {
  char *end;
  double d = strtod(s, &end);
  if (end == s || *end != '\0' || !(d >= 0) || d > 9.2e18) return 0;
  *v = (int64_t)d;
  return 1;
}

static int parse_options(meter *m) {
  const char *env = getenv("LRAF_OPTIONS");
  char *copy, *tok, *save = NULL;
  int ok = 1;
  lraf_default_options(&m->opt);
  m->opt.traceback = 1;
  m->limit = -1;
  if (env == NULL) return 1;
  copy = strdup(env);
  if (copy == NULL) return 0;
  for (tok = strtok_r(copy, " \t", &save); ok && tok != NULL;
       tok = strtok_r(NULL, " \t", &save)) {
    int64_t v = 0;
    const char *val = NULL;
    if (strcmp(tok, "--exact") == 0) {
      m->opt.exact = 1;
      continue;
    }
    if (strcmp(tok, "--sandbox") == 0) {
      m->opt.env = LRAF_ENV_SANDBOX;
      continue;
    }
    val = strtok_r(NULL, " \t", &save);
    if (val == NULL) {
      fprintf(stderr, "%s: LRAF_OPTIONS: %s needs a value\n", progname, tok);
      ok = 0;
    } else if (strcmp(tok, "--report") == 0 && strcmp(val, "-") == 0) {
      m->report = 1;
    } else if (!number(val, &v)) {
      fprintf(stderr, "%s: LRAF_OPTIONS: bad value '%s' for %s\n", progname,
              val, tok);
      ok = 0;
    } else if (strcmp(tok, "--limit") == 0) {
      m->limit = v;
    } else if (strcmp(tok, "--memory-limit") == 0 && v > 0) {
      m->opt.memory_limit = (size_t)v;
    } else if (strcmp(tok, "--granularity") == 0 && v > 0) {
      m->opt.granularity = v;
    } else {
      fprintf(stderr, "%s: LRAF_OPTIONS: unknown option '%s %s'\n",
              progname, tok, val);
      ok = 0;
    }
  }
  free(copy);
  /* native work is charged as by lraf run: with a limit or the sandbox */
  m->opt.native = m->limit >= 0 || m->opt.memory_limit > 0 ||
                  m->opt.env == LRAF_ENV_SANDBOX;
  return ok;
}

/* ---- running chunks ---- */

/* The exit status err stands for (printing it); 0 for LRAF_OK. */
static int report(meter *m, lraf_status st, const lraf_error *err) {
  int rc;
  if (st == LRAF_OK) return 0;
  rc = st == LRAF_EQUOTA ? EXIT_QUOTA
     : st == LRAF_EMEMLIMIT ? EXIT_MEMORY : EXIT_FAILURE;
  message(st == LRAF_ERUN && lraf_last_error(m->S)[0] != '\0'
              ? lraf_last_error(m->S) : err->message);
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
  return report(m, lraf_call(m->S, narg + 1, nres, &err), &err);
}

static int dochunk(meter *m, lraf_status st, const lraf_error *err) {
  if (st != LRAF_OK) return report(m, st, err);
  return docall(m, 0, 0);
}

static int dostring(meter *m, const char *s, const char *name) {
  lraf_error err;
  return dochunk(m, lraf_load_string(m->S, s, strlen(s), name, &err), &err);
}

static int dofile(meter *m, const char *name) {
  lraf_error err;
  return dochunk(m, lraf_load_file(m->S, name, &err), &err);
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
  const char *text = lua_pushfstring(L, "return %s", lua_tostring(L, -1));
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
      st = lraf_call(m->S, 0, LUA_MULTRET, &err);
      if (st == LRAF_OK && (n = lua_gettop(L) - base) > 0) {
        lua_getglobal(L, "print");
        lua_insert(L, base + 1);
        st = lraf_call(m->S, n, 0, &err);
      }
      if (st != LRAF_OK) report(m, st, &err);
      if (st == LRAF_EQUOTA || st == LRAF_EMEMLIMIT) break;
    }
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
  st = lraf_load_file(m->S, fname, &err);
  if (st != LRAF_OK) return report(m, st, &err);
  n = argc - script - 1;
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = script + 1; i < argc; i++) lua_pushstring(L, argv[i]);
  return docall(m, n, 0);
}

static void summary(meter *m) {
  const char *s = m->status == 0 ? "ok"
                : m->status == EXIT_QUOTA ? "quota"
                : m->status == EXIT_MEMORY ? "memory" : "error";
  fprintf(stderr, "%s: %lld instructions (%s), status %s\n", progname,
          (long long)lraf_manager_total(m->m), lraf_model(m->S), s);
}

int main(int argc, char **argv) {
  meter m;
  lraf_error err;
  int script = 0, args, rc = 0;
  memset(&m, 0, sizeof m);
  if (argv[0] != NULL && argv[0][0] != '\0') progname = argv[0];
  args = collectargs(argv, &script);
  if (args == HAS_ERROR) {
    usage(argv[script]);
    return EXIT_FAILURE;
  }
  if (!parse_options(&m)) return EXIT_FAILURE;
  m.m = m.limit >= 0 ? lraf_limit_new(m.limit) : lraf_total_new();
  if (m.m == NULL) {
    message("not enough memory");
    return EXIT_FAILURE;
  }
  m.opt.manager = m.m;
  if (lraf_new(&m.opt, &m.S, &err) != LRAF_OK) {
    message(err.message);
    lraf_manager_release(m.m);
    return EXIT_FAILURE;
  }
  if (args & HAS_V) {
    fputs(LUA_COPYRIGHT "\n", stdout);
    fflush(stdout);
  }
  if (args & HAS_BIG_E) {
    lua_pushboolean(lraf_lua(m.S), 1);
    lua_setfield(lraf_lua(m.S), LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  createargtable(lraf_lua(m.S), argv, argc, script);
  if (!(args & HAS_BIG_E)) rc = handle_luainit(&m);
  if (rc == 0) rc = runargs(&m, argv, script);
  if (rc == 0 && script < argc) rc = handle_script(&m, argv, argc, script);
  if (rc == 0) {
    if (args & HAS_I) {
      repl(&m);
    } else if (script == argc && !(args & (HAS_E | HAS_V))) {
      if (isatty(0)) {
        fputs(LUA_COPYRIGHT "\n", stdout);
        repl(&m);
      } else {
        rc = dofile(&m, NULL);
      }
    }
  }
  if (m.report) summary(&m);
  lraf_close(m.S);
  lraf_manager_release(m.m);
  return m.status;
}
