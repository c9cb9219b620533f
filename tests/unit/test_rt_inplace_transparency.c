/*
** test_rt_inplace_transparency.c - on the lraf VM, rewritten code looks to the
** debug library and to string.format("%p") exactly as the unmodified
** code does under plain Lua: debug.getinfo(f).nups, debug.getupvalue,
** debug.getlocal (also inside a metamethod stub's error path), and the
** identity of a long string constant shared by two functions, which
** rewriting in memory keeps.  Each script prints what it sees; lraf
** (default and exact modes, in memory) must print what plain Lua
** prints.  Built for the stock target (whose functions carry two more
** upvalues, see docs/security.md) the tests are skipped.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tutil_rt.h"
#include "tutil_run.h"

static void same_as_lua(const char *name, const char *src) {
  tutil_run plain;
  int exact;
  tutil_run_hook(src, strlen(src), "=test", &plain);  /* tutil_rt_run's */
  if (!plain.ok) fail_msg("%s under plain Lua: %s", name, plain.error);
  for (exact = 0; exact <= 1; exact++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    const char *out;
    size_t len;
    lraf_default_options(&opt);
    opt.exact = exact;
    S = tutil_rt_new(&opt);
    if (tutil_rt_run(S, src, &err) != LRAF_OK)
      fail_msg("%s under lraf: %s", name, err.message);
    out = tutil_rt_output(S, &len);
    if (len != plain.outlen || memcmp(out, plain.output, len) != 0)
      fail_msg("%s (%s): lraf printed\n%s\nplain Lua printed\n%s", name,
               exact ? "exact" : "default", out, plain.output);
    tutil_rt_close(S);
  }
  printf("  %-22s %s", name, plain.output);
  tutil_run_free(&plain);
}

static int setup(void **state) {
  (void)state;
  return 0;
}

static void need_vm(void) {
  if (!lraf_vm_builtin()) {
    printf("  SKIP: built for stock Lua 5.4 (make vm for the lraf VM)\n");
    skip();
  }
}

static void test_nups(void **state) {
  (void)state;
  need_vm();
  same_as_lua("nups",
    "local a, b = 1, 2\n"
    "local function f() return a + b end\n"
    "local function g() return 1 end\n"
    "print(debug.getinfo(f).nups, debug.getinfo(g).nups,\n"
    "      debug.getinfo(1, 'u').nups, debug.getinfo(print).nups)\n");
}

static void test_getupvalue(void **state) {
  (void)state;
  need_vm();
  same_as_lua("getupvalue",
    "local up1, up2 = 'x', 42\n"
    "local function f() return up1 .. up2 end\n"
    "local i, names = 1, {}\n"
    "while true do\n"
    "  local n, v = debug.getupvalue(f, i)\n"
    "  if n == nil then break end\n"
    "  names[#names + 1] = n .. '=' .. tostring(v); i = i + 1\n"
    "end\n"
    "print(table.concat(names, ' '), debug.getupvalue(f, 3))\n"
    "print(debug.setupvalue(f, 2, 7), f())\n");
}

static void test_getlocal(void **state) {
  (void)state;
  need_vm();
  same_as_lua("getlocal",
    "local function locals(level)\n"
    "  local t, i = {}, 1\n"
    "  while true do\n"
    "    local n, v = debug.getlocal(level + 1, i)\n"
    "    if n == nil then break end\n"
    "    t[#t + 1] = n .. '=' .. (type(v) == 'number' and v or type(v))\n"
    "    i = i + 1\n"
    "  end\n"
    "  return table.concat(t, ' ')\n"
    "end\n"
    "local function f(p, q, ...)\n"
    "  local r = p + q\n"
    "  for k = 1, 2 do local s = k * r; if k == 2 then print(locals(1)) end end\n"
    "  return debug.getlocal(1, -1)\n"
    "end\n"
    "print(f(1, 2, 'va'))\n"
    "local mt = {__add = function(a, b) print(locals(2)); return 0 end}\n"
    "local function g(x) local y = setmetatable({}, mt); return y + x end\n"
    "print(g(3))\n"
    "print(pcall(function() local z = {} ; return z + 1 end))\n");
}

static void test_string_identity(void **state) {
  (void)state;
  need_vm();
  same_as_lua("string identity",
    "local function a() return "
    "'0123456789012345678901234567890123456789012345678X' end\n"
    "local function b() return "
    "'0123456789012345678901234567890123456789012345678X' end\n"
    "print(string.format('%p', a()) == string.format('%p', b()))\n"
    "local s = a()\n"
    "print(string.format('%p', s) == string.format('%p', a()))\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_nups),
    cmocka_unit_test(test_getupvalue),
    cmocka_unit_test(test_getlocal),
    cmocka_unit_test(test_string_identity),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
