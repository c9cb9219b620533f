/*
** test_rt_sort.c - table.sort with a fixed pivot (rt_sort.c): on
** arrays too short for Lua's random pivot it makes the comparisons Lua's
** own sort makes, in the same order, and sorts the same; on long
** arrays with bad partitions it makes the comparisons a deterministic
** state's table.sort makes (rt_sort itself on the stock target, the
** lraf VM's fixed pivot on the lraf VM), with the same count in every
** run; its errors are Lua's.
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
#include <lualib.h>

#include "rt.h"
#include "tutil_capture.h"
#include "tutil_rt.h"

/* Builds an array of kind and length n, sorts it logging every
   comparison, checks the order and prints the log. */
static const char body[] =
  "local t, seed = {}, 7\n"
  "for i = 1, n do\n"
  "  if kind == 'random' then seed = (seed * 1103515245 + 12345) % 2^31\n"
  "    t[i] = seed % 1000\n"
  "  elseif kind == 'sorted' then t[i] = i\n"
  "  elseif kind == 'reverse' then t[i] = n - i\n"
  "  elseif kind == 'equal' then t[i] = 5\n"
  "  elseif kind == 'pipe' then t[i] = i <= n // 2 and i or n - i\n"
  "  else t[i] = (i % 2 == 0) and i or n + i end\n"
  "end\n"
  "local log = {}\n"
  "table.sort(t, function(a, b) log[#log + 1] = a .. ':' .. b\n"
  "  return a < b end)\n"
  "for i = 2, n do assert(t[i - 1] <= t[i]) end\n"
  "print(#log, table.concat(log, ' '))\n";

static char *source(const char *kind, int n) {
  size_t len = strlen(body) + 64;
  char *s = malloc(len);
  assert_non_null(s);
  snprintf(s, len, "local kind, n = '%s', %d\n%s", kind, n, body);
  return s;
}

/* Run src in a plain Lua state, with rt_sort as table.sort when own;
   returns what it printed (malloc'ed). */
static char *plain(const char *src, int own) {
  lua_State *L = luaL_newstate();
  char *out = NULL;
  size_t len = 0;
  luaL_openlibs(L);
  tutil_capture(L, &out, &len);
  if (own) rt_sort_open(L);
  if (luaL_dostring(L, src) != LUA_OK)
    fail_msg("%s", lua_tostring(L, -1));
  lua_close(L);
  assert_non_null(out);
  return out;
}

static const struct {
  const char *kind;
  int n;
} shorts[] = {
  {"random", 99}, {"sorted", 90}, {"reverse", 90}, {"equal", 60},
  {"pipe", 99}, {"zigzag", 80}, {"random", 2}, {"random", 1},
};

/* Below Lua's limit for a random pivot: Lua's comparisons exactly. */
static void test_like_lua(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof shorts / sizeof shorts[0]; i++) {
    char *src = source(shorts[i].kind, shorts[i].n);
    char *lua = plain(src, 0), *own = plain(src, 1);
    if (strcmp(lua, own) != 0)
      fail_msg("%s %d: Lua and rt_sort compare differently",
               shorts[i].kind, shorts[i].n);
    free(lua);
    free(own);
    free(src);
  }
}

static const struct {
  const char *kind;
  int n;
} longs[] = {
  {"random", 700}, {"pipe", 600}, {"zigzag", 600}, {"reverse", 500},
};

/* Long arrays: a deterministic state compares as rt_sort does, with the
   same comparisons and the same count in every run. */
static void test_deterministic(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof longs / sizeof longs[0]; i++) {
    char *src = source(longs[i].kind, longs[i].n);
    char *own = plain(src, 1);
    int64_t count[2];
    int run;
    for (run = 0; run < 2; run++) {
      lraf_options opt;
      lraf_state *S;
      lraf_error err;
      lraf_default_options(&opt);
      opt.env = LRAF_ENV_SANDBOX;
      opt.deterministic = 1;
      S = tutil_rt_new(&opt);
      if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
      if (strcmp(tutil_rt_output(S, NULL), own) != 0)
        fail_msg("%s %d: the state compares otherwise", longs[i].kind,
                 longs[i].n);
      count[run] = lraf_total(S);
      tutil_rt_close(S);
    }
    assert_int_equal(count[0], count[1]);
    free(own);
    free(src);
  }
}

/* Errors: Lua's messages. */
static void test_errors(void **state) {
  static const char *const srcs[] = {
    "local t = {} for i = 1, 90 do t[i] = i % 13 end\n"
    "print(pcall(table.sort, t, function(a, b) return true end))",
    "print(pcall(table.sort, setmetatable({}, {__len = function() "
    "return math.maxinteger end})))",
    "print(pcall(table.sort, {3, 'x', 1}))",
    "print(pcall(table.sort, {3, 2, 1}, 42))",
    "print(pcall(table.sort, 'abc'))",
    "local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end)\n"
    "print(t[1], t[2], t[3])",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    char *lua = plain(srcs[i], 0), *own = plain(srcs[i], 1);
    assert_string_equal(own, lua);
    free(lua);
    free(own);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_lua),
    cmocka_unit_test(test_deterministic),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
