/*
** test_rt_coro.c - coroutine.create, wrap, resume and close with
** attribution (rt_coro.c): each coroutine's account gets exactly its
** own instructions (what a count hook counts on that thread), through
** generators, nesting, errors, __close handlers run by close and by an
** error, coroutines made inside coroutines, and coroutines inside
** metamethods and callbacks of C functions; on both of the VM's targets
** and at granularities that make consume run at nearly every check.  A
** quota error in a coroutine reaches the host: resume cannot return it
** and wrap cannot turn it into a value, and close cannot swallow it.
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

static const char *const attribution_cases[][2] = {
  {"generator",
   "local function gen(n) return coroutine.wrap(function()\n"
   "  for i = 1, n do coroutine.yield(i * 2) end end) end\n"
   "local s = 0\n"
   "for v in gen(50) do s = s + v end\n"
   "for v in gen(7) do s = s - v end\n"
   "print(s)\n"},
  {"nested",
   "local inner = coroutine.create(function(a)\n"
   "  local x = 0\n"
   "  for i = 1, a do x = x + i; if i % 10 == 0 then coroutine.yield(x) end end\n"
   "  return x end)\n"
   "local outer = coroutine.create(function()\n"
   "  local t = {}\n"
   "  while coroutine.status(inner) ~= 'dead' do\n"
   "    local ok, v = coroutine.resume(inner, 95); t[#t+1] = v\n"
   "    coroutine.yield(#t) end\n"
   "  return #t end)\n"
   "local n = 0\n"
   "while true do local ok, v = coroutine.resume(outer); n = n + 1\n"
   "  if coroutine.status(outer) == 'dead' then break end end\n"
   "print(n)\n"},
  {"errors",
   "local co = coroutine.create(function() local t = {}\n"
   "  for i = 1, 20 do t[i] = i end; error('boom ' .. #t) end)\n"
   "print(coroutine.resume(co))\n"
   "local w = coroutine.wrap(function() coroutine.yield(1); local x = nil; "
   "return x.y end)\n"
   "print(w()); print(pcall(w))\n"
   "local c2 = coroutine.create(function() for i = 1, 5 do "
   "pcall(coroutine.yield, i) end error({}) end)\n"
   "for i = 1, 7 do print(coroutine.resume(c2)) end\n"},
  {"close",
   "local log = {}\n"
   "local co = coroutine.create(function()\n"
   "  local a <close> = setmetatable({}, {__close = function()\n"
   "    for i = 1, 30 do log[#log+1] = i end end})\n"
   "  coroutine.yield(1); return 2 end)\n"
   "coroutine.resume(co)\n"
   "print(coroutine.close(co), #log)\n"
   "local w = coroutine.wrap(function()\n"
   "  local b <close> = setmetatable({}, {__close = function()\n"
   "    for i = 1, 12 do log[#log+1] = -i end end})\n"
   "  coroutine.yield(); error('x') end)\n"
   "w(); print(pcall(w), #log)\n"},
  {"created-in-coroutine",
   "local function spawn(d) return coroutine.create(function()\n"
   "  local s = 0\n"
   "  for i = 1, d * 3 do s = s + i end\n"
   "  if d > 0 then local c = spawn(d - 1); coroutine.resume(c); "
   "coroutine.resume(c) end\n"
   "  coroutine.yield(s); return s end) end\n"
   "local root = spawn(6)\n"
   "print(coroutine.resume(root)); print(coroutine.resume(root))\n"},
  {"metamethods-and-callbacks",
   "local mt = {__add = function(a, b) local co = coroutine.wrap(function() "
   "coroutine.yield(a.v + b.v) end); return co() end}\n"
   "local x = setmetatable({v = 1}, mt)\n"
   "local t = {}\n"
   "for i = 1, 20 do t[i] = (x + x) * i end\n"
   "table.sort(t, function(a, b) return coroutine.wrap(function() "
   "return a > b end)() end)\n"
   "print(t[1], string.gsub('abc', '.', function(c) return coroutine.wrap("
   "function() coroutine.yield(c:upper()) end)() end))\n"},
};

/* Every case, at two granularities, on the default VM and on stock. */
static void test_attribution(void **state) {
  static const struct { int64_t gran; lraf_vm vm; } runs[] = {
    {LRAF_DEFAULT_GRANULARITY, LRAF_VM_DEFAULT}, {3, LRAF_VM_DEFAULT},
    {LRAF_DEFAULT_GRANULARITY, LRAF_VM_STOCK}, {3, LRAF_VM_STOCK},
  };
  size_t i, r;
  (void)state;
  for (r = 0; r < sizeof runs / sizeof runs[0]; r++)
    for (i = 0; i < sizeof attribution_cases / sizeof attribution_cases[0];
         i++) {
      lraf_options opt;
      lraf_default_options(&opt);
      opt.granularity = runs[r].gran;
      opt.vm = runs[r].vm;
      tutil_rt_agree(&opt, attribution_cases[i][1],
                     strlen(attribution_cases[i][1]),
                     attribution_cases[i][0]);
    }
}

/* A quota error raised in a coroutine: the host gets LRAF_EQUOTA and
   the script prints nothing after it. */
static void test_quota_passes_through(void **state) {
  static const char *const srcs[] = {
    "print(coroutine.resume(coroutine.create(function() "
    "while true do end end)))",
    "print(pcall(coroutine.wrap(function() while true do end end)))",
    "local co = coroutine.wrap(function() coroutine.yield() "
    "while true do end end)\nco() print(pcall(co))",
    "local co = coroutine.create(function()\n"
    "  local x <close> = setmetatable({}, {__close = function()\n"
    "    while true do end end})\n"
    "  coroutine.yield() end)\n"
    "coroutine.resume(co) print(coroutine.close(co))",
    "local inner = coroutine.wrap(function() while true do end end)\n"
    "print(coroutine.resume(coroutine.create(function() "
    "return pcall(inner) end)))",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    lraf_options opt;
    lraf_error err;
    char *out;
    lraf_default_options(&opt);
    opt.manager = lraf_limit_new(20000);
    if (tutil_rt_once(&opt, srcs[i], &err, &out) != LRAF_EQUOTA)
      fail_msg("case %zu: %s", i, err.message);
    if (out[0] != '\0') fail_msg("case %zu printed %s", i, out);
    assert_true(lraf_manager_total(opt.manager) > 20000);
    free(out);
    lraf_manager_release(opt.manager);
  }
}

/* Misuse gives Lua's messages. */
static void test_errors(void **state) {
  static const struct { const char *src, *out; } cases[] = {
    {"print(pcall(coroutine.resume, 42))",
     "false\tbad argument #1 to 'coroutine.resume' (thread expected, got "
     "number)\n"},
    {"print(coroutine.resume(coroutine.running()))",
     "false\tcannot resume non-suspended coroutine\n"},
    {"local co = coroutine.wrap(function() end) co()\nprint(pcall(co))",
     "false\tcannot resume dead coroutine\n"},
    {"print(pcall(coroutine.close, coroutine.running()))",
     "false\tcannot close a running coroutine\n"},
    {"print(pcall(coroutine.create, 1))",
     "false\tbad argument #1 to 'coroutine.create' (function expected, "
     "got number)\n"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_error err;
    char *out;
    if (tutil_rt_once(NULL, cases[i].src, &err, &out) != LRAF_OK)
      fail_msg("%s", err.message);
    assert_string_equal(out, cases[i].out);
    free(out);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_attribution),
    cmocka_unit_test(test_quota_passes_through),
    cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
