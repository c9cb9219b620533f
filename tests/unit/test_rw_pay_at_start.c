/*
** test_rw_pay_at_start.c - the accounting code that starts a block
** (rw_pay_at_start.c), read back from rewritten functions: on the stock
** target the increment of the counter and the zero check, in that
** order, with the charge the original instructions cost; on the lraf
** VM one checking ACCT; the overhead mode charging the accounting code
** the hook sees too; charges beyond ADDI's and ACCT's operands (an ADDK
** constant, several ACCTs of which one checks); a branch fold's test
** checking before it adds.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw.h"
#include "tutil_vm.h"

/* A main chunk of one block that returns (and Lua's final RETURN). */
static const char one_block[] = "local x = ... return x";

/* What the hook counts of main's first block, before rewriting. */
static int64_t first_block_cost(const char *src, const rw_options *o) {
  bc_chunk *c = tutil_vm_read(src, "=cost");
  const bc_proto *f = c->main;
  int64_t n = 0;
  int pc;
  for (pc = 0; pc < f->sizecode; pc++) {
    int op = bc_op(f->code[pc]);
    n += rw_instr_cost(f, pc, o);
    if (op == BC_OP_RETURN1 || op == BC_OP_RETURN) break;
  }
  bc_chunk_free(c);
  return n;
}

static bc_chunk *rewritten(const char *src, const rw_options *o) {
  bc_chunk *c = tutil_vm_read(src, "=start");
  lraf_error err;
  if (rw_rewrite(c, o, NULL, &err) != LRAF_OK)
    fail_msg("rewrite: %s", err.message);
  return c;
}

/* The opcodes that start main, after its VARARGPREP. */
static void expect_ops(const bc_proto *f, const int *ops, int n) {
  int k;
  assert_int_equal(bc_op(f->code[0]), BC_OP_VARARGPREP);
  for (k = 0; k < n; k++)
    if (bc_op(f->code[1 + k]) != ops[k])
      fail_msg("pc %d: %s, want %s", 1 + k, bc_opname(bc_op(f->code[1 + k])),
               bc_opname(ops[k]));
}

static void test_stock_increment_then_check(void **state) {
  static const int ops[] = {BC_OP_GETUPVAL, BC_OP_ADDI, BC_OP_MMBINI,
                            BC_OP_SETUPVAL, BC_OP_LTI, BC_OP_JMP,
                            BC_OP_GETUPVAL, BC_OP_CALL, BC_OP_GETUPVAL};
  rw_options o;
  bc_chunk *c;
  const bc_proto *f;
  int r, counter;
  (void)state;
  rw_default_options(&o);
  o.target = RW_STOCK;
  c = tutil_vm_read(one_block, "=start");
  r = c->main->maxstacksize;       /* the scratch register */
  counter = c->main->sizeupvalues;  /* the counter's upvalue */
  bc_chunk_free(c);
  c = rewritten(one_block, &o);
  f = c->main;
  expect_ops(f, ops, 9);
  assert_int_equal(bc_a(f->code[1]), r);
  assert_int_equal(bc_b(f->code[1]), counter);
  assert_int_equal(bc_sc(f->code[2]), first_block_cost(one_block, &o));
  assert_int_equal(bc_b(f->code[7]), counter + 1);  /* consume */
  bc_chunk_free(c);
}

static void test_overhead_counts_the_accounting(void **state) {
  rw_options o;
  bc_chunk *c;
  int64_t original;
  (void)state;
  rw_default_options(&o);
  o.target = RW_STOCK;
  original = first_block_cost(one_block, &o);
  o.mode = RW_OVERHEAD;
  c = rewritten(one_block, &o);
  /* what the hook sees of it on the way past: GETUPVAL, ADDI, SETUPVAL
     and LTI (not the MMBINI, nor the JMP that LTI runs itself) */
  assert_int_equal(bc_sc(c->main->code[2]), original + 4);
  bc_chunk_free(c);
  /* the lraf VM's ACCT is never seen: nothing to add */
  o.target = RW_LRAVM;
  c = rewritten(one_block, &o);
  assert_int_equal(bc_op(c->main->code[1]), BC_OP_ACCT);
  assert_int_equal(bc_sbx(c->main->code[1]), original);
  bc_chunk_free(c);
}

static void test_lravm_one_acct(void **state) {
  rw_options o;
  bc_chunk *c;
  lraf_error err;
  (void)state;
  rw_default_options(&o);
  o.target = RW_LRAVM;
  c = rewritten(one_block, &o);
  assert_int_equal(bc_op(c->main->code[1]), BC_OP_ACCT);
  assert_int_equal(bc_a(c->main->code[1]), BC_ACCT_ADDCHECK);
  assert_int_equal(bc_sbx(c->main->code[1]), first_block_cost(one_block,
                                                               &o));
  assert_int_not_equal(bc_op(c->main->code[2]), BC_OP_ACCT);
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_OK);
  bc_chunk_free(c);
}

/* A charge too large for one operand: weighted mode, RETURN weighing a
   million. */
static void test_large_charges(void **state) {
  uint32_t w[BC_NUM_OPCODES];
  rw_options o;
  bc_chunk *c;
  int64_t n, sum = 0;
  int op, pc, checks = 0;
  lraf_error err;
  (void)state;
  for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = 1;
  w[BC_OP_RETURN] = 1000000;  /* main is vararg: RETURN */
  rw_default_options(&o);
  o.mode = RW_WEIGHTED;
  o.weights = w;
  o.target = RW_LRAVM;
  n = first_block_cost(one_block, &o);
  assert_true(n > BC_OFFSET_SBX);
  c = rewritten(one_block, &o);
  for (pc = 1; bc_op(c->main->code[pc]) == BC_OP_ACCT; pc++) {
    sum += bc_sbx(c->main->code[pc]);
    if (bc_a(c->main->code[pc]) != BC_ACCT_ADD) {
      checks++;  /* the last one checks, once everything is added */
      assert_int_equal(bc_a(c->main->code[pc]), BC_ACCT_ADDCHECK);
      assert_int_equal(bc_op(c->main->code[pc + 1]) == BC_OP_ACCT, 0);
    }
  }
  assert_int_equal(sum, n);
  assert_int_equal(checks, 1);
  assert_int_equal(pc - 1, (n + BC_OFFSET_SBX - 1) / BC_OFFSET_SBX);
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_OK);
  bc_chunk_free(c);
  /* the stock target: ADDK with the charge as a constant */
  o.target = RW_STOCK;
  c = rewritten(one_block, &o);
  assert_int_equal(bc_op(c->main->code[2]), BC_OP_ADDK);
  assert_int_equal(c->main->k[bc_c(c->main->code[2])].tag, BC_TINT);
  assert_int_equal(c->main->k[bc_c(c->main->code[2])].i, n);
  assert_int_equal(rw_verify(c, &err), LRAF_OK);
  bc_chunk_free(c);
}

/* A while loop's test pays ahead for the body it branches to: its ACCT
   checks before it adds, so no check sees that charge. */
static void test_check_before_charge_ahead(void **state) {
  static const char loop[] =
      "local i, s = 0, 0\n"
      "while i < 100 do i = i + 1; s = s + i * 2 end\n"
      "return s\n";
  rw_options o;
  rw_stats st;
  bc_chunk *c = tutil_vm_read(loop, "=loop");
  lraf_error err;
  int pc, checkadd = 0;
  (void)state;
  rw_default_options(&o);
  o.target = RW_LRAVM;
  assert_int_equal(rw_rewrite(c, &o, &st, &err), LRAF_OK);
  assert_true(st.branch_folds > 0);
  for (pc = 0; pc < c->main->sizecode; pc++)
    if (bc_op(c->main->code[pc]) == BC_OP_ACCT &&
        bc_a(c->main->code[pc]) == BC_ACCT_CHECKADD)
      checkadd++;
  assert_int_equal(checkadd, st.branch_folds);
  bc_chunk_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stock_increment_then_check),
    cmocka_unit_test(test_overhead_counts_the_accounting),
    cmocka_unit_test(test_lravm_one_acct),
    cmocka_unit_test(test_large_charges),
    cmocka_unit_test(test_check_before_charge_ahead),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
