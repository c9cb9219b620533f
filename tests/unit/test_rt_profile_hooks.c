/*
** test_rt_profile_hooks.c - a script's own debug hooks under the stock
** target's profile (rt_profile.c's collector sharing the threads' hook
** with rt_debug.c's dispatcher): the script's hook functions see the
** events that plain lua5.4 gives them (line, call and return, count;
** set mid-run, in coroutines, from outside a coroutine, inherited by a
** new one; gethook's answers), while the profile stays exact: its self
** counts sum to what the state counted, and every function but the
** hooks' has the self count it has when the program sets no hook.  On
** the lraf VM build the programs are rewritten for the stock target,
** whose collector this is.
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

#include "lraf.h"
#include "tutil_prof.h"

/* Each case's body runs after this prelude; it returns the hooks' log.
   With ON 2, sethook is a stand-in that does nothing (defined on line
   2; both choices run the same instructions). */
static const char prelude[] =
  "local sethook = ({debug.sethook, function() end})[ON]\n"
  "local log = {}\n"
  "local function rec(e, l)\n"
  "  local i = debug.getinfo(2, 'S')\n"
  "  log[#log + 1] = e .. (l or (e == 'count' and '' or\n"
  "                              ':' .. i.what .. i.linedefined))\n"
  "end\n"
  "local function work(n) local s = 0\n"
  "  for i = 1, n do s = s + i end\n"
  "  return s end\n"
  "local function note(...) log[#log + 1] = table.concat({...}, ',') end\n";

/* Count hooks are compared with lraf's own unprofiled run: their
   events come where the accounting's count says (docs/security.md),
   which can differ from lua5.4's by an event. */
static const struct hook_case {
  const char *what;
  int count;  /* a count hook: compared with lraf unprofiled, --exact */
  int alone;  /* the hooks change the program's path: its functions are
                 not compared with the unhooked run's */
  const char *body;
} cases[] = {
  {"a line hook set and cleared mid-chunk", 0, 0,
   "sethook(rec, 'l')\n"
   "local s = work(3)\n"
   "for i = 1, 3 do s = s + i end\n"
   "sethook()\n"},
  {"call and return hooks, Lua and C callees", 0, 0,
   "local s = 0\n"
   "sethook(rec, 'cr')\n"
   "s = work(5) + #string.rep('x', 3)\n"
   "s = s + select('#', pcall(work, 2))\n"
   "sethook()\n"},
  {"a count hook", 1, 0,
   "local s = 0\n"
   "sethook(rec, '', 7)\n"
   "for i = 1, 30 do s = s + work(i) end\n"
   "sethook()\n"
   "for i = 1, 30 do s = s + work(i) end\n"},
  {"a line hook with a count", 1, 0,
   "local s = 0\n"
   "sethook(rec, 'l', 50)\n"
   "for i = 1, 5 do s = s + work(i) end\n"
   "sethook()\n"},
  {"hooks in coroutines", 0, 0,
   "local co = coroutine.create(function(n)\n"
   "  sethook(rec, 'cr')\n"
   "  local s = work(n); coroutine.yield(s)\n"
   "  return s + work(n) end)\n"
   "coroutine.resume(co, 3)\n"
   "note('main')\n"
   "coroutine.resume(co, 4)\n"
   "local co2 = coroutine.wrap(function()\n"
   "  for i = 1, 2 do coroutine.yield(work(i)) end end)\n"
   "co2() co2()\n"},
  {"a coroutine's hook set from outside", 0, 0,
   "local co = coroutine.create(function(n)\n"
   "  local s = work(n); coroutine.yield(s); return work(n) + 1 end)\n"
   "sethook(co, rec, 'l')\n"
   "coroutine.resume(co, 2)\n"
   "note('between')\n"
   "coroutine.resume(co, 3)\n"
   "sethook(co)\n"},
  {"gethook, and a coroutine created under a hook", 0, 0,
   "sethook(rec, 'r', 0)\n"
   "local co = coroutine.create(function() return work(4) end)\n"
   "local f, m, c = debug.gethook()\n"
   "note(tostring(f == rec), m, c)\n"
   "f, m, c = debug.gethook(co)\n"
   "note(tostring(f), m, c)\n"
   "coroutine.resume(co)\n"
   "sethook()\n"
   "note(tostring(debug.gethook()))\n"},
  {"an error in a hook function, caught", 0, 1,
   "local armed = true\n"
   "local function boom(e) rec(e) if armed then armed = false\n"
   "  error('boom') end end\n"
   "local ok, msg = pcall(function() sethook(boom, 'c')\n"
   "  return work(2) end)\n"
   "sethook()\n"
   "note(tostring(ok), msg)\n"
   "note(work(3))\n"},
  {"a hook set in a called function, never cleared", 0, 0,
   "local function arm() sethook(rec, 'crl') end\n"
   "arm()\n"
   "local s = 0\n"
   "for i = 1, 4 do s = s + work(i) end\n"},
};

/* The program of case c (malloc'ed). */
static char *program(const struct hook_case *c, int on) {
  size_t n = strlen(prelude) + strlen(c->body) + 64;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, "local ON = %d\n%s%sreturn table.concat(log, ' ')\n",
           on ? 1 : 2, prelude, c->body);
  return s;
}

/* The log of src under plain lua5.4 (malloc'ed). */
static char *plain_log(const char *src) {
  lua_State *L = luaL_newstate();
  char *log;
  assert_non_null(L);
  luaL_openlibs(L);
  if (luaL_loadbuffer(L, src, strlen(src), "=h") != LUA_OK ||
      lua_pcall(L, 0, 1, 0) != LUA_OK)
    fail_msg("lua5.4: %s", lua_tostring(L, -1));
  log = strdup(lua_tostring(L, -1));
  lua_close(L);
  return log;
}

/* src run on the stock target, under a profile when P is set: its log
   (malloc'ed); *P its profile and *counted what the state counted
   meanwhile. */
static char *run_vm(lraf_vm vm, const char *src, int exact,
                    lraf_profile **P, int64_t *counted) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t before;
  char *log;
  lraf_default_options(&opt);
  opt.vm = vm;
  opt.exact = exact;
  if (lraf_new(&opt, &S, &err) != LRAF_OK) fail_msg("%s", err.message);
  before = lraf_total(S);
  if (P != NULL && lraf_profile_start(S, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  if (lraf_load_string(S, src, strlen(src), "=h", &err) != LRAF_OK ||
      lraf_call(S, 0, 1, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  if (P != NULL && lraf_profile_stop(S, P, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  if (counted != NULL) *counted = lraf_total(S) - before;
  log = strdup(lua_tostring(lraf_lua(S), -1));
  lraf_close(S);
  return log;
}

static char *run(const char *src, int exact, lraf_profile **P,
                 int64_t *counted) {
  return run_vm(LRAF_VM_STOCK, src, exact, P, counted);
}

static void test_hooks_and_counts(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof *cases; i++) {
    const struct hook_case *c = &cases[i];
    char *on = program(c, 1), *off = program(c, 0);
    char *want = c->count ? run(on, 1, NULL, NULL) : plain_log(on);
    char *got, *quiet;
    int64_t counted, selfsum;
    lraf_profile *P, *Q;
    got = run(on, c->count, &P, &counted);
    quiet = run(off, c->count, &Q, NULL);
    /* (a) the script's hooks saw what lua5.4's see (count hooks: what
       they see unprofiled) */
    if (strcmp(got, want) != 0)
      fail_msg("%s: the hooks saw\n  %s\n%s\n  %s", c->what, got,
               c->count ? "unprofiled" : "lua5.4's", want);
    if (strlen(want) == 0 || strcmp(quiet, want) == 0)
      fail_msg("%s: no hook events to compare", c->what);
    /* (b) the profile is exact, the hooks' instructions in their own
       frames */
    selfsum = tutil_prof_lines(P, c->what);
    if (lraf_profile_total(P) != counted || selfsum != counted)
      fail_msg("%s: total %lld, self counts %lld, counted %lld", c->what,
               (long long)lraf_profile_total(P), (long long)selfsum,
               (long long)counted);
    tutil_prof_roots(P, " (h:", c->what);
    if (!c->alone) tutil_prof_same(P, Q, 2, c->what);
    lraf_profile_free(P);
    lraf_profile_free(Q);
    free(on);
    free(off);
    free(want);
    free(got);
    free(quiet);
  }
}

/* The hook function is a frame named "hook" (as lua5.4 names its call)
   under the frame it ran for, with the same counts as the lraf VM's
   collector gives it (on the lraf VM build). */
static void test_hook_frame(void **state) {
  static const char src[] =
    "local function work(n) local s = 0\n"
    "  for i = 1, n do s = s + i end\n"
    "  return s end\n"
    "local n = 0\n"
    "debug.sethook(function() n = n + 1 end, 'c')\n"
    "for i = 1, 10 do work(i) end\n"
    "debug.sethook()\n"
    "return tostring(n)\n";
  static const lraf_vm vms[] = {LRAF_VM_STOCK, LRAF_VM_DEFAULT};
  lraf_profile_func first;
  size_t v;
  (void)state;
  for (v = 0; v < (lraf_vm_builtin() ? 2u : 1u); v++) {
    lraf_profile *P;
    lraf_profile_func hook, work;
    char *log, *folded;
    int64_t counted;
    log = run_vm(vms[v], src, 0, &P, &counted);
    assert_true(tutil_prof_find(P, "hook", 5, &hook));
    assert_true(tutil_prof_find(P, "work", 1, &work));
    /* the calls of work and of sethook (the second) */
    assert_int_equal(hook.calls, atoi(log));
    assert_true(hook.calls >= 11);
    assert_true(hook.self > 0);
    if (v == 0) first = hook;
    assert_int_equal(hook.self, first.self);
    assert_int_equal(hook.calls, first.calls);
    folded = tutil_prof_text(P, "folded");
    assert_non_null(strstr(folded, "work (h:1);hook (h:5) "));
    free(folded);
    free(log);
    lraf_profile_free(P);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hooks_and_counts),
    cmocka_unit_test(test_hook_frame),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
