/*
** test_nat_match.c - the step-counting matcher (runtime/native/nat_match.c)
** against the stock string functions: for random patterns and subjects
** it finds the same first match as string.find, the same number of
** matches as string.gsub and a string.gmatch loop, and reports malformed
** or too complex patterns exactly where stock Lua raises an error.  Its
** step counts stay within the structural bound, and stop a catastrophic
** search through the charge callback.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "nat_match.h"

static unsigned long long seed = 0x9e3779b97f4a7c15ull;

static unsigned rnd(unsigned n) {
  seed = seed * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)((seed >> 33) % n);
}

/* Pieces of patterns: classes, sets, specials, and broken ones. */
static const char *const atoms[] = {
  "a", "b", "c", ".", "%a", "%d", "%s", "%W", "%%", "%.", "[ab]", "[^a]",
  "[a-c]", "[%d_]", "[]a]", "[^]]", "%bab", "%b()", "%f[%w]", "%f[%W]",
  "(", ")", "()", "%1", "%2", "x", " ", "1", "-", "$", "^"
};
static const char *const broken[] = {"%", "[a", "%b", "%f", "%fa", "%0", "(", ")"};
static const char *const quant[] = {"", "", "", "*", "+", "-", "?"};

static size_t gen_pattern(char *buf, size_t cap) {
  size_t n = 0;
  unsigned items = 1 + rnd(6), i;
  buf[0] = '\0';
  if (rnd(5) == 0) n += (size_t)snprintf(buf + n, cap - n, "^");
  for (i = 0; i < items && n + 12 < cap; i++) {
    const char *a = rnd(40) == 0 ? broken[rnd(sizeof broken / sizeof *broken)]
                                 : atoms[rnd(sizeof atoms / sizeof *atoms)];
    n += (size_t)snprintf(buf + n, cap - n, "%s", a);
    if (a[0] != '(' && a[0] != ')' && a[0] != '%' && a[0] != '^')
      n += (size_t)snprintf(buf + n, cap - n, "%s",
                            quant[rnd(sizeof quant / sizeof *quant)]);
    else if (a[0] == '%' && (a[1] == 'a' || a[1] == 'd' || a[1] == 's' ||
                             a[1] == 'W' || a[1] == '.'))
      n += (size_t)snprintf(buf + n, cap - n, "%s",
                            quant[rnd(sizeof quant / sizeof *quant)]);
  }
  if (rnd(6) == 0 && n + 1 < cap) buf[n++] = '$', buf[n] = '\0';
  return n;
}

static size_t gen_subject(char *buf, size_t cap) {
  static const char alphabet[] = "aabbc()1 _x.%";
  size_t n = rnd((unsigned)cap - 1), i;
  for (i = 0; i < n; i++) buf[i] = alphabet[rnd(sizeof alphabet - 1)];
  buf[n] = '\0';
  return n;
}

/* Stock results: find's start/end (1-based) or nil; gsub's count;
   gmatch's count.  Returns 0 when stock raised an error. */
static int stock(lua_State *L, const char *s, size_t ls, const char *p,
                 size_t lp, int init, long long *a, long long *b,
                 long long *ngsub, long long *ngmatch) {
  static const char code[] =
    "local s, p, init = ...\n"
    "local a, b = string.find(s, p, init)\n"
    "local _, n = string.gsub(s, p, '')\n"
    "local m = 0 for _ in string.gmatch(s, p, init) do m = m + 1 end\n"
    "return a or 0, b or 0, n, m";
  int ok;
  if (luaL_loadstring(L, code) != LUA_OK) fail_msg("%s", lua_tostring(L, -1));
  lua_pushlstring(L, s, ls);
  lua_pushlstring(L, p, lp);
  lua_pushinteger(L, init);
  ok = lua_pcall(L, 3, 4, 0) == LUA_OK;
  if (!ok) {
    lua_pop(L, 1);
    return 0;
  }
  *a = lua_tointeger(L, -4);
  *b = lua_tointeger(L, -3);
  *ngsub = lua_tointeger(L, -2);
  *ngmatch = lua_tointeger(L, -1);
  lua_pop(L, 4);
  return 1;
}

static void test_differential(void **state) {
  lua_State *L = luaL_newstate();
  int iters = getenv("LRAF_QUICK") ? 4000 : 40000, i, agree = 0, errs = 0;
  (void)state;
  luaL_openlibs(L);
  for (i = 0; i < iters; i++) {
    char p[128], s[48];
    size_t lp = gen_pattern(p, sizeof p), ls = gen_subject(s, sizeof s);
    int init = 1 + (int)rnd((unsigned)ls + 2);
    long long a, b, ng, nm;
    nat_matcher m;
    size_t x, y;
    int r, ok = stock(L, s, ls, p, lp, init, &a, &b, &ng, &nm);
    int64_t cg, cm;
    nat_match_init(&m, s, ls, NULL, NULL);
    r = (size_t)(init - 1) <= ls
            ? nat_match_find(&m, p, lp, (size_t)(init - 1), &x, &y) : 0;
    nat_match_init(&m, s, ls, NULL, NULL);
    cg = nat_match_count(&m, p, lp, 0, -1, 0);
    nat_match_init(&m, s, ls, NULL, NULL);
    cm = (size_t)(init - 1) <= ls
             ? nat_match_count(&m, p, lp, (size_t)(init - 1), -1, 1) : 0;
    if (!ok) {
      /* stock raised an error: the matcher must have seen a bad pattern
         in at least one of the three searches */
      if (r >= 0 && cg >= 0 && cm >= 0)
        fail_msg("stock error, matcher fine: s='%s' p='%s' init=%d", s, p,
                 init);
      errs++;
      continue;
    }
    if (r < 0 || cg < 0 || cm < 0)
      fail_msg("matcher error, stock fine: s='%s' p='%s'", s, p);
    if (r == 1 ? (a != (long long)x + 1 || b != (long long)y) : a != 0)
      fail_msg("find differs: s='%s' p='%s' init=%d: stock %lld,%lld "
               "matcher %d %zu,%zu", s, p, init, a, b, r, x + 1, y);
    if (cg != ng)
      fail_msg("gsub count differs: s='%s' p='%s': stock %lld matcher %lld",
               s, p, ng, (long long)cg);
    if (cm != nm)
      fail_msg("gmatch count differs: s='%s' p='%s' init=%d: stock %lld "
               "matcher %lld", s, p, init, nm, (long long)cm);
    agree++;
  }
  printf("  %d random patterns agree with string.find/gsub/gmatch, "
         "%d stock errors matched\n", agree, errs);
  assert_true(agree > iters / 2);
  assert_true(errs > 0);
  lua_close(L);
}

/* Nesting deeper than Lua allows is reported where Lua raises "pattern
   too complex". */
static void test_too_complex(void **state) {
  char p[1024], s[512];
  nat_matcher m;
  size_t a, b;
  int depth;
  lua_State *L = luaL_newstate();
  (void)state;
  luaL_openlibs(L);
  memset(s, 'a', 300);
  s[300] = '\0';
  for (depth = 190; depth <= 210; depth++) {
    int stock_ok, r;
    int i;
    memset(p, 0, sizeof p);
    for (i = 0; i < 2 * depth; i++) p[i] = i % 2 ? '?' : 'a';
    luaL_loadstring(L, "return string.find(...)");
    lua_pushstring(L, s);
    lua_pushstring(L, p);
    stock_ok = lua_pcall(L, 2, 1, 0) == LUA_OK;
    lua_pop(L, 1);
    nat_match_init(&m, s, strlen(s), NULL, NULL);
    r = nat_match_find(&m, p, strlen(p), 0, &a, &b);
    assert_int_equal(stock_ok, r >= 0);
  }
  lua_close(L);
}

typedef struct budget {
  int64_t charged, limit;
  jmp_buf stop;
} budget;

static void charge(void *ud, int64_t steps) {
  budget *b = ud;
  b->charged += steps;
  if (b->charged > b->limit) longjmp(b->stop, 1);
}

/* The search that is O(n^5) in stock Lua is stopped by the callback
   after the budget; a linear one counts about 3 steps per byte. */
static void test_bounded(void **state) {
  static char s[50001];
  nat_matcher m;
  budget b;
  size_t x, y;
  (void)state;
  memset(s, 'a', 50000);
  b.charged = 0;
  b.limit = 1000000;
  if (setjmp(b.stop) == 0) {
    nat_match_init(&m, s, 50000, charge, &b);
    nat_match_find(&m, ".-.-.-.-b", 9, 0, &x, &y);
    fail_msg("the catastrophic search finished");
  }
  assert_true(b.charged > b.limit);
  assert_true(b.charged <= b.limit + NAT_MATCH_CHUNK + 64);
  nat_match_init(&m, s, 50000, NULL, NULL);
  assert_int_equal(nat_match_find(&m, "%d", 2, 0, &x, &y), 0);
  assert_true(m.total >= 3 * 50000 && m.total <= 4 * 50001);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_differential),
    cmocka_unit_test(test_too_complex),
    cmocka_unit_test(test_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
