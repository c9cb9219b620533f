/*
** test_lib_exports.c - liblraf.so (next to the lraf binary named by
** $LRAF) exports exactly the functions include/lraf.h declares with
** LRAF_API: `nm -D` lists no internal name (bc_, rw_, rt_, acct_, err_),
** no public function is missing, and lraf.h declares none without
** LRAF_API.  Built against the lraf VM (make vm) the library carries
** its own Lua, so it exports Lua's C API too (lua_, luaL_, luaopen_),
** which embedders and C modules use.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"
#include "tutil_sh.h"

#define MAXNAMES 512

typedef struct names {
  char *v[MAXNAMES];
  int n;
} names;

/* A file's contents (free it); NULL when it cannot be read. */
static char *slurp(const char *path) {
  size_t len;
  return tutil_run_slurp(path, &len);
}

static void add(names *s, const char *p, size_t len) {
  assert_true(s->n < MAXNAMES);
  s->v[s->n] = strndup(p, len);
  assert_non_null(s->v[s->n]);
  s->n++;
}

static int has(const names *s, const char *name) {
  int i;
  for (i = 0; i < s->n; i++)
    if (strcmp(s->v[i], name) == 0) return 1;
  return 0;
}

static void drop(names *s) {
  while (s->n > 0) free(s->v[--s->n]);
}

/* The names declared "LRAF_API type name(" in include/lraf.h; fails
   the test on a function declared there without LRAF_API (a line that
   starts with a type and names an lraf_ function), which would not be
   exported. */
static void declared(names *s) {
  char *h = slurp("include/lraf.h"), *p;
  assert_non_null(h);
  for (p = h; (p = strchr(p, '\n')) != NULL; ) {
    const char *line = ++p, *eol = strchr(line, '\n'), *fn;
    if (eol == NULL) break;
    if (*line < 'a' || *line > 'z' || strncmp(line, "typedef", 7) == 0)
      continue;
    fn = strstr(line, "lraf_");
    if (fn != NULL && fn < eol && memchr(line, '(', (size_t)(eol - line)))
      fail_msg("include/lraf.h declares without LRAF_API: %.*s",
               (int)(eol - line), line);
  }
  for (p = h; (p = strstr(p, "\nLRAF_API ")) != NULL; p++) {
    char *paren = strchr(p, '('), *q = paren;
    while (q > p && (q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') ||
                     (q[-1] >= '0' && q[-1] <= '9')))
      q--;
    add(s, q, (size_t)(paren - q));
  }
  free(h);
}

/* Whether name is Lua's C API, which the lraf VM's library exports. */
static int lua_api(const char *name) {
#ifdef LRAF_VM
  return strncmp(name, "lua_", 4) == 0 || strncmp(name, "luaL_", 5) == 0 ||
         strncmp(name, "luaopen_", 8) == 0;
#else
  (void)name;
  return 0;
#endif
}

/* The defined dynamic symbols of the library (functions and data), but
   Lua's C API where the library carries it. */
static void exported(const char *lib, names *s) {
  char cmd[1200], line[512];
  FILE *p;
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s'", lib);
  p = popen(cmd, "r");
  assert_non_null(p);
  while (fgets(line, sizeof line, p) != NULL) {
    char addr[64], type[8], name[400];
    if (sscanf(line, "%63s %7s %399s", addr, type, name) == 3 &&
        !lua_api(name))
      add(s, name, strlen(name));
  }
  assert_int_equal(pclose(p), 0);
}

static void test_exports_are_the_public_api(void **state) {
  const char *lraf = tutil_sh_lraf(), *slash = strrchr(lraf, '/');
  char lib[1024];
  names api = {{0}, 0}, dyn = {{0}, 0};
  int i;
  (void)state;
  snprintf(lib, sizeof lib, "%.*s/liblraf.so", slash ? (int)(slash - lraf)
                                                      : 1,
           slash ? lraf : ".");
  declared(&api);
  exported(lib, &dyn);
  assert_true(api.n >= 40);  /* the header was read */
  for (i = 0; i < dyn.n; i++)
    if (!has(&api, dyn.v[i]))
      fail_msg("%s exports %s, which lraf.h does not declare with "
               "LRAF_API", lib, dyn.v[i]);
  for (i = 0; i < api.n; i++) {
    if (strncmp(api.v[i], "lraf_", 5) != 0)
      fail_msg("lraf.h declares %s, which has no lraf_ prefix", api.v[i]);
    if (!has(&dyn, api.v[i]))
      fail_msg("%s does not export %s", lib, api.v[i]);
  }
  assert_int_equal(dyn.n, api.n);
  drop(&api);
  drop(&dyn);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exports_are_the_public_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
