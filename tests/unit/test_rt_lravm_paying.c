/*
** test_rt_lravm_paying.c - blocks that pay at the jump that ends them
** (the lraf VM's JMPACCT and FORLOOPACCT, rw_pay_elsewhere.c): a loop
** turn then runs no ACCT of its own.  Every loop shape counts what the
** count hook counts (granularities that call consume at nearly every
** check, from the paying jumps too); an error or an abandoned coroutine
** never leaves what ran uncharged (the table of what is behind); a
** manager that pauses at a paying jump resumes it where it was; a
** script's own hooks see its own code; the stock target, exact mode,
** offline chunks and profiles keep their code.  Only the lraf VM build
** has these instructions: elsewhere the tests say so and skip.
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
  {"numeric for loops: one block, if-else, float, negative step, break",
   "local s = 0\n"
   "for i = 1, 300 do s = s + i % 7 end\n"
   "for i = 1, 200 do if i % 3 == 0 then s = s + 1 else s = s - 2 end end\n"
   "for x = 0.5, 20, 0.25 do s = s + math.floor(x) end\n"
   "for i = 100, 1, -3 do s = s ~ i end\n"
   "for i = 1, 1000 do if i * i > 900 then break end s = s + i end\n"
   "for i = 1, 0 do s = s + 1000 end\n"
   "for i = math.maxinteger - 2, math.maxinteger do s = s + 1 end\n"
   "print(s)\n"},
  {"while, repeat and goto loops, nested",
   "local n, k, out = 0, 0, 0\n"
   "while n < 300 do n = n + 1; k = k + n % 5 end\n"
   "local i = 0\n"
   "while true do\n"
   "  i = i + 1\n"
   "  local j = i\n"
   "  while j > 0 do j = j - 4; out = out + 1 end\n"
   "  if i > 40 then break end\n"
   "end\n"
   "repeat k = k - 3 until k < 0\n"
   "local m = 0\n"
   "::top:: m = m + 1\n"
   "if m < 77 then goto top end\n"
   "print(n, k, out, m)\n"},
  {"loops that call functions, metamethods and C functions",
   "local mt = {__index = function(t, k) return #k end}\n"
   "mt.__add = function(a, b) return setmetatable({v = a.v + b.v}, mt) end\n"
   "local o = setmetatable({v = 0}, mt)\n"
   "local function f(x) return x * 2 end\n"
   "local s = 0\n"
   "for i = 1, 100 do o = o + setmetatable({v = i}, mt); s = s + f(i) end\n"
   "local t = {}\n"
   "for i = 1, 100 do t[#t + 1] = tostring(i) .. o.abc end\n"
   "local w = 0\n"
   "while w < 50 do w = w + select('#', 1, 2, 3) end\n"
   "for i = 1, 50 do w = w + i % 3 end\n"
   "table.sort(t, function(a, b) return #a < #b or (#a == #b and a < b) end)\n"
   "print(o.v, s, #t, t[1], w)\n"},
  {"generic for loops, whose TFORLOOPACCT pays for the body: C and Lua "
   "iterators, break, empty, nested, an iterator that yields",
   "local t = {} for i = 1, 50 do t[i] = i * 7 % 23 end\n"
   "local s = 0\n"
   "for _, v in ipairs(t) do s = s + v end\n"
   "for k, v in pairs({x = 1, y = 2, z = 3}) do s = s + #k * v end\n"
   "local function upto(n) local i = 0\n"
   "  return function() i = i + 1; if i <= n then return i end end end\n"
   "for r = 1, 9 do\n"
   "  for i in upto(r) do if i == 6 then break end s = s + i end\n"
   "  for _ in upto(0) do s = s - 100 end\n"
   "  for i in upto(r) do for j in upto(i) do s = s + j % 3 end end\n"
   "end\n"
   "local gen = coroutine.wrap(function()\n"
   "  local n = 0\n"
   "  for v in function() return coroutine.yield(n) end do n = n + v end\n"
   "  return -1\n"
   "end)\n"
   "gen() for i = 1, 30 do s = s + gen(i) end s = s + gen(nil)\n"
   "print(s)\n"},
  {"coroutines that yield inside loops (from a metamethod too), some left "
   "suspended",
   "local Y = setmetatable({}, {__index = function(_, k)\n"
   "  return coroutine.yield(k) end})\n"
   "local function gen(n)\n"
   "  return coroutine.wrap(function()\n"
   "    for i = 1, n do coroutine.yield(i) end\n"
   "    local j = 0\n"
   "    while true do j = j + 1; j = j + (Y[-j] or 0) - (-j) end\n"
   "  end)\n"
   "end\n"
   "local s = 0\n"
   "for r = 1, 30 do\n"
   "  local g = gen(r % 7)\n"
   "  for k = 1, r % 11 do s = s + g() end\n"
   "end\n"
   "print(s)\n"},
};

enum { NPROGRAMS = sizeof programs / sizeof programs[0] };

#ifdef LRAF_VM

/* How many of f's (and its nested functions') instructions are op. */
static int count_op(const bc_proto *f, int op) {
  int pc, n = 0, k;
  for (pc = 0; pc < f->sizecode; pc++) n += bc_op(f->code[pc]) == op;
  for (k = 0; k < f->sizep; k++) n += count_op(f->p[k], op);
  return n;
}

/* Every program counts what the hook counts (at least, where coroutines
   are left suspended), with consume called at nearly every check
   (granularity 1 and 7) and seldom. */
static void test_counts(void **state) {
  static const long long grans[] = {1, 7, 100000};
  int i, g;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++)
    for (g = 0; g < 3; g++) {
      const program *p = &programs[i];
      tutil_run hook, rw;
      tutil_oracle_both(p->src, p->name, NULL, grans[g], &hook, &rw);
      printf("  %-70s g=%-6lld hook %6lld lraf %6lld, %ld paid at an end\n",
             p->name, grans[g], hook.count, rw.count, rw.stats.paid_at_end);
      if (strstr(p->name, "left suspended") != NULL)
        /* a coroutine left suspended keeps the charge of the rest of a
           block that paid at its start (the default mode) */
        assert_true(rw.count >= hook.count);
      else
        assert_int_equal(rw.count, hook.count);
      assert_true(rw.stats.paid_at_end > 0);
      tutil_run_free(&hook);
      tutil_run_free(&rw);
    }
}

/* A block longer than one ACCT's charge (65535) cannot pay at its end:
   it pays at its head, as before, and still counts exactly (a while
   loop: a for loop's body cannot be that long). */
static void test_charge_beyond_one_acct(void **state) {
  const char *stmt = "x = x + 1 ";
  size_t n = 70000, len = strlen(stmt), k;
  char *src = malloc(n * len + 64);
  tutil_run hook, rw;
  char *p;
  (void)state;
  assert_non_null(src);
  p = src + sprintf(src, "local x, n = 0, 0 while n < 2 do n = n + 1 ");
  for (k = 0; k < n; k++, p += len) memcpy(p, stmt, len);
  strcpy(p, "end print(x)\n");
  tutil_oracle_both(src, "=long", NULL, 1000, &hook, &rw);
  printf("  a loop body of %zu instructions: hook %lld lraf %lld\n", n,
         hook.count, rw.count);
  assert_int_equal(rw.count, hook.count);
  tutil_run_free(&hook);
  tutil_run_free(&rw);
  free(src);
}

/* What ran of a block that pays at its end is charged when an error or
   a yield leaves it first: a loop body that dies in an error from a
   pcall, and coroutines left suspended inside a long loop body, never
   count less than the hook, though each ran far more than its caller
   paid for it. */
static void test_cut_short_is_charged(void **state) {
  static const char *const srcs[] = {
    "local t = {}\n"
    "for r = 1, 200 do\n"
    "  pcall(function()\n"
    "    local a, b, c = r, r + 1, r + 2\n"
    "    while true do\n"
    "      a = a + b; b = b + c; c = c + a; a = a ~ b; b = b ~ c; c = c ~ a\n"
    "      a = a + b; b = b + c; c = c + a; a = a ~ b; b = b ~ c; c = c ~ a\n"
    "      t[#t + 1] = a + (#t % 7 == 6 and {} or 0)\n"
    "    end\n"
    "  end)\n"
    "end\n"
    "print(#t)\n",
    "local keep = {}\n"
    "local Y = setmetatable({}, {__index = function(_, k)\n"
    "  return coroutine.yield(k) end})\n"
    "for r = 1, 200 do\n"
    "  local co = coroutine.wrap(function()\n"
    "    local a, b, c = r, r + 1, r + 2\n"
    "    while true do\n"
    "      a = a + b; b = b + c; c = c + a; a = a ~ b; b = b ~ c; c = c ~ a\n"
    "      a = a + b; b = b + c; c = c + a; a = a ~ b; b = b ~ c; c = c ~ a\n"
    "      a = a + Y[a & 7]\n"
    "    end\n"
    "  end)\n"
    "  co()\n"
    "  keep[#keep + 1] = co\n"
    "end\n"
    "print(#keep)\n",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    tutil_run hook, rw;
    tutil_oracle_both(srcs[i], "=cut", NULL, 1000, &hook, &rw);
    printf("  %s: hook %lld, lraf %lld\n", i ? "abandoned coroutines"
                                              : "errors in loop bodies",
           hook.count, rw.count);
    assert_true(rw.count >= hook.count);
    /* over by at most the rest of a block or two per run */
    assert_true(rw.count - hook.count <= 200 * 40);
    tutil_run_free(&hook);
    tutil_run_free(&rw);
  }
}

/* A loop body that calls pays where it starts: each frame of a deep
   recursion would otherwise have run its body unseen by the checks
   below it.  A quota stops such a recursion in time (within half the
   quota of work) instead of letting it run until Lua's stack runs out. */
static void test_calls_pay_before(void **state) {
  const char *src =
    "work = 0\n"
    "local function f(n)\n"
    "  local x = 0\n"
    "  while x >= 0 do\n"
    "    work = work + 1\n"
    "    x = x + 1; x = x + 2; x = x + 3; x = x + 4; x = x + 5; x = x + 6\n"
    "    x = x + 1; x = x + 2; x = x + 3; x = x + 4; x = x + 5; x = x + 6\n"
    "    x = x + 1; x = x + 2; x = x + 3; x = x + 4; x = x + 5; x = x + 6\n"
    "    x = x + 1; x = x + 2; x = x + 3; x = x + 4; x = x + 5; x = x + 6\n"
    "    x = x + 1; x = x + 2; x = x + 3; x = x + 4; x = x + 5; x = x + 6\n"
    "    f(n - 1)\n"
    "  end\n"
    "end\n"
    "f(1 << 40)\n";
  const int64_t quota = 200000;
  lraf_manager *m = lraf_limit_new(quota);
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  lua_Integer work;
  (void)state;
  lraf_default_options(&opt);
  opt.manager = m;
  S = tutil_rt_new(&opt);
  st = tutil_rt_run(S, src, &err);
  lua_getglobal(lraf_lua(S), "work");
  work = lua_tointeger(lraf_lua(S), -1);
  lua_pop(lraf_lua(S), 1);
  printf("  stopped (%s) after %lld frames of about 40 instructions, "
         "quota %lld\n", st == LRAF_EQUOTA ? "quota" : err.message,
         (long long)work, (long long)quota);
  assert_int_equal(st, LRAF_EQUOTA);
  assert_true(work * 40 <= quota * 3 / 2);
  tutil_rt_close(S);
  lraf_manager_release(m);
}

/* Loops that only a limit ends reach consume at their paying jumps. */
static void test_endless_loops_reach_consume(void **state) {
  static const char *const srcs[] = {
    "while true do end",
    "local x = 0 while true do x = x + 1 end",
    "for i = 1, math.maxinteger do end",
    "for x = 1.0, math.huge do end",
    "::a:: goto a",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    tutil_run rw;
    rw_options opt;
    rw_default_options(&opt);
    tutil_run_consume_limit = 50;
    tutil_run_rewritten(srcs[i], strlen(srcs[i]), "=endless", &opt, 100, 0,
                        &rw);
    tutil_run_consume_limit = 0;
    printf("  %-40s stopped after %lld consumes: %s\n", srcs[i],
           rw.consumes, rw.ok ? "(ran to the end)" : rw.error);
    assert_false(rw.ok);
    assert_true(rw.consumes >= 50);
    tutil_run_free(&rw);
  }
}

/* Paused at its paying jumps (consume yields from JMPACCT, FORLOOPACCT
   or TFORLOOPACCT, and luaV_finishOp completes the jump or the loop's
   step on resuming), a coroutine computes what it computes unpaused,
   and counts what the hook counts. */
static void test_paused_at_paying_jumps(void **state) {
  const char *src =
    "local s, x = 0, 0.0\n"
    "for i = 1, 500 do s = s + i % 13 end\n"
    "for f = 0.5, 30, 0.5 do x = x + f end\n"
    "local j = 0\n"
    "while j < 400 do j = j + 3; s = s ~ j end\n"
    "for i = 10, 1, -1 do if i % 2 == 0 then s = s + i else s = s - 1 end end\n"
    "local t = {} for i = 1, 40 do t[i] = i end\n"
    "for _, v in ipairs(t) do s = s + v end\n"
    "for k in pairs(t) do s = s - k % 5 end\n"
    "return s, x, j";
  int pauses = 0, k;
  lraf_manager *m = tutil_pausing_manager(&pauses);
  lraf_options opt;
  lraf_state *S;
  tutil_threads oracle;
  double got[3];
  long long results[3], total;
  (void)state;
  lraf_default_options(&opt);
  opt.manager = m;
  opt.granularity = 5;
  S = tutil_rt_new(&opt);
  tutil_rt_resume_all(S, src, "=paused", 3, got);
  for (k = 0; k < 3; k++) results[k] = (long long)got[k];
  total = (long long)tutil_rt_total(S);  /* loading the chunk runs nothing */
  tutil_rt_close(S);
  lraf_manager_release(m);
  tutil_rt_oracle(src, strlen(src), "=paused", &oracle);
  assert_true(oracle.ok);
  printf("  %d pauses; s %lld x %lld j %lld; counted %lld, the hook %lld\n",
         pauses, results[0], results[1], results[2], total, oracle.count[0]);
  assert_true(pauses > 100);
  assert_int_equal(results[1], 915);  /* 0.5 + 1 + ... + 30 */
  assert_int_equal(results[2], 402);
  assert_int_equal(results[0], 2765 + 820 - 80);  /* lua5.4: 2765 before
                                                     the generic loops */
  assert_int_equal(total, oracle.count[0]);
  tutil_threads_free(&oracle);
}

/* A script's own count and line hooks see its own code: the same counts
   and lines over loops as on the unmodified program. */
static void test_own_hooks(void **state) {
  const char *src =
    "local n, lines = 0, {}\n"
    "debug.sethook(function(ev, line)\n"
    "  if ev == 'count' then n = n + 1 else lines[#lines + 1] = line end\n"
    "end, 'l', 1)\n"
    "local s = 0\n"
    "for i = 1, 5 do\n"
    "  s = s + i\n"
    "end\n"
    "local j = 0\n"
    "while j < 4 do\n"
    "  j = j + 1\n"
    "end\n"
    "debug.sethook()\n"
    "print(n, s, j, table.concat(lines, ' '))\n";
  tutil_run plain, rw;
  rw_options opt;
  (void)state;
  rw_default_options(&opt);
  tutil_run_every(src, strlen(src), "=hooks", 0, &plain);
  tutil_run_rewritten(src, strlen(src), "=hooks", &opt, 3, 0, &rw);
  assert_true(plain.ok && rw.ok);
  printf("  unmodified: %.*s  rewritten:  %.*s", (int)plain.outlen,
         plain.output, (int)rw.outlen, rw.output);
  assert_true(tutil_run_same_output(&plain, &rw));
  assert_true(rw.stats.paid_at_end > 0);
  tutil_run_free(&plain);
  tutil_run_free(&rw);
}

/* Only the default mode of code rewritten in memory pays at its ends:
   not exact mode, not a profile's lines, not an offline chunk (no room
   for the table of what is behind), never the stock target. */
static void test_where_it_applies(void **state) {
  rw_stats st;
  bc_chunk *c;
  int i, k;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++) {
    const char *src = programs[i].src;
    c = tutil_vm_rewritten_in(src, "=paying", &tutil_vm_lravm_memory, &st);
    assert_true(st.paid_at_end > 0);
    assert_true(count_op(c->main, BC_OP_JMPACCT) +
                count_op(c->main, BC_OP_FORLOOPACCT) == st.paid_at_end);
    assert_int_equal(count_op(c->main, BC_OP_TFORLOOPACCT),
                     st.paid_by_tforloop);
    if (strstr(programs[i].name, "generic for") != NULL)
      assert_true(st.paid_by_tforloop >= 5);
    bc_chunk_free(c);
    for (k = 0; k < TUTIL_VM_NKEEP; k++) {
      c = tutil_vm_rewritten_in(src, "=paying", &tutil_vm_keep[k], &st);
      assert_int_equal(st.paid_at_end, 0);
      assert_int_equal(st.paid_by_tforloop, 0);
      assert_int_equal(count_op(c->main, BC_OP_JMPACCT), 0);
      assert_int_equal(count_op(c->main, BC_OP_TFORLOOPACCT), 0);
      bc_chunk_free(c);
    }
  }
}

/* The verifier: a test's JMP may not become JMPACCT (the test runs its
   jump itself, without the charge), a paying jump (TFORLOOPACCT too)
   needs its ACCT, and the stock target refuses both. */
static void test_verifier(void **state) {
  const char *src = "local s = 0 for i = 1, 10 do s = s + i end\n"
                    "local j = 0 while j < 10 do j = j + 1 end\n"
                    "for _, v in ipairs({1, 2}) do s = s + v end\n"
                    "return s + j";
  rw_stats st;
  bc_chunk *c =
      tutil_vm_rewritten_in(src, "=paying", &tutil_vm_lravm_memory, &st);
  bc_proto *f = c->main;
  lraf_error err;
  int pc, tests = 0, paying = 0;
  (void)state;
  for (pc = 0; pc + 1 < f->sizecode; pc++) {
    bc_instr saved = f->code[pc + 1];
    int op = bc_op(f->code[pc]);
    if ((bc_opinfo_of(op)->flags & BC_OPF_TEST) &&
        bc_op(saved) == BC_OP_JMP) {
      f->code[pc + 1] = bc_set_op(saved, BC_OP_JMPACCT);
      assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_EVERIFY);
      f->code[pc + 1] = saved;
      tests++;
    }
    if (op == BC_OP_JMPACCT || op == BC_OP_FORLOOPACCT ||
        op == BC_OP_TFORLOOPACCT) {
      f->code[pc + 1] = bc_abck(BC_OP_MOVE, 0, 0, 0, 0);
      assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_EVERIFY);
      assert_non_null(strstr(err.message, "instead of ACCT"));
      f->code[pc + 1] = saved;
      paying++;
    }
  }
  printf("  %d test jumps and %d paying jumps altered\n", tests, paying);
  assert_true(tests >= 1 && paying >= 3);
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_OK);
  assert_int_equal(rw_verify_target(c, RW_STOCK, &err), LRAF_EVERIFY);
  bc_chunk_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_counts),
    cmocka_unit_test(test_charge_beyond_one_acct),
    cmocka_unit_test(test_cut_short_is_charged),
    cmocka_unit_test(test_calls_pay_before),
    cmocka_unit_test(test_endless_loops_reach_consume),
    cmocka_unit_test(test_paused_at_paying_jumps),
    cmocka_unit_test(test_own_hooks),
    cmocka_unit_test(test_where_it_applies),
    cmocka_unit_test(test_verifier),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void) {
  (void)programs;
  return tutil_vm_skip_stock("no paying jumps: the stock target has no ACCT");
}

#endif
