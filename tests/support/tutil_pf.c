/*
** tutil_pf.c - the profiler's oracle for the tests: a program run
** unmodified in a plain lua_State under a count hook of 1 that
** attributes every instruction to the running function (short source,
** line defined) and to its current line; and the comparison of a
** profile with it, per function and (from the JSON output) per line.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tutil_pf.h"

typedef struct ofunc {
  char source[256];
  int line;
  long long self;
  long long *lines;  /* per current line: instructions (index line) */
  int nlines;
} ofunc;

static ofunc *ofn;
static int nofn, capofn;
static long long ototal;

static int olast;              /* the function of the last instruction */
static const void *olast_fn;   /* its closure (running, so alive) */

/* One instruction of function i at line. */
static void oracle_line(int i, int line) {
  ofunc *o = &ofn[i];
  if (line < 0) return;
  if (line >= o->nlines) {
    int n = line + 64;
    o->lines = realloc(o->lines, (size_t)n * sizeof *o->lines);
    assert_non_null(o->lines);
    memset(o->lines + o->nlines, 0, (size_t)(n - o->nlines) *
           sizeof *o->lines);
    o->nlines = n;
  }
  o->lines[line]++;
}

static void oracle_hook(lua_State *L, lua_Debug *ar) {
  int i;
  const void *f;
  if (!lua_getinfo(L, "fl", ar)) return;
  f = lua_topointer(L, -1);
  lua_pop(L, 1);
  ototal++;
  if (f == olast_fn && olast < nofn) {
    ofn[olast].self++;
    oracle_line(olast, ar->currentline);
    return;
  }
  olast_fn = f;
  if (!lua_getinfo(L, "S", ar)) return;
  for (i = nofn - 1; i >= 0; i--)
    if (ofn[i].line == ar->linedefined &&
        strcmp(ofn[i].source, ar->short_src) == 0) {
      ofn[i].self++;
      olast = i;
      oracle_line(i, ar->currentline);
      return;
    }
  if (nofn == capofn) {
    capofn = capofn ? capofn * 2 : 64;
    ofn = realloc(ofn, (size_t)capofn * sizeof *ofn);
    assert_non_null(ofn);
  }
  snprintf(ofn[nofn].source, sizeof ofn[nofn].source, "%s", ar->short_src);
  ofn[nofn].line = ar->linedefined;
  ofn[nofn].self = 1;
  ofn[nofn].lines = NULL;
  ofn[nofn].nlines = 0;
  olast = nofn++;
  oracle_line(olast, ar->currentline);
}

void tutil_pf_oracle_free(void) {
  int i;
  for (i = 0; i < nofn; i++) free(ofn[i].lines);
  nofn = 0;
}

void tutil_pf_oracle_release(void) {
  tutil_pf_oracle_free();
  free(ofn);
  ofn = NULL;
  capofn = 0;
}

/* Standard output goes to /dev/null while a program runs. */
int tutil_pf_quiet(void) {
  int saved, null;
  fflush(stdout);
  saved = dup(1);
  null = open("/dev/null", O_WRONLY);
  assert_true(saved >= 0 && null >= 0);
  dup2(null, 1);
  close(null);
  return saved;
}

void tutil_pf_loud(int saved) {
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
}

/* Run the chunk on top of L (st: how loading it went) under the oracle. */
static void oracle_run(lua_State *L, int st, const char *name) {
  int saved;
  tutil_pf_oracle_free();
  olast = 0;
  olast_fn = NULL;
  ototal = 0;
  saved = tutil_pf_quiet();
  if (st == LUA_OK) {
    lua_sethook(L, oracle_hook, LUA_MASKCOUNT, 1);
    st = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
  }
  tutil_pf_loud(saved);
  if (st != LUA_OK) fail_msg("%s: oracle: %s", name, lua_tostring(L, -1));
  lua_close(L);
}

void tutil_pf_oracle_file(const char *path) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  oracle_run(L, luaL_loadfile(L, path), path);
}

void tutil_pf_oracle_src(const char *src, size_t len, const char *name) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  oracle_run(L, luaL_loadbuffer(L, src, len, name), name);
}

long long tutil_pf_oracle_total(void) {
  return ototal;
}

int64_t tutil_pf_self_sum(const lraf_profile *P) {
  lraf_profile_func f;
  int64_t sum = 0;
  int i;
  for (i = 0; lraf_profile_function(P, i, &f); i++) sum += f.self;
  return sum;
}

/* Compare P's Lua functions with the oracle's; the number that differ. */
int tutil_pf_compare_functions(const lraf_profile *P, const char *name,
                             int report) {
  lraf_profile_func f;
  int i, j, bad = 0;
  for (j = 0; j < nofn; j++) {
    long long got = 0;
    for (i = 0; lraf_profile_function(P, i, &f); i++)
      if (!f.is_c && f.line == ofn[j].line &&
          strcmp(f.source, ofn[j].source) == 0)
        got += f.self;
    if (got != ofn[j].self) {
      bad++;
      if (report)
        print_message("  %s: %s:%d: profile %lld, oracle %lld\n", name,
                      ofn[j].source, ofn[j].line, got, ofn[j].self);
    }
  }
  for (i = 0; lraf_profile_function(P, i, &f); i++)
    if (f.is_c && f.self != 0) bad++;  /* no native charging */
  return bad;
}

/* The oracle's function for source:line, -1 when it has none. */
static int oracle_find(const char *source, int line) {
  int j;
  for (j = 0; j < nofn; j++)
    if (ofn[j].line == line && strcmp(ofn[j].source, source) == 0)
      return j;
  return -1;
}

/* The per-line counts of P, read from its JSON output: each Lua
   function's lines sum to its self count and, when strict, equal the
   oracle's.  Returns the number of differences; *with_lines gets the
   number of functions that have lines. */
int tutil_pf_compare_lines(const lraf_profile *P, const char *name, int strict,
                         int *with_lines) {
  size_t len;
  char *json = tutil_pf_write(P, "json", &len), *p;
  int bad = 0, found = 0, expected = 0, j;
  *with_lines = 0;
  for (p = strstr(json, "{\"frame\": "); p != NULL;
       p = strstr(p + 1, "{\"frame\": ")) {
    char source[256], *q, *eol = strchr(p, '\n');
    int line, l, k = 0, matched = 0;
    long long self, n, sum = 0;
    q = strstr(p, "\"source\": \"") + 11;
    while (*q != '"' && k < 255) {  /* the JSON writer's escapes */
      unsigned x;
      if (q[0] == '\\' && q[1] == 'u' && sscanf(q + 2, "%4x", &x) == 1) {
        source[k++] = (char)x;
        q += 6;
      } else {
        if (*q == '\\') q++;
        source[k++] = *q++;
      }
    }
    source[k] = '\0';
    assert_int_equal(sscanf(strstr(q, "\"line\": "), "\"line\": %d", &line),
                     1);
    assert_int_equal(sscanf(strstr(q, "\"self\": "), "\"self\": %lld",
                            &self), 1);
    q = strstr(p, "\"lines\": [");
    if (q == NULL || (eol != NULL && q > eol)) continue;
    (*with_lines)++;
    j = oracle_find(source, line);
    found += j >= 0;
    for (q += 10; sscanf(q, "[%d, %lld]", &l, &n) == 2;
         q = strchr(q, ']') + 1, q += (*q == ',') ? 2 : 0) {
      long long want = j >= 0 && l < ofn[j].nlines ? ofn[j].lines[l] : 0;
      sum += n;
      matched += want != 0;
      if (strict && n != want) {
        bad++;
        print_message("  %s: %s:%d line %d: profile %lld, oracle %lld\n",
                      name, source, line, l, n, want);
      }
    }
    if (strict && j >= 0)  /* lines the profile does not have */
      for (l = 0; l < ofn[j].nlines; l++) matched -= ofn[j].lines[l] != 0;
    if (strict && matched != 0) {
      bad++;
      print_message("  %s: %s:%d: lines missing\n", name, source, line);
    }
    if (sum != self) {
      bad++;
      print_message("  %s: %s:%d: lines sum to %lld, self %lld\n", name,
                    source, line, sum, self);
    }
  }
  for (j = 0; j < nofn; j++) expected += ofn[j].self > 0;
  if (strict && lraf_vm_builtin() && found != expected) {
    bad++;
    print_message("  %s: %d of the oracle's %d functions have lines\n", name,
                  found, expected);
  }
  free(json);
  return bad;
}

/* One corpus file in one mode against the oracle's run of it. */
char *tutil_pf_write(const lraf_profile *P, const char *format,
                       size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  lraf_error err;
  assert_non_null(f);
  if (lraf_profile_write(P, format, 0, f, &err) != LRAF_OK)
    fail_msg("%s: %s", format, err.message);
  fclose(f);
  return buf;
}

