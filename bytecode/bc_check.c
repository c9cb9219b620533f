/*
** bc_check.c - structural checker for one Lua 5.4 function prototype:
** operands in range, required instruction pairs intact, jump targets
** inside the code, debug information consistent.  It accepts what the
** Lua 5.4 compiler produces and rejects what could make the
** interpreter read or write out of bounds.
*/
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "bc.h"

/* Metamethod events an MMBIN* may name: __add .. __shr (ltm.h order). */
#define BC_TM_ADD 6
#define BC_TM_SHR 17

typedef struct ctx {
  const bc_proto *f;
  const char *path;
  lraf_error *err;
  int pc;
  bc_instr i;
  unsigned flags;
} ctx;

/* A failure at the current instruction. */
static lraf_status bad(ctx *c, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return err_fail(c->err, LRAF_EFORMAT, "%s in %s at pc %d in function %s",
                  msg, bc_opname(bc_op(c->i)), c->pc, c->path);
}

/* A failure of the function as a whole. */
static lraf_status badf(ctx *c, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return err_fail(c->err, LRAF_EFORMAT, "%s in function %s", msg, c->path);
}

#define TRY(e) do { lraf_status st_ = (e); if (st_ != LRAF_OK) return st_; } while (0)

/* ------------------------------------------------------------------ */
/* Operands                                                             */
/* ------------------------------------------------------------------ */

/* Registers first..last must exist. */
static lraf_status regs(ctx *c, int first, int last) {
  if (last >= c->f->maxstacksize)
    return bad(c, "register %d out of range (maxstacksize %d)", last,
               c->f->maxstacksize);
  (void)first;
  return LRAF_OK;
}

static lraf_status reg(ctx *c, int r) { return regs(c, r, r); }

/* A stack level: a register or one past the last. */
static lraf_status level(ctx *c, int r) {
  if (r > c->f->maxstacksize)
    return bad(c, "stack level %d out of range (maxstacksize %d)", r,
               c->f->maxstacksize);
  return LRAF_OK;
}

static lraf_status kidx(ctx *c, int k) {
  if (k < 0 || k >= c->f->sizek)
    return bad(c, "constant index %d out of range (%d constants)", k,
               c->f->sizek);
  return LRAF_OK;
}

static int is_string(const bc_const *k) {
  return k->tag == BC_TSHRSTR || k->tag == BC_TLNGSTR;
}

/* A constant string key: Lua reads it with tsvalue(); short ones are
   looked up with luaH_getshortstr. */
static lraf_status kstr(ctx *c, int k, int shortonly) {
  const bc_const *kv;
  TRY(kidx(c, k));
  kv = &c->f->k[k];
  if (!is_string(kv))
    return bad(c, "constant %d is not a string", k);
  if (shortonly && kv->s.len > BC_MAXSHORTLEN)
    return bad(c, "constant %d is not a short string", k);
  return LRAF_OK;
}

static lraf_status knum(ctx *c, int k, int intonly) {
  int tag;
  TRY(kidx(c, k));
  tag = c->f->k[k].tag;
  if (tag != BC_TINT && (intonly || tag != BC_TFLT))
    return bad(c, "constant %d is not %s", k, intonly ? "an integer" : "a number");
  return LRAF_OK;
}

/* RK(C): a constant with k, else a register. */
static lraf_status rkc(ctx *c) {
  return bc_k(c->i) ? kidx(c, bc_c(c->i)) : reg(c, bc_c(c->i));
}

static lraf_status upval(ctx *c, int u) {
  if (u >= c->f->sizeupvalues)
    return bad(c, "upvalue index %d out of range (%d upvalues)", u,
               c->f->sizeupvalues);
  return LRAF_OK;
}

static lraf_status event(ctx *c, int tm) {
  if (tm < BC_TM_ADD || tm > BC_TM_SHR)
    return bad(c, "invalid metamethod event %d", tm);
  return LRAF_OK;
}

static lraf_status target(ctx *c, int *t) {
  bc_jump_target(c->i, c->pc, t);
  if (*t < 0 || *t >= c->f->sizecode)
    return bad(c, "jump target %d out of range (%d instructions)", *t,
               c->f->sizecode);
  return LRAF_OK;
}

static bc_instr at(ctx *c, int pc) {
  return (pc >= 0 && pc < c->f->sizecode) ? c->f->code[pc] : 0x7fu;
}

/* ------------------------------------------------------------------ */
/* One instruction's operands                                           */
/* ------------------------------------------------------------------ */

static lraf_status check_loops(ctx *c, int op, int a) {
  int t;
  TRY(target(c, &t));
  if (op == BC_OP_TFORPREP) {
    bc_instr ti = at(c, t);
    if (bc_op(ti) != BC_OP_TFORCALL || bc_a(ti) != a)
      return bad(c, "jump target %d is not the matching TFORCALL", t);
  }
  return regs(c, a, a + (op == BC_OP_TFORLOOP ? 4 : 3));
}

static lraf_status check_calls(ctx *c, int op, int a, int b, int cc) {
  switch (op) {
    case BC_OP_CALL:
      TRY(reg(c, a));
      if (b > 0) TRY(regs(c, a, a + b - 1));
      return cc > 1 ? regs(c, a, a + cc - 2) : LRAF_OK;
    case BC_OP_TAILCALL:
      TRY(reg(c, a));
      return b > 0 ? regs(c, a, a + b - 1) : LRAF_OK;
    case BC_OP_RETURN:
      return b > 1 ? regs(c, a, a + b - 2) : level(c, a);
    case BC_OP_RETURN1:
      return reg(c, a);
    case BC_OP_TFORCALL:
      TRY(regs(c, a, a + 6));
      return regs(c, a, a + 3 + cc);
    case BC_OP_VARARG:
      TRY(reg(c, a));
      return cc > 1 ? regs(c, a, a + cc - 2) : LRAF_OK;
    default:
      return LRAF_OK;
  }
}

static lraf_status check_tables(ctx *c, int op, int a, int b, int cc) {
  switch (op) {
    case BC_OP_GETTABUP:
      TRY(reg(c, a)); TRY(upval(c, b)); return kstr(c, cc, 1);
    case BC_OP_GETTABLE:
      TRY(reg(c, a)); TRY(reg(c, b)); return reg(c, cc);
    case BC_OP_GETI:
      TRY(reg(c, a)); return reg(c, b);
    case BC_OP_GETFIELD:
      TRY(reg(c, a)); TRY(reg(c, b)); return kstr(c, cc, 1);
    case BC_OP_SETTABUP:
      TRY(upval(c, a)); TRY(kstr(c, b, 1)); return rkc(c);
    case BC_OP_SETTABLE:
      TRY(reg(c, a)); TRY(reg(c, b)); return rkc(c);
    case BC_OP_SETI:
      TRY(reg(c, a)); return rkc(c);
    case BC_OP_SETFIELD:
      TRY(reg(c, a)); TRY(kstr(c, b, 1)); return rkc(c);
    case BC_OP_NEWTABLE:
      return reg(c, a);
    case BC_OP_SELF:
      TRY(regs(c, a, a + 1)); TRY(reg(c, b));
      return bc_k(c->i) ? kstr(c, cc, 0) : reg(c, cc);
    case BC_OP_SETLIST:
      TRY(reg(c, a));
      return b > 0 ? regs(c, a, a + b) : LRAF_OK;
    default:
      return LRAF_OK;
  }
}

static lraf_status check_arith(ctx *c, int op, int a, int b, int cc) {
  if (op >= BC_OP_ADDK && op <= BC_OP_BXORK) {
    TRY(reg(c, a)); TRY(reg(c, b));
    return knum(c, cc, op >= BC_OP_BANDK);
  }
  if (op >= BC_OP_ADD && op <= BC_OP_SHR) {
    TRY(reg(c, a)); TRY(reg(c, b)); return reg(c, cc);
  }
  switch (op) {
    case BC_OP_ADDI: case BC_OP_SHRI: case BC_OP_SHLI:
      TRY(reg(c, a)); return reg(c, b);
    case BC_OP_MMBIN:
      TRY(reg(c, a)); TRY(reg(c, b)); return event(c, cc);
    case BC_OP_MMBINI:
      TRY(reg(c, a)); return event(c, cc);
    case BC_OP_MMBINK:
      TRY(reg(c, a)); TRY(kidx(c, b)); return event(c, cc);
    case BC_OP_UNM: case BC_OP_BNOT: case BC_OP_NOT: case BC_OP_LEN:
      TRY(reg(c, a)); return reg(c, b);
    case BC_OP_CONCAT:
      if (b < 1) return bad(c, "concatenation of %d values", b);
      return regs(c, a, a + b - 1);
    default:
      return LRAF_OK;
  }
}

static lraf_status check_tests(ctx *c, int op, int a, int b) {
  switch (op) {
    case BC_OP_EQ: case BC_OP_LT: case BC_OP_LE: case BC_OP_TESTSET:
      TRY(reg(c, a)); return reg(c, b);
    case BC_OP_EQK:
      TRY(reg(c, a)); return kidx(c, b);
    default:  /* EQI LTI LEI GTI GEI TEST */
      return reg(c, a);
  }
}

static lraf_status check_loads(ctx *c, int op, int a, int b) {
  switch (op) {
    case BC_OP_MOVE:
      TRY(reg(c, a)); return reg(c, b);
    case BC_OP_LOADK:
      TRY(reg(c, a)); return kidx(c, bc_bx(c->i));
    case BC_OP_LOADKX:
      TRY(reg(c, a));
      if (bc_op(at(c, c->pc + 1)) == BC_OP_EXTRAARG)
        return kidx(c, bc_ax(at(c, c->pc + 1)));
      return LRAF_OK;
    case BC_OP_LFALSESKIP:
      if (c->pc + 2 >= c->f->sizecode)
        return bad(c, "skip past the end of the code");
      return reg(c, a);
    case BC_OP_LOADNIL:
      return regs(c, a, a + b);
    case BC_OP_GETUPVAL: case BC_OP_SETUPVAL:
      TRY(reg(c, a)); return upval(c, b);
    default:  /* LOADI LOADF LOADFALSE LOADTRUE */
      return reg(c, a);
  }
}

static lraf_status check_misc(ctx *c, int op, int a) {
  int t;
  switch (op) {
    case BC_OP_CLOSE: return level(c, a);
    case BC_OP_TBC: return reg(c, a);
    case BC_OP_JMP: return target(c, &t);
    case BC_OP_CLOSURE:
      TRY(reg(c, a));
      if (bc_bx(c->i) >= c->f->sizep)
        return bad(c, "function index %d out of range (%d functions)",
                   bc_bx(c->i), c->f->sizep);
      return LRAF_OK;
    case BC_OP_VARARGPREP:
      if (c->pc != 0 || !c->f->is_vararg)
        return bad(c, "misplaced VARARGPREP");
      if (a != c->f->numparams)
        return bad(c, "VARARGPREP for %d parameters, function has %d", a,
                   c->f->numparams);
      return LRAF_OK;
    default:  /* RETURN0 EXTRAARG */
      return LRAF_OK;
  }
}

static lraf_status check_operands(ctx *c) {
  int op = bc_op(c->i), a = bc_a(c->i), b = bc_b(c->i), cc = bc_c(c->i);
  if (op == BC_OP_ACCT) {  /* the lraf VM's: a mode, no register */
    if (!(c->flags & BC_CHECK_REWRITTEN))  /* never in a compiler's code */
      return bad(c, "accounting instruction in a chunk lraf did not write");
    return a <= BC_ACCT_ADD ? LRAF_OK : bad(c, "ACCT mode %d", a);
  }
  if (bc_is_paying_jump(op)) {  /* its jumps */
    int t;
    if (!(c->flags & BC_CHECK_REWRITTEN))
      return bad(c, "accounting instruction in a chunk lraf did not write");
    return op == BC_OP_JMPACCT ? target(c, &t)
         : check_loops(c, op == BC_OP_TFORLOOPACCT ? BC_OP_TFORLOOP : op, a);
  }
  if (op <= BC_OP_LOADNIL || op == BC_OP_GETUPVAL || op == BC_OP_SETUPVAL)
    return check_loads(c, op, a, b);
  if (op <= BC_OP_SELF || op == BC_OP_SETLIST)
    return check_tables(c, op, a, b, cc);
  if (op <= BC_OP_CONCAT)
    return check_arith(c, op, a, b, cc);
  if (op >= BC_OP_EQ && op <= BC_OP_TESTSET)
    return check_tests(c, op, a, b);
  if (op >= BC_OP_FORLOOP && op <= BC_OP_TFORLOOP && op != BC_OP_TFORCALL)
    return check_loops(c, op, a);
  if ((op >= BC_OP_CALL && op <= BC_OP_RETURN1) || op == BC_OP_TFORCALL ||
      op == BC_OP_VARARG)
    return check_calls(c, op, a, b, cc);
  return check_misc(c, op, a);
}

/* ------------------------------------------------------------------ */
/* Required neighbours                                                  */
/* ------------------------------------------------------------------ */

static lraf_status check_next(ctx *c) {
  int need = bc_required_next(c->i);
  bc_instr ni;
  if (need < 0) return LRAF_OK;
  if (c->pc + 1 >= c->f->sizecode)
    return bad(c, "missing %s after the last instruction", bc_opname(need));
  ni = at(c, c->pc + 1);
  if ((c->flags & BC_CHECK_REWRITTEN) && bc_op(ni) == BC_OP_JMP &&
      bc_opinfo_of(bc_op(c->i))->flags & BC_OPF_MMBIN)
    return LRAF_OK;  /* the rewriter's jump to a metamethod stub */
  if (need == BC_OP_TFORLOOP && bc_op(ni) == BC_OP_TFORLOOPACCT &&
      (c->flags & BC_CHECK_REWRITTEN))
    need = BC_OP_TFORLOOPACCT;  /* the paying form (checked as a jump) */
  if (bc_op(ni) != need)
    return bad(c, "followed by %s instead of %s", bc_opname(bc_op(ni)),
               bc_opname(need));
  if ((need == BC_OP_TFORLOOP || need == BC_OP_TFORLOOPACCT) &&
      bc_a(ni) != bc_a(c->i))
    return bad(c, "followed by a TFORLOOP on another register");
  return LRAF_OK;
}

/* EXTRAARG, MMBIN* and TFORLOOP exist only as the second half of a pair
   (MMBIN* reads the instruction before it for the result register). */
static lraf_status check_prev(ctx *c) {
  int op = bc_op(c->i);
  if (op != BC_OP_EXTRAARG && op != BC_OP_TFORLOOP && op != BC_OP_MMBIN &&
      op != BC_OP_MMBINI && op != BC_OP_MMBINK && op != BC_OP_TFORLOOPACCT)
    return LRAF_OK;
  if (op == BC_OP_TFORLOOPACCT) op = BC_OP_TFORLOOP;  /* TFORCALL's pair */
  if (c->pc == 0 || bc_required_next(at(c, c->pc - 1)) != op)
    return bad(c, "not preceded by an instruction that requires it");
  return LRAF_OK;
}

static lraf_status check_instr(ctx *c) {
  int op = bc_op(c->i);
  if (bc_opinfo_of(op) == NULL)
    return err_fail(c->err, LRAF_EFORMAT, "invalid opcode %d at pc %d in function %s",
                    op, c->pc, c->path);
  TRY(check_operands(c));
  TRY(check_next(c));
  return check_prev(c);
}

/* ------------------------------------------------------------------ */
/* The function as a whole                                              */
/* ------------------------------------------------------------------ */

static lraf_status check_sizes(ctx *c) {
  const bc_proto *f = c->f;
  int maxstack = f->maxstacksize;
  if (maxstack > BC_MAXREGS)
    return badf(c, "maxstacksize %d exceeds %d", maxstack, BC_MAXREGS);
  if (f->numparams > f->maxstacksize)
    return badf(c, "%d parameters exceed maxstacksize %d", f->numparams,
                f->maxstacksize);
  if (f->sizecode <= 0 || f->code == NULL)
    return badf(c, "no code");
  if (f->sizek < 0 || (f->sizek > 0 && f->k == NULL) || f->sizep < 0 ||
      (f->sizep > 0 && f->p == NULL))
    return badf(c, "inconsistent constant or function table");
  if (f->sizeupvalues < 0 || f->sizeupvalues > BC_MAXUPVALS ||
      (f->sizeupvalues > 0 && f->upvalues == NULL))
    return badf(c, "invalid upvalue count %d", f->sizeupvalues);
  if (f->sizeupnames != 0 && (f->sizeupnames != f->sizeupvalues || f->upnames == NULL))
    return badf(c, "%d upvalue names for %d upvalues", f->sizeupnames,
                f->sizeupvalues);
  return LRAF_OK;
}

static lraf_status check_constants(ctx *c) {
  int n;
  for (n = 0; n < c->f->sizek; n++) {
    switch (c->f->k[n].tag) {
      case BC_TNIL: case BC_TFALSE: case BC_TTRUE: case BC_TINT:
      case BC_TFLT: case BC_TSHRSTR: case BC_TLNGSTR: break;
      default:
        return badf(c, "constant %d has invalid tag 0x%02x", n, c->f->k[n].tag);
    }
  }
  return LRAF_OK;
}

/* VARARGPREP is the first instruction iff the function is vararg (its
   other placements are rejected instruction by instruction). */
static lraf_status check_shape(ctx *c) {
  const bc_proto *f = c->f;
  bc_instr last = f->code[f->sizecode - 1];
  const bc_opinfo *oi = bc_opinfo_of(bc_op(last));
  if (f->is_vararg && bc_op(f->code[0]) != BC_OP_VARARGPREP)
    return badf(c, "vararg function does not start with VARARGPREP");
  int stub_end = (c->flags & BC_CHECK_REWRITTEN) && bc_op(last) == BC_OP_JMP;
  if (oi == NULL || (!(oi->flags & BC_OPF_ENDS) && !stub_end))
    return badf(c, "last instruction %s at pc %d does not return",
                bc_opname(bc_op(last)), f->sizecode - 1);
  return LRAF_OK;
}

/* luaG_getfuncline starts from abslineinfo[pc / 128 - 1]: that entry
   must exist and not lie after pc. */
static lraf_status check_absbase(ctx *c) {
  const bc_proto *f = c->f;
  int i;
  if (f->sizeabslineinfo == 0) return LRAF_OK;
  /* the pcs from the first entry on that start from entry i lie in
     BC_MAXIWTHABS * (i + 1) and the next BC_MAXIWTHABS - 1: the first
     of them (pc) fails if any does */
  for (i = f->abslineinfo[0].pc / BC_MAXIWTHABS - 1;; i++) {
    int pc = BC_MAXIWTHABS * (i + 1);
    if (pc < f->abslineinfo[0].pc) pc = f->abslineinfo[0].pc;
    if (pc >= f->sizecode) break;
    if (i >= 0 && (i >= f->sizeabslineinfo || f->abslineinfo[i].pc > pc))
      return badf(c, "too few absolute line entries for pc %d", pc);
  }
  return LRAF_OK;
}

static lraf_status check_lines(ctx *c) {
  const bc_proto *f = c->f;
  long long line = f->linedefined;
  int pc, j = 0;
  if (f->sizelineinfo == 0) {
    if (f->sizeabslineinfo != 0)
      return badf(c, "absolute line info without line info");
    return LRAF_OK;
  }
  if (f->sizelineinfo != f->sizecode || f->lineinfo == NULL ||
      f->sizeabslineinfo < 0 || (f->sizeabslineinfo > 0 && f->abslineinfo == NULL))
    return badf(c, "line info size %d for %d instructions", f->sizelineinfo,
                f->sizecode);
  for (j = 0; j < f->sizeabslineinfo; j++) {
    int apc = f->abslineinfo[j].pc;
    if (apc < 0 || apc >= f->sizecode ||
        (j > 0 && apc <= f->abslineinfo[j - 1].pc))
      return badf(c, "absolute line entry %d has invalid pc %d", j, apc);
  }
  /* Lua's compiler never produces a line outside 0..INT_MAX, and the
     dump format cannot hold one: a rewriter that re-encodes the lines
     could not write such a chunk back.  The deltas up to the next
     absolute entry (stop) must not be its marker; from a line in
     0..INT_MAX that cannot pass INT_MAX in the run, int arithmetic
     and a test for a negative line check the same, pc by pc. */
  for (pc = 0, j = 0; pc < f->sizecode; ) {
    int stop = j < f->sizeabslineinfo ? f->abslineinfo[j].pc : f->sizecode;
    if (pc == stop) {  /* the entry (the pcs are increasing: checked) */
      if (f->lineinfo[pc] != BC_ABSLINEINFO)
        return badf(c, "line info at pc %d disagrees with absolute entries",
                    pc);
      line = f->abslineinfo[j++].line;
      if (line < 0 || line > INT_MAX)
        return badf(c, "line info gives line %lld at pc %d", line, pc);
      pc++;
    } else if (line >= 0 && line + 127LL * (stop - pc) <= INT_MAX) {
      int l = (int)line;
      for (; pc < stop; pc++) {
        if (f->lineinfo[pc] == BC_ABSLINEINFO)
          return badf(c, "line info at pc %d disagrees with absolute "
                      "entries", pc);
        l += f->lineinfo[pc];
        if (l < 0)
          return badf(c, "line info gives line %d at pc %d", l, pc);
      }
      line = l;
    } else {
      for (; pc < stop; pc++) {
        if (f->lineinfo[pc] == BC_ABSLINEINFO)
          return badf(c, "line info at pc %d disagrees with absolute "
                      "entries", pc);
        line += f->lineinfo[pc];
        if (line < 0 || line > INT_MAX)
          return badf(c, "line info gives line %lld at pc %d", line, pc);
      }
    }
  }
  return check_absbase(c);
}

static lraf_status check_locvars(ctx *c) {
  const bc_proto *f = c->f;
  int n;
  if (f->sizelocvars < 0 || (f->sizelocvars > 0 && f->locvars == NULL))
    return badf(c, "invalid local variable table");
  for (n = 0; n < f->sizelocvars; n++) {
    const bc_locvar *v = &f->locvars[n];
    if (v->startpc < 0 || v->endpc > f->sizecode || v->startpc > v->endpc)
      return badf(c, "local variable %d has invalid range %d..%d", n,
                  v->startpc, v->endpc);
  }
  return LRAF_OK;
}

lraf_status bc_check_debug(const bc_proto *f, const char *path,
                           lraf_error *err) {
  ctx c;
  c.flags = 0;
  c.f = f;
  c.path = path != NULL ? path : "?";
  c.err = err;
  c.pc = -1;
  c.i = 0;
  TRY(check_lines(&c));
  return check_locvars(&c);
}

lraf_status bc_check_proto(const bc_proto *f, const char *path,
                           lraf_error *err) {
  return bc_check_code(f, path, 0, err);
}

lraf_status bc_check_code(const bc_proto *f, const char *path, unsigned flags,
                          lraf_error *err) {
  ctx c;
  c.flags = flags;
  c.f = f;
  c.path = path != NULL ? path : "?";
  c.err = err;
  c.pc = -1;
  c.i = 0;
  if (f == NULL) return err_fail(err, LRAF_EFORMAT, "missing function %s", c.path);
  TRY(check_sizes(&c));
  TRY(check_constants(&c));
  for (c.pc = 0; c.pc < f->sizecode; c.pc++) {
    c.i = f->code[c.pc];
    TRY(check_instr(&c));
  }
  TRY(check_shape(&c));
  TRY(check_lines(&c));
  return check_locvars(&c);
}
