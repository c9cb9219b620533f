/*
** test_rt_lravm_entry.c - the lraf VM's entry charge (Proto.acctentry, set
** from bc_proto.entry by rewriting in memory): a function's first block
** is charged, with its zero check, as a call makes its frame, instead of
** by an ACCT.  Call-heavy programs count what the count hook counts
** with consume at nearly every check (vararg functions keep their
** arguments, tail calls, callbacks from C, metamethods, coroutines); a
** function whose first block a loop comes back to keeps its ACCT; a
** quota stops a recursion in time and names the line where the function
** starts; a pausing manager never pauses at an entry (consume cannot
** yield there) and a coroutine still counts exactly; the verifier wants
** the entry charge or an ACCT; exact mode, profiles, offline chunks and
** the stock target keep their code.  Only the lraf VM build has it:
** elsewhere the tests say so and skip.
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

#include "rw.h"
#include "tutil_oracle.h"
#include "tutil_rt.h"
#include "tutil_run.h"
#include "tutil_vm.h"

typedef struct program {
  const char *name;
  const char *src;
} program;

static const program programs[] = {
  {"recursion, mutual recursion and tail calls",
   "local function fib(n) if n < 2 then return n end\n"
   "  return fib(n - 1) + fib(n - 2) end\n"
   "local even, odd\n"
   "function even(n) if n == 0 then return true end return odd(n - 1) end\n"
   "function odd(n) if n == 0 then return false end return even(n - 1) end\n"
   "local function count(n, acc) if n == 0 then return acc end\n"
   "  return count(n - 1, acc + n) end\n"
   "print(fib(15), even(301), odd(200), count(2000, 0))\n"},
  {"vararg functions: arguments kept when consume runs at their entry",
   "local function pack(...) return select('#', ...), ... end\n"
   "local function sum(...) local s = 0\n"
   "  for i = 1, select('#', ...) do s = s + (select(i, ...) or 0) end\n"
   "  return s end\n"
   "local function fwd(f, ...) return f(...) end\n"
   "local t = {}\n"
   "for i = 1, 60 do\n"
   "  local n, a, b = pack(i, nil, i * 2)\n"
   "  t[#t + 1] = n + a + (b == nil and 0 or 1)\n"
   "  t[#t + 1] = fwd(sum, i, i + 1, nil, i + 3)\n"
   "  t[#t + 1] = select('#', fwd(pack, table.unpack(t, 1, i % 9)))\n"
   "end\n"
   "print(#t, t[1], t[2], t[60], t[180], sum(table.unpack(t)))\n"},
  {"callbacks from C, metamethods and methods",
   "local mt = {}\n"
   "mt.__index = function(t, k) return k * 3 end\n"
   "mt.__add = function(a, b) return setmetatable({v = a.v + b}, mt) end\n"
   "mt.__call = function(self, x) return self.v + x end\n"
   "mt.__tostring = function(self) return 'o' .. self.v end\n"
   "local o = setmetatable({v = 1}, mt)\n"
   "local obj = {n = 0}\n"
   "function obj:bump(k) self.n = self.n + k; return self end\n"
   "local s = 0\n"
   "for i = 1, 50 do o = o + i; s = s + o[i] + o(i); obj:bump(i):bump(1) end\n"
   "local r = string.gsub(string.rep('ab', 40), '.', function(c)\n"
   "  return c == 'a' and 'x' or nil end)\n"
   "local t = {} for i = 1, 80 do t[i] = (i * 37) % 101 end\n"
   "table.sort(t, function(a, b) return a > b end)\n"
   "local ok, e = pcall(function(x) return x.y.z end, {y = {z = 5}})\n"
   "print(s, tostring(o), obj.n, r, t[1], t[80], ok, e)\n"},
  {"coroutines: entries in many threads, wrap and create",
   "local function gen(n) return coroutine.wrap(function()\n"
   "  for i = 1, n do coroutine.yield(i) end end) end\n"
   "local function consume(g) local s = 0\n"
   "  for v in g do s = s + v end return s end\n"
   "local co = coroutine.create(function(a)\n"
   "  local function step(x) return coroutine.yield(x + 1) end\n"
   "  for i = 1, 30 do a = step(a) end return a end)\n"
   "local s, v = 0, 0\n"
   "for r = 1, 20 do s = s + consume(gen(r)) end\n"
   "while coroutine.status(co) ~= 'dead' do\n"
   "  local _, x = coroutine.resume(co, v); v = (x or 0) * 2 % 97 end\n"
   "print(s, v)\n"},
  {"a function whose first block a loop comes back to",
   "local function spin(n) ::again:: n = n - 1\n"
   "  if n > 0 then goto again end return n end\n"
   "local function w(n) while n > 0 do n = n - 2 end return n end\n"
   "local s = 0\n"
   "for i = 1, 40 do s = s + spin(i) + w(i) end\n"
   "print(s)\n"},
};

enum { NPROGRAMS = sizeof programs / sizeof programs[0] };

#ifdef LRAF_VM

/* How many of f and its nested functions have an entry charge. */
static int count_entries(const bc_proto *f) {
  int n = f->entry != 0, k;
  for (k = 0; k < f->sizep; k++) n += count_entries(f->p[k]);
  return n;
}

/* Whether some function of f starts (after VARARGPREP) with an ACCT
   while having an entry charge: it would be charged twice. */
static int charged_twice(const bc_proto *f) {
  int first = f->sizecode > 0 && bc_op(f->code[0]) == BC_OP_VARARGPREP, k;
  if (f->entry != 0 && first < f->sizecode &&
      bc_op(f->code[first]) == BC_OP_ACCT)
    return 1;
  for (k = 0; k < f->sizep; k++)
    if (charged_twice(f->p[k])) return 1;
  return 0;
}

/* Every program counts what the hook counts, with consume called at
   nearly every check (granularity 1 and 7) and seldom. */
static void test_counts(void **state) {
  static const long long grans[] = {1, 7, 100000};
  int i, g;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++)
    for (g = 0; g < 3; g++) {
      const program *p = &programs[i];
      tutil_run hook, rw;
      tutil_oracle_both(p->src, p->name, NULL, grans[g], &hook, &rw);
      printf("  %-66s g=%-6lld hook %6lld lraf %6lld, %ld entries, "
             "%lld consumes\n", p->name, grans[g], hook.count, rw.count,
             rw.stats.paid_at_entry, rw.consumes);
      assert_int_equal(rw.count, hook.count);
      assert_true(rw.stats.paid_at_entry > 0);
      if (grans[g] == 1) assert_true(rw.consumes > 100);
      tutil_run_free(&hook);
      tutil_run_free(&rw);
    }
}

/* Only the default mode of code rewritten in memory charges at entries,
   never twice, and not a function whose first block a loop comes back
   to: spin's goto and w's while (which starts its first block) keep
   their ACCT. */
static void test_where_it_applies(void **state) {
  const char *loops = programs[NPROGRAMS - 1].src;
  rw_stats st;
  bc_chunk *c;
  int i, k;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++) {
    const char *src = programs[i].src;
    c = tutil_vm_rewritten_in(src, "=entry", &tutil_vm_lravm_memory, &st);
    assert_true(st.paid_at_entry > 0);
    assert_int_equal(count_entries(c->main), st.paid_at_entry);
    assert_false(charged_twice(c->main));
    bc_chunk_free(c);
    for (k = 0; k < TUTIL_VM_NKEEP; k++) {
      c = tutil_vm_rewritten_in(src, "=entry", &tutil_vm_keep[k], &st);
      assert_int_equal(st.paid_at_entry, 0);
      assert_int_equal(count_entries(c->main), 0);
      bc_chunk_free(c);
    }
  }
  c = tutil_vm_rewritten_in(loops, "=entry", &tutil_vm_lravm_memory, &st);
  assert_int_equal(c->main->sizep, 2);
  assert_int_equal(c->main->p[0]->entry, 0);  /* spin: goto again */
  assert_int_equal(bc_op(c->main->p[0]->code[0]), BC_OP_ACCT);
  assert_true(c->main->entry > 0);
  bc_chunk_free(c);
}

/* A recursion is stopped by its entry checks, each frame's first block
   charged before it runs; the place reported is the line where the
   function's code starts, as for the ACCT there before. */
static void test_quota_at_entry(void **state) {
  const char *src =
    "local depth = 0\n"
    "local function f(n)\n"
    "  depth = depth + 1\n"
    "  return f(n + 1) + 1\n"
    "end\n"
    "f(1)\n";
  static const int64_t quotas[] = {500, 5003, 60000};
  size_t q;
  (void)state;
  for (q = 0; q < sizeof quotas / sizeof quotas[0]; q++) {
    lraf_manager *m = lraf_limit_new(quotas[q]);
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    int64_t over;
    lraf_default_options(&opt);
    opt.manager = m;
    S = tutil_rt_new(&opt);
    assert_int_equal(tutil_rt_run(S, src, &err), LRAF_EQUOTA);
    over = lraf_manager_total(m) - quotas[q];
    printf("  quota %lld: over by %lld, stopped at %s\n",
           (long long)quotas[q], (long long)over, lraf_last_where(S));
    assert_true(over >= 1 && over <= 8);  /* f's first block: 7 */
    assert_non_null(strstr(lraf_last_where(S), ":3: in "));
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

/* consume cannot yield at an entry: a pausing manager goes on there and
   pauses at the next check of a loop, and a coroutine paused that way
   computes and counts what it does unpaused. */
static void test_no_pause_at_entry(void **state) {
  const char *src =
    "local function f(n) if n == 0 then return 0 end\n"
    "  return 1 + f(n - 1) end\n"
    "local function g(...) return select('#', ...) + f(3) end\n"
    "local s = 0\n"
    "for i = 1, 300 do s = s + f(i % 20) + g(i, nil, i) end\n"
    "return s";
  int pauses = 0;
  lraf_manager *m = tutil_pausing_manager(&pauses);
  lraf_options opt;
  lraf_state *S;
  tutil_threads oracle;
  double got;
  long long result, total;
  (void)state;
  lraf_default_options(&opt);
  opt.manager = m;
  opt.granularity = 3;
  S = tutil_rt_new(&opt);
  tutil_rt_resume_all(S, src, "=nopause", 1, &got);
  result = (long long)got;
  total = (long long)tutil_rt_total(S);
  tutil_rt_close(S);
  lraf_manager_release(m);
  tutil_rt_oracle(src, strlen(src), "=nopause", &oracle);
  assert_true(oracle.ok);
  printf("  %d pauses; result %lld; counted %lld, the hook %lld\n", pauses,
         result, total, oracle.count[0]);
  assert_true(pauses > 10);
  assert_int_equal(result, 300 * 3 + 300 * 3 + 2850);  /* g: 3 + f(3);
                                                            f(i % 20) */
  assert_int_equal(total, oracle.count[0]);
  tutil_threads_free(&oracle);
}

/* The verifier takes the entry charge for the entry's check, but only
   in a mode that checks; without it the function must start with an
   ACCT that checks. */
static void test_verifier(void **state) {
  const char *src = "local function f(a) return a + 1 end return f(1)";
  rw_stats st;
  bc_chunk *c =
      tutil_vm_rewritten_in(src, "=entry", &tutil_vm_lravm_memory, &st);
  bc_proto *f = c->main->p[0];
  lraf_error err;
  (void)state;
  assert_true(f->entry > 0);
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_OK);
  f->entry_mode = BC_ACCT_ADD;
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_EVERIFY);
  assert_non_null(strstr(err.message, "does not start with a zero check"));
  f->entry_mode = BC_ACCT_ADDCHECK;
  f->entry = 0;
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_EVERIFY);
  assert_non_null(strstr(err.message, "does not start with a zero check"));
  bc_chunk_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_counts),
    cmocka_unit_test(test_where_it_applies),
    cmocka_unit_test(test_quota_at_entry),
    cmocka_unit_test(test_no_pause_at_entry),
    cmocka_unit_test(test_verifier),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void) {
  (void)programs;
  return tutil_vm_skip_stock("no entry charge: the stock target has no ACCT");
}

#endif
