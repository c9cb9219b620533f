/*
** rw_cost.c - the cost metric: what one instruction costs under each mode,
** the weights file, and the cost-model id.
**
** In the original mode an instruction costs 1 when Lua's count hook sees
** it.  The hook never sees VARARGPREP, EXTRAARG, TFORLOOP, the JMP that a
** test executes itself, or the TFORCALL that TFORPREP enters directly; an
** MMBIN* after an arithmetic op is seen only when the op falls back to a
** metamethod, so the rewriter charges it on that side path instead.
** (rw_instr_cost and rw_op_cost are inline, in rw.h: the analyses and
** the emitter ask them for every instruction; so is rw_tail_payments.)
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"

void rw_default_options(rw_options *opt) {
  opt->lines = 0;
  opt->mode = RW_ORIGINAL;
  opt->exact = 0;
  opt->fold = 1;
  opt->weights = NULL;
  opt->target = RW_DEFAULT_TARGET;
  opt->refunds = 0;
  opt->alloc = NULL;
  opt->alloc_ud = NULL;
}

int rw_refunds(const rw_options *opt) {
  return opt->exact && opt->refunds && opt->target == RW_LRAVM &&
         opt->mode != RW_OVERHEAD;
}

int rw_consume_overhead(const rw_options *opt) {
  return opt->target == RW_LRAVM ? 0 : RW_CONSUME_OVERHEAD;
}

static uint32_t fnv1a(const uint32_t *w, int n) {
  uint32_t h = 2166136261u;
  int i, b;
  for (i = 0; i < n; i++)
    for (b = 0; b < 4; b++) {
      h ^= (w[i] >> (8 * b)) & 0xffu;
      h *= 16777619u;
    }
  return h;
}

void rw_model_id(const rw_options *opt, char *buf, size_t size) {
  /* code for the lraf VM runs only there */
  const char *vm = opt->target == RW_LRAVM ? "lraf-vm5.4" : "lua5.4";
  switch (opt->mode) {
    case RW_ORIGINAL:
      snprintf(buf, size, "%s/original%s", vm, opt->exact ? "/exact" : "");
      break;
    case RW_OVERHEAD:
      snprintf(buf, size, "%s/overhead%s%s", vm, opt->exact ? "/exact" : "",
               opt->fold ? "" : "/nofold");
      break;
    case RW_WEIGHTED:
      snprintf(buf, size, "%s/weighted/%08x%s", vm,
               opt->weights ? fnv1a(opt->weights, BC_NUM_OPCODES) : 0u,
               opt->exact ? "/exact" : "");
      break;
  }
}

static int opcode_by_name(const char *name, size_t len) {
  int op;
  for (op = 0; op < BC_NUM_OPCODES; op++) {
    const char *n = bc_opname(op);
    if (strlen(n) == len && strncmp(n, name, len) == 0)
      return op;
  }
  return -1;
}

/* The opcodes that close every loop and make every call: a backward
   JMP, FORLOOP, TFORCALL (TFORLOOP is not counted, like lua5.4's hook),
   the tests (the JMP after a test is not counted either: `repeat until
   x` is TEST and that JMP), CALL and TAILCALL.  At weight 0 a loop or
   a recursion would run free under a limit. */
static int must_cost(int op) {
  switch (op) {
    case BC_OP_JMP: case BC_OP_FORLOOP: case BC_OP_TFORCALL:
    case BC_OP_TFORLOOP: case BC_OP_CALL: case BC_OP_TAILCALL:
    case BC_OP_EQ: case BC_OP_LT: case BC_OP_LE: case BC_OP_EQK:
    case BC_OP_EQI: case BC_OP_LTI: case BC_OP_LEI: case BC_OP_GTI:
    case BC_OP_GEI: case BC_OP_TEST: case BC_OP_TESTSET:
      return 1;
    default:
      return 0;
  }
}

#define MUST_COST_WHY "the opcodes that close loops or make calls (JMP, " \
  "FORLOOP, TFORCALL, TFORLOOP, the tests EQ, LT, LE, EQK, EQI, LTI, " \
  "LEI, GTI, GEI, TEST, TESTSET, and CALL, TAILCALL) must weigh at " \
  "least 1, or a loop would run free under a limit"

lraf_status rw_check_weights(const uint32_t *weights, lraf_error *err) {
  int op;
  for (op = 0; op < BC_NUM_OPCODES; op++)
    if (must_cost(op) && weights[op] < 1)
      return err_fail(err, LRAF_EARG, "weights: %s weighs 0; "
                      MUST_COST_WHY, bc_opname(op));
  return LRAF_OK;
}

/* Parse one non-empty, comment-free line "OPNAME WEIGHT". */
static lraf_status parse_weight_line(const char *s, const char *e, int line,
                                     uint32_t *weights, lraf_error *err) {
  const char *name = s, *num;
  unsigned long v = 0;
  int op;
  while (s < e && (isalnum((unsigned char)*s) || *s == '_')) s++;
  if (s == name)
    return err_fail(err, LRAF_EARG, "weights line %d: expected an opcode "
                   "name, found byte 0x%02x (a weights file is text: "
                   "lines \"OPNAME WEIGHT\")", line, (unsigned char)*s);
  op = opcode_by_name(name, (size_t)(s - name));
  if (op < 0)
    return err_fail(err, LRAF_EARG, "weights line %d: unknown opcode '%.*s'",
                    line, (int)(s - name), name);
  while (s < e && isspace((unsigned char)*s)) s++;
  num = s;
  while (s < e && isdigit((unsigned char)*s)) {
    v = v * 10 + (unsigned long)(*s - '0');
    if (v > 1000000ul)
      return err_fail(err, LRAF_EARG, "weights line %d: weight above 1000000",
                      line);
    s++;
  }
  if (s == num)
    return err_fail(err, LRAF_EARG,
                    "weights line %d: expected a whole number after %s", line,
                    bc_opname(op));
  while (s < e && isspace((unsigned char)*s)) s++;
  if (s != e)
    return err_fail(err, LRAF_EARG, "weights line %d: unexpected text '%.*s'",
                    line, (int)(e - s), s);
  if (v == 0 && must_cost(op))
    return err_fail(err, LRAF_EARG, "weights line %d: %s 0; " MUST_COST_WHY,
                    line, bc_opname(op));
  weights[op] = (uint32_t)v;
  return LRAF_OK;
}

lraf_status rw_parse_weights(const char *text, size_t len, uint32_t *weights,
                             lraf_error *err) {
  const char *p = text, *end = text + len;
  int op, line = 0;
  for (op = 0; op < BC_NUM_OPCODES; op++)
    weights[op] = 1;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *s = p, *e = eol ? eol : end;
    const char *hash = memchr(s, '#', (size_t)(e - s));
    line++;
    if (hash != NULL) e = hash;
    while (s < e && isspace((unsigned char)*s)) s++;
    while (e > s && isspace((unsigned char)e[-1])) e--;
    if (s < e) {
      lraf_status st = parse_weight_line(s, e, line, weights, err);
      if (st != LRAF_OK)
        return st;
    }
    p = eol ? eol + 1 : end;
  }
  return LRAF_OK;
}
