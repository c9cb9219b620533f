/*
** test_rw_cfg_preds.c - paying for a block in its predecessors
** (rw_cfg.c, lraf VM target): a block whose every predecessor goes only
** to it, such as the header of a while loop entered by falling in and by
** the jump back, is paid for by their increments and runs no ACCT.
** Loops of every shape must count what the count hook counts (default
** and exact modes, granularities that call consume often and seldom); on
** the lraf VM target each such loop runs one ACCT per turn, and every
** cycle still passes a zero check (rw_verify_target).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"
#include "tutil_oracle.h"
#include "tutil_run.h"
#include "tutil_vm.h"

typedef struct program {
  const char *name;
  const char *src;
} program;

static const program programs[] = {
  {"while loop with a dear body, inside a test in a for loop",
   "local function f(words, m)\n"
   "  for j = 0, 60 do\n"
   "    if words[j >> 6] & (1 << (j & 63)) == 0 then\n"
   "      local p = 2 * j + 3\n"
   "      local k = (p * p - 3) // 2\n"
   "      while k < m do\n"
   "        words[k >> 6] = words[k >> 6] | (1 << (k & 63))\n"
   "        k = k + p\n"
   "      end\n"
   "    end\n"
   "  end\n"
   "end\n"
   "local w = {}\n"
   "for i = 0, 100 do w[i] = 0 end\n"
   "f(w, 5000)\n"
   "print(w[3], w[50])\n"},
  {"nested whiles, break and goto continue",
   "local n, out = 0, 0\n"
   "local i = 0\n"
   "while i < 60 do\n"
   "  i = i + 1\n"
   "  local j = i\n"
   "  while true do\n"
   "    j = j - 3\n"
   "    if j < 0 then break end\n"
   "    if j % 5 == 0 then goto continue end\n"
   "    n = n + j\n"
   "    ::continue::\n"
   "  end\n"
   "  out = out + n % 7\n"
   "end\n"
   "print(n, out)\n"},
  {"joins after if-else inside loops",
   "local a, b, c = 0, 0, 0\n"
   "local k = 1\n"
   "while k <= 400 do\n"
   "  if k % 3 == 0 then a = a + k elseif k % 3 == 1 then b = b + 1\n"
   "  else c = c - k end\n"
   "  local x = k % 2 == 0 and a or b\n"
   "  c = c + x % 11\n"
   "  k = k + 1\n"
   "end\n"
   "repeat k = k - 7 until k < 0\n"
   "print(a, b, c, k)\n"},
  {"while loops calling functions and metamethods",
   "local mt = {__add = function(x, y) return {v = x.v + y.v} end,\n"
   "            __lt = function(x, y) return x.v < y.v end}\n"
   "local function obj(v) return setmetatable({v = v}, mt) end\n"
   "local acc, lim = obj(0), obj(900)\n"
   "local steps = 0\n"
   "while acc < lim do acc = acc + obj(7); steps = steps + 1 end\n"
   "local s = 0\n"
   "for _, v in ipairs({4, 8, 15, 16, 23, 42}) do\n"
   "  local t = v\n"
   "  while t > 1 do t = t % 2 == 0 and t // 2 or 3 * t + 1; s = s + 1 end\n"
   "end\n"
   "print(acc.v, steps, s)\n"},
  {"a scanner: while true with nested tests, breaks and early exits",
   "local function scan(s)\n"
   "  local out, j, n = {}, 1, 0\n"
   "  while true do\n"
   "    local c = s:byte(j)\n"
   "    if c == nil then return nil, j end\n"
   "    if c == 59 then break end\n"
   "    if c == 37 then\n"
   "      local d = s:sub(j + 1, j + 1)\n"
   "      if d == 'x' then\n"
   "        local v = tonumber(s:sub(j + 2, j + 3), 16)\n"
   "        if not v then return nil, j end\n"
   "        out[#out + 1] = string.char(v)\n"
   "        j = j + 4\n"
   "      else\n"
   "        out[#out + 1] = d == 'n' and '\\n' or d\n"
   "        j = j + 2\n"
   "      end\n"
   "    else\n"
   "      n = n + 1\n"
   "      out[#out + 1] = string.char(c)\n"
   "      j = j + 1\n"
   "    end\n"
   "  end\n"
   "  return table.concat(out), n\n"
   "end\n"
   "local total = 0\n"
   "for i = 1, 40 do\n"
   "  local r, n = scan('ab%x41c%nd%%e' .. i .. ';rest')\n"
   "  total = total + #r + n\n"
   "  local bad = scan('x%xZZ;')\n"
   "  if bad then total = total + 1 end\n"
   "end\n"
   "print(total)\n"},
  {"generic for loops: Lua and C iterators, nested, break, empty, goto",
   "local t = {} for i = 1, 60 do t[i] = i * 3 % 17 end\n"
   "local s = 0\n"
   "for _, v in ipairs(t) do s = s + v end\n"
   "for k, v in pairs({a = 1, b = 2, c = 3}) do s = s + #k + v end\n"
   "local function range(n) local i = 0\n"
   "  return function() i = i + 1; if i <= n then return i end end end\n"
   "for r = 1, 12 do\n"
   "  for i in range(r) do if i == 9 then break end s = s + i end\n"
   "  for _ in range(0) do s = s + 1000 end\n"
   "  for i in range(r % 4) do\n"
   "    if i % 2 == 0 then goto continue end\n"
   "    s = s - i\n"
   "    ::continue::\n"
   "  end\n"
   "end\n"
   "local gen = coroutine.wrap(function()\n"
   "  for i in range(40) do coroutine.yield(i) end return nil end)\n"
   "for v in gen do s = s + v end\n"
   "print(s)\n"},
  {"coroutines yielding inside while loops",
   "local gen = coroutine.wrap(function()\n"
   "  local i = 0\n"
   "  while i < 300 do i = i + 1; if i % 4 == 0 then coroutine.yield(i) end end\n"
   "  return -1\n"
   "end)\n"
   "local s, v = 0, 0\n"
   "while v >= 0 do v = gen(); s = s + v end\n"
   "print(s)\n"},
};

enum { NPROGRAMS = sizeof programs / sizeof programs[0] };

static void check(const program *p, const rw_options *opt,
                  long long granularity) {
  tutil_run hook, rw;
  tutil_oracle_both(p->src, p->name, opt, granularity, &hook, &rw);
  printf("  %-46s %-7s g=%-6lld hook %7lld lraf %7lld\n", p->name,
         opt->exact ? "exact" : "default", granularity, hook.count,
         rw.count);
  assert_int_equal(rw.count, hook.count);
  tutil_run_free(&hook);
  tutil_run_free(&rw);
}

/* Every program counts what the hook counts, on this build's target. */
static void test_exact_counts(void **state) {
  static const long long grans[] = {7, 100000};
  int i, g, exact;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++)
    for (exact = 0; exact <= 1; exact++)
      for (g = 0; g < 2; g++) {
        rw_options opt;
        rw_default_options(&opt);
        opt.exact = exact;
        check(&programs[i], &opt, grans[g]);
      }
}

/* p rewritten for the lraf VM, verified, and its statistics. */
static bc_chunk *rewritten(const program *p, int exact, rw_stats *stats) {
  rw_options opt;
  rw_default_options(&opt);
  opt.target = RW_LRAVM;
  opt.exact = exact;
  opt.refunds = 1;  /* as rewriting in memory does */
  return tutil_vm_rewritten(p->src, p->name, &opt, stats);
}

/* The ACCTs from the target of each backward jump of opcode op or of its
   paying form (which pays with the ACCT after it, outside that range,
   and no dispatch of its own) to the jump, in f and its nested
   functions: for a loop whose body is one block, what runs per turn
   (JMP: a while loop; TFORLOOP: a generic for loop).  Returns the
   largest such number. */
static int most_accts_per_turn(const bc_proto *f, int op, int paying) {
  int pc, most = 0, k;
  for (pc = 0; pc < f->sizecode; pc++) {
    int t, n = 0, q;
    if ((bc_op(f->code[pc]) != op && bc_op(f->code[pc]) != paying) ||
        !bc_jump_target(f->code[pc], pc, &t) || t > pc)
      continue;
    for (q = t; q <= pc; q++) n += bc_op(f->code[q]) == BC_OP_ACCT;
    if (n > most) most = n;
  }
  for (k = 0; k < f->sizep; k++) {
    int m = most_accts_per_turn(f->p[k], op, paying);
    if (m > most) most = m;
  }
  return most;
}

static int most_accts_per_loop(const bc_proto *f) {
  return most_accts_per_turn(f, BC_OP_JMP, BC_OP_JMPACCT);
}

static int most_accts_per_tfor(const bc_proto *f) {
  return most_accts_per_turn(f, BC_OP_TFORLOOP, BC_OP_TFORLOOPACCT);
}

/* The while loop of programs[0], whose header is entered from the code
   before it and from its body's last jump: the header was paid for by
   its predecessors, in the default mode and in exact mode by refunds
   (rewriting in memory); one ACCT per turn in exact mode, none in the
   default mode, where the body pays at its jump back (JMPACCT). */
static void test_one_acct_per_turn(void **state) {
  int exact;
  (void)state;
  for (exact = 0; exact <= 1; exact++) {
    rw_stats stats;
    bc_chunk *chunk;
    chunk = rewritten(&programs[0], exact, &stats);
    printf("  %s: %ld blocks paid by their predecessors, %ld at their "
           "end, at most %d ACCT per while loop turn\n",
           exact ? "exact" : "default", stats.paid_by_preds,
           stats.paid_at_end, most_accts_per_loop(chunk->main));
    assert_true(stats.paid_by_preds >= 1);
    assert_int_equal(most_accts_per_loop(chunk->main), exact ? 1 : 0);
    assert_true(exact ? stats.paid_at_end == 0 : stats.paid_at_end >= 1);
    bc_chunk_free(chunk);
  }
}


/* A generic for loop's TFORCALL block is paid for by the end of the
   body (TFORPREP enters it past its code and pays nothing): a body of
   one block runs one ACCT per turn in exact mode, which pays for the
   next TFORCALL too and makes the loop's check; in the default mode its
   TFORLOOPACCT pays for the body as the loop goes on, and a turn runs
   no ACCT. */
static void test_generic_for_one_acct_per_turn(void **state) {
  const program p = {"=tfor", "local t, s = {1, 2, 3, 4}, 0\n"
                              "for _, v in ipairs(t) do s = s + v end\n"
                              "for k in pairs(t) do s = s + k * 2 end\n"
                              "return s"};
  int exact;
  (void)state;
  for (exact = 0; exact <= 1; exact++) {
    rw_stats stats;
    bc_chunk *chunk;
    chunk = rewritten(&p, exact, &stats);
    printf("  %s: %ld blocks paid by their predecessors, %ld by their "
           "TFORLOOP, at most %d ACCT per generic for turn\n",
           exact ? "exact" : "default", stats.paid_by_preds,
           stats.paid_by_tforloop, most_accts_per_tfor(chunk->main));
    assert_true(stats.paid_by_preds >= 2);
    assert_int_equal(stats.paid_by_tforloop, exact ? 0 : 2);
    assert_int_equal(most_accts_per_tfor(chunk->main), exact ? 1 : 0);
    bc_chunk_free(chunk);
  }
}

/* The stock target keeps its code exactly as before: nothing is paid
   for by predecessors there. */
static void test_stock_target_unchanged(void **state) {
  int i;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++) {
    tutil_vm_buf buf;
    bc_chunk *chunk = NULL;
    rw_options opt;
    rw_stats stats;
    lraf_error err;
    char msg[256];
    const program *p = &programs[i];
    if (!tutil_vm_dump(p->src, strlen(p->src), p->name, 0, &buf, msg,
                       sizeof msg))
      fail_msg("%s does not compile: %s", p->name, msg);
    assert_int_equal(bc_read(buf.data, buf.size, NULL, &chunk, &err), LRAF_OK);
    free(buf.data);
    rw_default_options(&opt);
    opt.target = RW_STOCK;
    memset(&stats, 0, sizeof stats);
    assert_int_equal(rw_rewrite(chunk, &opt, &stats, &err), LRAF_OK);
    assert_int_equal(stats.paid_by_preds, 0);
    bc_chunk_free(chunk);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_counts),
    cmocka_unit_test(test_one_acct_per_turn),
    cmocka_unit_test(test_generic_for_one_acct_per_turn),
    cmocka_unit_test(test_stock_target_unchanged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
