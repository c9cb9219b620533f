/*
** test_bc_opcodes.c - the opcode table, instruction encoding, operand
** dependent properties, jump targets (also on compiled code), what the
** hook counts and the MMBIN pairs.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tutil_vm.h"
#include "bc.h"

/* ------------------------------------------------------------------ */
/* The table                                                            */
/* ------------------------------------------------------------------ */

static const char *const names[] = {
  "MOVE", "LOADI", "LOADF", "LOADK", "LOADKX", "LOADFALSE", "LFALSESKIP",
  "LOADTRUE", "LOADNIL", "GETUPVAL", "SETUPVAL", "GETTABUP", "GETTABLE",
  "GETI", "GETFIELD", "SETTABUP", "SETTABLE", "SETI", "SETFIELD",
  "NEWTABLE", "SELF", "ADDI", "ADDK", "SUBK", "MULK", "MODK", "POWK",
  "DIVK", "IDIVK", "BANDK", "BORK", "BXORK", "SHRI", "SHLI", "ADD", "SUB",
  "MUL", "MOD", "POW", "DIV", "IDIV", "BAND", "BOR", "BXOR", "SHL", "SHR",
  "MMBIN", "MMBINI", "MMBINK", "UNM", "BNOT", "NOT", "LEN", "CONCAT",
  "CLOSE", "TBC", "JMP", "EQ", "LT", "LE", "EQK", "EQI", "LTI", "LEI",
  "GTI", "GEI", "TEST", "TESTSET", "CALL", "TAILCALL", "RETURN", "RETURN0",
  "RETURN1", "FORLOOP", "FORPREP", "TFORPREP", "TFORCALL", "TFORLOOP",
  "SETLIST", "CLOSURE", "VARARG", "VARARGPREP", "EXTRAARG"
};

static unsigned flags(int op) { return bc_opinfo_of(op)->flags; }

static void test_table(void **state) {
  int op;
  (void)state;
  assert_int_equal(BC_NUM_OPCODES, 83);
  assert_int_equal(sizeof names / sizeof names[0], 83);
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    assert_non_null(bc_opinfo_of(op));
    assert_string_equal(bc_opinfo_of(op)->name, names[op]);
    assert_string_equal(bc_opname(op), names[op]);
  }
  assert_null(bc_opinfo_of(-1));
  /* 83 to 86 are the lraf VM's ACCT and its paying jumps
     (lravm/patches/lua-acct-opcodes.patch), in the patch's order */
  assert_int_equal(BC_OP_ACCT, 83);
  assert_string_equal(bc_opname(BC_OP_ACCT), "ACCT");
  assert_int_equal(BC_OP_JMPACCT, 84);
  assert_string_equal(bc_opname(BC_OP_JMPACCT), "JMPACCT");
  assert_int_equal(bc_opinfo_of(BC_OP_JMPACCT)->format, BC_FMT_SJ);
  assert_int_equal(BC_OP_FORLOOPACCT, 85);
  assert_string_equal(bc_opname(BC_OP_FORLOOPACCT), "FORLOOPACCT");
  assert_int_equal(bc_opinfo_of(BC_OP_FORLOOPACCT)->format, BC_FMT_ABX);
  assert_int_equal(bc_required_next(bc_isj(BC_OP_JMPACCT, 3)), BC_OP_ACCT);
  assert_int_equal(bc_required_next(bc_abx(BC_OP_FORLOOPACCT, 0, 3)),
                   BC_OP_ACCT);
  assert_int_equal(BC_OP_TFORLOOPACCT, 86);
  assert_string_equal(bc_opname(BC_OP_TFORLOOPACCT), "TFORLOOPACCT");
  assert_int_equal(bc_opinfo_of(BC_OP_TFORLOOPACCT)->format, BC_FMT_ABX);
  /* run by TFORCALL without a fetch, as TFORLOOP */
  assert_int_equal(bc_opinfo_of(BC_OP_TFORLOOPACCT)->flags,
                   BC_OPF_JUMP | BC_OPF_UNCOUNTED);
  assert_int_equal(bc_required_next(bc_abx(BC_OP_TFORLOOPACCT, 0, 3)),
                   BC_OP_ACCT);
  assert_null(bc_opinfo_of(87));
  assert_null(bc_opinfo_of(127));
  assert_string_equal(bc_opname(87), "?");
  assert_string_equal(bc_opname(-5), "?");
}

static void test_formats(void **state) {
  int op;
  (void)state;
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    bc_format want = BC_FMT_ABC;
    switch (op) {
      case BC_OP_LOADI: case BC_OP_LOADF: want = BC_FMT_ASBX; break;
      case BC_OP_LOADK: case BC_OP_LOADKX: case BC_OP_FORLOOP:
      case BC_OP_FORPREP: case BC_OP_TFORPREP: case BC_OP_TFORLOOP:
      case BC_OP_CLOSURE: want = BC_FMT_ABX; break;
      case BC_OP_JMP: want = BC_FMT_SJ; break;
      case BC_OP_EXTRAARG: want = BC_FMT_AX; break;
      default: break;
    }
    assert_int_equal(bc_opinfo_of(op)->format, want);
  }
}

static int in(int op, const int *list) {
  for (; *list >= 0; list++)
    if (*list == op) return 1;
  return 0;
}

/* Every flag, checked as a set, so a stray flag fails too. */
static void test_flag_sets(void **state) {
  static const int tests[] = {BC_OP_EQ, BC_OP_LT, BC_OP_LE, BC_OP_EQK,
    BC_OP_EQI, BC_OP_LTI, BC_OP_LEI, BC_OP_GTI, BC_OP_GEI, BC_OP_TEST,
    BC_OP_TESTSET, -1};
  static const int jumps[] = {BC_OP_JMP, BC_OP_FORLOOP, BC_OP_FORPREP,
    BC_OP_TFORPREP, BC_OP_TFORLOOP, -1};
  static const int ends[] = {BC_OP_RETURN, BC_OP_RETURN0, BC_OP_RETURN1,
    BC_OP_TAILCALL, -1};
  static const int uncounted[] = {BC_OP_EXTRAARG, BC_OP_TFORLOOP, -1};
  static const int skip[] = {BC_OP_LFALSESKIP, -1};
  int op;
  (void)state;
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    int mm = (op >= BC_OP_ADDI && op <= BC_OP_SHR);
    assert_int_equal(!!(flags(op) & BC_OPF_TEST), in(op, tests));
    assert_int_equal(!!(flags(op) & BC_OPF_JUMP), in(op, jumps));
    assert_int_equal(!!(flags(op) & BC_OPF_ENDS), in(op, ends));
    assert_int_equal(!!(flags(op) & BC_OPF_UNCOUNTED), in(op, uncounted));
    assert_int_equal(!!(flags(op) & BC_OPF_SKIPNEXT), in(op, skip));
    assert_int_equal(!!(flags(op) & BC_OPF_MMBIN), mm);
  }
}

static void test_flag_spots(void **state) {
  static const int calls[] = {BC_OP_GETTABUP, BC_OP_GETTABLE, BC_OP_GETI,
    BC_OP_GETFIELD, BC_OP_SETTABUP, BC_OP_SETTABLE, BC_OP_SETI,
    BC_OP_SETFIELD, BC_OP_SELF, BC_OP_MMBIN, BC_OP_MMBINI, BC_OP_MMBINK,
    BC_OP_UNM, BC_OP_BNOT, BC_OP_LEN, BC_OP_CONCAT, BC_OP_CLOSE, BC_OP_EQ,
    BC_OP_LT, BC_OP_LE, BC_OP_LTI, BC_OP_LEI, BC_OP_GTI, BC_OP_GEI,
    BC_OP_CALL, BC_OP_TAILCALL, BC_OP_RETURN, BC_OP_TFORCALL, -1};
  static const int quiet[] = {BC_OP_MOVE, BC_OP_LOADI, BC_OP_LOADF,
    BC_OP_LOADK, BC_OP_LOADKX, BC_OP_LOADFALSE, BC_OP_LFALSESKIP,
    BC_OP_LOADTRUE, BC_OP_LOADNIL, BC_OP_GETUPVAL, BC_OP_SETUPVAL,
    BC_OP_NOT, BC_OP_JMP, BC_OP_EQK, BC_OP_EQI, BC_OP_TEST, BC_OP_TESTSET,
    BC_OP_RETURN0, BC_OP_RETURN1, BC_OP_FORLOOP, BC_OP_TFORLOOP,
    BC_OP_EXTRAARG, BC_OP_ADD, BC_OP_ADDI, BC_OP_SHRI, BC_OP_BANDK, -1};
  int op;
  (void)state;
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    assert_int_equal(!!(flags(op) & BC_OPF_CALLS), in(op, calls));
    if (in(op, calls)) assert_true(flags(op) & BC_OPF_ERRORS);
    if (in(op, quiet)) assert_false(flags(op) & BC_OPF_ERRORS);
  }
  /* integer division and modulo by zero raise errors */
  assert_true(flags(BC_OP_MOD) & BC_OPF_ERRORS);
  assert_true(flags(BC_OP_IDIVK) & BC_OPF_ERRORS);
  assert_true(flags(BC_OP_FORPREP) & BC_OPF_ERRORS);
  assert_true(flags(BC_OP_TBC) & BC_OPF_ERRORS);
  assert_true(flags(BC_OP_NEWTABLE) & BC_OPF_ERRORS);
}

/* rw_cfg.c's plain_unit takes an op without these flags, and not one of
   the ops named there, for a unit of one instruction that neither jumps
   nor ends a block: whatever its operands. */
static void test_flag_plain_units(void **state) {
  static const int named[] = {BC_OP_LOADKX, BC_OP_NEWTABLE, BC_OP_SETLIST,
    BC_OP_TFORCALL, BC_OP_CALL, BC_OP_VARARG, -1};
  int op, b, c, k, t;
  (void)state;
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    if ((flags(op) & (BC_OPF_TEST | BC_OPF_MMBIN | BC_OPF_JUMP | BC_OPF_ENDS |
                      BC_OPF_SKIPNEXT)) || in(op, named))
      continue;
    for (b = 0; b < 2; b++)
      for (c = 0; c < 2; c++)
        for (k = 0; k < 2; k++) {
          bc_instr i = bc_abck(op, 0, b, c, k);
          assert_int_equal(bc_required_next(i), -1);
          assert_false(bc_sets_top(i));
          assert_false(bc_jump_target(i, 5, &t));
        }
  }
}

/* ------------------------------------------------------------------ */
/* Encoding                                                             */
/* ------------------------------------------------------------------ */

static void test_abck(void **state) {
  static const int vals[] = {0, 1, 127, 128, 254, 255};
  size_t a, b, c;
  int k;
  (void)state;
  for (a = 0; a < 6; a++)
    for (b = 0; b < 6; b++)
      for (c = 0; c < 6; c++)
        for (k = 0; k < 2; k++) {
          bc_instr i = bc_abck(BC_OP_SETFIELD, vals[a], vals[b], vals[c], k);
          assert_int_equal(bc_op(i), BC_OP_SETFIELD);
          assert_int_equal(bc_a(i), vals[a]);
          assert_int_equal(bc_b(i), vals[b]);
          assert_int_equal(bc_c(i), vals[c]);
          assert_int_equal(bc_k(i), k);
          assert_int_equal(bc_sb(i), vals[b] - 127);
          assert_int_equal(bc_sc(i), vals[c] - 127);
        }
  /* all bits in use, nothing spills */
  assert_int_equal(bc_abck(127, 255, 255, 255, 1), 0xffffffffu);
  assert_int_equal(bc_abck(0, 0, 0, 0, 1), 1u << BC_POS_K);
  assert_int_equal(bc_abck(BC_OP_ADDI, 0, 0, 255, 0) >> BC_POS_C, 255u);
  /* signed extremes of sB/sC: -127 .. 128 */
  assert_int_equal(bc_sc(bc_abck(BC_OP_ADDI, 0, 0, 0, 0)), -127);
  assert_int_equal(bc_sc(bc_abck(BC_OP_ADDI, 0, 0, 255, 0)), 128);
  assert_int_equal(bc_sb(bc_abck(BC_OP_EQI, 0, 0, 0, 0)), -127);
}

static void test_wide_formats(void **state) {
  bc_instr i;
  (void)state;
  i = bc_abx(BC_OP_LOADK, 255, BC_MAXARG_BX);
  assert_int_equal(bc_op(i), BC_OP_LOADK);
  assert_int_equal(bc_a(i), 255);
  assert_int_equal(bc_bx(i), 131071);
  assert_int_equal(bc_bx(bc_abx(BC_OP_CLOSURE, 3, 0)), 0);
  i = bc_asbx(BC_OP_LOADI, 7, -BC_OFFSET_SBX);
  assert_int_equal(bc_sbx(i), -65535);
  assert_int_equal(bc_bx(i), 0);
  i = bc_asbx(BC_OP_LOADI, 7, BC_MAXARG_BX - BC_OFFSET_SBX);
  assert_int_equal(bc_sbx(i), 65536);
  assert_int_equal(bc_a(i), 7);
  assert_int_equal(bc_sbx(bc_asbx(BC_OP_LOADF, 0, -1)), -1);
  i = bc_iax(BC_OP_EXTRAARG, BC_MAXARG_AX);
  assert_int_equal(bc_op(i), BC_OP_EXTRAARG);
  assert_int_equal(bc_ax(i), (1 << 25) - 1);
  assert_int_equal(bc_ax(bc_iax(BC_OP_EXTRAARG, 0)), 0);
  i = bc_isj(BC_OP_JMP, -BC_OFFSET_SJ);
  assert_int_equal(bc_sj(i), -16777215);
  assert_int_equal(bc_op(i), BC_OP_JMP);
  i = bc_isj(BC_OP_JMP, BC_MAXARG_SJ - BC_OFFSET_SJ);
  assert_int_equal(bc_sj(i), 16777216);
  assert_int_equal(bc_sj(bc_isj(BC_OP_JMP, 0)), 0);
  assert_int_equal(bc_sj(bc_isj(BC_OP_JMP, -1)), -1);
}

static void test_setters_keep_other_fields(void **state) {
  bc_instr i = bc_abck(BC_OP_CALL, 10, 20, 30, 1);
  (void)state;
  i = bc_set_b(i, 255);
  assert_int_equal(bc_a(i), 10);
  assert_int_equal(bc_c(i), 30);
  assert_int_equal(bc_k(i), 1);
  i = bc_set_op(i, BC_OP_TAILCALL);
  assert_int_equal(bc_b(i), 255);
  assert_int_equal(bc_op(i), BC_OP_TAILCALL);
  i = bc_set_a(bc_abx(BC_OP_FORLOOP, 1, 99999), 200);
  assert_int_equal(bc_bx(i), 99999);
}

/* ------------------------------------------------------------------ */
/* Operand-dependent properties                                         */
/* ------------------------------------------------------------------ */

static void test_operand_props(void **state) {
  (void)state;
  assert_true(bc_needs_extraarg(bc_abx(BC_OP_LOADKX, 0, 0)));
  assert_true(bc_needs_extraarg(bc_abck(BC_OP_NEWTABLE, 0, 0, 0, 0)));
  assert_true(bc_needs_extraarg(bc_abck(BC_OP_NEWTABLE, 0, 0, 0, 1)));
  assert_false(bc_needs_extraarg(bc_abck(BC_OP_SETLIST, 0, 0, 0, 0)));
  assert_true(bc_needs_extraarg(bc_abck(BC_OP_SETLIST, 0, 0, 0, 1)));
  assert_false(bc_needs_extraarg(bc_abx(BC_OP_LOADK, 0, 0)));

  assert_true(bc_uses_top(bc_abck(BC_OP_CALL, 0, 0, 1, 0)));
  assert_false(bc_uses_top(bc_abck(BC_OP_CALL, 0, 1, 0, 0)));
  assert_true(bc_uses_top(bc_abck(BC_OP_TAILCALL, 0, 0, 0, 0)));
  assert_true(bc_uses_top(bc_abck(BC_OP_RETURN, 0, 0, 1, 0)));
  assert_false(bc_uses_top(bc_abck(BC_OP_RETURN, 0, 2, 0, 0)));
  assert_true(bc_uses_top(bc_abck(BC_OP_SETLIST, 0, 0, 0, 0)));
  assert_false(bc_uses_top(bc_abck(BC_OP_VARARGPREP, 0, 0, 0, 0)));
  assert_false(bc_uses_top(bc_abck(BC_OP_MOVE, 0, 0, 0, 0)));

  assert_true(bc_sets_top(bc_abck(BC_OP_CALL, 0, 2, 0, 0)));
  assert_false(bc_sets_top(bc_abck(BC_OP_CALL, 0, 0, 1, 0)));
  assert_true(bc_sets_top(bc_abck(BC_OP_VARARG, 0, 0, 0, 0)));
  assert_false(bc_sets_top(bc_abck(BC_OP_VARARG, 0, 0, 3, 0)));
  assert_false(bc_sets_top(bc_abck(BC_OP_TAILCALL, 0, 0, 0, 0)));

  assert_int_equal(bc_required_next(bc_abck(BC_OP_EQ, 0, 1, 0, 1)), BC_OP_JMP);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_TESTSET, 0, 1, 0, 0)), BC_OP_JMP);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_ADDI, 0, 1, 0, 0)), BC_OP_MMBINI);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_SHRI, 0, 1, 0, 0)), BC_OP_MMBINI);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_SHLI, 0, 1, 0, 0)), BC_OP_MMBINI);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_ADDK, 0, 1, 0, 0)), BC_OP_MMBINK);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_BXORK, 0, 1, 0, 0)), BC_OP_MMBINK);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_ADD, 0, 1, 2, 0)), BC_OP_MMBIN);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_SHR, 0, 1, 2, 0)), BC_OP_MMBIN);
  assert_int_equal(bc_required_next(bc_abx(BC_OP_LOADKX, 0, 0)), BC_OP_EXTRAARG);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_NEWTABLE, 0, 0, 0, 0)), BC_OP_EXTRAARG);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_SETLIST, 0, 0, 0, 1)), BC_OP_EXTRAARG);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_SETLIST, 0, 0, 0, 0)), -1);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_TFORCALL, 0, 0, 1, 0)), BC_OP_TFORLOOP);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_MMBIN, 0, 0, 6, 0)), -1);
  assert_int_equal(bc_required_next(bc_isj(BC_OP_JMP, 0)), -1);
  assert_int_equal(bc_required_next(bc_abck(BC_OP_UNM, 0, 0, 0, 0)), -1);

  assert_true(bc_hook_counts(bc_abck(BC_OP_MOVE, 0, 0, 0, 0)));
  assert_true(bc_hook_counts(bc_isj(BC_OP_JMP, 3)));
  assert_true(bc_hook_counts(bc_abck(BC_OP_MMBIN, 0, 0, 6, 0)));
  assert_true(bc_hook_counts(bc_abck(BC_OP_TFORCALL, 0, 0, 1, 0)));
  assert_false(bc_hook_counts(bc_iax(BC_OP_EXTRAARG, 0)));
  assert_false(bc_hook_counts(bc_abx(BC_OP_TFORLOOP, 0, 2)));
  assert_false(bc_hook_counts(bc_abck(BC_OP_VARARGPREP, 0, 0, 0, 0)));
  assert_false(bc_hook_counts(bc_abck(100, 0, 0, 0, 0)));
}

/* ------------------------------------------------------------------ */
/* Jump targets                                                         */
/* ------------------------------------------------------------------ */

static void test_jump_values(void **state) {
  int t = -99;
  (void)state;
  assert_true(bc_jump_target(bc_isj(BC_OP_JMP, 5), 10, &t));
  assert_int_equal(t, 16);
  assert_true(bc_jump_target(bc_isj(BC_OP_JMP, -11), 10, &t));
  assert_int_equal(t, 0);
  assert_true(bc_jump_target(bc_abx(BC_OP_FORLOOP, 0, 4), 10, &t));
  assert_int_equal(t, 7);
  assert_true(bc_jump_target(bc_abx(BC_OP_FORPREP, 0, 4), 3, &t));
  assert_int_equal(t, 9);   /* the FORLOOP is at 8 */
  assert_true(bc_jump_target(bc_abx(BC_OP_TFORPREP, 0, 4), 3, &t));
  assert_int_equal(t, 8);   /* the TFORCALL */
  assert_true(bc_jump_target(bc_abx(BC_OP_TFORLOOP, 0, 6), 9, &t));
  assert_int_equal(t, 4);
  t = -99;
  assert_false(bc_jump_target(bc_abck(BC_OP_EQ, 0, 0, 0, 0), 3, &t));
  assert_false(bc_jump_target(bc_abx(BC_OP_LOADK, 0, 4), 3, &t));
  assert_int_equal(t, -99);
}

static void test_jump_inverse(void **state) {
  static const int ops[] = {BC_OP_JMP, BC_OP_FORLOOP, BC_OP_FORPREP,
                            BC_OP_TFORPREP, BC_OP_TFORLOOP};
  size_t n;
  int pc, target;
  (void)state;
  for (n = 0; n < 5; n++) {
    for (pc = 0; pc < 300; pc += 7) {
      for (target = 0; target < 400; target += 3) {
        bc_instr i = ops[n] == BC_OP_JMP ? bc_isj(BC_OP_JMP, 0)
                                         : bc_abx(ops[n], 17, 0);
        int back = (ops[n] == BC_OP_FORLOOP || ops[n] == BC_OP_TFORLOOP);
        int fits = back ? target <= pc + 1
                 : ops[n] == BC_OP_FORPREP ? target >= pc + 2
                 : ops[n] == BC_OP_TFORPREP ? target >= pc + 1 : 1;
        int got = -1;
        assert_int_equal(bc_set_jump_target(&i, pc, target), fits);
        if (!fits) continue;
        assert_int_equal(bc_op(i), ops[n]);
        if (ops[n] != BC_OP_JMP) assert_int_equal(bc_a(i), 17);
        assert_true(bc_jump_target(i, pc, &got));
        assert_int_equal(got, target);
      }
    }
  }
}

static void test_jump_limits(void **state) {
  bc_instr i = bc_isj(BC_OP_JMP, 0);
  bc_instr l = bc_abx(BC_OP_FORLOOP, 0, 0);
  int t;
  (void)state;
  assert_true(bc_set_jump_target(&i, 0, BC_MAXARG_SJ - BC_OFFSET_SJ + 1));
  assert_false(bc_set_jump_target(&i, 0, BC_MAXARG_SJ - BC_OFFSET_SJ + 2));
  assert_true(bc_set_jump_target(&i, BC_OFFSET_SJ - 1, 0));
  assert_false(bc_set_jump_target(&i, BC_OFFSET_SJ, 0));
  assert_true(bc_set_jump_target(&l, BC_MAXARG_BX - 1, 0));
  assert_false(bc_set_jump_target(&l, BC_MAXARG_BX, 0));
  assert_true(bc_jump_target(l, BC_MAXARG_BX - 1, &t));
  assert_int_equal(t, 0);
  assert_false(bc_set_jump_target(&l, 5, 7));
  l = bc_abck(BC_OP_MOVE, 0, 0, 0, 0);
  assert_false(bc_set_jump_target(&l, 5, 7));
}

static int loops_seen;

/* In compiled code: FORPREP's target follows its FORLOOP, which jumps
   back to FORPREP + 1; TFORPREP reaches its TFORCALL, followed by a
   TFORLOOP that jumps back to TFORPREP + 1; every JMP stays inside. */
static void check_jumps(const bc_proto *f) {
  int pc, n;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr i = f->code[pc];
    int t = -1, back = -1;
    if (!bc_jump_target(i, pc, &t)) continue;
    assert_in_range(t, 0, f->sizecode - 1);
    switch (bc_op(i)) {
      case BC_OP_FORPREP:
        assert_int_equal(bc_op(f->code[t - 1]), BC_OP_FORLOOP);
        assert_true(bc_jump_target(f->code[t - 1], t - 1, &back));
        assert_int_equal(back, pc + 1);
        loops_seen++;
        break;
      case BC_OP_TFORPREP:
        assert_int_equal(bc_op(f->code[t]), BC_OP_TFORCALL);
        assert_int_equal(bc_op(f->code[t + 1]), BC_OP_TFORLOOP);
        assert_true(bc_jump_target(f->code[t + 1], t + 1, &back));
        assert_int_equal(back, pc + 1);
        loops_seen++;
        break;
      default: break;
    }
  }
  for (n = 0; n < f->sizep; n++) check_jumps(f->p[n]);
}

static void test_jumps_compiled(void **state) {
  static const char *const srcs[] = {
    "local s = 0 for i = 1, 10 do s = s + i end return s",
    "local s = 0 for i = 10, 1, -1 do for j = 1.0, 2.5, 0.5 do s = s + j end end",
    "for k, v in pairs({}) do print(k) end for a, b, c in next, {} do end",
    "local t = {} for i = 1, 3 do if i > 1 then goto skip end t[i] = i ::skip:: end",
    "while true do local x = f() if x then break end end repeat until g()",
    "local function f(...) for i = 1, select('#', ...) do "
    "for k in pairs({...}) do if k == i then return k end end end end",
  };
  size_t n;
  (void)state;
  loops_seen = 0;
  for (n = 0; n < sizeof srcs / sizeof srcs[0]; n++) {
    bc_chunk *c = tutil_vm_read(srcs[n], "=test");
    check_jumps(c->main);
    bc_chunk_free(c);
  }
  assert_int_equal(loops_seen, 8);
}

/* An arithmetic op and its MMBIN* run as one unit: only the right
   MMBIN* right after it, with an instruction after the pair. */
static void test_mmbin_pair(void **state) {
  const struct { bc_instr code[3]; int n, pc, want; } cases[] = {
    {{bc_abck(BC_OP_ADD, 0, 1, 2, 0), bc_abck(BC_OP_MMBIN, 1, 2, 6, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 0, 1},
    {{bc_abck(BC_OP_ADDI, 0, 1, 1, 0), bc_abck(BC_OP_MMBINI, 1, 1, 6, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 0, 1},
    {{bc_abck(BC_OP_ADDK, 0, 1, 1, 0), bc_abck(BC_OP_MMBINK, 1, 1, 6, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 0, 1},
    {{bc_abck(BC_OP_ADDK, 0, 1, 1, 0), bc_abck(BC_OP_MMBIN, 1, 1, 6, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 0, 0},   /* the wrong one */
    {{bc_abck(BC_OP_ADD, 0, 1, 2, 0), bc_isj(BC_OP_JMP, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 0, 0},   /* a stub's jump */
    {{bc_abck(BC_OP_ADD, 0, 1, 2, 0), bc_abck(BC_OP_MMBIN, 1, 2, 6, 0),
      0}, 2, 0, 0},                                     /* nothing after */
    {{bc_abck(BC_OP_MOVE, 0, 1, 0, 0), bc_abck(BC_OP_MMBIN, 1, 2, 6, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 0, 0},   /* not arithmetic */
    {{bc_abck(BC_OP_ADD, 0, 1, 2, 0), bc_abck(BC_OP_MMBIN, 1, 2, 6, 0),
      bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)}, 3, 1, 0},   /* the MMBIN itself */
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bc_proto f;
    memset(&f, 0, sizeof f);
    f.code = (bc_instr *)cases[i].code;
    f.sizecode = cases[i].n;
    assert_int_equal(bc_mmbin_pair(&f, cases[i].pc), cases[i].want);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_formats),
    cmocka_unit_test(test_flag_sets),
    cmocka_unit_test(test_flag_spots),
    cmocka_unit_test(test_flag_plain_units),
    cmocka_unit_test(test_abck),
    cmocka_unit_test(test_wide_formats),
    cmocka_unit_test(test_setters_keep_other_fields),
    cmocka_unit_test(test_operand_props),
    cmocka_unit_test(test_jump_values),
    cmocka_unit_test(test_jump_inverse),
    cmocka_unit_test(test_jump_limits),
    cmocka_unit_test(test_jumps_compiled),
    cmocka_unit_test(test_mmbin_pair),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
