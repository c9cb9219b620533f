/*
** bc.h - the in-memory model of Lua 5.4 bytecode: instructions, the
** opcode property table, function prototypes, and the chunk reader,
** writer and listing that convert between bytes and this model.
**
** Internal to lraf (prefix bc_).  Other modules use only what is
** declared here.
*/
#ifndef BC_H
#define BC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "lraf.h"

/* ------------------------------------------------------------------ */
/* Instructions                                                         */
/* ------------------------------------------------------------------ */

typedef uint32_t bc_instr;

/* Field layout of a 32-bit Lua 5.4 instruction. */
#define BC_SIZE_OP 7
#define BC_SIZE_A 8
#define BC_SIZE_B 8
#define BC_SIZE_C 8
#define BC_SIZE_BX (BC_SIZE_C + BC_SIZE_B + 1)
#define BC_SIZE_AX (BC_SIZE_BX + BC_SIZE_A)
#define BC_SIZE_SJ BC_SIZE_AX

#define BC_POS_OP 0
#define BC_POS_A (BC_POS_OP + BC_SIZE_OP)
#define BC_POS_K (BC_POS_A + BC_SIZE_A)
#define BC_POS_B (BC_POS_K + 1)
#define BC_POS_C (BC_POS_B + BC_SIZE_B)
#define BC_POS_BX BC_POS_K
#define BC_POS_AX BC_POS_A
#define BC_POS_SJ BC_POS_A

#define BC_MAXARG_A ((1 << BC_SIZE_A) - 1)
#define BC_MAXARG_B ((1 << BC_SIZE_B) - 1)
#define BC_MAXARG_C ((1 << BC_SIZE_C) - 1)
#define BC_MAXARG_BX ((1 << BC_SIZE_BX) - 1)
#define BC_MAXARG_AX ((1 << BC_SIZE_AX) - 1)
#define BC_MAXARG_SJ ((1 << BC_SIZE_SJ) - 1)
#define BC_OFFSET_SBX (BC_MAXARG_BX >> 1)
#define BC_OFFSET_SJ (BC_MAXARG_SJ >> 1)
#define BC_OFFSET_SC (BC_MAXARG_C >> 1)

/* Largest register count and upvalue count a Lua 5.4 function may have. */
#define BC_MAXREGS 255
#define BC_MAXUPVALS 255

static inline unsigned bc_field(bc_instr i, int pos, int size) {
  return (unsigned)((i >> pos) & ((1u << size) - 1u));
}
static inline bc_instr bc_setfield(bc_instr i, unsigned v, int pos, int size) {
  bc_instr mask = ((1u << size) - 1u) << pos;
  return (i & ~mask) | (((bc_instr)v << pos) & mask);
}

static inline int bc_op(bc_instr i) { return (int)bc_field(i, BC_POS_OP, BC_SIZE_OP); }
static inline int bc_a(bc_instr i) { return (int)bc_field(i, BC_POS_A, BC_SIZE_A); }
static inline int bc_b(bc_instr i) { return (int)bc_field(i, BC_POS_B, BC_SIZE_B); }
static inline int bc_c(bc_instr i) { return (int)bc_field(i, BC_POS_C, BC_SIZE_C); }
static inline int bc_k(bc_instr i) { return (int)bc_field(i, BC_POS_K, 1); }
static inline int bc_sb(bc_instr i) { return bc_b(i) - BC_OFFSET_SC; }
static inline int bc_sc(bc_instr i) { return bc_c(i) - BC_OFFSET_SC; }
static inline int bc_bx(bc_instr i) { return (int)bc_field(i, BC_POS_BX, BC_SIZE_BX); }
static inline int bc_sbx(bc_instr i) { return bc_bx(i) - BC_OFFSET_SBX; }
static inline int bc_ax(bc_instr i) { return (int)bc_field(i, BC_POS_AX, BC_SIZE_AX); }
static inline int bc_sj(bc_instr i) {
  return (int)bc_field(i, BC_POS_SJ, BC_SIZE_SJ) - BC_OFFSET_SJ;
}

static inline bc_instr bc_set_op(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_OP, BC_SIZE_OP); }
static inline bc_instr bc_set_a(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_A, BC_SIZE_A); }
static inline bc_instr bc_set_b(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_B, BC_SIZE_B); }
static inline bc_instr bc_set_c(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_C, BC_SIZE_C); }
static inline bc_instr bc_set_k(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_K, 1); }
static inline bc_instr bc_set_bx(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_BX, BC_SIZE_BX); }
static inline bc_instr bc_set_sbx(bc_instr i, int v) { return bc_set_bx(i, v + BC_OFFSET_SBX); }
static inline bc_instr bc_set_ax(bc_instr i, int v) { return bc_setfield(i, (unsigned)v, BC_POS_AX, BC_SIZE_AX); }
static inline bc_instr bc_set_sj(bc_instr i, int v) {
  return bc_setfield(i, (unsigned)(v + BC_OFFSET_SJ), BC_POS_SJ, BC_SIZE_SJ);
}

/* Instruction constructors, one per format (inline: the rewriter builds
   an instruction with them for every increment).  sb/sc/sbx/sj take the
   signed (unbiased) value. */
static inline bc_instr bc_abck(int op, int a, int b, int c, int k) {
  return bc_set_k(bc_set_c(bc_set_b(bc_set_a(bc_set_op(0, op), a), b), c), k);
}
static inline bc_instr bc_abx(int op, int a, int bx) {
  return bc_set_bx(bc_set_a(bc_set_op(0, op), a), bx);
}
static inline bc_instr bc_asbx(int op, int a, int sbx) {
  return bc_set_sbx(bc_set_a(bc_set_op(0, op), a), sbx);
}
static inline bc_instr bc_iax(int op, int ax) {
  return bc_set_ax(bc_set_op(0, op), ax);
}
static inline bc_instr bc_isj(int op, int sj) {
  return bc_set_sj(bc_set_op(0, op), sj);
}

/* ------------------------------------------------------------------ */
/* Opcodes and their properties                                         */
/* ------------------------------------------------------------------ */

/* The 83 opcodes of Lua 5.4, in the VM's numbering. */
enum {
  BC_OP_MOVE, BC_OP_LOADI, BC_OP_LOADF, BC_OP_LOADK, BC_OP_LOADKX,
  BC_OP_LOADFALSE, BC_OP_LFALSESKIP, BC_OP_LOADTRUE, BC_OP_LOADNIL,
  BC_OP_GETUPVAL, BC_OP_SETUPVAL, BC_OP_GETTABUP, BC_OP_GETTABLE,
  BC_OP_GETI, BC_OP_GETFIELD, BC_OP_SETTABUP, BC_OP_SETTABLE, BC_OP_SETI,
  BC_OP_SETFIELD, BC_OP_NEWTABLE, BC_OP_SELF, BC_OP_ADDI, BC_OP_ADDK,
  BC_OP_SUBK, BC_OP_MULK, BC_OP_MODK, BC_OP_POWK, BC_OP_DIVK, BC_OP_IDIVK,
  BC_OP_BANDK, BC_OP_BORK, BC_OP_BXORK, BC_OP_SHRI, BC_OP_SHLI, BC_OP_ADD,
  BC_OP_SUB, BC_OP_MUL, BC_OP_MOD, BC_OP_POW, BC_OP_DIV, BC_OP_IDIV,
  BC_OP_BAND, BC_OP_BOR, BC_OP_BXOR, BC_OP_SHL, BC_OP_SHR, BC_OP_MMBIN,
  BC_OP_MMBINI, BC_OP_MMBINK, BC_OP_UNM, BC_OP_BNOT, BC_OP_NOT, BC_OP_LEN,
  BC_OP_CONCAT, BC_OP_CLOSE, BC_OP_TBC, BC_OP_JMP, BC_OP_EQ, BC_OP_LT,
  BC_OP_LE, BC_OP_EQK, BC_OP_EQI, BC_OP_LTI, BC_OP_LEI, BC_OP_GTI,
  BC_OP_GEI, BC_OP_TEST, BC_OP_TESTSET, BC_OP_CALL, BC_OP_TAILCALL,
  BC_OP_RETURN, BC_OP_RETURN0, BC_OP_RETURN1, BC_OP_FORLOOP, BC_OP_FORPREP,
  BC_OP_TFORPREP, BC_OP_TFORCALL, BC_OP_TFORLOOP, BC_OP_SETLIST,
  BC_OP_CLOSURE, BC_OP_VARARG, BC_OP_VARARGPREP, BC_OP_EXTRAARG,
  BC_NUM_OPCODES
};

/* The lraf VM's accounting instruction (lravm/patches/lua-acct-opcodes.patch), after
   Lua's opcodes: ACCT A sBx adds sBx to the state's counter, with a zero
   check that calls consume when the counter is 0 or more; A is one of
   BC_ACCT_*.  The count hook never sees it.  Only chunks for the lraf VM
   may hold it (rw_verify_target). */
#define BC_OP_ACCT BC_NUM_OPCODES
#define BC_ACCT_ADDCHECK 0   /* add, then check */
#define BC_ACCT_CHECKADD 1   /* check, then add */
#define BC_ACCT_ADD 2        /* add only */
/* The lraf VM's fused loop jumps: JMP and FORLOOP that first add the
   sBx of the ACCT after them (written as BC_ACCT_ADD; it never runs
   itself) and make the zero check, so that the block they end pays for itself
   at its end, with no dispatch of its own.  FORLOOPACCT's exit skips the
   ACCT.  Jump targets are worked out as for JMP and FORLOOP. */
#define BC_OP_JMPACCT (BC_OP_ACCT + 1)
#define BC_OP_FORLOOPACCT (BC_OP_ACCT + 2)
/* TFORLOOP that pays ahead for the loop body it goes back to: as the
   loop goes on it adds the sBx of the ACCT after it (the body's charge,
   which then starts with no ACCT); it makes the zero check whichever way
   it goes, and the loop's exit skips the ACCT.  Like TFORLOOP, TFORCALL
   runs it without a fetch. */
#define BC_OP_TFORLOOPACCT (BC_OP_ACCT + 3)
#define BC_OP_LAST BC_OP_TFORLOOPACCT   /* the last opcode of the model */

typedef enum bc_format {
  BC_FMT_ABC, BC_FMT_ABX, BC_FMT_ASBX, BC_FMT_AX, BC_FMT_SJ
} bc_format;

/* Static properties of an opcode (flags of bc_opinfo.flags). */
#define BC_OPF_TEST      0x0001u /* a test: must be followed by a JMP */
#define BC_OPF_JUMP      0x0002u /* transfers control: JMP, FOR*, TFORPREP, TFORLOOP */
#define BC_OPF_MMBIN     0x0004u /* arithmetic op that must be followed by MMBIN* */
#define BC_OPF_CALLS     0x0008u /* may run Lua code (call or metamethod) */
#define BC_OPF_ERRORS    0x0010u /* may raise an error */
#define BC_OPF_ENDS      0x0020u /* ends the function (returns or tail-calls) */
#define BC_OPF_UNCOUNTED 0x0040u /* never fetched by the interpreter loop:
                                    the count hook never sees it (EXTRAARG, TFORLOOP) */
#define BC_OPF_SKIPNEXT  0x0080u /* skips the next instruction (LFALSESKIP) */

typedef struct bc_opinfo {
  const char *name;  /* as luac prints it, e.g. "GETTABUP" */
  bc_format format;
  unsigned flags;
} bc_opinfo;

/* The properties of every opcode and of the lraf VM's (BC_OP_ACCT to
   BC_OP_LAST): read them through bc_opinfo_of.  The functions below are inline: the
   rewriter and the verifier ask them for every instruction, several
   times. */
extern const bc_opinfo bc_opinfo_table[BC_OP_LAST + 1];

/* Properties of opcode op, or NULL when op is not a valid opcode. */
static inline const bc_opinfo *bc_opinfo_of(int op) {
  return op >= 0 && op <= BC_OP_LAST ? &bc_opinfo_table[op] : NULL;
}
/* The opcode name, or "?" when op is not valid. */
const char *bc_opname(int op);

/* Properties that depend on operands. */
/* LOADKX and NEWTABLE always (NEWTABLE skips it even without k); SETLIST
   with k */
static inline int bc_needs_extraarg(bc_instr i) {
  switch (bc_op(i)) {
    case BC_OP_LOADKX: case BC_OP_NEWTABLE: return 1;
    case BC_OP_SETLIST: return bc_k(i);
    default: return 0;
  }
}
/* reads an open stack top: CALL/TAILCALL B=0, RETURN B=0, SETLIST B=0 */
static inline int bc_uses_top(bc_instr i) {
  switch (bc_op(i)) {
    case BC_OP_CALL: case BC_OP_TAILCALL:
    case BC_OP_RETURN: case BC_OP_SETLIST:
      return bc_b(i) == 0;
    default: return 0;
  }
}
/* leaves the top open: CALL C=0, VARARG C=0 */
static inline int bc_sets_top(bc_instr i) {
  switch (bc_op(i)) {
    case BC_OP_CALL: case BC_OP_VARARG: return bc_c(i) == 0;
    default: return 0;
  }
}
/* Whether op is a paying jump of the lraf VM (JMPACCT, FORLOOPACCT,
   TFORLOOPACCT): it adds the charge held by the ACCT after it, which
   never runs itself, and makes the zero check. */
static inline int bc_is_paying_jump(int op) {
  return op == BC_OP_JMPACCT || op == BC_OP_FORLOOPACCT ||
         op == BC_OP_TFORLOOPACCT;
}

/* The instruction that must immediately follow i, or -1 when none:
   BC_OP_JMP after a test, BC_OP_EXTRAARG after LOADKX etc.,
   BC_OP_TFORLOOP after TFORCALL, BC_OP_ACCT after a paying jump.  For
   arithmetic ops that need an
   MMBIN* it returns BC_OP_MMBIN, BC_OP_MMBINI or BC_OP_MMBINK. */
static inline int bc_required_next(bc_instr i) {
  int op = bc_op(i);
  const bc_opinfo *oi = bc_opinfo_of(op);
  unsigned flags = oi != NULL ? oi->flags : 0;
  if (flags & BC_OPF_TEST) return BC_OP_JMP;
  if (flags & BC_OPF_MMBIN) {
    if (op == BC_OP_ADDI || op == BC_OP_SHRI || op == BC_OP_SHLI)
      return BC_OP_MMBINI;
    if (op >= BC_OP_ADDK && op <= BC_OP_BXORK) return BC_OP_MMBINK;
    return BC_OP_MMBIN;
  }
  if (bc_needs_extraarg(i)) return BC_OP_EXTRAARG;
  if (op == BC_OP_TFORCALL) return BC_OP_TFORLOOP;
  if (bc_is_paying_jump(op)) return BC_OP_ACCT;
  return -1;
}
/* Whether Lua's count hook counts i when the interpreter reaches it as
   an ordinary fetched instruction (false for EXTRAARG, TFORLOOP and
   VARARGPREP; the JMP after a test and a skipped MMBIN are decided by
   the context, see bc_opinfo flags and lua54-facts.md). */
int bc_hook_counts(bc_instr i);

/* Jump targets.  For an instruction at pc that transfers control (JMP,
   FORLOOP, FORPREP, TFORPREP, TFORLOOP), store the target pc in *target
   and return 1; otherwise return 0.  For FORPREP the target is the
   instruction after the FORLOOP (loop skipped); for TFORPREP it is the
   TFORCALL; for FORLOOP and TFORLOOP it is the loop body start.
   The interpreter applies every offset to a pc already advanced past
   the instruction: JMP pc+1+sJ; FORLOOP and TFORLOOP pc+1-Bx; FORPREP
   pc+1+Bx+1 when the loop is skipped; TFORPREP pc+1+Bx. */
static inline int bc_jump_target(bc_instr i, int pc, int *target) {
  int t;
  switch (bc_op(i)) {
    case BC_OP_JMP: case BC_OP_JMPACCT: t = pc + 1 + bc_sj(i); break;
    case BC_OP_FORLOOP: case BC_OP_TFORLOOP: case BC_OP_FORLOOPACCT:
    case BC_OP_TFORLOOPACCT:
      t = pc + 1 - bc_bx(i);
      break;
    case BC_OP_FORPREP: t = pc + 2 + bc_bx(i); break;
    case BC_OP_TFORPREP: t = pc + 1 + bc_bx(i); break;
    default: return 0;
  }
  if (target != NULL) *target = t;
  return 1;
}
/* The inverse: set the jump of the instruction at pc so that it reaches
   target.  Returns 0 when the offset does not fit the field. */
int bc_set_jump_target(bc_instr *i, int pc, int target);

/* ------------------------------------------------------------------ */
/* Prototypes and chunks                                                */
/* ------------------------------------------------------------------ */

/* A byte string from a chunk.  present == 0 encodes the NULL string
   (size 0 in the dump), which is different from an empty string. */
typedef struct bc_string {
  char *data;   /* NUL-terminated copy; NULL when !present */
  size_t len;
  int present;
  int shared;   /* data is another string's of the same function (a
                   metamethod stub's local names its original's): not
                   freed with this one */
} bc_string;

/* Constant tags as they appear in a dump (Lua's variant tags). */
#define BC_TNIL 0x00
#define BC_TFALSE 0x01
#define BC_TTRUE 0x11
#define BC_TINT 0x03
#define BC_TFLT 0x13
#define BC_TSHRSTR 0x04
#define BC_TLNGSTR 0x14
#define BC_MAXSHORTLEN 40

typedef struct bc_const {
  int tag;
  int64_t i;    /* BC_TINT */
  double n;     /* BC_TFLT */
  bc_string s;  /* BC_TSHRSTR, BC_TLNGSTR */
} bc_const;

typedef struct bc_upvaldesc {
  uint8_t instack;  /* 1: captures a register of the enclosing function */
  uint8_t idx;      /* register or enclosing upvalue index */
  uint8_t kind;     /* VDKREG 0, RDKCONST 1, RDKTOCLOSE 2, RDKCTC 3 */
} bc_upvaldesc;

typedef struct bc_absline {
  int pc;
  int line;
} bc_absline;

typedef struct bc_locvar {
  bc_string name;
  int startpc;  /* first pc where the variable is active */
  int endpc;    /* first pc where it is dead */
} bc_locvar;

#define BC_ABSLINEINFO (-0x80)  /* lineinfo marker: see abslineinfo */
#define BC_LIMLINEDIFF 0x80     /* |delta| must stay below this */
#define BC_MAXIWTHABS 128       /* max instructions without an absolute line */

/* What an accounting instruction pays for, per source line (written by
   the rewriter with rw_options.lines, for the profiler): each run of the
   instruction at pc (of the rewritten code) charges cost for line. */
typedef struct bc_linecost {
  int pc;
  int line;
  int64_t cost;
} bc_linecost;

typedef struct bc_ahead {
  int pc;
  int n;
} bc_ahead;

typedef struct bc_proto {
  bc_string source;        /* !present: same as the parent's (or stripped) */
  int linedefined;
  int lastlinedefined;
  uint8_t numparams;
  uint8_t is_vararg;
  uint8_t maxstacksize;
  int sizecode;
  bc_instr *code;
  int sizek;
  bc_const *k;
  int sizeupvalues;
  bc_upvaldesc *upvalues;
  int sizep;
  struct bc_proto **p;
  int sizelineinfo;        /* 0 (stripped) or sizecode */
  int8_t *lineinfo;
  int sizeabslineinfo;
  bc_absline *abslineinfo;
  int sizelinecosts;       /* rewritten with rw_options.lines: sorted by pc */
  bc_linecost *linecosts;
  int sizelocvars;
  bc_locvar *locvars;
  int sizeupnames;         /* 0 (stripped) or sizeupvalues */
  bc_string *upnames;
  /* lraf VM, rewritten with refunds (rw_options.refunds): what is
     charged ahead once the instruction at pc was counted, sorted by pc,
     for the pcs where an error or a yield may leave the function (0
     where absent).  Written into the Proto in memory (the lraf VM's
     Proto.acctahead); the dump format has no place for it. */
  int sizeahead;
  bc_ahead *ahead;
  /* lraf VM, code rewritten in memory in the default mode: what a call
     charges as the function starts (the Proto's acctentry), with the
     zero check in entry_mode (BC_ACCT_ADDCHECK or BC_ACCT_CHECKADD): the
     charge of the first block, whose ACCT the code then leaves out.  0:
     the code starts with its ACCT.  The dump format has no place for
     it, like ahead. */
  int64_t entry;
  uint8_t entry_mode;
  /* BC_BORROWED_*: code, lineinfo, abslineinfo or locvars is not the
     model's own but lent by its owner (rewriting in memory lends the
     lraf VM's Proto's arrays and carves the rest from one block,
     runtime/rt_inplace.c); the rewriter replaces such an array without
     freeing it and clears its bit.  0 in every model bc_read makes.
     BC_HOOK_*: code or lineinfo came from rw_options.alloc (exactly
     sized); not free()'s to free. */
  uint8_t borrowed;
} bc_proto;

#define BC_BORROWED_CODE  1u
#define BC_BORROWED_LINES 2u
#define BC_BORROWED_ABS   4u
#define BC_BORROWED_LOCVARS 8u
#define BC_HOOK_CODE  16u
#define BC_HOOK_LINES 32u

typedef struct bc_chunk {
  uint8_t nupvalues;  /* the byte after the header: main's upvalue count */
  bc_proto *main;
} bc_chunk;

/* Limits the reader enforces on untrusted input (documented in README).
   Exceeding one is LRAF_ELIMIT, with a message naming the limit and the
   byte offset.  Counts are also checked against the bytes left before
   anything is allocated (LRAF_EFORMAT when they cannot fit). */
typedef struct bc_limits {
  size_t max_input;      /* bytes of chunk input */
  int max_depth;         /* nesting depth of functions */
  int max_functions;     /* total number of functions in a chunk */
  int max_code;          /* instructions in one function */
  int max_constants;     /* constants of one function */
  int max_locvars;       /* local variable entries of one function */
  size_t max_memory;     /* bytes the chunk model may take (arrays,
                            strings and functions, as allocated) */
} bc_limits;

/* The defaults: 64 MiB of input, depth 200, 100000 functions, 2097152
   instructions and 4194304 constants per function, 32767 local variable
   entries per function (Lua's own limit), 256 MiB of model. */
extern const bc_limits bc_default_limits;

/* Read a binary chunk (lua_dump output).  On success returns LRAF_OK and
   stores a new chunk in *out.  On failure returns a code, leaves *out
   untouched and, if err is not NULL, fills it with a message that names
   the problem and the byte offset.  limits may be NULL (defaults). */
lraf_status bc_read(const void *data, size_t size, const bc_limits *limits,
                    bc_chunk **out, lraf_error *err);

/* bc_read for chunks the rewriter wrote (offline rewriting): functions
   are checked with BC_CHECK_REWRITTEN. */
lraf_status bc_read_rewritten(const void *data, size_t size,
                              const bc_limits *limits, bc_chunk **out,
                              lraf_error *err);

/* Serialize a chunk into a new malloc'ed buffer in the lua_dump format.
   Reading then writing gives back the input bytes exactly. */
lraf_status bc_write(const bc_chunk *chunk, void **data, size_t *size,
                     lraf_error *err);

/* Free a chunk or a prototype tree; NULL is allowed. */
void bc_chunk_free(bc_chunk *chunk);
void bc_proto_free(bc_proto *f);

/* Whether the instruction at pc of f is an arithmetic op followed by
   its MMBIN* (the pair the interpreter runs as one unit). */
int bc_mmbin_pair(const bc_proto *f, int pc);

/* The source line of instruction pc, from lineinfo/abslineinfo, the way
   Lua computes it; -1 when the function has no line info. */
int bc_getline(const bc_proto *f, int pc);
/* The same for every pc at once (lines has f->sizecode entries), in time
   linear in the code size. */
void bc_getlines(const bc_proto *f, int *lines);

/* Check the internal consistency of one function (not its children):
   valid opcodes, operands that index constants, upvalues, nested
   functions and registers in range, jump targets inside the code,
   required pairs (test+JMP, op+EXTRAARG, TFORCALL+TFORLOOP, arithmetic
   + MMBIN*) intact.  Used by the reader on input and by the rewriter's
   verifier on output.  path names the function in messages. */
lraf_status bc_check_proto(const bc_proto *f, const char *path,
                           lraf_error *err);

/* bc_check_proto with options: BC_CHECK_REWRITTEN also accepts an
   arithmetic op followed by a JMP (to the rewriter's metamethod stub)
   where Lua's compiler puts its MMBIN*, and a function that ends with
   a JMP (the last stub jumps back). */
#define BC_CHECK_REWRITTEN 0x1u
lraf_status bc_check_code(const bc_proto *f, const char *path, unsigned flags,
                          lraf_error *err);

/* Only the debug information of bc_check_code: line information
   (lineinfo and abslineinfo as luaG_getfuncline reads them) and the pc
   ranges of local variables, for a verifier that knows the code itself
   to be sound (rw_verify_lean). */
lraf_status bc_check_debug(const bc_proto *f, const char *path,
                           lraf_error *err);

/* Print a listing of f and its nested functions: one line per
   instruction with its index (1-based), line, opcode name and operands,
   in the same order and with the same operand values as luac -l -l. */
void bc_list(FILE *out, const bc_proto *f, int full);

#endif
