/*
** test_rt_lravm_sizes.c - the lraf VM charges the work of instructions that
** grows with their operands (lravm/patches/lua-acct-work.patch, acctwork): the
** bytes of long-string ==, < and <=, the values moved by VARARG,
** RETURN, TAILCALL and SETLIST, the bytes CONCAT copies, the tables
** an __index or __newindex chain walks, and a long-string key.  With native charging on, K runs of
** such an instruction cost at least K times its size charge more than
** none, all of it reported as native units (lraf_native_units) (the string cases: and less than 1.1 times, as nothing else in
** them is charged by size; the value cases also move their values
** through table.unpack and calls); with native charging off the counts stay what the count hook
** counts; under a quota, a loop of them is stopped within the quota
** plus one charge, before the work (pcall cannot catch it).  Skipped
** when built for stock Lua 5.4, which cannot charge these.
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
#include "tutil_run.h"

/* runtime/rt_lravm.c's rates: units per 1024 bytes / values */
#define BYTE_RATE 112
#define VALUE_RATE 4096
#define COPY_RATE 512
#define CHAIN_RATE 7168

typedef struct sized {
  const char *name;
  const char *setup;   /* defines the operands */
  const char *op;      /* one run of the charged instruction */
  int64_t size;        /* bytes or values each run charges */
  int64_t rate;
} sized;

#define MB "local N = 1024 * 1024\n" \
  "local a = string.rep('x', N - 1) .. 'y'\n" \
  "local b = string.rep('x', N - 1) .. 'y'\n"
#define MANY "local t = {} for i = 1, 10000 do t[i] = i end\n"
/* a chain of 1000 tables: a miss at the top walks 999 below it */
#define CHAIN(mm) "local t = {}\n" \
  "for i = 1, 999 do t = setmetatable({}, {" mm " = t}) end\n"

static const sized cases[] = {
  {"long-string ==", MB, "if a == b then c = c + 1 end", 1 << 20, BYTE_RATE},
  {"long-string <", MB, "if a < b then c = c + 1 end", 1 << 20, BYTE_RATE},
  {"long-string <=", MB, "if a <= b then c = c + 1 end", 1 << 20, BYTE_RATE},
  {"VARARG", MANY "local function f(...) return select('#', ...) end\n"
             "local function g(...) return f(...) end\n",
   "c = c + g(table.unpack(t))", 10000, VALUE_RATE},
  {"RETURN", MANY "local function r() return 0, table.unpack(t) end\n",
   "c = c + select('#', r())", 10000, VALUE_RATE},
  {"SETLIST", MANY, "local u = {table.unpack(t)} c = c + #u", 10000,
   VALUE_RATE},
  {"TAILCALL", MANY "local function f(...) return 1 end\n"
               "local function g() return f(table.unpack(t)) end\n",
   "c = c + g()", 10000, VALUE_RATE},
  {"CONCAT", MB, "local u = a .. 'z' c = c + 1", (1 << 20) + 1, COPY_RATE},
  {"__index chain", CHAIN("__index"), "if t.x == nil then c = c + 1 end",
   999, CHAIN_RATE},
  {"__newindex chain", CHAIN("__newindex"), "t.x = i c = c + 1", 999,
   CHAIN_RATE},
  {"long-string key", MB "local u = {[a] = 1}\n", "c = c + u[b]", 1 << 20,
   BYTE_RATE},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static void need_vm(void) {
  if (!lraf_vm_builtin()) {
    printf("  SKIP: built for stock Lua 5.4 (make vm for the lraf VM)\n");
    skip();
  }
}

static char *program(const sized *c, int runs) {
  size_t n = strlen(c->setup) + strlen(c->op) + 128;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, "%slocal c = 0\nfor i = 1, %d do %s end\nprint(c)\n",
           c->setup, runs, c->op);
  return s;
}

/* The total count of src; *instr (if not NULL) the instructions in it,
   the total less the native units (the VM's size charges among them). */
static int64_t count2(const char *src, int native, int64_t *instr) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t n;
  lraf_default_options(&opt);
  opt.native = native;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  n = tutil_rt_total(S);
  if (instr != NULL) *instr = n - lraf_native_units(S);
  tutil_rt_close(S);
  return n;
}

static int64_t count(const char *src, int native) {
  return count2(src, native, NULL);
}

/* K runs cost at least K size charges more than none, with native on;
   without it lraf counts what the hook counts. */
static void test_charged_by_size(void **state) {
  int i;
  (void)state;
  need_vm();
  for (i = 0; i < NCASES; i++) {
    const sized *c = &cases[i];
    enum { K = 20 };
    char *none = program(c, 0), *some = program(c, K);
    int64_t instr, n0 = count(none, 1), nk = count2(some, 1, &instr);
    int64_t want = K * ((c->size * c->rate) >> 10);
    tutil_run hook;
    tutil_run_hook(some, strlen(some), "=test", &hook);
    printf("  %-15s %d runs: +%lld units (charges %lld); without native "
           "%lld, hook %lld\n", c->name, K, (long long)(nk - n0),
           (long long)want, (long long)count(some, 0), hook.count);
    assert_true(nk - n0 >= want);
    if (c->rate != VALUE_RATE)  /* only the instruction is charged */
      assert_true(nk - n0 < want + want / 10);
    assert_int_equal(count(some, 0), hook.count);
    assert_int_equal(instr, hook.count);  /* the charges are native */
    tutil_run_free(&hook);
    free(none);
    free(some);
  }
}

/* An endless loop of comparisons of two 1 MB strings, each wrapped in
   pcall, is stopped by a quota of 10 comparisons' charges, within one
   more charge. */
static void test_quota_stops_before_work(void **state) {
  static const char src[] = MB
    "local c = 0\n"
    "while true do pcall(function() if a == b then c = c + 1 end end) end\n";
  int64_t each = ((int64_t)(1 << 20) * BYTE_RATE) >> 10;
  int64_t quota = 10 * each + 2000000;  /* string.rep's native charges */
  int64_t total;
  (void)state;
  need_vm();  /* before anything is allocated: skip() leaves the test */
  total = tutil_rt_native_quota(src, quota);
  printf("  quota %lld: %lld units charged\n", (long long)quota,
         (long long)total);
  assert_true(total >= quota && total <= quota + each + 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_charged_by_size),
    cmocka_unit_test(test_quota_stops_before_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
