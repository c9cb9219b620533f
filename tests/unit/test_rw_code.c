/*
** test_rw_code.c - the output the emitter puts the rewritten code into
** (rw_code.c, rw_put in rw_code.h), driven directly: every instruction
** put is kept with its line, in order, as the arrays grow far past
** their first size; every jump is noted with its kind, target and the
** original pc being emitted; with a table, exactly the instructions
** where a frame may be left (rw_may_leave) are noted with what is
** charged ahead, and none without a table or with nothing ahead; once
** out of memory nothing more is put; rw_code_free clears it all.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw_code.h"

typedef struct fixture {
  bc_proto f;
  rw_emitctx c;
} fixture;

/* A context writing the code of a function of sizecode instructions
   (what the first guesses of the arrays' sizes start from). */
static void start(fixture *x, int sizecode) {
  memset(x, 0, sizeof *x);
  x->f.sizecode = sizecode;
  x->c.f = &x->f;
}

static void check_freed(rw_emitout *o) {
  rw_code_free(o);
  assert_null(o->code);
  assert_null(o->line);
  assert_null(o->jumps);
  assert_null(o->leaves);
  assert_int_equal(o->n + o->cap + o->njumps + o->nleaves + o->oom, 0);
}

/* The k-th instruction of a sequence where each differs. */
static bc_instr nth(int k) {
  return bc_abck(BC_OP_MOVE, k % 200, (k / 200) % 200, 0, 0);
}

static void puts_in_order_as_it_grows(void **state) {
  fixture x;
  int k, n = 5000;
  (void)state;
  start(&x, 10);
  for (k = 0; k < n; k++) rw_put(&x.c, nth(k), 1000 + k, RW_J_NONE, 0);
  assert_false(x.c.o.oom);
  assert_int_equal(x.c.o.n, n);
  assert_true(x.c.o.cap >= n);
  for (k = 0; k < n; k++) {
    assert_int_equal(x.c.o.code[k], nth(k));
    assert_int_equal(x.c.o.line[k], 1000 + k);
  }
  assert_int_equal(x.c.o.njumps, 0);
  assert_int_equal(x.c.o.nleaves, 0);
  check_freed(&x.c.o);
}

/* Jumps of every kind among plain instructions, enough to grow the
   jumps' array several times. */
static void notes_every_jump(void **state) {
  static const int kinds[] = {RW_J_GROUP, RW_J_INSTR, RW_J_STUB, RW_J_REL};
  fixture x;
  int k, n = 400;
  (void)state;
  start(&x, 8);
  for (k = 0; k < n; k++) {
    x.c.cur_pc = k % 5 == 0 ? -1 : k;  /* -1: in a stub */
    rw_put(&x.c, nth(k), k, RW_J_NONE, 0);
    rw_put(&x.c, bc_isj(BC_OP_JMP, 0), k, kinds[k % 4], 3 * k + 1);
  }
  assert_false(x.c.o.oom);
  assert_int_equal(x.c.o.n, 2 * n);
  assert_int_equal(x.c.o.njumps, n);
  for (k = 0; k < n; k++) {
    const rw_emitjump *j = &x.c.o.jumps[k];
    assert_int_equal(j->at, 2 * k + 1);
    assert_int_equal(j->kind, kinds[k % 4]);
    assert_int_equal(j->ref, 3 * k + 1);
    assert_int_equal(j->src, k % 5 == 0 ? -1 : k);
    assert_int_equal(bc_op(x.c.o.code[j->at]), BC_OP_JMP);
  }
  check_freed(&x.c.o);
}

static bc_instr acct(int mode, int n) {
  return bc_set_bx(bc_abck(BC_OP_ACCT, mode, 0, 0, 0), BC_OFFSET_SBX + n);
}

/* Instructions where a frame may or may not be left. */
typedef struct leaving {
  const char *what;
  bc_instr i;
  int leaves;
} leaving;

enum { NCASES = 8 };

static void fill(leaving *t) {
  t[0] = (leaving){"CALL", bc_abck(BC_OP_CALL, 1, 2, 1, 0), 1};
  t[1] = (leaving){"MOVE", bc_abck(BC_OP_MOVE, 1, 2, 0, 0), 0};
  t[2] = (leaving){"LOADI",
                   bc_set_sbx(bc_abck(BC_OP_LOADI, 1, 0, 0, 0), 7), 0};
  t[3] = (leaving){"JMP", bc_isj(BC_OP_JMP, 3), 0};
  t[4] = (leaving){"ACCT add", acct(BC_ACCT_ADD, 5), 0};
  t[5] = (leaving){"ACCT add, check", acct(BC_ACCT_ADDCHECK, 5), 1};
  t[6] = (leaving){"ACCT check, add", acct(BC_ACCT_CHECKADD, 5), 1};
  t[7] = (leaving){"TFORLOOPACCT",
                   bc_abck(BC_OP_TFORLOOPACCT, 1, 0, 0, 0), 1};
}

/* With a table and something ahead, each instruction that may leave
   the frame is noted at its index with that amount; the rest are not,
   and nothing is noted without a table or with nothing ahead.  Many
   rounds, so that the leaves' array grows. */
static void notes_where_a_frame_may_be_left(void **state) {
  enum { ROUNDS = 50 };
  static rw_emitleave want[ROUNDS * NCASES];
  leaving cases[NCASES];
  fixture x;
  int round, k, nwant = 0;
  (void)state;
  fill(cases);
  start(&x, 4);
  for (k = 0; k < NCASES; k++)
    if (rw_may_leave(cases[k].i) != cases[k].leaves)
      fail_msg("rw_may_leave(%s) is %d", cases[k].what, !cases[k].leaves);
  for (round = 0; round < ROUNDS; round++) {
    int64_t ahead = round % 2 ? round + 1 : -(round + 1);
    for (k = 0; k < NCASES; k++) {
      x.c.table = 0;  /* no table: nothing noted */
      x.c.cur_ahead = ahead;
      rw_put(&x.c, cases[k].i, 1, RW_J_NONE, 0);
      x.c.table = 1;  /* nothing ahead: nothing noted */
      x.c.cur_ahead = 0;
      rw_put(&x.c, cases[k].i, 1, RW_J_NONE, 0);
      x.c.cur_ahead = ahead;
      if (cases[k].leaves) {
        want[nwant].at = x.c.o.n;
        want[nwant++].ahead = ahead;
      }
      rw_put(&x.c, cases[k].i, 1, RW_J_NONE, 0);
    }
  }
  assert_false(x.c.o.oom);
  assert_int_equal(x.c.o.nleaves, nwant);
  for (k = 0; k < nwant; k++) {
    assert_int_equal(x.c.o.leaves[k].at, want[k].at);
    assert_int_equal(x.c.o.leaves[k].ahead, want[k].ahead);
  }
  check_freed(&x.c.o);
}

/* Out of memory once: nothing more is put, and no array grows. */
static void nothing_put_once_out_of_memory(void **state) {
  fixture x;
  int k;
  (void)state;
  start(&x, 4);
  for (k = 0; k < 10; k++) rw_put(&x.c, nth(k), k, RW_J_NONE, 0);
  assert_int_equal(x.c.o.n, 10);
  x.c.o.oom = 1;
  while (x.c.o.n < x.c.o.cap) rw_put(&x.c, nth(0), 0, RW_J_NONE, 0);
  k = x.c.o.n;
  rw_put(&x.c, nth(1), 0, RW_J_GROUP, 0);
  assert_int_equal(x.c.o.n, k);
  assert_int_equal(x.c.o.njumps, 0);
  assert_int_equal(rw_grow(&x.c), 0);
  assert_int_equal(rw_grow_jumps(&x.c), 0);
  assert_int_equal(rw_grow_leaves(&x.c), 0);
  assert_null(x.c.o.jumps);
  assert_null(x.c.o.leaves);
  assert_int_equal(x.c.o.cap, k);
  check_freed(&x.c.o);
}

/* The source line of an original pc is the one the context holds. */
static void line_of_an_original_pc(void **state) {
  fixture x;
  int lines[] = {3, 3, 4, 9, 12};
  int pc;
  (void)state;
  start(&x, 5);
  x.c.lines = lines;
  for (pc = 0; pc < 5; pc++)
    assert_int_equal(rw_line_of(&x.c, pc), lines[pc]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(puts_in_order_as_it_grows),
    cmocka_unit_test(notes_every_jump),
    cmocka_unit_test(notes_where_a_frame_may_be_left),
    cmocka_unit_test(nothing_put_once_out_of_memory),
    cmocka_unit_test(line_of_an_original_pc),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
