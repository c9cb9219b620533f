/*
** test_rt_pfvm.c - the profiler's collector on the lraf VM build
** (rt_pfvm.c): the VM reports calls and returns itself, so a script's
** own debug hook takes no events away; chunks loaded while the profile
** runs get per-line counts that sum, per function, to its self count;
** functions found through its caches keep their counts when a Proto
** is called from many closures.  Built for stock Lua the tests say so
** and skip.
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

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_own_hook_and_closures),
    cmocka_unit_test(test_lines),
  };
  if (!lraf_vm_builtin())
    printf("test_rt_pfvm: built for stock Lua 5.4, which has no lraf VM "
           "collector: skipped\n");
  return cmocka_run_group_tests(tests, NULL, NULL);
}
