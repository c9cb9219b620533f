/*
** test_rw_ahead_table.c - the table of what a function has charged ahead
** where a frame may be left (rw_ahead_table.c, bc_proto.ahead), read
** back from code rewritten for the lraf VM in memory: in exact mode
** with refunds, at each pc of a straight-line function where a call, an
** error or its zero check may leave it, the charge of its one ACCT
** less what ran up to and with that pc; where blocks pay at their end,
** only what ran and is not yet paid (below 0); sorted by pc, never 0;
** and no table offline.
** test_rt_lravm_refunds runs such code against the count hook.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw.h"
#include "tutil_vm.h"

/* f: one block, with calls and instructions that may raise. */
static const char straight[] =
    "local function f(t, g)\n"
    "  local a = t.x\n"
    "  local b = g(a)\n"
    "  local c = a .. b\n"
    "  return #c + t[a]\n"
    "end\n"
    "return f\n";

/* g: a loop whose body pays at its end (it calls nothing) and may raise
   an error. */
static const char loop[] =
    "local function g(n, t)\n"
    "  local s = 0\n"
    "  for i = 1, n do s = s + t[i] * 2 end\n"
    "  return s\n"
    "end\n"
    "return g\n";

static bc_chunk *rewritten(const char *src, int exact, int refunds) {
  bc_chunk *c = tutil_vm_read(src, "=ahead");
  rw_options o;
  lraf_error err;
  rw_default_options(&o);
  o.target = RW_LRAVM;
  o.exact = exact;
  o.refunds = refunds;
  if (rw_rewrite(c, &o, NULL, &err) != LRAF_OK)
    fail_msg("rewrite: %s", err.message);
  return c;
}

static void check_sorted(const bc_proto *f) {
  int k;
  for (k = 0; k < f->sizeahead; k++) {
    assert_true(f->ahead[k].pc >= 0 && f->ahead[k].pc < f->sizecode);
    assert_int_not_equal(f->ahead[k].n, 0);
    if (k > 0) assert_true(f->ahead[k - 1].pc < f->ahead[k].pc);
  }
}

static void test_exact_refunds(void **state) {
  bc_chunk *orig = tutil_vm_read(straight, "=ahead"), *c;
  const bc_proto *o = orig->main->p[0], *f;
  rw_options opt;
  int64_t charge;
  int k;
  (void)state;
  rw_default_options(&opt);
  opt.target = RW_LRAVM;
  c = rewritten(straight, 1, 1);
  f = c->main->p[0];
  /* one block up to its RETURN1 (Lua's final RETURN0 is another): one
     ACCT before the parser's code, which follows as it was */
  assert_int_equal(bc_op(f->code[0]), BC_OP_ACCT);
  for (k = 0; bc_op(o->code[k]) != BC_OP_RETURN1; k++)
    assert_int_equal(f->code[k + 1], o->code[k]);
  charge = bc_sbx(f->code[0]);
  assert_true(f->sizeahead >= 4);  /* t.x, g(a), .., #c, t[a], + */
  check_sorted(f);
  for (k = 0; k < f->sizeahead; k++) {
    int pc = f->ahead[k].pc, q;
    int64_t ran = 0;
    for (q = 0; q <= pc - 1; q++) ran += rw_instr_cost(o, q, &opt);
    if (f->ahead[k].n != charge - ran)
      fail_msg("pc %d: %d ahead, want %lld", pc, f->ahead[k].n,
               (long long)(charge - ran));
    assert_true(f->ahead[k].n > 0);
  }
  bc_chunk_free(c);
  bc_chunk_free(orig);
}

static void test_behind_where_blocks_pay_at_end(void **state) {
  bc_chunk *c = rewritten(loop, 0, 1);
  const bc_proto *f = c->main->p[0];
  int k;
  (void)state;
  assert_true(f->sizeahead >= 1);  /* t[i] and the arithmetic after it */
  check_sorted(f);
  for (k = 0; k < f->sizeahead; k++)
    assert_true(f->ahead[k].n < 0);  /* run, not yet paid */
  bc_chunk_free(c);
}

static void test_no_table_offline(void **state) {
  int exact;
  (void)state;
  for (exact = 0; exact < 2; exact++) {
    bc_chunk *c = rewritten(exact ? straight : loop, exact, 0);
    assert_int_equal(c->main->p[0]->sizeahead, 0);
    assert_null(c->main->p[0]->ahead);
    bc_chunk_free(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_refunds),
    cmocka_unit_test(test_behind_where_blocks_pay_at_end),
    cmocka_unit_test(test_no_table_offline),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
