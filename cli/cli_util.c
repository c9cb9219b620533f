/*
** cli_util.c - what every subcommand of the lraf command shares:
** printing an error, and reading a file or a script.
*/
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

static const char *prefix = "lraf: ";

void cli_set_prefix(const char *p) {
  prefix = p;
}

int cli_error(const char *fmt, ...) {
  va_list ap;
  fputs(prefix, stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return CLI_EUSAGE;
}

int cli_report(const lraf_error *err) {
  cli_error("%s", err->message);
  return err->code == LRAF_EMEM ? CLI_EFAIL : CLI_EUSAGE;
}

static lraf_status file_error(lraf_error *err, lraf_status code,
                              const char *what, const char *path, int e) {
  err->code = code;
  snprintf(err->message, sizeof err->message, "cannot %s %s: %s", what,
           path, strerror(e));
  return code;
}

lraf_status cli_read_file(const char *path, char **data, size_t *size,
                          lraf_error *err) {
  return cli_read_file_max(path, SIZE_MAX, data, size, err);
}

/* Everything fp holds (a pipe or a terminal too), at most max bytes; the
   error names path. */
static lraf_status read_stream(FILE *fp, const char *path, size_t max,
                               char **data, size_t *size, lraf_error *err) {
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    size_t got;
    if (len > max) {
      free(buf);
      err->code = LRAF_ELIMIT;
      snprintf(err->message, sizeof err->message, "cannot read %s: longer "
               "than %zu bytes, the most this file may have", path, max);
      return LRAF_ELIMIT;
    }
    if (len == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
      if (nb == NULL) {
        free(buf);
        return file_error(err, LRAF_EMEM, "read", path, ENOMEM);
      }
      buf = nb;
    }
    got = fread(buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0) break;
  }
  if (ferror(fp)) {
    int e = errno;
    free(buf);
    return file_error(err, LRAF_EIO, "read", path, e);
  }
  *data = buf;
  *size = len;
  return LRAF_OK;
}

lraf_status cli_read_file_max(const char *path, size_t max, char **data,
                              size_t *size, lraf_error *err) {
  FILE *fp = fopen(path, "rb");
  lraf_status st;
  if (fp == NULL) return file_error(err, LRAF_EIO, "open", path, errno);
  st = read_stream(fp, path, max, data, size, err);
  fclose(fp);
  return st;
}

lraf_status cli_read_script(const char *path, char **data, size_t *size,
                            char **name, lraf_error *err) {
  lraf_status st = cli_read_file(path, data, size, err);
  if (st != LRAF_OK) return st;
  *name = malloc(strlen(path) + 2);
  if (*name == NULL) {
    free(*data);
    return file_error(err, LRAF_EMEM, "read", path, ENOMEM);
  }
  (*name)[0] = '@';
  strcpy(*name + 1, path);
  if (*size > 0 && (*data)[0] == '#') {
    size_t k = 0;
    while (k < *size && (*data)[k] != '\n') (*data)[k++] = ' ';
  }
  return LRAF_OK;
}

/* ---- scripts, read once ---- */

lraf_status cli_script_read(const char *path, cli_script *s,
                            lraf_error *err) {
  FILE *fp = path ? fopen(path, "rb") : stdin;
  const char *shown = path ? path : "stdin";
  lraf_status st;
  memset(s, 0, sizeof *s);
  if (fp == NULL) return file_error(err, LRAF_EIO, "open", path, errno);
  st = read_stream(fp, shown, SIZE_MAX, &s->data, &s->size, err);
  if (path != NULL) fclose(fp);
  else clearerr(stdin);
  if (st != LRAF_OK) return st;
  s->name = malloc(strlen(shown) + 2);
  if (s->name == NULL) {
    cli_script_free(s);
    return file_error(err, LRAF_EMEM, "read", shown, ENOMEM);
  }
  s->name[0] = path ? '@' : '=';
  strcpy(s->name + 1, shown);
  s->offline = s->size >= LRAF_OFFLINE_MAGIC_LEN &&
               memcmp(s->data, LRAF_OFFLINE_MAGIC,
                      LRAF_OFFLINE_MAGIC_LEN) == 0;
  if (!s->offline) {
    /* as luaL_loadfilex: a UTF-8 BOM, then a '#' first line, are
       skipped (blanked: line numbers stay) */
    size_t k = 0;
    if (s->size >= 3 && memcmp(s->data, "\xEF\xBB\xBF", 3) == 0)
      for (; k < 3; k++) s->data[k] = ' ';
    if (k < s->size && s->data[k] == '#')
      while (k < s->size && s->data[k] != '\n') s->data[k++] = ' ';
  }
  return LRAF_OK;
}

lraf_status cli_script_load(lraf_state *S, const cli_script *s,
                            lraf_error *err) {
  if (s->offline) return lraf_load_rewritten(S, s->data, s->size, err);
  return lraf_load_string(S, s->data, s->size, s->name, err);
}

void cli_script_free(cli_script *s) {
  free(s->data);
  free(s->name);
  memset(s, 0, sizeof *s);
}

void cli_version(FILE *out) {
  if (lraf_vm_builtin())
    fprintf(out, "lraf %s on the lraf VM (%s with the accounting "
            "instruction, built in)\n", LRAF_VERSION, LUA_RELEASE);
  else
    fprintf(out, "lraf %s on stock Lua (built against %s)\n", LRAF_VERSION,
            LUA_RELEASE);
}

/* Ctrl-C as in lua.c: the first SIGINT sets a hook that raises
   "interrupted!" in the main thread (so a report is still written), a
   second one kills.  The hook that was there (the stock profiler's,
   debug.sethook's) is put back before the error is raised. */
static lua_State *interrupted_L;
static lua_Hook old_hook;
static int old_mask, old_count;

static void interrupt_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, old_hook, old_mask, old_count);
  luaL_error(L, "interrupted!");
}

static void on_sigint(int sig) {
  signal(sig, SIG_DFL);
  old_hook = lua_gethook(interrupted_L);
  old_mask = lua_gethookmask(interrupted_L);
  old_count = lua_gethookcount(interrupted_L);
  lua_sethook(interrupted_L, interrupt_hook,
              LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

lraf_status cli_call_interruptible(lraf_state *S, int nargs, int nres,
                                   lraf_error *err) {
  lraf_status st;
  interrupted_L = lraf_lua(S);
  signal(SIGINT, on_sigint);
  st = lraf_call(S, nargs, nres, err);
  signal(SIGINT, SIG_DFL);
  return st;
}
