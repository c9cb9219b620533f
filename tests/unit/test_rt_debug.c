/*
** test_rt_debug.c - the debug library blind to the accounting
** (rt_debug.c): on the stock target, where every rewritten function
** carries two upvalues and one register more, getinfo, getupvalue,
** setupvalue, upvalueid, upvaluejoin, getlocal, setlocal and traceback
** show what lua5.4 shows for the unmodified function, and no call
** reaches lraf's counter or consume.  Each case prints what it sees;
** lraf (stock target, default and exact modes) must print what plain
** Lua prints.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_rt.h"
#include "tutil_run.h"

static const char *const cases[] = {
  /* nups and the upvalues of a closure and of a function without any */
  "local a, b = 1, 2\n"
  "local function f() return a + b end\n"
  "local function g() return 1 end\n"
  "print(debug.getinfo(f, 'u').nups, debug.getinfo(g, 'u').nups)\n"
  "for i = 1, 4 do print(debug.getupvalue(f, i)) end\n"
  "print(debug.getupvalue(g, 1))\n",
  /* setupvalue, upvalueid and upvaluejoin in range and beyond */
  "local a, b = 1, 2\n"
  "local function f() return a end\n"
  "local function g() return b end\n"
  "print(debug.setupvalue(f, 1, 10), a, debug.setupvalue(f, 2, 0))\n"
  "print(pcall(debug.upvalueid, f, 2))\n"
  "debug.upvaluejoin(f, 1, g, 1) print(f())\n"
  "print(pcall(debug.upvaluejoin, f, 2, g, 1))\n",
  /* locals, temporaries and the varargs of a running function */
  "local function f(x, ...)\n"
  "  local y = x * 2\n"
  "  for i = 1, 8 do local n, v = debug.getlocal(1, i)\n"
  "    print(i, n, v) end\n"
  "  print(debug.getlocal(1, -1), debug.getlocal(1, -2))\n"
  "  print(debug.setlocal(1, 2, 99), y)\n"
  "end\n"
  "f(3, 'va', 'vb')\n",
  /* parameters of a function value */
  "print(debug.getlocal(function(p, q) local r end, 1),\n"
  "      debug.getlocal(function(p, q) local r end, 3))\n",
  /* getinfo fields that counting could change */
  "local function f(a, b, ...) return debug.getinfo(1, 'Slnu') end\n"
  "local i = f()\n"
  "print(i.nparams, i.isvararg, i.linedefined, i.lastlinedefined,\n"
  "      i.currentline, i.short_src, i.what, i.name)\n",
  /* a traceback */
  "local function inner() return debug.traceback('here', 1) end\n"
  "local function outer() return (inner()) end\n"
  "print(outer())\n",
};

static void test_like_lua(void **state) {
  static const int exact[] = {0, 1};
  size_t i, m;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tutil_run lua;
    tutil_run_hook(cases[i], strlen(cases[i]), "=d", &lua);
    assert_true(lua.ok);
    for (m = 0; m < 2; m++) {
      lraf_options opt;
      lraf_state *S;
      lraf_error err;
      const char *out;
      lraf_default_options(&opt);
      opt.vm = LRAF_VM_STOCK;
      opt.exact = exact[m];
      S = tutil_rt_new(&opt);
      if (lraf_load_string(S, cases[i], strlen(cases[i]), "=d", &err) !=
              LRAF_OK ||
          lraf_call(S, 0, 0, &err) != LRAF_OK)
        fail_msg("case %zu: %s", i, err.message);
      out = tutil_rt_output(S, NULL);
      if (strcmp(out, lua.output) != 0)
        fail_msg("case %zu exact %d:\nlraf: %slua:  %s", i, exact[m], out,
                 lua.output);
      tutil_rt_close(S);
    }
    tutil_run_free(&lua);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_lua),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
