/*
** cli_main.c - main() of the lraf command: a dispatcher over the
** subcommands, and the helpers they share (errors, loading a chunk).
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "cli.h"

typedef struct cli_command {
  const char *name;
  cli_fn run;
  const char *args;
  const char *help;
} cli_command;

static const cli_command commands[] = {
  {"bench", cli_bench,
   "[-n N] [--exact] [--sandbox] [--native] [--granularity N]\n"
   "      [--mode original|overhead|weighted] [--weights FILE]\n"
   "      SCRIPT [SCRIPT2] [-- ARGS...]",
   "run SCRIPT N times (default 10) in fresh states, with ARGS: its\n"
   "      instruction count (the same on every run) and wall time\n"
   "      min/median/max; with SCRIPT2, compare the two by instruction count"},
  {"disasm", cli_disasm, "FILE.lua|FILE.luac|REWRITTEN",
   "list the bytecode of FILE like luac -l -l (REWRITTEN: the\n      output of lraf rewrite, with its accounting code)"},
  {"run", cli_run,
   "[--limit N] [--rate N] [--granularity N] [--exact] [--sandbox]\n"
   "      [--mode original|overhead|weighted] [--weights FILE]\n"
   "      [--memory-limit BYTES] [--native|--no-native]\n"
   "      [--report FILE|-] SCRIPT [ARGS...]",
   "run SCRIPT like lua5.4, counting every instruction"},
  {"profile", cli_profile,
   "[--format table|folded|callgrind|svg|json] [-o FILE] [--top N]\n"
   "      [run options] SCRIPT [ARGS...]",
   "run SCRIPT like lraf run and write its exact profile: per function\n"
   "      calls, self and inclusive instructions, and the calling contexts"},
  {"diff", cli_diff, "A.json B.json [--threshold P]",
   "compare two JSON profiles function by function; exit 1 when the\n"
   "      total or a function changed by more than P percent"},
  {"rewrite", cli_rewrite,
   "[--exact] [--mode original|overhead|weighted] [--weights FILE]\n"
   "      IN.lua|IN.luac -o OUT",
   "rewrite IN offline; OUT loads only through lraf"},
};

#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

static void usage(FILE *out) {
  int n;
  fputs("usage: lraf COMMAND [ARGS]\n       lraf --help | --version\n\n"
        "commands:\n", out);
  for (n = 0; n < NCOMMANDS; n++)
    fprintf(out, "  %s %s\n      %s\n", commands[n].name, commands[n].args,
            commands[n].help);
}

int main(int argc, char **argv) {
  int n;
  if (argc < 2) {
    usage(stderr);
    return CLI_EUSAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return CLI_OK;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("lraf %s\n", LRAF_VERSION);
    return CLI_OK;
  }
  for (n = 0; n < NCOMMANDS; n++)
    if (strcmp(argv[1], commands[n].name) == 0)
      return commands[n].run(argc - 1, argv + 1);
  cli_error("unknown command '%s' (try lraf --help)", argv[1]);
  return CLI_EUSAGE;
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                       */
/* ------------------------------------------------------------------ */

int cli_parse_int(const char *s, int64_t *v) {
  char *end;
  long long x;
  errno = 0;
  x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || x < 0) return 0;
  *v = (int64_t)x;
  return 1;
}

int cli_error(const char *fmt, ...) {
  va_list ap;
  fputs("lraf: ", stderr);
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

lraf_status cli_read_file(const char *path, char **data, size_t *size,
                          lraf_error *err) {
  FILE *fp = fopen(path, "rb");
  char *buf = NULL;
  size_t len = 0, cap = 0;
  if (fp == NULL)
    return vm_fail(err, LRAF_EIO, "cannot open %s", path);
  for (;;) {
    size_t got;
    if (len == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
      if (nb == NULL) {
        free(buf);
        fclose(fp);
        return vm_fail(err, LRAF_EMEM, "out of memory reading %s", path);
      }
      buf = nb;
    }
    got = fread(buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0) break;
  }
  if (ferror(fp)) {
    free(buf);
    fclose(fp);
    return vm_fail(err, LRAF_EIO, "cannot read %s", path);
  }
  fclose(fp);
  *data = buf;
  *size = len;
  return LRAF_OK;
}

typedef struct dumpbuf {
  char *data;
  size_t len, cap;
} dumpbuf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dumpbuf *b = ud;
  (void)L;
  if (b->len + sz > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    char *nd;
    while (cap < b->len + sz) cap *= 2;
    nd = realloc(b->data, cap);
    if (nd == NULL) return 1;
    b->data = nd;
    b->cap = cap;
  }
  memcpy(b->data + b->len, p, sz);
  b->len += sz;
  return 0;
}

/* Compile a source file and dump it with debug information. */
static lraf_status compile_file(const char *path, dumpbuf *b, lraf_error *err) {
  lua_State *L = luaL_newstate();
  lraf_status st = LRAF_OK;
  if (L == NULL)
    return vm_fail(err, LRAF_EMEM, "cannot create a Lua state");
  if (luaL_loadfilex(L, path, "t") != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    st = vm_fail(err, strncmp(msg ? msg : "", "cannot", 6) == 0 ? LRAF_EIO
                                                               : LRAF_ESYNTAX,
                 "%s", msg ? msg : "cannot load");
  } else if (lua_dump(L, dump_writer, b, 0) != 0) {
    st = vm_fail(err, LRAF_EMEM, "out of memory dumping %s", path);
  }
  lua_close(L);
  return st;
}

static int is_binary(const char *path) {
  char sig[4];
  FILE *fp = fopen(path, "rb");
  size_t got;
  if (fp == NULL) return 0;
  got = fread(sig, 1, sizeof sig, fp);
  fclose(fp);
  return got == sizeof sig && memcmp(sig, "\x1bLua", 4) == 0;
}

lraf_status cli_load_chunk(const char *path, vm_chunk **out, lraf_error *err) {
  dumpbuf b = {NULL, 0, 0};
  lraf_status st;
  if (is_binary(path))
    st = cli_read_file(path, &b.data, &b.len, err);
  else
    st = compile_file(path, &b, err);
  if (st == LRAF_OK)
    st = vm_read(b.data, b.len, NULL, out, err);
  free(b.data);
  return st;
}
