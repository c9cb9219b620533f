/*
** test_rt_pfvm.c - the profiler's collector on the lraf VM build
** (rt_pfvm.c): the VM reports calls and returns itself, so a script's
** own debug hook takes no events away; chunks loaded while the profile
** runs get per-line counts that sum, per function, to its self count;
** functions found through its caches keep their counts when a Proto
** is called from many closures; a script that sets and clears its own
** call and return hooks anywhere (in a called function, in coroutines,
** never cleared) keeps its instructions in its own frames.  Built for
** stock Lua the tests say so and skip.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_prof.h"

static const char src[] =
  "debug.sethook(function() end, 'cr')\n"
  "local function leaf(n) local s = 0\n"
  "  for i = 1, n do\n"
  "    s = s + i\n"
  "  end\n"
  "  return s end\n"
  "local fs = {}\n"
  "for k = 1, 40 do fs[k] = function() return leaf(k) end end\n"
  "for k = 1, 40 do fs[k]() end\n"
  "debug.sethook()\n";

static void test_own_hook_and_closures(void **state) {
  lraf_profile *P;
  lraf_profile_func leaf, clo;
  int64_t counted;
  (void)state;
  if (!lraf_vm_builtin()) skip();
  P = tutil_prof_run(NULL, src, "=v", &counted);
  assert_int_equal(lraf_profile_total(P), counted);
  assert_true(tutil_prof_find(P, "leaf", 2, &leaf));
  assert_int_equal(leaf.calls, 40);
  /* forty closures of one Proto: one function */
  assert_true(tutil_prof_find(P, "?", 8, &clo));
  assert_int_equal(clo.calls, 40);
  lraf_profile_free(P);
}

/* Per-line counts in the JSON output: leaf's lines sum to its self. */
static void test_lines(void **state) {
  lraf_options opt;
  lraf_profile *P;
  lraf_profile_func leaf;
  char *json;
  (void)state;
  if (!lraf_vm_builtin()) skip();
  lraf_default_options(&opt);
  opt.exact = 1;
  P = tutil_prof_run(&opt, src, "=v", NULL);
  assert_true(tutil_prof_find(P, "leaf", 2, &leaf));
  json = tutil_prof_text(P, "json");
  {
    /* leaf's lines: the loop body (line 4) runs 820 times (1 + ... +
       40), one instruction each; together they are leaf's self count */
    const char *p = strstr(json, "\"name\": \"leaf\"");
    long long sum = 0, line, n;
    int seen4 = 0;
    assert_non_null(p);
    p = strstr(p, "\"lines\": [");
    assert_non_null(p);
    p += strlen("\"lines\": [");
    while (sscanf(p, "[%lld, %lld]", &line, &n) == 2) {
      sum += n;
      if (line == 4) seen4 = n == 820;
      p = strchr(p, ']') + 1;
      if (*p == ',') p += 2;
    }
    assert_true(seen4);
    assert_int_equal(sum, leaf.self);
  }
  free(json);
  lraf_profile_free(P);
}

/* ---- a script's own hooks ---- */

/* Each program runs twice: with 'on' true its sethook is debug.sethook,
   else a function that does nothing.  The hooks' functions run only in
   their own frames, so every other function's self count is the same
   in both runs. */
static const struct hook_case {
  const char *what, *src;
} hook_cases[] = {
  {"set and cleared mid-chunk",
   "sethook(function() end, 'cr')\n"
   "local s = 0\n"
   "for i = 1, 100 do s = s + i end\n"
   "sethook()\n"},
  {"set in a called function",
   "local function arm()\n"
   "  sethook(function() end, 'cr') end\n"
   "arm()\n"
   "local s = work(100)\n"
   "for i = 1, 50 do s = s + work(i) end\n"
   "sethook()\n"},
  {"never cleared, with line and count hooks",
   "sethook(function(e) return e end, 'crl', 7)\n"
   "local s = 0\n"
   "for i = 1, 30 do s = s + work(i) end\n"
   "for i = 1, 100 do s = s + i end\n"},
  {"coroutines with their own hooks",
   "local co = coroutine.create(function(n)\n"
   "  sethook(function() end, 'cr')\n"
   "  local s = work(n); coroutine.yield(s); s = s + work(n)\n"
   "  for i = 1, n do s = s + i end\n"
   "  return s end)\n"
   "coroutine.resume(co, 50)\n"
   "local w = coroutine.wrap(function() for i = 1, 20 do\n"
   "  coroutine.yield(work(i)) end end)\n"
   "local co2 = coroutine.running()\n"
   "w()\n"
   "coroutine.resume(co, 60)\n"
   "for i = 1, 19 do w() end\n"
   "local s = 0\n"
   "for i = 1, 100 do s = s + i end\n"},
  {"a thread's hook set from outside",
   "local co = coroutine.create(function(n)\n"
   "  local s = work(n); coroutine.yield(s); return work(n) + 1 end)\n"
   "sethook(co, function() end, 'cr')\n"
   "coroutine.resume(co, 50)\n"
   "sethook(function() end, 'r')\n"
   "coroutine.resume(co, 70)\n"
   "local s = 0\n"
   "for i = 1, 100 do s = s + i end\n"
   "sethook()\n"},
};

static char *hook_program(const char *body, int on) {
  static const char fmt[] =
    "local sethook = %s and debug.sethook or function() end\n"
    "local function work(n) local s = 0\n"
    "  for i = 1, n do s = s + i end\n"
    "  return s end\n"
    "%s";
  size_t n = sizeof fmt + strlen(body) + 8;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, fmt, on ? "true" : "false", body);
  return s;
}

static void test_own_hooks(void **state) {
  size_t i;
  (void)state;
  if (!lraf_vm_builtin()) skip();
  for (i = 0; i < sizeof hook_cases / sizeof *hook_cases; i++) {
    const struct hook_case *c = &hook_cases[i];
    char *on = hook_program(c->src, 1), *off = hook_program(c->src, 0);
    lraf_profile *P, *Q;
    int64_t counted;
    P = tutil_prof_run(NULL, on, "=h", &counted);
    Q = tutil_prof_run(NULL, off, "=h", NULL);
    if (lraf_profile_total(P) != counted ||
        tutil_prof_lines(P, c->what) != counted)
      fail_msg("%s: total %lld, self counts %lld, counted %lld", c->what,
               (long long)lraf_profile_total(P),
               (long long)tutil_prof_lines(P, c->what), (long long)counted);
    tutil_prof_roots(P, " (h:", c->what);
    /* the script's own functions: what they ran without the hooks */
    tutil_prof_same(P, Q, 1, c->what);
    lraf_profile_free(P);
    lraf_profile_free(Q);
    free(on);
    free(off);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_own_hook_and_closures),
    cmocka_unit_test(test_lines),
    cmocka_unit_test(test_own_hooks),
  };
  if (!lraf_vm_builtin())
    printf("test_rt_pfvm: built for stock Lua 5.4, which has no lraf VM "
           "collector: skipped\n");
  return cmocka_run_group_tests(tests, NULL, NULL);
}
