/*
** test_bc_opcodes.c - the opcode table, instruction encoding, operand
** dependent properties, jump targets (also on compiled code) and the
** structural checker on crafted bad functions.
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

static bc_chunk *compile(const char *src) {
  tutil_vm_buf buf;
  char msg[256];
  bc_chunk *c = NULL;
  lraf_error err;
  if (!tutil_vm_dump(src, strlen(src), "=test", 0, &buf, msg, sizeof msg))
    fail_msg("does not compile: %s", msg);
  if (bc_read(buf.data, buf.size, NULL, &c, &err) != LRAF_OK)
    fail_msg("bc_read: %s", err.message);
  free(buf.data);
  return c;
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
    bc_chunk *c = compile(srcs[n]);
    check_jumps(c->main);
    bc_chunk_free(c);
  }
  assert_int_equal(loops_seen, 8);
}

/* ------------------------------------------------------------------ */
/* The checker                                                          */
/* ------------------------------------------------------------------ */

typedef struct fixture {
  bc_proto f;
  bc_instr code[16];
  bc_const k[4];
  bc_upvaldesc up[2];
} fixture;

/* A function with the n instructions of code, 8 registers, 1 upvalue, constants: "x", 1, 2.5, a long
   string. */
static void make(fixture *x, const bc_instr *code, int n) {
  static char shortstr[] = "x";
  static char longstr[] = "a string that is certainly longer than forty bytes";
  memset(x, 0, sizeof *x);
  memcpy(x->code, code, (size_t)n * sizeof *code);
  x->f.code = x->code;
  x->f.sizecode = n;
  x->f.maxstacksize = 8;
  x->f.k = x->k;
  x->f.sizek = 4;
  x->k[0].tag = BC_TSHRSTR;
  x->k[0].s.data = shortstr;
  x->k[0].s.len = 1;
  x->k[0].s.present = 1;
  x->k[1].tag = BC_TINT;
  x->k[1].i = 1;
  x->k[2].tag = BC_TFLT;
  x->k[2].n = 2.5;
  x->k[3].tag = BC_TLNGSTR;
  x->k[3].s.data = longstr;
  x->k[3].s.len = strlen(longstr);
  x->k[3].s.present = 1;
  x->f.upvalues = x->up;
  x->f.sizeupvalues = 1;
}

#define R0 bc_abck(BC_OP_RETURN0, 0, 0, 0, 0)
#define ABC(o, a, b, c, k) bc_abck(BC_OP_##o, a, b, c, k)

static lraf_error last_err;

static lraf_status check(const bc_instr *code, int n) {
  fixture x;
  make(&x, code, n);
  return bc_check_proto(&x.f, "main", &last_err);
}

#define ACCEPT(...) do { \
    const bc_instr c_[] = {__VA_ARGS__}; \
    lraf_status st_ = check(c_, (int)(sizeof c_ / sizeof c_[0])); \
    if (st_ != LRAF_OK) fail_msg("rejected: %s", last_err.message); \
  } while (0)

#define REJECT(word, ...) do { \
    const bc_instr c_[] = {__VA_ARGS__}; \
    assert_int_equal(check(c_, (int)(sizeof c_ / sizeof c_[0])), LRAF_EFORMAT); \
    assert_int_equal(last_err.code, LRAF_EFORMAT); \
    if (strstr(last_err.message, word) == NULL) \
      fail_msg("message lacks '%s': %s", word, last_err.message); \
  } while (0)

static void test_check_accepts(void **state) {
  (void)state;
  ACCEPT(R0);
  ACCEPT(ABC(MOVE, 3, 0, 0, 0), ABC(LOADNIL, 0, 3, 0, 0), R0);
  ACCEPT(bc_abx(BC_OP_LOADK, 0, 3), ABC(GETFIELD, 1, 0, 0, 0), R0);
  ACCEPT(ABC(GETTABUP, 0, 0, 0, 0), ABC(SETTABUP, 0, 0, 2, 1), R0);
  ACCEPT(ABC(SELF, 0, 1, 3, 1), ABC(SELF, 2, 1, 3, 0), R0);
  ACCEPT(ABC(EQ, 0, 1, 0, 0), bc_isj(BC_OP_JMP, 0), R0);
  ACCEPT(ABC(ADDK, 0, 1, 2, 0), ABC(MMBINK, 1, 2, 6, 0), R0);
  ACCEPT(ABC(BANDK, 0, 1, 1, 0), ABC(MMBINK, 1, 1, 13, 0), R0);
  ACCEPT(ABC(ADDI, 0, 1, 0, 0), ABC(MMBINI, 1, 127, 6, 0), R0);
  ACCEPT(ABC(ADD, 0, 1, 2, 0), ABC(MMBIN, 1, 2, 6, 0), R0);
  ACCEPT(bc_abx(BC_OP_LOADKX, 0, 0), bc_iax(BC_OP_EXTRAARG, 3), R0);
  ACCEPT(ABC(NEWTABLE, 0, 0, 0, 0), bc_iax(BC_OP_EXTRAARG, 0), R0);
  ACCEPT(ABC(LFALSESKIP, 0, 0, 0, 0), ABC(LOADTRUE, 0, 0, 0, 0), R0);
  ACCEPT(ABC(CALL, 0, 4, 0, 0), ABC(RETURN, 0, 0, 1, 0));
  ACCEPT(ABC(CLOSE, 4, 0, 0, 0), ABC(RETURN, 4, 1, 0, 0));
  ACCEPT(bc_isj(BC_OP_JMP, -1), R0);
}

static void test_check_rejects(void **state) {
  (void)state;
  REJECT("invalid opcode 91 at pc 1 in function main",
         ABC(MOVE, 0, 0, 0, 0), bc_set_op(0, 91), R0);
  REJECT("register 8", ABC(MOVE, 8, 0, 0, 0), R0);
  REJECT("MOVE at pc 0", ABC(MOVE, 0, 9, 0, 0), R0);
  REJECT("register 8", ABC(LOADNIL, 5, 3, 0, 0), R0);
  REJECT("register 8", ABC(CALL, 6, 3, 1, 0), R0);
  REJECT("register 8", ABC(CALL, 6, 1, 4, 0), R0);
  REJECT("register 8", ABC(TFORCALL, 2, 0, 1, 0), bc_abx(BC_OP_TFORLOOP, 2, 2), R0);
  REJECT("register 8", bc_abx(BC_OP_FORLOOP, 5, 1), R0);
  REJECT("constant index 4", bc_abx(BC_OP_LOADK, 0, 4), R0);
  REJECT("constant index 9", ABC(SETFIELD, 0, 0, 9, 1), R0);
  REJECT("constant index 200", ABC(EQK, 0, 200, 0, 0), bc_isj(BC_OP_JMP, 0), R0);
  REJECT("not a string", ABC(GETFIELD, 0, 1, 1, 0), R0);
  REJECT("not a short string", ABC(GETTABUP, 0, 0, 3, 0), R0);
  REJECT("not a string", ABC(SETTABUP, 0, 2, 0, 0), R0);
  REJECT("not an integer", ABC(BANDK, 0, 1, 2, 0), ABC(MMBINK, 1, 2, 13, 0), R0);
  REJECT("not a number", ABC(ADDK, 0, 1, 0, 0), ABC(MMBINK, 1, 0, 6, 0), R0);
  REJECT("upvalue index 1", ABC(GETUPVAL, 0, 1, 0, 0), R0);
  REJECT("upvalue index 5", ABC(SETTABUP, 5, 0, 0, 0), R0);
  REJECT("function index 0", bc_abx(BC_OP_CLOSURE, 0, 0), R0);
  REJECT("jump target 2", bc_isj(BC_OP_JMP, 1), R0);
  REJECT("jump target -1", bc_isj(BC_OP_JMP, -2), R0);
  REJECT("jump target", bc_abx(BC_OP_FORPREP, 0, 0), R0);
  REJECT("TFORCALL", bc_abx(BC_OP_TFORPREP, 0, 0), R0, R0);
  REJECT("instead of JMP", ABC(TEST, 0, 0, 0, 0), R0);
  REJECT("missing JMP", ABC(EQI, 0, 0, 0, 0));
  REJECT("instead of EXTRAARG", bc_abx(BC_OP_LOADKX, 0, 0), R0);
  REJECT("instead of EXTRAARG", ABC(NEWTABLE, 0, 0, 0, 0), R0);
  REJECT("instead of EXTRAARG", ABC(SETLIST, 0, 1, 0, 1), R0);
  REJECT("instead of TFORLOOP", ABC(TFORCALL, 0, 0, 0, 0), R0);
  REJECT("instead of MMBIN", ABC(ADD, 0, 1, 2, 0), R0);
  REJECT("instead of MMBINK", ABC(ADDK, 0, 1, 1, 0), ABC(MMBIN, 1, 2, 6, 0), R0);
  REJECT("instead of MMBINI", ABC(SHRI, 0, 1, 1, 0), ABC(MMBINK, 1, 1, 17, 0), R0);
  REJECT("EXTRAARG at pc 0", bc_iax(BC_OP_EXTRAARG, 0), R0);
  REJECT("MMBIN at pc 0", ABC(MMBIN, 0, 0, 6, 0), R0);
  REJECT("metamethod event", ABC(ADD, 0, 1, 2, 0), ABC(MMBIN, 1, 2, 30, 0), R0);
  REJECT("VARARGPREP", ABC(MOVE, 0, 0, 0, 0), ABC(VARARGPREP, 0, 0, 0, 0), R0);
  REJECT("VARARGPREP", ABC(VARARGPREP, 0, 0, 0, 0), R0);
  REJECT("does not return", ABC(MOVE, 0, 0, 0, 0));
  REJECT("does not return", R0, bc_isj(BC_OP_JMP, -2));
  REJECT("skip past the end", R0, ABC(LFALSESKIP, 0, 0, 0, 0), R0);
  REJECT("concatenation", ABC(CONCAT, 0, 0, 0, 0), R0);
}

/* Defects of the function rather than of one instruction. */
static void test_check_function(void **state) {
  const bc_instr code[] = {ABC(MOVE, 0, 1, 0, 0), R0};
  const bc_instr vcode[] = {ABC(VARARGPREP, 1, 0, 0, 0), R0};
  int8_t li[2] = {1, 0};
  bc_absline al[2] = {{0, 5}, {0, 6}};
  bc_locvar lv[1];
  fixture x;
  (void)state;

  make(&x, code, 2);
  x.f.numparams = 9;
  assert_int_equal(bc_check_proto(&x.f, "f1", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "in function f1"));

  make(&x, code, 2);
  x.f.is_vararg = 1;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "VARARGPREP"));

  make(&x, vcode, 2);
  x.f.is_vararg = 1;
  x.f.numparams = 1;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_OK);
  x.f.numparams = 0;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);

  make(&x, code, 2);
  x.f.lineinfo = li;
  x.f.sizelineinfo = 2;
  assert_int_equal(bc_check_proto(&x.f, "f", NULL), LRAF_OK);
  x.f.sizelineinfo = 1;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  x.f.sizelineinfo = 2;
  li[1] = BC_ABSLINEINFO;
  al[0].pc = 1;
  x.f.abslineinfo = al;
  x.f.sizeabslineinfo = 1;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_OK);
  al[0].pc = 2;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "absolute line"));
  al[0].pc = 0;  /* marker and entry disagree */
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  li[0] = BC_ABSLINEINFO;
  x.f.sizeabslineinfo = 2;  /* pcs not increasing */
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);

  make(&x, code, 2);
  memset(lv, 0, sizeof lv);
  lv[0].startpc = 0;
  lv[0].endpc = 2;
  x.f.locvars = lv;
  x.f.sizelocvars = 1;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_OK);
  lv[0].endpc = 3;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "local variable 0"));

  make(&x, code, 2);
  x.k[1].tag = 0x55;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);

  make(&x, code, 2);
  x.f.sizeupnames = 3;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
}

/* More than 128 instructions need an absolute line entry for each
   block of 128 (luaG_getfuncline indexes abslineinfo by pc / 128). */
static void test_check_absline_spacing(void **state) {
  fixture x;
  bc_instr code[300];
  int8_t li[300];
  bc_absline al[2] = {{0, 1}, {200, 9}};
  int n;
  (void)state;
  for (n = 0; n < 299; n++) {
    code[n] = ABC(LOADTRUE, 0, 0, 0, 0);
    li[n] = 0;
  }
  code[299] = R0;
  li[299] = 0;
  li[0] = li[200] = BC_ABSLINEINFO;
  make(&x, code, 1);
  x.f.code = code;
  x.f.sizecode = 300;
  x.f.lineinfo = li;
  x.f.sizelineinfo = 300;
  x.f.abslineinfo = al;
  x.f.sizeabslineinfo = 2;
  /* pc 256..299 use entry 1 (pc 200): fine; pc 128..199 use entry 0 */
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_OK);
  x.f.sizeabslineinfo = 1;
  li[200] = 0;
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "absolute line"));
}

static int functions_checked;

static void check_tree(const bc_proto *f) {
  lraf_error err;
  int n;
  if (bc_check_proto(f, "t", &err) != LRAF_OK) fail_msg("%s", err.message);
  functions_checked++;
  for (n = 0; n < f->sizep; n++) check_tree(f->p[n]);
}

static void test_check_compiled(void **state) {
  static const char *const srcs[] = {
    "local a <close> = nil local b <const> = 3 return a, b",
    "local t = {1, 2, 3, f(), ...} t.x = t[1] .. 'x' t:m(1) return #t",
    "local x = ... if x == 1 or x ~= 'a' and x < 2 then return -x, ~x end",
    "local function f(a, b, ...) return f(a, ...) end return f",
    "local s = 0 for i = 1, 10 do s = s + i * 2 // 3 % 4 end return s << 1 >> 2",
    "return function(...) local a, b = ... return (a and b) or nil end",
  };
  size_t n;
  (void)state;
  functions_checked = 0;
  for (n = 0; n < sizeof srcs / sizeof srcs[0]; n++) {
    bc_chunk *c = compile(srcs[n]);
    check_tree(c->main);
    bc_chunk_free(c);
  }
  assert_true(functions_checked >= 8);
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
    cmocka_unit_test(test_check_accepts),
    cmocka_unit_test(test_check_rejects),
    cmocka_unit_test(test_check_function),
    cmocka_unit_test(test_check_absline_spacing),
    cmocka_unit_test(test_check_compiled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
