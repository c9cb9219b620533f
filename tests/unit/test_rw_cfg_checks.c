/*
** test_rw_cfg_checks.c - where the zero checks go (rw_cfg.c): every way
** to run forever passes one: loops of every form, gotos (including
** irreducible flow), recursion and tail calls all reach consume(), so a
** quota can stop them.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tutil_run.h"

static const char *const runaways[] = {
  "while true do end",
  "repeat local x = 1 until false",
  "for i = 1, math.maxinteger do end",
  "for i = 1.0, math.huge do end",
  "for _ in function() return 1 end do end",
  "local t = setmetatable({}, {__index = function(t, k) return k end})\n"
  "for k, v in ipairs(t) do end",
  "::top:: goto top",
  "local n = 0\n::a:: n = n + 1\nif n % 2 == 0 then goto b end\ngoto a\n::b:: goto a",
  "goto b\n::a:: do local x = 1 end\n::b:: if true then goto a end",
  "local function f() return f() end\nf()",
  "local function f(n) f(n + 1) return n end\nf(1)",
  "local co = coroutine.wrap(function() while true do coroutine.yield() end end)\n"
  "while true do co() end",
  "local t = setmetatable({}, {__add = function(a, b) while true do end end})\n"
  "local x = t + 1",
  "local s = string.gsub(string.rep('a', 10), 'a', function() while true do end end)",
  "pcall(function() while true do end end) while true do end",
};

static void test_runaways_reach_consume(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof runaways / sizeof runaways[0]; i++) {
    int exact;
    for (exact = 0; exact <= 1; exact++) {
      tutil_run r;
      rw_options opt;
      rw_default_options(&opt);
      opt.exact = exact;
      tutil_run_consume_limit = 50;
      tutil_run_rewritten(runaways[i], strlen(runaways[i]), "=runaway",
                          &opt, 100, 0, &r);
      tutil_run_consume_limit = 0;
      if (r.ok || r.consumes < 50)
        fail_msg("runaway %zu (%s) ran with only %lld consume calls: %s", i,
                 runaways[i], r.consumes, r.ok ? "finished" : r.error);
      tutil_run_free(&r);
    }
  }
}

/* Between two checks a function runs at most its longest loop-free path,
   so a leaf loop with granularity g overshoots by less than one body. */
static void test_check_spacing(void **state) {
  const char *src = "local s = 0 for i = 1, 100000 do s = s + i end";
  tutil_run r;
  rw_options opt;
  (void)state;
  rw_default_options(&opt);
  tutil_run_rewritten(src, strlen(src), "=loop", &opt, 10, 0, &r);
  assert_true(r.ok);
  /* ~400000 instructions at granularity 10: one consume per 10 or so */
  assert_true(r.consumes >= r.count / 14);
  tutil_run_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_runaways_reach_consume),
    cmocka_unit_test(test_check_spacing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
