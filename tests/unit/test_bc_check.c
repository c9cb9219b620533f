/*
** test_bc_check.c - bytecode/bc_check.c, the structural checker, on
** crafted functions: what it accepts, each defect of an instruction or
** of the function refused with a message naming what, at which pc and
** in which function; what BC_CHECK_REWRITTEN accepts beside (ACCT, the
** paying jumps, the jumps to metamethod stubs) and still refuses;
** bc_check_debug, which looks at the debug information alone; and
** every function of compiled chunks accepted.
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
    bc_chunk *c = tutil_vm_read(srcs[n], "=test");
    check_tree(c->main);
    bc_chunk_free(c);
  }
  assert_true(functions_checked >= 8);
}

/* The rewriter's forms: accepted with BC_CHECK_REWRITTEN only; the
   other defects stay defects. */
static lraf_status check_rw(const bc_instr *code, int n, unsigned flags) {
  fixture x;
  make(&x, code, n);
  return bc_check_code(&x.f, "rw", flags, &last_err);
}

static void test_check_rewritten(void **state) {
  const struct {
    const char *what;
    bc_instr code[4];
    int n;
    lraf_status plain, rewritten;
    const char *word;  /* in the message of the first refusal */
  } cases[] = {
    {"ACCT", {bc_asbx(BC_OP_ACCT, BC_ACCT_ADDCHECK, 5), R0}, 2,
     LRAF_EFORMAT, LRAF_OK, "accounting instruction"},
    {"ACCT mode", {bc_asbx(BC_OP_ACCT, 3, 5), R0}, 2,
     LRAF_EFORMAT, LRAF_EFORMAT, "accounting instruction"},
    {"JMPACCT", {bc_isj(BC_OP_JMPACCT, 1), bc_asbx(BC_OP_ACCT, 0, 2), R0}, 3,
     LRAF_EFORMAT, LRAF_OK, "accounting instruction"},
    {"JMPACCT without ACCT", {bc_isj(BC_OP_JMPACCT, 0), R0}, 2,
     LRAF_EFORMAT, LRAF_EFORMAT, "accounting instruction"},
    {"arith to a stub", {ABC(ADD, 0, 1, 2, 0), bc_isj(BC_OP_JMP, 0), R0}, 3,
     LRAF_EFORMAT, LRAF_OK, "instead of MMBIN"},
    {"ends with a stub's jump", {R0, bc_isj(BC_OP_JMP, -2)}, 2,
     LRAF_EFORMAT, LRAF_OK, "does not return"},
    {"bad register anyway", {ABC(MOVE, 8, 0, 0, 0), R0}, 2,
     LRAF_EFORMAT, LRAF_EFORMAT, "register 8"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    print_message("  %s\n", cases[i].what);
    assert_int_equal(check_rw(cases[i].code, cases[i].n, 0), cases[i].plain);
    if (cases[i].plain != LRAF_OK &&
        strstr(last_err.message, cases[i].word) == NULL)
      fail_msg("message lacks '%s': %s", cases[i].word, last_err.message);
    assert_int_equal(check_rw(cases[i].code, cases[i].n, BC_CHECK_REWRITTEN),
                     cases[i].rewritten);
  }
  assert_int_equal(bc_check_proto(NULL, "gone", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "missing function gone"));
}

/* bc_check_debug reads lines and locals only: code it would refuse
   passes, debug defects do not. */
static void test_check_debug(void **state) {
  const bc_instr code[] = {ABC(MOVE, 200, 0, 0, 0), ABC(MOVE, 0, 0, 0, 0)};
  int8_t li[2] = {1, 1};
  bc_locvar lv[1];
  fixture x;
  (void)state;
  make(&x, code, 2);
  assert_int_equal(bc_check_proto(&x.f, "f", &last_err), LRAF_EFORMAT);
  assert_int_equal(bc_check_debug(&x.f, "f", &last_err), LRAF_OK);
  x.f.lineinfo = li;
  x.f.sizelineinfo = 2;
  assert_int_equal(bc_check_debug(&x.f, "f", &last_err), LRAF_OK);
  li[1] = -5;   /* line 1 + 1 - 5: below 0 */
  assert_int_equal(bc_check_debug(&x.f, "dbg", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "at pc 1"));
  assert_non_null(strstr(last_err.message, "dbg"));
  li[1] = 1;
  memset(lv, 0, sizeof lv);
  lv[0].startpc = 2;
  lv[0].endpc = 1;
  x.f.locvars = lv;
  x.f.sizelocvars = 1;
  assert_int_equal(bc_check_debug(&x.f, "f", &last_err), LRAF_EFORMAT);
  assert_non_null(strstr(last_err.message, "local variable 0"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_check_accepts),
    cmocka_unit_test(test_check_rejects),
    cmocka_unit_test(test_check_function),
    cmocka_unit_test(test_check_absline_spacing),
    cmocka_unit_test(test_check_rewritten),
    cmocka_unit_test(test_check_debug),
    cmocka_unit_test(test_check_compiled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
