/*
** test_rw_pay_elsewhere.c - what the lraf VM pays elsewhere than at a
** block's start (rw_pay_elsewhere.c), read back from code rewritten as
** in memory (rw_options.refunds): a numeric for loop's body paid by
** FORLOOPACCT, a while loop's by the JMPACCT that goes back, a generic
** for loop's by TFORLOOPACCT, each followed by the ACCT that holds the
** charge; a function without a loop back to its entry paid as the call
** starts (bc_proto.entry); and none of it offline, in exact mode or on
** the stock target.  test_rt_lravm_paying runs such code against the
** count hook.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw.h"
#include "tutil_vm.h"

static const char loops[] =
    "local function numeric(n) local s = 0\n"
    "  for i = 1, n do s = s + i * 3 end return s end\n"
    "local function whiles(n) local i, s = 0, 0\n"
    "  while i < n do i = i + 1 s = s + i end return s end\n"
    "local function generic(t) local s = 0\n"
    "  for _, v in ipairs(t) do s = s + v end return s end\n"
    "local function leaf(a, b) local c = a * b return c + a end\n"
    "return numeric, whiles, generic, leaf\n";

enum { NUMERIC, WHILES, GENERIC, LEAF };

static bc_chunk *rewritten(const rw_options *o, rw_stats *st) {
  bc_chunk *c = tutil_vm_read(loops, "=loops");
  lraf_error err;
  if (rw_rewrite(c, o, st, &err) != LRAF_OK)
    fail_msg("rewrite: %s", err.message);
  if (o->target == RW_LRAVM &&
      rw_verify_target(c, RW_LRAVM, &err) != LRAF_OK)
    fail_msg("verify: %s", err.message);
  return c;
}

/* How many of f's instructions have opcode op. */
static int count_op(const bc_proto *f, int op) {
  int pc, n = 0;
  for (pc = 0; pc < f->sizecode; pc++) n += bc_op(f->code[pc]) == op;
  return n;
}

static void in_memory(rw_options *o) {
  rw_default_options(o);
  o->target = RW_LRAVM;
  o->refunds = 1;
}

static void test_paying_jumps(void **state) {
  static const struct { int fn, op; } want[] = {
    {NUMERIC, BC_OP_FORLOOPACCT}, {WHILES, BC_OP_JMPACCT},
    {GENERIC, BC_OP_TFORLOOPACCT}};
  rw_options o;
  rw_stats st;
  bc_chunk *c;
  size_t i;
  (void)state;
  in_memory(&o);
  c = rewritten(&o, &st);
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    const bc_proto *f = c->main->p[want[i].fn];
    int pc, found = 0;
    for (pc = 0; pc + 1 < f->sizecode; pc++) {
      if (bc_op(f->code[pc]) != want[i].op) continue;
      found++;
      /* the charge it adds is held by the ACCT after it, which never
         runs itself */
      assert_int_equal(bc_op(f->code[pc + 1]), BC_OP_ACCT);
      assert_true(bc_sbx(f->code[pc + 1]) > 0);
    }
    if (found != 1)
      fail_msg("function %d: %d %s, want 1", want[i].fn, found,
               bc_opname(want[i].op));
  }
  assert_true(st.paid_at_end >= 2);       /* the for and while bodies */
  assert_true(st.paid_by_tforloop >= 1);  /* the generic for's body */
  /* the for loop's body: no ACCT between the FORPREP and the loop */
  {
    const bc_proto *f = c->main->p[NUMERIC];
    int pc, prep = -1, loop = -1;
    for (pc = 0; pc < f->sizecode; pc++) {
      if (bc_op(f->code[pc]) == BC_OP_FORPREP) prep = pc;
      if (bc_op(f->code[pc]) == BC_OP_FORLOOPACCT) loop = pc;
    }
    assert_true(prep >= 0 && loop > prep);
    for (pc = prep + 1; pc < loop; pc++)
      assert_int_not_equal(bc_op(f->code[pc]), BC_OP_ACCT);
  }
  bc_chunk_free(c);
}

static void test_entry_charge(void **state) {
  rw_options o;
  rw_stats st;
  bc_chunk *c;
  const bc_proto *f;
  int64_t cost = 0;
  int pc;
  (void)state;
  in_memory(&o);
  c = tutil_vm_read(loops, "=loops");  /* the leaf's cost, before */
  f = c->main->p[LEAF];
  for (pc = 0; pc < f->sizecode; pc++) {
    cost += rw_instr_cost(f, pc, &o);
    if (bc_op(f->code[pc]) == BC_OP_RETURN1) break;
  }
  bc_chunk_free(c);
  c = rewritten(&o, &st);
  f = c->main->p[LEAF];
  assert_int_equal(f->entry, cost);
  assert_int_equal(f->entry_mode, BC_ACCT_ADDCHECK);
  assert_int_not_equal(bc_op(f->code[0]), BC_OP_ACCT);  /* no ACCT then */
  assert_true(st.paid_at_entry >= 1);
  bc_chunk_free(c);
}

/* Offline code has no table for what a block ran before its end, exact
   mode checks at every call, the stock target has none of these
   instructions: all pay at the start of their blocks. */
static void test_only_in_memory_default_mode(void **state) {
  rw_options o;
  rw_stats st;
  bc_chunk *c;
  int k, fn;
  (void)state;
  for (k = 0; k < 4; k++) {
    in_memory(&o);
    if (k == 0) o.refunds = 0;
    if (k == 1) o.exact = 1;
    if (k == 2) o.target = RW_STOCK;
    if (k == 3) o.lines = 1;
    c = rewritten(&o, &st);
    for (fn = 0; fn < c->main->sizep; fn++) {
      const bc_proto *f = c->main->p[fn];
      assert_int_equal(count_op(f, BC_OP_JMPACCT) +
                       count_op(f, BC_OP_FORLOOPACCT) +
                       count_op(f, BC_OP_TFORLOOPACCT), 0);
      assert_int_equal(f->entry, 0);
    }
    assert_int_equal(st.paid_at_end + st.paid_at_entry +
                     st.paid_by_tforloop, 0);
    bc_chunk_free(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_paying_jumps),
    cmocka_unit_test(test_entry_charge),
    cmocka_unit_test(test_only_in_memory_default_mode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
