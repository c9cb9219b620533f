/*
** rwsame_dump.c - for tools/rwsame.sh: rewrites each Lua file given in
** memory on the lraf VM (rt_pipeline_in_place) in every mode and writes
** lua_dump of the result to stdout, after a line naming the file and
** the mode, or the error.  Built against the lraf VM only.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt_pipeline.h"
#include "bc.h"

static int writer(lua_State *L, const void *p, size_t sz, void *ud) {
  (void)L;
  return fwrite(p, 1, sz, ud) != sz;
}

static char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (fp == NULL) return NULL;
  if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 &&
      fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
    *len = fread(buf, 1, (size_t)n, fp);
    buf[*len] = '\0';
  }
  fclose(fp);
  return buf;
}

int main(int argc, char **argv) {
  static uint32_t weights[BC_NUM_OPCODES];
  const char *names[] = {"original", "overhead", "weighted", "exact",
                         "exact-overhead"};
  int i, m, op;
  for (op = 0; op < BC_NUM_OPCODES; op++) weights[op] = 1u + (op * 7u) % 5u;
  for (i = 1; i < argc; i++) {
    size_t len = 0;
    char *src = slurp(argv[i], &len);
    if (src == NULL) {
      fprintf(stderr, "rwsame_dump: cannot read %s\n", argv[i]);
      return 2;
    }
    for (m = 0; m < 5; m++) {
      lua_State *L = luaL_newstate();
      rw_options opt;
      rw_stats stats;
      lraf_error err;
      rw_default_options(&opt);
      opt.target = RW_LRAVM;
      opt.mode = m == 1 || m == 4 ? RW_OVERHEAD
               : m == 2 ? RW_WEIGHTED : RW_ORIGINAL;
      opt.weights = weights;
      opt.exact = m >= 3;
      printf("\n== %s %s\n", argv[i], names[m]);
      if (luaL_loadbuffer(L, src, len, argv[i]) != LUA_OK)
        printf("compile error: %s\n", lua_tostring(L, -1));
      else if (rt_pipeline_in_place(L, &opt, &stats, &err) != LRAF_OK)
        printf("error %d: %s\n", (int)err.code, err.message);
      else {
        printf("stats %ld %ld %ld %ld %ld %ld %ld %ld\n", stats.functions,
               stats.blocks, stats.increments, stats.folded,
               stats.branch_folds, stats.checks, stats.code_before,
               stats.code_after);
        fflush(stdout);
        lua_dump(L, writer, stdout, 0);
      }
      lua_close(L);
    }
    free(src);
  }
  return 0;
}
