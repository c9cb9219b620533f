/*
** test_rt_stop.c - runtime/rt_stop.c: lraf_last_where names the
** innermost Lua function and line where a call stopped (a Lua error,
** the quota, the memory limit, inside a coroutine and behind pcall), is
** empty when nothing ran and forgets the last place at the next call;
** lraf_native_units is exactly the difference between the count with
** native charging and without; an error object with __tostring gives
** its string and no traceback, as lua.c does.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "lraf.h"
#include "tutil_rt.h"

/* Run src in a new state made from opt; returns the status, and the
   place in where (size 256). */
static lraf_status run(const lraf_options *opt, const char *src,
                       char *where) {
  lraf_state *S = tutil_rt_new(opt);
  lraf_error err;
  lraf_status st = lraf_run_string(S, src, "=t", &err);
  snprintf(where, 256, "%s", lraf_last_where(S));
  tutil_rt_close(S);
  return st;
}

static void test_where_error(void **state) {
  char where[256];
  (void)state;
  assert_int_equal(run(NULL, "local function f()\n  error('x')\nend\n"
                             "local function g() f() end\ng()\n", where),
                   LRAF_ERUN);
  assert_string_equal(where, "t:2: in upvalue 'f'");
  assert_int_equal(run(NULL, "local t = nil\nreturn t.x\n", where),
                   LRAF_ERUN);
  assert_string_equal(where, "t:2: in main chunk");
  /* inside a coroutine: where the coroutine's error reached the main
     thread (the resume), as lua.c's traceback has it */
  assert_int_equal(run(NULL, "local co = coroutine.wrap(function()\n"
                             "  error('in co')\nend)\nco()\n", where),
                   LRAF_ERUN);
  assert_string_equal(where, "t:4: in main chunk");
}

static void test_where_quota(void **state) {
  lraf_options opt;
  char where[256];
  (void)state;
  lraf_default_options(&opt);
  opt.manager = lraf_limit_new(5000);
  assert_int_equal(run(&opt, "local function spin()\n  local n = 0\n"
                             "  while true do n = n + 1 end\nend\n"
                             "pcall(spin)\n", where),
                   LRAF_EQUOTA);
  /* the first raise, inside spin, not the pcall that passed it on */
  assert_string_equal(where, "t:3: in function <t:1>");
  lraf_manager_release(opt.manager);
}

static void test_where_memory(void **state) {
  lraf_options opt;
  char where[256];
  (void)state;
  lraf_default_options(&opt);
  opt.memory_limit = 200000;
  assert_int_equal(run(&opt, "local t = {}\nlocal function grow()\n"
                             "  t[#t + 1] = ('x'):rep(100) .. #t\nend\n"
                             "while true do pcall(grow) end\n", where),
                   LRAF_EMEMLIMIT);
  assert_non_null(strstr(where, "t:3: in "));
}

/* Nothing ran: no place; a later call that succeeds forgets it. */
static void test_where_cleared(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lraf_error err;
  (void)state;
  assert_int_equal(lraf_run_string(S, "x = = 1", "=s", &err), LRAF_ESYNTAX);
  assert_string_equal(lraf_last_where(S), "");
  assert_int_equal(lraf_run_string(S, "error('e')", "=e", &err), LRAF_ERUN);
  assert_string_equal(lraf_last_where(S), "e:1: in main chunk");
  assert_int_equal(lraf_run_string(S, "local x = 1", "=ok", &err), LRAF_OK);
  assert_string_equal(lraf_last_where(S), "");
  assert_string_equal(lraf_last_where(NULL), "");
  tutil_rt_close(S);
}

static void test_tostring_no_traceback(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  (void)state;
  lraf_default_options(&opt);
  opt.traceback = 1;
  S = tutil_rt_new(&opt);
  assert_int_equal(lraf_run_string(S, "error(setmetatable({}, {__tostring ="
                                      " function() return 'custom' end}))",
                                   "=o", &err), LRAF_ERUN);
  assert_string_equal(lraf_last_error(S), "custom");
  assert_int_equal(lraf_run_string(S, "error({})", "=p", &err), LRAF_ERUN);
  assert_non_null(strstr(lraf_last_error(S),
                         "(error object is a table value)\nstack traceback:"));
  tutil_rt_close(S);
}

/* Native units are what native charging adds to the count, exactly. */
static void test_native_units(void **state) {
  static const char *src =
    "local t = {}\nfor i = 1, 300 do t[i] = ('ab'):rep(i) end\n"
    "local s = table.concat(t, ',')\nlocal n = 0\n"
    "for w in s:gmatch('a+b') do n = n + 1 end\n"
    "return #s + n + #string.format('%d %s', n, s:sub(1, 50))\n";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t plain, charged, units;
  (void)state;
  lraf_default_options(&opt);
  opt.native = 0;
  S = tutil_rt_new(&opt);
  assert_int_equal(lraf_run_string(S, src, "=n", &err), LRAF_OK);
  plain = tutil_rt_total(S);
  assert_int_equal(lraf_native_units(S), 0);
  tutil_rt_close(S);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  assert_int_equal(lraf_run_string(S, src, "=n", &err), LRAF_OK);
  charged = tutil_rt_total(S);
  units = lraf_native_units(S);
  tutil_rt_close(S);
  print_message("  plain %lld, with native charging %lld, native units "
                "%lld\n", (long long)plain, (long long)charged,
                (long long)units);
  assert_true(units > 1000);
  assert_int_equal(charged - plain, units);
  assert_int_equal(lraf_native_units(NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_where_error),
    cmocka_unit_test(test_where_quota),
    cmocka_unit_test(test_where_memory),
    cmocka_unit_test(test_where_cleared),
    cmocka_unit_test(test_tostring_no_traceback),
    cmocka_unit_test(test_native_units),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
