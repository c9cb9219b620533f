/*
** test_rt_dump.c - string.dump and the binary chunks it makes
** (rt_dump.c): for every function a script makes - nested, with
** upvalues, made by load, the main chunk - string.dump returns the
** bytes lua5.4 returns for the unmodified function, stripped or not;
** the full environment loads back exactly those bytes (and counts what
** they run), and refuses a dump made elsewhere or changed by one byte;
** the sandbox refuses every binary chunk.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "lraf.h"
#include "tutil_rt.h"

static const char prelude[] =
  "local up = 5\n"
  "local function nested(a) local t = {} for i = 1, a do t[i] = i + up end\n"
  "  return #t end\n"
  "local function outer() return function(x) return x * up end end\n"
  "local made = load('local a = ... return a + 1')\n"
  "local function plain(a) local s = 0 for i = 1, a do s = s + i end\n"
  "  return s end\n"
  "local main = debug and debug.getinfo(1, 'f').func\n";

/* Each case returns the dump of one function. */
static const char *const dumps[] = {
  "return string.dump(nested)",
  "return string.dump(nested, true)",
  "return string.dump(plain)",
  "return string.dump(outer())",
  "return string.dump(outer(), true)",
  "return string.dump(made)",
  "return string.dump(main)",
};

static char *source(const char *tail) {
  size_t n = strlen(prelude) + strlen(tail) + 1;
  char *s = malloc(n);
  assert_non_null(s);
  strcpy(s, prelude);
  strcat(s, tail);
  return s;
}

/* The dump plain Lua makes, as a malloc'ed buffer. */
static char *lua_bytes(const char *src, size_t *len) {
  lua_State *L = luaL_newstate();
  const char *s;
  char *copy;
  luaL_openlibs(L);
  if (luaL_loadbuffer(L, src, strlen(src), "=d") != LUA_OK ||
      lua_pcall(L, 0, 1, 0) != LUA_OK)
    fail_msg("%s", lua_tostring(L, -1));
  s = lua_tolstring(L, -1, len);
  copy = malloc(*len);
  assert_non_null(copy);
  memcpy(copy, s, *len);
  lua_close(L);
  return copy;
}

static void test_like_lua(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof dumps / sizeof dumps[0]; i++) {
    char *src = source(dumps[i]);
    size_t want_len, len;
    char *want = lua_bytes(src, &want_len);
    lraf_state *S = tutil_rt_new(NULL);
    lraf_error err;
    const char *got;
    assert_int_equal(lraf_load_string(S, src, strlen(src), "=d", &err),
                     LRAF_OK);
    if (lraf_call(S, 0, 1, &err) != LRAF_OK) fail_msg("%s", err.message);
    got = lua_tolstring(lraf_lua(S), -1, &len);
    if (len != want_len || memcmp(got, want, len) != 0)
      fail_msg("case %zu: %zu bytes, lua5.4 %zu", i, len, want_len);
    tutil_rt_close(S);
    free(want);
    free(src);
  }
}

/* Loading binary chunks back: own dumps in full only, exact bytes. */
static void test_load_policy(void **state) {
  static const char tail[] =
    "local d = string.dump(plain)\n"
    "local f = load(d)\n"
    "print(f and f(3))\n"
    "local bad = d:sub(1, 40) .. string.char((d:byte(41) + 1) % 256) "
    ".. d:sub(42)\n"
    "print(load(bad))\n"
    "print(load(foreign))\n"
    "print(load(d, 'd', 't'))\n";
  static const struct {
    lraf_env env;
    const char *out;  /* prefix of each line */
  } cases[] = {
    {LRAF_ENV_FULL, "6\nnil\t"},
    {LRAF_ENV_SANDBOX, "nil\nnil\t"},
  };
  size_t i, flen;
  char *src = source(tail);
  char *foreign = lua_bytes("return string.dump(function() return 1 end)",
                            &flen);
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    const char *out;
    lraf_default_options(&opt);
    opt.env = cases[i].env;
    S = tutil_rt_new(&opt);
    lua_pushlstring(lraf_lua(S), foreign, flen);
    lua_setglobal(lraf_lua(S), "foreign");
    if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
    out = tutil_rt_output(S, NULL);
    if (strncmp(out, cases[i].out, strlen(cases[i].out)) != 0)
      fail_msg("case %zu: %s", i, out);
    /* every refusal is a message, four of them in full, four in the
       sandbox (where even the own dump is refused) */
    {
      const char *p = out;
      int nils = 0;
      while ((p = strstr(p, "nil\t")) != NULL) nils++, p++;
      assert_int_equal(nils, 3);
    }
    assert_non_null(strstr(out, "attempt to load a binary chunk"));
    tutil_rt_close(S);
  }
  free(foreign);
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_lua),
    cmocka_unit_test(test_load_policy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
