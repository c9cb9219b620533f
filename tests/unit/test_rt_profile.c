/*
** test_rt_profile.c - the lraf_profile_* API and the stock target's
** collector (rt_profile.c): self counts sum to exactly what the state
** counted while the profile ran, calls are counted per function
** (coroutines and callbacks from C included), inclusive counts cover
** the callees; a second start, a start under the host's own debug hook
** and a stop without a start are refused (a script's own hook is not);
** lraf_close frees a running profile.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "lraf.h"
#include "tutil_prof.h"

static const char src[] =
  "local function leaf(n) local s = 0 for i = 1, n do s = s + i end "
  "return s end\n"
  "local function mid(n) return leaf(n) + leaf(1) end\n"
  "for k = 1, 10 do mid(50) end\n"
  "local co = coroutine.wrap(function() for k = 1, 3 do "
  "coroutine.yield(leaf(20)) end end)\n"
  "co() co() co()\n"
  "table.sort({5, 3, 1, 4}, function(a, b) return leaf(1) > 0 and a < b "
  "end)\n";

static void test_counts(void **state) {
  static const struct { int exact; lraf_vm vm; } runs[] = {
    {0, LRAF_VM_DEFAULT}, {1, LRAF_VM_DEFAULT}, {1, LRAF_VM_STOCK},
  };
  size_t r;
  (void)state;
  for (r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    lraf_options opt;
    lraf_profile *P;
    lraf_profile_func leaf, mid, main_;
    int64_t counted, self = 0;
    int i;
    lraf_default_options(&opt);
    opt.exact = runs[r].exact;
    opt.vm = runs[r].vm;
    P = tutil_prof_run(&opt, src, "=p", &counted);
    for (i = 0; i < lraf_profile_functions(P); i++) {
      lraf_profile_func f;
      lraf_profile_function(P, i, &f);
      self += f.self;
    }
    assert_int_equal(self, counted);
    assert_int_equal(lraf_profile_total(P), counted);
    assert_true(tutil_prof_find(P, "leaf", 1, &leaf));
    assert_true(tutil_prof_find(P, "mid", 2, &mid));
    assert_true(tutil_prof_find(P, "main chunk", 0, &main_));
    /* 20 from mid, 3 in the coroutine, one per comparison of the sort */
    assert_true(leaf.calls >= 23 + 3);
    assert_int_equal(mid.calls, 10);
    assert_true(mid.inclusive >= mid.self + 10 * 2 * 50);
    assert_true(leaf.self >= 10 * 2 * 50 + 3 * 2 * 20);
    assert_int_equal(main_.inclusive, counted);
    lraf_profile_free(P);
  }
}

static void host_hook(lua_State *L, lua_Debug *ar) {
  (void)L;
  (void)ar;
}

static void test_refused(void **state) {
  lraf_state *S;
  lraf_profile *P;
  lraf_error err;
  (void)state;
  assert_int_equal(lraf_new(NULL, &S, &err), LRAF_OK);
  assert_int_not_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_EARG);
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  lraf_profile_free(P);
  /* a script's own debug hook shares the thread's hook with the
     collector; the host's own lua_sethook is refused (stock only: the
     lraf VM needs none) */
  assert_int_equal(lraf_run_string(S, "debug.sethook(function() end, 'c')",
                                   "=h", &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  lraf_profile_free(P);
  /* a coroutine the profile followed keeps only the hook it inherited
     from the script's (calls) after it */
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(lraf_run_string(S, "co = coroutine.create(function()\n"
                                   "  coroutine.yield() end)\n"
                                   "coroutine.resume(co)", "=c", &err),
                   LRAF_OK);
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  lraf_profile_free(P);
  assert_int_equal(lua_getglobal(lraf_lua(S), "co"), LUA_TTHREAD);
  assert_int_equal(lua_gethookmask(lua_tothread(lraf_lua(S), -1)),
                   LUA_MASKCALL);
  lua_pop(lraf_lua(S), 1);
  /* the script's hook outlives the profile */
  assert_int_equal(lraf_run_string(S, "local f, m = debug.gethook()\n"
                                   "assert(f and m == 'c')", "=g", &err),
                   LRAF_OK);
  lua_sethook(lraf_lua(S), host_hook, LUA_MASKLINE, 0);
  if (!lraf_vm_builtin())
    assert_int_equal(lraf_profile_start(S, &err), LRAF_EARG);
  lua_sethook(lraf_lua(S), NULL, 0, 0);
  lraf_close(S);
  /* a profile still running when the state closes */
  assert_int_equal(lraf_new(NULL, &S, &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(lraf_run_string(S, "for i = 1, 10 do end", "=r", &err),
                   LRAF_OK);
  lraf_close(S);
  /* ... with the script's hooks still set, on coroutines too, and
     finalizers to run at the close */
  assert_int_equal(lraf_new(NULL, &S, &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(lraf_run_string(S,
      "local n = 0\n"
      "local function h() n = n + 1 end\n"
      "debug.sethook(h, 'crl', 3)\n"
      "co = coroutine.create(function() debug.sethook(h, 'r')\n"
      "  coroutine.yield() end)\n"
      "coroutine.resume(co)\n"
      "setmetatable({}, {__gc = function() n = n + 1 end})\n",
      "=r", &err), LRAF_OK);
  lraf_close(S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_counts),
    cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
