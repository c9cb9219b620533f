/*
** test_rw_cost.c - the cost metric (rw_cost.c): the weights file's
** parser, its errors (each naming the line and what is wrong), the
** rule that opcodes closing loops or making calls never weigh 0, the
** cost-model ids, and what one instruction costs in each mode (the
** instructions the count hook never sees cost nothing).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw.h"
#include "tutil_vm.h"

static int opcode(const char *name) {
  int op;
  for (op = 0; op < BC_NUM_OPCODES; op++)
    if (strcmp(bc_opname(op), name) == 0) return op;
  fail_msg("no opcode %s", name);
  return -1;
}

static void test_weights_parsed(void **state) {
  static const char text[] =
      "# a comment line\n"
      "\n"
      "  CALL 5   # trailing comment\n"
      "GETTABLE\t3\r\n"
      "MOVE 0\n"
      "ADD 1000000";  /* no newline at the end, the largest weight */
  uint32_t w[BC_NUM_OPCODES];
  lraf_error err;
  int op;
  (void)state;
  assert_int_equal(rw_parse_weights(text, strlen(text), w, &err), LRAF_OK);
  assert_int_equal(w[opcode("CALL")], 5);
  assert_int_equal(w[opcode("GETTABLE")], 3);
  assert_int_equal(w[opcode("MOVE")], 0);  /* may weigh 0: no loop */
  assert_int_equal(w[opcode("ADD")], 1000000);
  for (op = 0; op < BC_NUM_OPCODES; op++)  /* the rest weigh 1 */
    if (op != opcode("CALL") && op != opcode("GETTABLE") &&
        op != opcode("MOVE") && op != opcode("ADD"))
      assert_int_equal(w[op], 1);
  assert_int_equal(rw_check_weights(w, &err), LRAF_OK);
  assert_int_equal(rw_parse_weights("", 0, w, &err), LRAF_OK);
  assert_int_equal(w[opcode("CALL")], 1);  /* every parse starts afresh */
}

/* Bad weights files: each error names the line and what is wrong. */
static void test_weights_errors(void **state) {
  static const struct {
    const char *text, *want;
  } cases[] = {
    {"CALL 2\nNOSUCHOP 3\n", "weights line 2: unknown opcode 'NOSUCHOP'"},
    {"\n\n\nMOVE\n", "weights line 4: expected a whole number after MOVE"},
    {"MOVE x\n", "weights line 1: expected a whole number after MOVE"},
    {"MOVE 3 4\n", "weights line 1: unexpected text '4'"},
    {"MOVE 3x\n", "weights line 1: unexpected text 'x'"},
    {"MOVE 1000001\n", "weights line 1: weight above 1000000"},
    {"MOVE 99999999999999999999\n", "weights line 1: weight above 1000000"},
    {"# ok\n= 3\n", "weights line 2: expected an opcode name, found byte "
                    "0x3d"},
    {"MOVE 1\nFORLOOP 0\n", "weights line 2: FORLOOP 0; the opcodes that "
                            "close loops or make calls"},
    {"CALL 0", "weights line 1: CALL 0;"},
    {"JMP 0 # comment\n", "weights line 1: JMP 0;"},
    {"LTI 0\n", "weights line 1: LTI 0;"},
    {"\xff\xfe 1\n", "weights line 1: expected an opcode name, found byte "
                     "0xff"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    uint32_t w[BC_NUM_OPCODES];
    lraf_error err;
    memset(&err, 0, sizeof err);
    if (rw_parse_weights(cases[i].text, strlen(cases[i].text), w, &err) !=
            LRAF_EARG ||
        strncmp(err.message, cases[i].want, strlen(cases[i].want)) != 0)
      fail_msg("case %zu: got \"%s\", want \"%s...\"", i, err.message,
               cases[i].want);
  }
}

static void test_check_weights(void **state) {
  static const char *const must[] = {"JMP", "FORLOOP", "TFORCALL",
                                     "TFORLOOP", "CALL", "TAILCALL", "EQ",
                                     "LT", "LE", "EQK", "EQI", "LTI", "LEI",
                                     "GTI", "GEI", "TEST", "TESTSET"};
  uint32_t w[BC_NUM_OPCODES];
  lraf_error err;
  size_t i;
  int op;
  (void)state;
  for (i = 0; i < sizeof must / sizeof must[0]; i++) {
    for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = 1;
    w[opcode(must[i])] = 0;
    assert_int_equal(rw_check_weights(w, &err), LRAF_EARG);
    assert_non_null(strstr(err.message, must[i]));
  }
  for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = 1;
  w[opcode("MOVE")] = w[opcode("ADD")] = w[opcode("RETURN")] = 0;
  assert_int_equal(rw_check_weights(w, &err), LRAF_OK);
}

static void test_model_ids(void **state) {
  uint32_t w1[BC_NUM_OPCODES], w2[BC_NUM_OPCODES];
  rw_options o;
  char a[64], b[64];
  int op;
  (void)state;
  rw_default_options(&o);
  o.target = RW_STOCK;
  rw_model_id(&o, a, sizeof a);
  assert_string_equal(a, "lua5.4/original");
  o.exact = 1;
  rw_model_id(&o, a, sizeof a);
  assert_string_equal(a, "lua5.4/original/exact");
  o.target = RW_LRAVM;
  o.exact = 0;
  o.mode = RW_OVERHEAD;
  o.fold = 0;
  rw_model_id(&o, a, sizeof a);
  assert_string_equal(a, "lraf-vm5.4/overhead/nofold");
  /* weighted: the weights' hash, which tells two weight tables apart */
  for (op = 0; op < BC_NUM_OPCODES; op++) w1[op] = w2[op] = 1;
  w2[opcode("CALL")] = 2;
  o.mode = RW_WEIGHTED;
  o.target = RW_STOCK;
  o.weights = w1;
  rw_model_id(&o, a, sizeof a);
  o.weights = w2;
  rw_model_id(&o, b, sizeof b);
  assert_int_equal(strncmp(a, "lua5.4/weighted/", 16), 0);
  assert_int_equal(strlen(a), 16 + 8);
  assert_string_not_equal(a, b);
  o.weights = w1;
  rw_model_id(&o, b, sizeof b);
  assert_string_equal(a, b);  /* the same weights, the same id */
  rw_model_id(&o, a, 8);  /* truncated, still a string */
  assert_int_equal(strlen(a), 7);
}

/* What each instruction of a function costs: 0 for those the count
   hook never sees (VARARGPREP, a test's JMP, an op's MMBIN, TFORLOOP),
   else 1, or its weight. */
static void test_instruction_costs(void **state) {
  static const char src[] =
      "local t, s = {...}, 0\n"
      "for _, v in ipairs(t) do if v > 1 then s = s + v end end\n"
      "return s\n";
  bc_chunk *c = tutil_vm_read(src, "=costs");
  const bc_proto *f = c->main;
  uint32_t w[BC_NUM_OPCODES];
  rw_options o;
  int pc, op, seen_free = 0;
  (void)state;
  rw_default_options(&o);
  for (op = 0; op < BC_NUM_OPCODES; op++) w[op] = (uint32_t)(op + 2);
  for (pc = 0; pc < f->sizecode; pc++) {
    int free_op;
    op = bc_op(f->code[pc]);
    free_op = op == BC_OP_VARARGPREP || op == BC_OP_TFORLOOP ||
              op == BC_OP_EXTRAARG ||
              (op == BC_OP_JMP && pc > 0 &&
               (bc_opinfo_of(bc_op(f->code[pc - 1]))->flags & BC_OPF_TEST)) ||
              ((op == BC_OP_MMBIN || op == BC_OP_MMBINI ||
                op == BC_OP_MMBINK) && pc > 0 &&
               (bc_opinfo_of(bc_op(f->code[pc - 1]))->flags & BC_OPF_MMBIN));
    seen_free += free_op;
    o.mode = RW_ORIGINAL;
    o.weights = NULL;
    assert_int_equal(rw_instr_cost(f, pc, &o), free_op ? 0 : 1);
    o.mode = RW_WEIGHTED;
    o.weights = w;
    assert_int_equal(rw_instr_cost(f, pc, &o), free_op ? 0 : w[op]);
  }
  assert_true(seen_free >= 4);  /* VARARGPREP, TFORLOOP, JMP, MMBIN */
  bc_chunk_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_weights_parsed),
    cmocka_unit_test(test_weights_errors),
    cmocka_unit_test(test_check_weights),
    cmocka_unit_test(test_model_ids),
    cmocka_unit_test(test_instruction_costs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
