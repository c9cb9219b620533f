/*
** test_rt_alloc_limit.c - the per-state allocator: memory bombs built
** from table growth, string concatenation, string.rep and coroutines are
** stopped by the memory limit with LRAF_EMEMLIMIT; pcall, xpcall,
** coroutine.wrap/resume and __gc cannot swallow the stop; the state's
** peak stays within the limit; the host survives and the state runs code
** again; bytes are attributed to the account of the thread that
** allocated them; `lraf run --memory-limit` exits with 4 and reports
** "memory" and memory_peak.  (make test runs this under ASan: no leaks.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lua.h>

#include "tutil_rt.h"
#include "tutil_run.h"
#include "tutil_sh.h"

#define LIMIT (8u << 20)

static lraf_state *limited(size_t limit, int native) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.memory_limit = limit;
  opt.native = native;
  return tutil_rt_new(&opt);
}

static const char *const bombs[][2] = {
  {"table growth", "local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end"},
  {"table growth under pcall",
   "local t = {} while true do pcall(function() for i = 1, 1e9 do t[#t + 1] = {i} end end) end"},
  {"string doubling", "local s = 'x' while true do s = s .. s end"},
  {"string doubling under pcall",
   "local ok, e = pcall(function() local s = 'x' while true do s = s .. s end end) escaped = true"},
  {"strings kept", "local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end"},
  {"string.rep 1e9", "local ok = pcall(string.rep, 'x', 1e9) escaped = true"},
  {"table.concat", "local t = {} for i = 1, 1e5 do t[i] = ('y'):rep(1000) end "
                   "while true do t[#t + 1] = table.concat(t) end"},
  {"coroutines", "local cs = {} while true do local co = coroutine.create("
                 "function() coroutine.yield() end) coroutine.resume(co) "
                 "cs[#cs + 1] = co end"},
  {"coroutine.wrap swallows",
   "while true do pcall(coroutine.wrap(function() local t = {} "
   "for i = 1, 1e9 do t[i] = {} end end)) end"},
  {"xpcall handler swallows",
   "local keep = {} xpcall(function() for i = 1, 1e9 do keep[i] = {} end end, "
   "function() return 'fine' end) escaped = true"},
  {"resume returns the error",
   "local keep = {} local ok = coroutine.resume(coroutine.create(function() "
   "for i = 1, 1e9 do keep[i] = {} end end)) escaped = true"},
  {"__gc allocates",
   "local keep = {} setmetatable({}, {__gc = function() for i = 1, 1e9 do "
   "keep[i] = {} end end}) collectgarbage() for i = 1, 1e9 do keep[#keep + 1] = {} end"},
  {"load of a huge chunk",
   "local keep = {} local f = load(function() keep[#keep + 1] = ('x = 1 '):rep(1000) "
   "return keep[#keep] end) escaped = true"},
};

static void test_bombs(void **state) {
  size_t i;
  int native;
  (void)state;
  for (native = 0; native <= 1; native++)
    for (i = 0; i < sizeof bombs / sizeof *bombs; i++) {
      lraf_state *S = limited(LIMIT, native);
      lua_State *L = lraf_lua(S);
      lraf_error err;
      size_t used, peak;
      lraf_status st = tutil_rt_run(S, bombs[i][1], &err);
      if (st != LRAF_EMEMLIMIT)
        fail_msg("%s: status %s (%s)", bombs[i][0], lraf_status_name(st),
                 err.message);
      {  /* the limit, as the command line says it */
        char want[64];
        snprintf(want, sizeof want, "memory limit exceeded (limit %zu bytes)",
                 (size_t)LIMIT);
        if (strncmp(err.message, want, strlen(want)) != 0)
          fail_msg("%s: '%s'", bombs[i][0], err.message);
      }
      lraf_memory(S, &used, &peak);
      if (peak > LIMIT) fail_msg("%s: peak %zu over the limit", bombs[i][0], peak);
      lua_getglobal(L, "escaped");
      if (!lua_isnil(L, -1)) fail_msg("%s: code ran after the stop", bombs[i][0]);
      lua_pop(L, 1);
      /* the host survives: the state runs code again */
      lua_gc(L, LUA_GCCOLLECT, 0);
      st = tutil_rt_run(S, "after = 1 + 1", &err);
      if (st != LRAF_OK)
        fail_msg("%s: state unusable: %s", bombs[i][0], err.message);
      tutil_rt_close(S);
    }
  printf("  %d memory bombs stopped (with and without native charging)\n",
         (int)(sizeof bombs / sizeof *bombs));
}

/* Without a limit nothing changes; in_use and peak follow the heap. */
static void test_accounting(void **state) {
  lraf_state *S = limited(0, 0);
  lraf_error err;
  size_t used0, used1, peak;
  int64_t main_alloc, main_peak;
  lraf_account *co_acct = NULL;
  (void)state;
  lraf_memory(S, &used0, &peak);
  assert_true(used0 > 0 && peak >= used0);
  assert_int_equal(tutil_rt_run(S, "big = ('x'):rep(1 << 20)", &err), LRAF_OK);
  lraf_memory(S, &used1, &peak);
  assert_true(used1 >= used0 + (1u << 20));
  assert_int_equal(tutil_rt_run(S, "big = nil collectgarbage()", &err),
                   LRAF_OK);
  lraf_memory(S, &used1, NULL);
  assert_true(used1 < used0 + (1u << 19));
  assert_true(peak >= used0 + (1u << 20));
  /* a coroutine's allocations go to its account */
  lraf_account_memory(lraf_main_account(S), &main_alloc, &main_peak);
  assert_int_equal(tutil_rt_run(S,
                   "co = coroutine.create(function() local t = {} "
                   "for i = 1, 1e5 do t[i] = i end coroutine.yield(t) end) "
                   "coroutine.resume(co)", &err), LRAF_OK);
  lua_getglobal(lraf_lua(S), "co");
  co_acct = lraf_thread_account(S, lua_tothread(lraf_lua(S), -1));
  assert_non_null(co_acct);
  {
    int64_t a, p, m2;
    lraf_account_memory(co_acct, &a, &p);
    assert_true(a >= 100000 * 8);
    assert_true(p > 0);
    lraf_account_memory(lraf_main_account(S), &m2, NULL);
    assert_true(m2 - main_alloc < a / 4);
  }
  lua_pop(lraf_lua(S), 1);
  tutil_rt_close(S);
}

/* lraf run --memory-limit: one line on stderr, exit 4, JSON report. */
static void test_cli(void **state) {
  tutil_sh sh;
  char path[160];
  size_t len;
  char *text;
  (void)state;
  assert_int_equal(tutil_sh_init(&sh, "mem"), 0);
  assert_int_equal(tutil_sh_write(&sh, "bomb.lua", "local t = {} while true "
                                  "do t[#t + 1] = ('x'):rep(1000) .. #t end\n"),
                   0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 4000000 "
                                     "--report r.json bomb.lua"), 4);
  text = tutil_run_slurp(sh.err, &len);
  assert_non_null(text);
  assert_string_equal(text, "lraf: memory limit exceeded (limit 4000000 "
                      "bytes) at bomb.lua:1: in main chunk\n");
  free(text);
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  text = tutil_run_slurp(path, &len);
  assert_non_null(text);
  assert_non_null(strstr(text, "\"status\": \"memory\""));
  assert_non_null(strstr(text, "\"exit_code\": 4"));
  assert_non_null(strstr(text, "\"memory_limit\": 4000000"));
  {
    const char *p = strstr(text, "\"memory_peak\": ");
    long long peak;
    assert_non_null(p);
    peak = atoll(p + strlen("\"memory_peak\": "));
    assert_true(peak > 3000000 && peak <= 4000000);
  }
  free(text);
  assert_int_equal(tutil_sh_cleanup(&sh), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bombs),
    cmocka_unit_test(test_accounting),
    cmocka_unit_test(test_cli),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
