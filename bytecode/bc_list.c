/*
** bc_list.c - a listing of a prototype tree in the layout of
** `luac -l -l`: the same functions in the same order, one line per
** instruction with the same operand values and comments.
*/
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bc.h"

static const char *const eventnames[] = {
  "__index", "__newindex", "__gc", "__mode", "__len", "__eq", "__add",
  "__sub", "__mul", "__mod", "__pow", "__div", "__idiv", "__band", "__bor",
  "__bxor", "__shl", "__shr", "__unm", "__bnot", "__lt", "__le",
  "__concat", "__call", "__close"
};

#define NEVENTS ((int)(sizeof eventnames / sizeof eventnames[0]))

static const char *eventname(int e) {
  return (e >= 0 && e < NEVENTS) ? eventnames[e] : "?";
}

static void print_string(FILE *out, const bc_string *s) {
  size_t n;
  fputc('"', out);
  for (n = 0; s->present && n < s->len; n++) {
    int ch = (unsigned char)s->data[n];
    switch (ch) {
      case '"': fputs("\\\"", out); break;
      case '\\': fputs("\\\\", out); break;
      case '\a': fputs("\\a", out); break;
      case '\b': fputs("\\b", out); break;
      case '\f': fputs("\\f", out); break;
      case '\n': fputs("\\n", out); break;
      case '\r': fputs("\\r", out); break;
      case '\t': fputs("\\t", out); break;
      case '\v': fputs("\\v", out); break;
      default:
        if (isprint(ch)) fputc(ch, out);
        else fprintf(out, "\\%03d", ch);
    }
  }
  fputc('"', out);
}

static void print_const(FILE *out, const bc_proto *f, int i) {
  const bc_const *k;
  char buf[64];
  if (i < 0 || i >= f->sizek) {
    fprintf(out, "?");
    return;
  }
  k = &f->k[i];
  switch (k->tag) {
    case BC_TNIL: fputs("nil", out); break;
    case BC_TFALSE: fputs("false", out); break;
    case BC_TTRUE: fputs("true", out); break;
    case BC_TINT: fprintf(out, "%" PRId64, k->i); break;
    case BC_TFLT:
      snprintf(buf, sizeof buf, "%.14g", k->n);
      fputs(buf, out);
      if (buf[strspn(buf, "-0123456789")] == '\0') fputs(".0", out);
      break;
    case BC_TSHRSTR: case BC_TLNGSTR: print_string(out, &k->s); break;
    default: fprintf(out, "?%d", k->tag);
  }
}

static char const_type(const bc_const *k) {
  switch (k->tag) {
    case BC_TNIL: return 'N';
    case BC_TFALSE: case BC_TTRUE: return 'B';
    case BC_TFLT: return 'F';
    case BC_TINT: return 'I';
    case BC_TSHRSTR: case BC_TLNGSTR: return 'S';
    default: return '?';
  }
}

static const char *upname(const bc_proto *f, int i) {
  if (i < 0 || i >= f->sizeupnames || !f->upnames[i].present) return "-";
  return f->upnames[i].data;
}

/* The Ax of the EXTRAARG after pc, scaled as SETLIST/NEWTABLE use it. */
static long extra_c(const bc_proto *f, int pc) {
  if (pc + 1 >= f->sizecode) return 0;
  return (long)bc_ax(f->code[pc + 1]) * (BC_MAXARG_C + 1);
}

#define COMMENT "\t; "

/* ------------------------------------------------------------------ */
/* Operands per opcode group                                            */
/* ------------------------------------------------------------------ */

static void ops_loads(FILE *out, const bc_proto *f, int pc, bc_instr i) {
  int a = bc_a(i), b = bc_b(i);
  switch (bc_op(i)) {
    case BC_OP_MOVE: fprintf(out, "%d %d", a, b); break;
    case BC_OP_LOADI: case BC_OP_LOADF: fprintf(out, "%d %d", a, bc_sbx(i)); break;
    case BC_OP_LOADK:
      fprintf(out, "%d %d" COMMENT, a, bc_bx(i));
      print_const(out, f, bc_bx(i));
      break;
    case BC_OP_LOADKX:
      fprintf(out, "%d" COMMENT, a);
      print_const(out, f, pc + 1 < f->sizecode ? bc_ax(f->code[pc + 1]) : -1);
      break;
    case BC_OP_LOADNIL: fprintf(out, "%d %d" COMMENT "%d out", a, b, b + 1); break;
    case BC_OP_GETUPVAL: case BC_OP_SETUPVAL:
      fprintf(out, "%d %d" COMMENT "%s", a, b, upname(f, b));
      break;
    default: fprintf(out, "%d", a);  /* LOADFALSE LFALSESKIP LOADTRUE */
  }
}

static void ops_tables(FILE *out, const bc_proto *f, int pc, bc_instr i) {
  int a = bc_a(i), b = bc_b(i), c = bc_c(i), k = bc_k(i);
  const char *ks = k ? "k" : "";
  switch (bc_op(i)) {
    case BC_OP_GETTABUP:
      fprintf(out, "%d %d %d" COMMENT "%s ", a, b, c, upname(f, b));
      print_const(out, f, c);
      break;
    case BC_OP_GETTABLE: case BC_OP_GETI: fprintf(out, "%d %d %d", a, b, c); break;
    case BC_OP_GETFIELD:
      fprintf(out, "%d %d %d" COMMENT, a, b, c);
      print_const(out, f, c);
      break;
    case BC_OP_SETTABUP: case BC_OP_SETFIELD:
      fprintf(out, "%d %d %d%s" COMMENT, a, b, c, ks);
      if (bc_op(i) == BC_OP_SETTABUP) fprintf(out, "%s ", upname(f, a));
      print_const(out, f, b);
      if (k) { fputc(' ', out); print_const(out, f, c); }
      break;
    case BC_OP_NEWTABLE:
      fprintf(out, "%d %d %d" COMMENT "%ld", a, b, c, c + extra_c(f, pc));
      break;
    case BC_OP_SETLIST:
      fprintf(out, "%d %d %d", a, b, c);
      if (k) fprintf(out, COMMENT "%ld", c + extra_c(f, pc));
      break;
    default:  /* SETTABLE SETI SELF */
      fprintf(out, "%d %d %d%s", a, b, c, ks);
      if (k) { fputs(COMMENT, out); print_const(out, f, c); }
  }
}

static void ops_arith(FILE *out, const bc_proto *f, bc_instr i) {
  int op = bc_op(i), a = bc_a(i), b = bc_b(i), c = bc_c(i), k = bc_k(i);
  if (op == BC_OP_ADDI || op == BC_OP_SHRI || op == BC_OP_SHLI) {
    fprintf(out, "%d %d %d", a, b, bc_sc(i));
  } else if (op >= BC_OP_ADDK && op <= BC_OP_BXORK) {
    fprintf(out, "%d %d %d" COMMENT, a, b, c);
    print_const(out, f, c);
  } else if (op == BC_OP_MMBIN) {
    fprintf(out, "%d %d %d" COMMENT "%s", a, b, c, eventname(c));
  } else if (op == BC_OP_MMBINI) {
    fprintf(out, "%d %d %d %d" COMMENT "%s", a, bc_sb(i), c, k, eventname(c));
    if (k) fputs(" flip", out);
  } else if (op == BC_OP_MMBINK) {
    fprintf(out, "%d %d %d %d" COMMENT "%s ", a, b, c, k, eventname(c));
    print_const(out, f, b);
    if (k) fputs(" flip", out);
  } else if (op >= BC_OP_ADD && op <= BC_OP_SHR) {
    fprintf(out, "%d %d %d", a, b, c);
  } else {  /* UNM BNOT NOT LEN CONCAT */
    fprintf(out, "%d %d", a, b);
  }
}

static void ops_tests(FILE *out, const bc_proto *f, bc_instr i) {
  int op = bc_op(i), a = bc_a(i), k = bc_k(i);
  switch (op) {
    case BC_OP_EQ: case BC_OP_LT: case BC_OP_LE: case BC_OP_TESTSET:
      fprintf(out, "%d %d %d", a, bc_b(i), k);
      break;
    case BC_OP_EQK:
      fprintf(out, "%d %d %d" COMMENT, a, bc_b(i), k);
      print_const(out, f, bc_b(i));
      break;
    case BC_OP_TEST: fprintf(out, "%d %d", a, k); break;
    default: fprintf(out, "%d %d %d", a, bc_sb(i), k);  /* EQI..GEI */
  }
}

static void ops_calls(FILE *out, bc_instr i) {
  int a = bc_a(i), b = bc_b(i), c = bc_c(i);
  const char *ks = bc_k(i) ? "k" : "";
  switch (bc_op(i)) {
    case BC_OP_CALL:
      fprintf(out, "%d %d %d" COMMENT, a, b, c);
      if (b == 0) fputs("all in ", out); else fprintf(out, "%d in ", b - 1);
      if (c == 0) fputs("all out", out); else fprintf(out, "%d out", c - 1);
      break;
    case BC_OP_TAILCALL:
      fprintf(out, "%d %d %d%s" COMMENT "%d in", a, b, c, ks, b - 1);
      break;
    case BC_OP_RETURN:
      fprintf(out, "%d %d %d%s" COMMENT, a, b, c, ks);
      if (b == 0) fputs("all out", out); else fprintf(out, "%d out", b - 1);
      break;
    case BC_OP_RETURN1: fprintf(out, "%d", a); break;
    case BC_OP_VARARG:
      fprintf(out, "%d %d" COMMENT, a, c);
      if (c == 0) fputs("all out", out); else fprintf(out, "%d out", c - 1);
      break;
    case BC_OP_TFORCALL: fprintf(out, "%d %d", a, c); break;
    default: break;  /* RETURN0 */
  }
}

/* Jumps print the 1-based target the way luac computes it. */
static void ops_jumps(FILE *out, int pc, bc_instr i) {
  int t = 0;
  bc_jump_target(i, pc, &t);
  if (bc_op(i) == BC_OP_JMP || bc_op(i) == BC_OP_JMPACCT)
    fprintf(out, "%d" COMMENT "to %d", bc_sj(i), t + 1);
  else
    fprintf(out, "%d %d" COMMENT "%s %d", bc_a(i), bc_bx(i),
            bc_op(i) == BC_OP_FORPREP ? "exit to" : "to", t + 1);
}

static void print_operands(FILE *out, const bc_proto *f, int pc, bc_instr i) {
  int op = bc_op(i);
  if (op <= BC_OP_SETUPVAL)
    ops_loads(out, f, pc, i);
  else if (op <= BC_OP_SELF || op == BC_OP_SETLIST)
    ops_tables(out, f, pc, i);
  else if (op <= BC_OP_CONCAT)
    ops_arith(out, f, i);
  else if (op >= BC_OP_EQ && op <= BC_OP_TESTSET)
    ops_tests(out, f, i);
  else if ((op >= BC_OP_CALL && op <= BC_OP_RETURN1) || op == BC_OP_TFORCALL ||
           op == BC_OP_VARARG)
    ops_calls(out, i);
  else if (bc_opinfo_of(op) != NULL && (bc_opinfo_of(op)->flags & BC_OPF_JUMP))
    ops_jumps(out, pc, i);
  else if (op == BC_OP_CLOSURE)
    fprintf(out, "%d %d" COMMENT "%p", bc_a(i), bc_bx(i),
            bc_bx(i) < f->sizep ? (const void *)f->p[bc_bx(i)] : NULL);
  else if (op == BC_OP_EXTRAARG)
    fprintf(out, "%d", bc_ax(i));
  else if (op == BC_OP_ACCT && pc > 0 &&
           bc_is_paying_jump(bc_op(f->code[pc - 1])))
    fprintf(out, "%d %d" COMMENT "added, checked by %s", bc_a(i), bc_sbx(i),
            bc_opname(bc_op(f->code[pc - 1])));
  else if (op == BC_OP_ACCT)  /* the lraf VM's: mode, amount */
    fprintf(out, "%d %d" COMMENT "%s", bc_a(i), bc_sbx(i),
            bc_a(i) == BC_ACCT_ADDCHECK ? "add, check"
            : bc_a(i) == BC_ACCT_CHECKADD ? "check, add" : "add");
  else if (bc_opinfo_of(op) != NULL)  /* CLOSE TBC VARARGPREP */
    fprintf(out, "%d", bc_a(i));
  else
    fprintf(out, "%d %d %d" COMMENT "invalid opcode %d", bc_a(i), bc_b(i),
            bc_c(i), op);
}

static void print_code(FILE *out, const bc_proto *f) {
  int pc;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr i = f->code[pc];
    int line = f->sizelineinfo > 0 ? bc_getline(f, pc) : -1;
    fprintf(out, "\t%d\t", pc + 1);
    if (line > 0) fprintf(out, "[%d]\t", line); else fputs("[-]\t", out);
    fprintf(out, "%-9s\t", bc_opname(bc_op(i)));
    print_operands(out, f, pc, i);
    fputc('\n', out);
  }
}

/* ------------------------------------------------------------------ */
/* Headers and debug information                                        */
/* ------------------------------------------------------------------ */

static const char *plural(int n) { return n == 1 ? "" : "s"; }

static void print_header(FILE *out, const bc_proto *f, const bc_string *src) {
  const char *s = (src != NULL && src->present) ? src->data : "=?";
  if (*s == '@' || *s == '=') s++;
  else if (*s == '\x1b') s = "(bstring)";
  else s = "(string)";
  fprintf(out, "\n%s <%s:%d,%d> (%d instruction%s at %p)\n",
          f->linedefined == 0 ? "main" : "function", s, f->linedefined,
          f->lastlinedefined, f->sizecode, plural(f->sizecode), (const void *)f);
  fprintf(out, "%d%s param%s, %d slot%s, %d upvalue%s, ", f->numparams,
          f->is_vararg ? "+" : "", plural(f->numparams), f->maxstacksize,
          plural(f->maxstacksize), f->sizeupvalues, plural(f->sizeupvalues));
  fprintf(out, "%d local%s, %d constant%s, %d function%s\n", f->sizelocvars,
          plural(f->sizelocvars), f->sizek, plural(f->sizek), f->sizep,
          plural(f->sizep));
}

static void print_debug(FILE *out, const bc_proto *f) {
  int n;
  fprintf(out, "constants (%d) for %p:\n", f->sizek, (const void *)f);
  for (n = 0; n < f->sizek; n++) {
    fprintf(out, "\t%d\t%c\t", n, const_type(&f->k[n]));
    print_const(out, f, n);
    fputc('\n', out);
  }
  fprintf(out, "locals (%d) for %p:\n", f->sizelocvars, (const void *)f);
  for (n = 0; n < f->sizelocvars; n++) {
    const bc_locvar *v = &f->locvars[n];
    fprintf(out, "\t%d\t%s\t%d\t%d\n", n, v->name.present ? v->name.data : "?",
            v->startpc + 1, v->endpc + 1);
  }
  fprintf(out, "upvalues (%d) for %p:\n", f->sizeupvalues, (const void *)f);
  for (n = 0; n < f->sizeupvalues; n++)
    fprintf(out, "\t%d\t%s\t%d\t%d\n", n, upname(f, n), f->upvalues[n].instack,
            f->upvalues[n].idx);
}

/* Pre-order, as luac does; a child without a source inherits it. */
static void list_function(FILE *out, const bc_proto *f, int full,
                          const bc_string *psource) {
  const bc_string *src = f->source.present ? &f->source : psource;
  int n;
  print_header(out, f, src);
  print_code(out, f);
  if (full) print_debug(out, f);
  for (n = 0; n < f->sizep; n++)
    if (f->p[n] != NULL) list_function(out, f->p[n], full, src);
}

void bc_list(FILE *out, const bc_proto *f, int full) {
  if (f != NULL) list_function(out, f, full, NULL);
}
