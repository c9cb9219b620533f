/*
** test_nat_audit.c - the built-ins that native charging now sizes by
** scanning, runs in its own code or hands out wrapped (next and pairs,
** table.insert/remove/unpack/concat/sort on values with metatables,
** utf8.offset and utf8.codes, string.dump, the special-free pattern
** searches, select, load with a reader): each snippet prints the same,
** results and error messages alike, in an lraf state with native
** charging as unmodified Lua prints it; and each of them is charged by
** its size (a 100x larger operand costs at least 30x more).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "tutil_rt.h"

/* Prints what each call returns or the error it raises. */
#define SHOW \
  "local function show(...) local t = table.pack(pcall(...)) " \
  "for i = 1, t.n do t[i] = tostring(t[i]) end " \
  "print(table.concat(t, ' ', 1, t.n)) end\n"

static const char *const snippets[] = {
  /* next and pairs */
  "local t = {1, 2, nil, 4, x = 1, y = 2} t[3] = nil\n"
  "local n = 0 for k, v in pairs(t) do n = n + v end print(n)\n"
  "local k, c = next(t), 0 while k do c = c + 1 k = next(t, k) end print(c)\n"
  "show(next, t, 'nokey') show(next, {}, 1) show(next, 1)\n"
  "show(next, t, 2.5) show(next, {}) show(next, {[1.5] = 1}, 1.5)\n",
  "local t = {} for i = 1, 100 do t['k' .. i] = i t[i] = i end\n"
  "local s = 0 for k, v in pairs(t) do s = s + v t[k] = nil end\n"
  "print(s, next(t))\n"
  "local u = {} for i = 1, 50 do u[i] = i end for i = 1, 50 do u[i] = nil end\n"
  "print(next(u)) u[60] = 1 print(next(u))\n",
  "local t = setmetatable({}, {__pairs = function(t) return next, {7} end})\n"
  "for k, v in pairs(t) do print(k, v) end show(pairs)\n"
  "print(type(pairs({})), pairs({}) == next, type(select(2, pcall(pairs, nil))))\n"
  "local a = {true, false, 1.5, 'x', print} local n = 0\n"
  "for k, v in pairs(a) do n = n + 1 end print(n)\n"
  "local b = {[true] = 1, [false] = 2, [1.5] = 3, [print] = 4, [a] = 5}\n"
  "n = 0 for k, v in pairs(b) do n = n + v end print(n)\n"
  "for _, k in ipairs({true, false, 1.5, print, a}) do\n"
  "  print(type(k), next(b, k) ~= k) end\n",
  /* random tables: keys of every kind, cleared while traversed, with
     full collections in between (dead keys), nested traversals */
  "local x = 12345 local function rnd(n) x = (x * 1103515245 + 12345) "
  "% 2147483648 return x % n end\n"
  "local objs = {} for i = 1, 50 do objs[i] = {} end\n"
  "for round = 1, 30 do\n"
  "  local t, u = {}, {}\n"
  "  for i = 1, rnd(300) do\n"
  "    local r = rnd(6)\n"
  "    local k = r == 0 and rnd(400) or r == 1 and ('s' .. rnd(500))\n"
  "      or r == 2 and objs[rnd(50) + 1] or r == 3 and rnd(100) + 0.5\n"
  "      or r == 4 and (rnd(2) == 0) or string.rep('L', 41 + rnd(3))\n"
  "    t[k] = i u[rnd(64)] = i end\n"
  "  local n, sum = 0, 0\n"
  "  for k, v in pairs(t) do\n"
  "    n = n + 1 sum = sum + v\n"
  "    if rnd(3) == 0 then t[k] = nil end\n"
  "    if rnd(40) == 0 then collectgarbage() end\n"
  "    for k2, v2 in pairs(u) do sum = sum + v2 end\n"
  "  end\n"
  "  local m = 0 for k in pairs(t) do m = m + 1 end\n"
  "  print(round, n, sum, m)\n"
  "end\n",
  /* table functions on values with metatables */
  "local log = {}\n"
  "local t = setmetatable({}, {__len = function() return 3 end,\n"
  "  __index = function(t, k) log[#log + 1] = 'get' .. k return k * 10 end,\n"
  "  __newindex = function(t, k, v) log[#log + 1] = 'set' .. k\n"
  "    rawset(t, k, v) end})\n"
  "table.insert(t, 1, 'a') print(table.concat(log, ','), rawget(t, 1))\n"
  "log = {} print(table.remove(t, 1), table.concat(log, ','))\n"
  "log = {} print(table.unpack(t)) print(table.concat(log, ','))\n"
  "print(table.concat(t, '-'))\n"
  "show(table.insert, t, 9, 1) show(table.insert, t, 1, 2, 3)\n"
  "show(table.remove, t, 7) show(table.insert, nil, 1)\n"
  "show(table.concat, setmetatable({}, {__len = function() return 2 end}))\n"
  "show(table.unpack, 'abc') show(table.unpack, 'abc', 2)\n"
  "show(table.insert, setmetatable({}, {__len = function() return 'x' end}), 1)\n"
  "show(table.unpack, setmetatable({}, {__len = function() return 1e7 end}))\n",
  "local t = setmetatable({5, 3, 9, 1, 7}, {})\n"
  "table.sort(t) print(table.concat(t, ' '))\n"
  "table.sort(t, function(a, b) return a > b end) print(table.concat(t, ' '))\n"
  "show(table.sort, setmetatable({1, 'x', 2}, {}))\n"
  "show(table.sort, setmetatable({1, 2, 3}, {}), 3)\n"
  "local u = setmetatable({}, {__len = function() return 4 end,\n"
  "  __index = function(t, k) return 10 - k end, __newindex = rawset})\n"
  "table.sort(u) print(rawget(u, 1), rawget(u, 4))\n"
  "local c = 0 local w = {} for i = 1, 200 do w[i] = (i * 37) % 101 end\n"
  "setmetatable(w, {})\n"
  "table.sort(w, function(a, b) c = c + 1 return a < b end) print(c, w[1], w[200])\n",
  /* utf8 */
  "local s = 'a\\u{3b1}\\u{10348}z'\n"
  "for p, c in utf8.codes(s) do print(p, c) end\n"
  "for _, n in ipairs({-3, -1, 0, 1, 2, 4, 5, 9}) do\n"
  "  show(utf8.offset, s, n) show(utf8.offset, s, n, 3) end\n"
  "show(utf8.offset, s, 1, 3) show(utf8.offset, s, 1, 99)\n"
  "local f = utf8.codes('a\\x80b') show(f, 'a\\x80b', 0) show(f, 'a\\x80b', 1)\n"
  "show(function() return type((utf8.codes('\\x80'))) end)\n"
  "for p, c in utf8.codes('abc', true) do print(p, c) end\n",
  /* patterns */
  "local s = string.rep('abc', 200) .. 'abd'\n"
  "print(s:find('abd'), s:find('abd', 1, true), s:find('abc', 5, true))\n"
  "print(s:find('bca', -10), s:find('zz'), s:find('', 3), s:find('', 700))\n"
  "print(s:match('abd'), s:match('cab', 10), s:match('zz'))\n"
  "print(s:find('%a', 1, true), ('x%ay'):find('%a', 1, true))\n"
  "print(select(2, s:gsub('abc', 'x')), s:gsub('cab', '%0', 3):sub(1, 12))\n"
  "local n = 0 for w in s:gmatch('abc') do n = n + 1 end print(n)\n",
  /* select and the many-value built-ins */
  "print(select('#', 1, 2, 3), select(2, 'a', 'b', 'c'), select(-1, 1, 2))\n"
  "show(select, 0, 1) show(select, 'x') print(table.pack(1, nil, 3).n)\n"
  "print(math.max(3, 9, 1), math.min(3, 9, 1), rawequal('ab', 'ab'))\n"
  "show(assert, 1, 2, 3) show(assert, false, 'msg') show(math.max)\n",
  /* string.dump, os.date, packsize, searchpath */
  "local f = function(a) return a + 1 end\n"
  "print(#string.dump(f) > 0, #string.dump(f, true) <= #string.dump(f))\n"
  "show(string.dump, print) show(string.dump)\n"
  "print(os.date('!%Y-%m-%d', 0), os.date('!%H', 3600))\n"
  "show(os.date, '%Ez') print(string.packsize('i4i8'), string.packsize(''))\n"
  "show(string.packsize, 's') print(package.searchpath('no.such', './?.x;/?.y'))\n",
  /* collectgarbage */
  "print(collectgarbage('isrunning'), type(collectgarbage('count')))\n"
  "print(collectgarbage('incremental'), collectgarbage('generational'))\n"
  "print(collectgarbage('incremental'), collectgarbage('step', 1))\n"
  "show(collectgarbage, 'nope') print(collectgarbage())\n",
  /* load with a reader */
  "local parts, i = {'return ', '1 ', '+ 41'}, 0\n"
  "print(load(function() i = i + 1 return parts[i] end)())\n"
  "show(load, function() return {} end) show(load, function() error('r') end)\n",
};

static void run_snippet(const char *body) {
  size_t len;
  char *src = malloc(strlen(SHOW) + strlen(body) + 1);
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  tutil_threads oracle;
  const char *out;
  assert_non_null(src);
  strcpy(src, SHOW);
  strcat(src, body);
  lraf_default_options(&opt);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK)
    fail_msg("lraf: %s\n%s", err.message, body);
  out = tutil_rt_output(S, &len);
  tutil_rt_oracle(src, strlen(src), "=test", &oracle);
  if (!oracle.ok) fail_msg("lua: %s\n%s", oracle.error, body);
  if (len != oracle.outlen || memcmp(out, oracle.output, len) != 0) {
    printf("--- the snippet:\n%s--- lraf printed:\n%s--- lua printed:\n%s",
           body, out, oracle.output);
    fail_msg("output differs (above)");
  }
  tutil_threads_free(&oracle);
  tutil_rt_close(S);
  free(src);
}

static void test_same_results(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof snippets / sizeof *snippets; i++)
    run_snippet(snippets[i]);
  printf("  %d snippets print the same as unmodified Lua\n", (int)i);
}

static const char *const grows[][2] = {
  {"local t = {table.unpack({}, 1, N)}", "local k = next(t)"},
  {"local t = {table.unpack({}, 1, N)}", "for k in pairs(t) do end"},
  {"local t = {} for i = 1, N do t['k' .. i] = i end "
   "for k in pairs(t) do t[k] = nil end t.z = 1",
   "local a = next(t) local b = next(t, a)"},
  {"local keep = {} for i = 1, N do keep[i] = {} end",
   "collectgarbage('generational') collectgarbage('incremental')"},
  {"local a = {table.unpack({}, 1, N)}", "local n = select('#', table.unpack(a, 1, N))"},
  {"local t = setmetatable({}, {__len = function() return N end})",
   "table.insert(t, 1, 0)"},
  {"local t = setmetatable({}, {__len = function() return N end})",
   "table.remove(t, 1)"},
  {"local t = setmetatable({}, {__len = function() return N end})",
   "local r = table.unpack(t)"},
  {"local t = setmetatable({}, {__len = function() return N end, "
   "__index = function() return 'x' end})", "local r = table.concat(t)"},
  {"local t = setmetatable({}, {__len = function() return N end, "
   "__index = function(t, k) return k % 7 end, __newindex = rawset})",
   "table.sort(t)"},
  {"local t = setmetatable({}, {__index = tostring, __newindex = rawequal})",
   "table.move(t, 1, N, 2)"},
  {"local s = string.rep('x', N)", "local r = table.unpack(s)"},
  {"", "local r = string.rep('', N * 100)"},
  {"local s = 'a' .. string.rep('\\x80', N)", "local r = utf8.offset(s, 2)"},
  {"local s = 'a' .. string.rep('\\x80', N) local f = utf8.codes(s)",
   "local r = f(s, 1)"},
  {"local s, p = string.rep('a', N), string.rep('a', 50) .. 'b'",
   "local r = string.find(s, p)"},
  {"local s, p = string.rep('a', N), string.rep('a', 50) .. 'b'",
   "local r = string.gsub(s, p, '')"},
  {"local f = load(string.rep('a = 1 ', N // 10))",
   "local r = string.dump(f)"},
  {"local f = string.rep('%c', N // 10)", "local r = os.date(f)"},
  {"local f = string.rep('b', N)", "local r = string.packsize(f)"},
  {"local p = string.rep('/no/?.x;', N // 100)",
   "local r = package.searchpath('m', p)"},
  {"local piece = string.rep('a=1 ', N // 40) .. '\\n' local i = 0",
   "local f = load(function() i = i + 1 if i <= 10 then return piece end end)"},
  {"local a, b = string.rep('x', N), string.rep('x', N - 1) .. 'x'",
   "local r = rawequal(a, b)"},
};

static void test_charged_by_size(void **state) {
  size_t i;
  long long n = getenv("LRAF_QUICK") ? 2000 : 4000;
  (void)state;
  for (i = 0; i < sizeof grows / sizeof *grows; i++) {
    int64_t small = tutil_rt_native_charge(grows[i][0], grows[i][1], n);
    int64_t big = tutil_rt_native_charge(grows[i][0], grows[i][1],
                                         n * 100);
    if (big < 30 * (small > 0 ? small : 1))
      fail_msg("%s: %lld units at N=%lld, %lld at N=%lld", grows[i][1],
               (long long)small, n, (long long)big, n * 100);
  }
  printf("  %d operations charged by their size\n", (int)i);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_results),
    cmocka_unit_test(test_charged_by_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
