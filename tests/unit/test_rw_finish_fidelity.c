/*
** test_rw_finish_fidelity.c - rewritten code behaves as the original
** does to a program's observer, through the line information and local
** variables that rw_finish.c makes the function's own and the names that
** rw_names.c keeps: error messages with the same lines and variable
** names, tracebacks, debug.getinfo lines; and the rewriter's limits give
** clear errors.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"

static void same_behaviour(const char *src) {
  tutil_run hook, rw;
  rw_options opt;
  int exact;
  for (exact = 0; exact <= 1; exact++) {
    rw_default_options(&opt);
    opt.exact = exact;
    tutil_run_hook(src, strlen(src), "=prog", &hook);
    tutil_run_rewritten(src, strlen(src), "=prog", &opt, 1000, 0, &rw);
    assert_int_equal(hook.ok, rw.ok);
    if (!hook.ok) assert_string_equal(hook.error, rw.error);
    if (hook.outlen != rw.outlen ||
        (hook.outlen && memcmp(hook.output, rw.output, hook.outlen) != 0))
      fail_msg("output differs:\n--- original\n%s\n--- rewritten\n%s",
               hook.output ? hook.output : "", rw.output ? rw.output : "");
    if (exact) assert_int_equal(hook.count, rw.count);
    tutil_run_free(&hook);
    tutil_run_free(&rw);
  }
}

/* Arithmetic errors are raised on the metamethod stubs: their messages
   must still name the operand and give the right line. */
static void test_arith_error_names(void **state) {
  (void)state;
  same_behaviour(
      "local function try(f, ...) print(select(2, pcall(f, ...))) end\n"
      "local up = {}\n"
      "g = nil\n"
      "local t = {f = 'x'}\n"
      "try(function(a) return a + 1 end)\n"
      "try(function() local x; local y = 2; return y * x end)\n"
      "try(function() return g - 3 end)\n"
      "try(function() return t.f // 2 end)\n"
      "try(function() return up % 2 end)\n"
      "try(function() return t.missing ^ 2 end)\n"
      "try(function() return 1.5 | 1 end)\n"
      "try(function(a, b) return a & b end, 1, 2.5)\n"
      "try(function() local s = 'abc'; return s + 1 end)\n"
      "try(function() return 10 // 0 end)\n"
      "try(function() return -{} end)\n"
      "try(function() return #nil end)\n"
      "try(function() return t[1][2] end)\n"
      "try(function() return ('10' + 5) .. '|' .. ('3' * '4') end)\n"
      "try(function() return nofunc() end)\n"
      "try(function() return t:nomethod() end)\n");
}

static void test_tracebacks_and_lines(void **state) {
  (void)state;
  same_behaviour(
      "local function lvl3() error('deep') end\n"
      "local function lvl2() for i = 1, 3 do if i == 3 then lvl3() end end end\n"
      "local function lvl1()\n"
      "  local ok, msg = xpcall(lvl2, debug.traceback)\n"
      "  print(msg)\n"
      "end\n"
      "lvl1()\n"
      "local function where() return debug.getinfo(2, 'l').currentline end\n"
      "local a = where()\n"
      "\n\n\n"
      "local b = where()\n"
      "print(a, b)\n"
      "local info = debug.getinfo(lvl2, 'SL')\n"
      "local lines = {}\n"
      "for l in pairs(info.activelines) do lines[#lines + 1] = l end\n"
      "table.sort(lines)\n"
      "print(info.linedefined, info.lastlinedefined, table.concat(lines, ','))\n"
      "print(pcall(error, setmetatable({}, {__tostring = function() return 'obj' end})))\n"
      "local co = coroutine.create(function() local x = nil; return x.y end)\n"
      "print(coroutine.resume(co))\n"
      "print(debug.traceback(co))\n");
}

static void test_locals_visible(void **state) {
  (void)state;
  same_behaviour(
      "local function f(a, b)\n"
      "  local c = a + b\n"
      "  for i = 1, 2 do\n"
      "    local d = i * c\n"
      "    local names = {}\n"
      "    local k = 1\n"
      "    while true do\n"
      "      local n = debug.getlocal(1, k)\n"
      "      if not n then break end\n"
      "      names[#names + 1] = n\n"
      "      k = k + 1\n"
      "    end\n"
      "    print(table.concat(names, ' '))\n"
      "  end\n"
      "end\n"
      "f(1, 2)\n");
}

/* A function that needs more than 253 registers or upvalues cannot take
   lraf's additions: the error names it and its line. */
static char *many_registers(void) {
  size_t cap = 8192, n = 0;
  char *s = malloc(cap);
  int i;
  n += (size_t)snprintf(s + n, cap - n, "local function f(...) end\nlocal function big()\n  local ");
  for (i = 0; i < 199; i++)
    n += (size_t)snprintf(s + n, cap - n, "%sa%d", i ? "," : "", i);
  n += (size_t)snprintf(s + n, cap - n, "\n  f(");
  for (i = 0; i < 54; i++)
    n += (size_t)snprintf(s + n, cap - n, "%s%d", i ? "," : "", i);
  snprintf(s + n, cap - n, ")\nend\n");
  return s;
}

static void test_register_limit(void **state) {
  char *src = many_registers();
  tutil_run rw;
  rw_options opt;
  (void)state;
  rw_default_options(&opt);
  tutil_run_rewritten(src, strlen(src), "=regs", &opt, 1000, 0, &rw);
  assert_false(rw.ok);
  printf("  refused as expected: %s\n", rw.error);
  assert_non_null(strstr(rw.error, "function at regs:2 uses 254 registers"));
  assert_non_null(strstr(rw.error, "registers"));
  tutil_run_free(&rw);
  free(src);
}

static void test_upvalue_limit(void **state) {
  size_t cap = 16384, n = 0;
  char *s = malloc(cap);
  tutil_run rw;
  rw_options opt;
  int i;
  (void)state;
  n += (size_t)snprintf(s + n, cap - n, "local ");
  for (i = 0; i < 127; i++)
    n += (size_t)snprintf(s + n, cap - n, "%su%d", i ? "," : "", i);
  n += (size_t)snprintf(s + n, cap - n, "\nlocal function mid()\n  local ");
  for (i = 0; i < 127; i++)
    n += (size_t)snprintf(s + n, cap - n, "%sv%d", i ? "," : "", i);
  n += (size_t)snprintf(s + n, cap - n, "\n  return function()\n    local z\n");
  for (i = 0; i < 127; i++)
    n += (size_t)snprintf(s + n, cap - n, "    z = u%d; z = v%d\n", i, i);
  snprintf(s + n, cap - n, "\n  end\nend\n");
  rw_default_options(&opt);
  tutil_run_rewritten(s, strlen(s), "=ups", &opt, 1000, 0, &rw);
  if (opt.target == RW_LRAVM) {  /* the lraf VM adds no upvalue */
    if (!rw.ok) fail_msg("lraf VM: %s", rw.error);
    tutil_run_free(&rw);
    opt.target = RW_STOCK;
    tutil_run_rewritten(s, strlen(s), "=ups", &opt, 1000, 0, &rw);
  }
  assert_false(rw.ok);
  printf("  refused as expected: %s\n", rw.error);
  assert_non_null(strstr(rw.error, "upvalues"));
  assert_non_null(strstr(rw.error, "ups:4"));
  tutil_run_free(&rw);
  free(s);
}

/* Blocks longer than an ADDI immediate, in functions with and without
   room for an ADDK constant. */
static void test_long_blocks(void **state) {
  size_t cap = 1 << 20, n = 0;
  char *s = malloc(cap);
  int i;
  (void)state;
  n += (size_t)snprintf(s + n, cap - n, "local x = 0\n");
  for (i = 0; i < 300; i++)
    n += (size_t)snprintf(s + n, cap - n, "x = x + %d\n", i % 7);
  n += (size_t)snprintf(s + n, cap - n, "local t = {");
  for (i = 0; i < 300; i++)  /* 300 distinct constants: no ADDK room */
    n += (size_t)snprintf(s + n, cap - n, "'k%d',", i);
  n += (size_t)snprintf(s + n, cap - n, "}\nlocal y = 0\n");
  for (i = 0; i < 300; i++)
    n += (size_t)snprintf(s + n, cap - n, "y = y + %d\n", i % 5);
  snprintf(s + n, cap - n, "print(x, y, #t)\n");
  same_behaviour(s);
  free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_arith_error_names),
    cmocka_unit_test(test_tracebacks_and_lines),
    cmocka_unit_test(test_locals_visible),
    cmocka_unit_test(test_register_limit),
    cmocka_unit_test(test_upvalue_limit),
    cmocka_unit_test(test_long_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
