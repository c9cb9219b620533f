/*
** vm.h - the in-memory model of Lua 5.4 bytecode: instructions, the
** opcode property table, function prototypes, and the chunk reader,
** writer and listing that convert between bytes and this model.
**
** Internal to lraf (prefix vm_).  Other modules use only what is
** declared here.
*/
#ifndef VM_H
#define VM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "lraf.h"

/* ------------------------------------------------------------------ */
/* Instructions                                                         */
/* ------------------------------------------------------------------ */

typedef uint32_t vm_instr;

/* Field layout of a 32-bit Lua 5.4 instruction. */
#define VM_SIZE_OP 7
#define VM_SIZE_A 8
#define VM_SIZE_B 8
#define VM_SIZE_C 8
#define VM_SIZE_BX (VM_SIZE_C + VM_SIZE_B + 1)
#define VM_SIZE_AX (VM_SIZE_BX + VM_SIZE_A)
#define VM_SIZE_SJ VM_SIZE_AX

#define VM_POS_OP 0
#define VM_POS_A (VM_POS_OP + VM_SIZE_OP)
#define VM_POS_K (VM_POS_A + VM_SIZE_A)
#define VM_POS_B (VM_POS_K + 1)
#define VM_POS_C (VM_POS_B + VM_SIZE_B)
#define VM_POS_BX VM_POS_K
#define VM_POS_AX VM_POS_A
#define VM_POS_SJ VM_POS_A

#define VM_MAXARG_A ((1 << VM_SIZE_A) - 1)
#define VM_MAXARG_B ((1 << VM_SIZE_B) - 1)
#define VM_MAXARG_C ((1 << VM_SIZE_C) - 1)
#define VM_MAXARG_BX ((1 << VM_SIZE_BX) - 1)
#define VM_MAXARG_AX ((1 << VM_SIZE_AX) - 1)
#define VM_MAXARG_SJ ((1 << VM_SIZE_SJ) - 1)
#define VM_OFFSET_SBX (VM_MAXARG_BX >> 1)
#define VM_OFFSET_SJ (VM_MAXARG_SJ >> 1)
#define VM_OFFSET_SC (VM_MAXARG_C >> 1)

/* Largest register count and upvalue count a Lua 5.4 function may have. */
#define VM_MAXREGS 255
#define VM_MAXUPVALS 255

static inline unsigned vm_field(vm_instr i, int pos, int size) {
  return (unsigned)((i >> pos) & ((1u << size) - 1u));
}
static inline vm_instr vm_setfield(vm_instr i, unsigned v, int pos, int size) {
  vm_instr mask = ((1u << size) - 1u) << pos;
  return (i & ~mask) | (((vm_instr)v << pos) & mask);
}

static inline int vm_op(vm_instr i) { return (int)vm_field(i, VM_POS_OP, VM_SIZE_OP); }
static inline int vm_a(vm_instr i) { return (int)vm_field(i, VM_POS_A, VM_SIZE_A); }
static inline int vm_b(vm_instr i) { return (int)vm_field(i, VM_POS_B, VM_SIZE_B); }
static inline int vm_c(vm_instr i) { return (int)vm_field(i, VM_POS_C, VM_SIZE_C); }
static inline int vm_k(vm_instr i) { return (int)vm_field(i, VM_POS_K, 1); }
static inline int vm_sb(vm_instr i) { return vm_b(i) - VM_OFFSET_SC; }
static inline int vm_sc(vm_instr i) { return vm_c(i) - VM_OFFSET_SC; }
static inline int vm_bx(vm_instr i) { return (int)vm_field(i, VM_POS_BX, VM_SIZE_BX); }
static inline int vm_sbx(vm_instr i) { return vm_bx(i) - VM_OFFSET_SBX; }
static inline int vm_ax(vm_instr i) { return (int)vm_field(i, VM_POS_AX, VM_SIZE_AX); }
static inline int vm_sj(vm_instr i) {
  return (int)vm_field(i, VM_POS_SJ, VM_SIZE_SJ) - VM_OFFSET_SJ;
}

static inline vm_instr vm_set_op(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_OP, VM_SIZE_OP); }
static inline vm_instr vm_set_a(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_A, VM_SIZE_A); }
static inline vm_instr vm_set_b(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_B, VM_SIZE_B); }
static inline vm_instr vm_set_c(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_C, VM_SIZE_C); }
static inline vm_instr vm_set_k(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_K, 1); }
static inline vm_instr vm_set_bx(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_BX, VM_SIZE_BX); }
static inline vm_instr vm_set_sbx(vm_instr i, int v) { return vm_set_bx(i, v + VM_OFFSET_SBX); }
static inline vm_instr vm_set_ax(vm_instr i, int v) { return vm_setfield(i, (unsigned)v, VM_POS_AX, VM_SIZE_AX); }
static inline vm_instr vm_set_sj(vm_instr i, int v) {
  return vm_setfield(i, (unsigned)(v + VM_OFFSET_SJ), VM_POS_SJ, VM_SIZE_SJ);
}

/* Instruction constructors, one per format (inline: the rewriter builds
   an instruction with them for every increment).  sb/sc/sbx/sj take the
   signed (unbiased) value. */
static inline vm_instr vm_abck(int op, int a, int b, int c, int k) {
  return vm_set_k(vm_set_c(vm_set_b(vm_set_a(vm_set_op(0, op), a), b), c), k);
}
static inline vm_instr vm_abx(int op, int a, int bx) {
  return vm_set_bx(vm_set_a(vm_set_op(0, op), a), bx);
}
static inline vm_instr vm_asbx(int op, int a, int sbx) {
  return vm_set_sbx(vm_set_a(vm_set_op(0, op), a), sbx);
}
static inline vm_instr vm_iax(int op, int ax) {
  return vm_set_ax(vm_set_op(0, op), ax);
}
static inline vm_instr vm_isj(int op, int sj) {
  return vm_set_sj(vm_set_op(0, op), sj);
}

/* ------------------------------------------------------------------ */
/* Opcodes and their properties                                         */
/* ------------------------------------------------------------------ */

/* The 83 opcodes of Lua 5.4, in the VM's numbering. */
enum {
  VM_OP_MOVE, VM_OP_LOADI, VM_OP_LOADF, VM_OP_LOADK, VM_OP_LOADKX,
  VM_OP_LOADFALSE, VM_OP_LFALSESKIP, VM_OP_LOADTRUE, VM_OP_LOADNIL,
  VM_OP_GETUPVAL, VM_OP_SETUPVAL, VM_OP_GETTABUP, VM_OP_GETTABLE,
  VM_OP_GETI, VM_OP_GETFIELD, VM_OP_SETTABUP, VM_OP_SETTABLE, VM_OP_SETI,
  VM_OP_SETFIELD, VM_OP_NEWTABLE, VM_OP_SELF, VM_OP_ADDI, VM_OP_ADDK,
  VM_OP_SUBK, VM_OP_MULK, VM_OP_MODK, VM_OP_POWK, VM_OP_DIVK, VM_OP_IDIVK,
  VM_OP_BANDK, VM_OP_BORK, VM_OP_BXORK, VM_OP_SHRI, VM_OP_SHLI, VM_OP_ADD,
  VM_OP_SUB, VM_OP_MUL, VM_OP_MOD, VM_OP_POW, VM_OP_DIV, VM_OP_IDIV,
  VM_OP_BAND, VM_OP_BOR, VM_OP_BXOR, VM_OP_SHL, VM_OP_SHR, VM_OP_MMBIN,
  VM_OP_MMBINI, VM_OP_MMBINK, VM_OP_UNM, VM_OP_BNOT, VM_OP_NOT, VM_OP_LEN,
  VM_OP_CONCAT, VM_OP_CLOSE, VM_OP_TBC, VM_OP_JMP, VM_OP_EQ, VM_OP_LT,
  VM_OP_LE, VM_OP_EQK, VM_OP_EQI, VM_OP_LTI, VM_OP_LEI, VM_OP_GTI,
  VM_OP_GEI, VM_OP_TEST, VM_OP_TESTSET, VM_OP_CALL, VM_OP_TAILCALL,
  VM_OP_RETURN, VM_OP_RETURN0, VM_OP_RETURN1, VM_OP_FORLOOP, VM_OP_FORPREP,
  VM_OP_TFORPREP, VM_OP_TFORCALL, VM_OP_TFORLOOP, VM_OP_SETLIST,
  VM_OP_CLOSURE, VM_OP_VARARG, VM_OP_VARARGPREP, VM_OP_EXTRAARG,
  VM_NUM_OPCODES
};

/* The lraf VM's accounting instruction (vm/lravm/lua-acct.patch), after
   Lua's opcodes: ACCT A sBx adds sBx to the state's counter, with a zero
   check that calls consume when the counter is 0 or more; A is one of
   VM_ACCT_*.  The count hook never sees it.  Only chunks for the lraf VM
   may hold it (rw_verify_target). */
#define VM_OP_ACCT VM_NUM_OPCODES
#define VM_ACCT_ADDCHECK 0   /* add, then check */
#define VM_ACCT_CHECKADD 1   /* check, then add */
#define VM_ACCT_ADD 2        /* add only */
/* The lraf VM's fused loop jumps: JMP and FORLOOP that first add the
   sBx of the ACCT after them (a VM_ACCT_ADDCHECK that never runs itself)
   and make the zero check, so that the block they end pays for itself
   at its end, with no dispatch of its own.  FORLOOPACCT's exit skips the
   ACCT.  Jump targets are worked out as for JMP and FORLOOP. */
#define VM_OP_JMPACCT (VM_OP_ACCT + 1)
#define VM_OP_FORLOOPACCT (VM_OP_ACCT + 2)
/* TFORLOOP that pays ahead for the loop body it goes back to: as the
   loop goes on it adds the sBx of the ACCT after it (the body's charge,
   which then starts with no ACCT); it makes the zero check whichever way
   it goes, and the loop's exit skips the ACCT.  Like TFORLOOP, TFORCALL
   runs it without a fetch. */
#define VM_OP_TFORLOOPACCT (VM_OP_ACCT + 3)
#define VM_OP_LAST VM_OP_TFORLOOPACCT   /* the last opcode of the model */

typedef enum vm_format {
  VM_FMT_ABC, VM_FMT_ABX, VM_FMT_ASBX, VM_FMT_AX, VM_FMT_SJ
} vm_format;

/* Static properties of an opcode (flags of vm_opinfo.flags). */
#define VM_OPF_TEST      0x0001u /* a test: must be followed by a JMP */
#define VM_OPF_JUMP      0x0002u /* transfers control: JMP, FOR*, TFORPREP, TFORLOOP */
#define VM_OPF_MMBIN     0x0004u /* arithmetic op that must be followed by MMBIN* */
#define VM_OPF_CALLS     0x0008u /* may run Lua code (call or metamethod) */
#define VM_OPF_ERRORS    0x0010u /* may raise an error */
#define VM_OPF_ENDS      0x0020u /* ends the function (returns or tail-calls) */
#define VM_OPF_UNCOUNTED 0x0040u /* never fetched by the interpreter loop:
                                    the count hook never sees it (EXTRAARG, TFORLOOP) */
#define VM_OPF_SKIPNEXT  0x0080u /* skips the next instruction (LFALSESKIP) */

typedef struct vm_opinfo {
  const char *name;  /* as luac prints it, e.g. "GETTABUP" */
  vm_format format;
  unsigned flags;
} vm_opinfo;

/* The properties of every opcode and of the lraf VM's (VM_OP_ACCT to
   VM_OP_LAST): read them through vm_opinfo_of.  The functions below are inline: the
   rewriter and the verifier ask them for every instruction, several
   times. */
extern const vm_opinfo vm_opinfo_table[VM_OP_LAST + 1];

/* Properties of opcode op, or NULL when op is not a valid opcode. */
static inline const vm_opinfo *vm_opinfo_of(int op) {
  return op >= 0 && op <= VM_OP_LAST ? &vm_opinfo_table[op] : NULL;
}
/* The opcode name, or "?" when op is not valid. */
const char *vm_opname(int op);

/* Properties that depend on operands. */
/* LOADKX and NEWTABLE always (NEWTABLE skips it even without k); SETLIST
   with k */
static inline int vm_needs_extraarg(vm_instr i) {
  switch (vm_op(i)) {
    case VM_OP_LOADKX: case VM_OP_NEWTABLE: return 1;
    case VM_OP_SETLIST: return vm_k(i);
    default: return 0;
  }
}
/* reads an open stack top: CALL/TAILCALL B=0, RETURN B=0, SETLIST B=0 */
static inline int vm_uses_top(vm_instr i) {
  switch (vm_op(i)) {
    case VM_OP_CALL: case VM_OP_TAILCALL:
    case VM_OP_RETURN: case VM_OP_SETLIST:
      return vm_b(i) == 0;
    default: return 0;
  }
}
/* leaves the top open: CALL C=0, VARARG C=0 */
static inline int vm_sets_top(vm_instr i) {
  switch (vm_op(i)) {
    case VM_OP_CALL: case VM_OP_VARARG: return vm_c(i) == 0;
    default: return 0;
  }
}
/* Whether op is a paying jump of the lraf VM (JMPACCT, FORLOOPACCT,
   TFORLOOPACCT): it adds the charge held by the ACCT after it, which
   never runs itself, and makes the zero check. */
static inline int vm_is_paying_jump(int op) {
  return op == VM_OP_JMPACCT || op == VM_OP_FORLOOPACCT ||
         op == VM_OP_TFORLOOPACCT;
}

/* The instruction that must immediately follow i, or -1 when none:
   VM_OP_JMP after a test, VM_OP_EXTRAARG after LOADKX etc.,
   VM_OP_TFORLOOP after TFORCALL, VM_OP_ACCT after a paying jump.  For
   arithmetic ops that need an
   MMBIN* it returns VM_OP_MMBIN, VM_OP_MMBINI or VM_OP_MMBINK. */
static inline int vm_required_next(vm_instr i) {
  int op = vm_op(i);
  const vm_opinfo *oi = vm_opinfo_of(op);
  unsigned flags = oi != NULL ? oi->flags : 0;
  if (flags & VM_OPF_TEST) return VM_OP_JMP;
  if (flags & VM_OPF_MMBIN) {
    if (op == VM_OP_ADDI || op == VM_OP_SHRI || op == VM_OP_SHLI)
      return VM_OP_MMBINI;
    if (op >= VM_OP_ADDK && op <= VM_OP_BXORK) return VM_OP_MMBINK;
    return VM_OP_MMBIN;
  }
  if (vm_needs_extraarg(i)) return VM_OP_EXTRAARG;
  if (op == VM_OP_TFORCALL) return VM_OP_TFORLOOP;
  if (vm_is_paying_jump(op)) return VM_OP_ACCT;
  return -1;
}
/* Whether Lua's count hook counts i when the interpreter reaches it as
   an ordinary fetched instruction (false for EXTRAARG, TFORLOOP and
   VARARGPREP; the JMP after a test and a skipped MMBIN are decided by
   the context, see vm_opinfo flags and lua54-facts.md). */
int vm_hook_counts(vm_instr i);

/* Jump targets.  For an instruction at pc that transfers control (JMP,
   FORLOOP, FORPREP, TFORPREP, TFORLOOP), store the target pc in *target
   and return 1; otherwise return 0.  For FORPREP the target is the
   instruction after the FORLOOP (loop skipped); for TFORPREP it is the
   TFORCALL; for FORLOOP and TFORLOOP it is the loop body start.
   The interpreter applies every offset to a pc already advanced past
   the instruction: JMP pc+1+sJ; FORLOOP and TFORLOOP pc+1-Bx; FORPREP
   pc+1+Bx+1 when the loop is skipped; TFORPREP pc+1+Bx. */
static inline int vm_jump_target(vm_instr i, int pc, int *target) {
  int t;
  switch (vm_op(i)) {
    case VM_OP_JMP: case VM_OP_JMPACCT: t = pc + 1 + vm_sj(i); break;
    case VM_OP_FORLOOP: case VM_OP_TFORLOOP: case VM_OP_FORLOOPACCT:
    case VM_OP_TFORLOOPACCT:
      t = pc + 1 - vm_bx(i);
      break;
    case VM_OP_FORPREP: t = pc + 2 + vm_bx(i); break;
    case VM_OP_TFORPREP: t = pc + 1 + vm_bx(i); break;
    default: return 0;
  }
  if (target != NULL) *target = t;
  return 1;
}
/* The inverse: set the jump of the instruction at pc so that it reaches
   target.  Returns 0 when the offset does not fit the field. */
int vm_set_jump_target(vm_instr *i, int pc, int target);

/* ------------------------------------------------------------------ */
/* Prototypes and chunks                                                */
/* ------------------------------------------------------------------ */

/* A byte string from a chunk.  present == 0 encodes the NULL string
   (size 0 in the dump), which is different from an empty string. */
typedef struct vm_string {
  char *data;   /* NUL-terminated copy; NULL when !present */
  size_t len;
  int present;
} vm_string;

/* Constant tags as they appear in a dump (Lua's variant tags). */
#define VM_TNIL 0x00
#define VM_TFALSE 0x01
#define VM_TTRUE 0x11
#define VM_TINT 0x03
#define VM_TFLT 0x13
#define VM_TSHRSTR 0x04
#define VM_TLNGSTR 0x14
#define VM_MAXSHORTLEN 40

typedef struct vm_const {
  int tag;
  int64_t i;    /* VM_TINT */
  double n;     /* VM_TFLT */
  vm_string s;  /* VM_TSHRSTR, VM_TLNGSTR */
} vm_const;

typedef struct vm_upvaldesc {
  uint8_t instack;  /* 1: captures a register of the enclosing function */
  uint8_t idx;      /* register or enclosing upvalue index */
  uint8_t kind;     /* VDKREG 0, RDKCONST 1, RDKTOCLOSE 2, RDKCTC 3 */
} vm_upvaldesc;

typedef struct vm_absline {
  int pc;
  int line;
} vm_absline;

typedef struct vm_locvar {
  vm_string name;
  int startpc;  /* first pc where the variable is active */
  int endpc;    /* first pc where it is dead */
} vm_locvar;

#define VM_ABSLINEINFO (-0x80)  /* lineinfo marker: see abslineinfo */
#define VM_LIMLINEDIFF 0x80     /* |delta| must stay below this */
#define VM_MAXIWTHABS 128       /* max instructions without an absolute line */

/* What an accounting instruction pays for, per source line (written by
   the rewriter with rw_options.lines, for the profiler): each run of the
   instruction at pc (of the rewritten code) charges cost for line. */
typedef struct vm_linecost {
  int pc;
  int line;
  int64_t cost;
} vm_linecost;

typedef struct vm_ahead {
  int pc;
  int n;
} vm_ahead;

typedef struct vm_proto {
  vm_string source;        /* !present: same as the parent's (or stripped) */
  int linedefined;
  int lastlinedefined;
  uint8_t numparams;
  uint8_t is_vararg;
  uint8_t maxstacksize;
  int sizecode;
  vm_instr *code;
  int sizek;
  vm_const *k;
  int sizeupvalues;
  vm_upvaldesc *upvalues;
  int sizep;
  struct vm_proto **p;
  int sizelineinfo;        /* 0 (stripped) or sizecode */
  int8_t *lineinfo;
  int sizeabslineinfo;
  vm_absline *abslineinfo;
  int sizelinecosts;       /* rewritten with rw_options.lines: sorted by pc */
  vm_linecost *linecosts;
  int sizelocvars;
  vm_locvar *locvars;
  int sizeupnames;         /* 0 (stripped) or sizeupvalues */
  vm_string *upnames;
  /* lraf VM, rewritten with refunds (rw_options.refunds): what is
     charged ahead once the instruction at pc was counted, sorted by pc,
     for the pcs where an error or a yield may leave the function (0
     where absent).  Written into the Proto in memory (the lraf VM's
     Proto.acctahead); the dump format has no place for it. */
  int sizeahead;
  vm_ahead *ahead;
  /* lraf VM, code rewritten in memory in the default mode: what a call
     charges as the function starts (the Proto's acctentry), with the
     zero check in entry_mode (VM_ACCT_ADDCHECK or VM_ACCT_CHECKADD): the
     charge of the first block, whose ACCT the code then leaves out.  0:
     the code starts with its ACCT.  The dump format has no place for
     it, like ahead. */
  int64_t entry;
  uint8_t entry_mode;
  /* VM_BORROWED_*: code, lineinfo, abslineinfo or locvars is not the
     model's own but lent by its owner (rewriting in memory lends the
     lraf VM's Proto's arrays and carves the rest from one block,
     runtime/rt_inplace.c); the rewriter replaces such an array without
     freeing it and clears its bit.  0 in every model vm_read makes.
     VM_HOOK_*: code or lineinfo came from rw_options.alloc (exactly
     sized); not free()'s to free. */
  uint8_t borrowed;
} vm_proto;

#define VM_BORROWED_CODE  1u
#define VM_BORROWED_LINES 2u
#define VM_BORROWED_ABS   4u
#define VM_BORROWED_LOCVARS 8u
#define VM_HOOK_CODE  16u
#define VM_HOOK_LINES 32u

typedef struct vm_chunk {
  uint8_t nupvalues;  /* the byte after the header: main's upvalue count */
  vm_proto *main;
} vm_chunk;

/* Limits the reader enforces on untrusted input (documented in README).
   Exceeding one is LRAF_ELIMIT, with a message naming the limit and the
   byte offset.  Counts are also checked against the bytes left before
   anything is allocated (LRAF_EFORMAT when they cannot fit). */
typedef struct vm_limits {
  size_t max_input;      /* bytes of chunk input */
  int max_depth;         /* nesting depth of functions */
  int max_functions;     /* total number of functions in a chunk */
  int max_code;          /* instructions in one function */
  int max_constants;     /* constants of one function */
  int max_locvars;       /* local variable entries of one function */
  size_t max_memory;     /* bytes the chunk model may take (arrays,
                            strings and functions, as allocated) */
} vm_limits;

/* The defaults: 64 MiB of input, depth 200, 100000 functions, 2097152
   instructions and 4194304 constants per function, 32767 local variable
   entries per function (Lua's own limit), 256 MiB of model. */
extern const vm_limits vm_default_limits;

/* Read a binary chunk (lua_dump output).  On success returns LRAF_OK and
   stores a new chunk in *out.  On failure returns a code, leaves *out
   untouched and, if err is not NULL, fills it with a message that names
   the problem and the byte offset.  limits may be NULL (defaults). */
lraf_status vm_read(const void *data, size_t size, const vm_limits *limits,
                    vm_chunk **out, lraf_error *err);

/* vm_read for chunks the rewriter wrote (offline rewriting): functions
   are checked with VM_CHECK_REWRITTEN. */
lraf_status vm_read_rewritten(const void *data, size_t size,
                              const vm_limits *limits, vm_chunk **out,
                              lraf_error *err);

/* Serialize a chunk into a new malloc'ed buffer in the lua_dump format.
   Reading then writing gives back the input bytes exactly. */
lraf_status vm_write(const vm_chunk *chunk, void **data, size_t *size,
                     lraf_error *err);

/* Free a chunk or a prototype tree; NULL is allowed. */
void vm_chunk_free(vm_chunk *chunk);
void vm_proto_free(vm_proto *f);

/* Whether the instruction at pc of f is an arithmetic op followed by
   its MMBIN* (the pair the interpreter runs as one unit). */
int vm_mmbin_pair(const vm_proto *f, int pc);

/* The source line of instruction pc, from lineinfo/abslineinfo, the way
   Lua computes it; -1 when the function has no line info. */
int vm_getline(const vm_proto *f, int pc);
/* The same for every pc at once (lines has f->sizecode entries), in time
   linear in the code size. */
void vm_getlines(const vm_proto *f, int *lines);

/* Check the internal consistency of one function (not its children):
   valid opcodes, operands that index constants, upvalues, nested
   functions and registers in range, jump targets inside the code,
   required pairs (test+JMP, op+EXTRAARG, TFORCALL+TFORLOOP, arithmetic
   + MMBIN*) intact.  Used by the reader on input and by the rewriter's
   verifier on output.  path names the function in messages. */
lraf_status vm_check_proto(const vm_proto *f, const char *path,
                           lraf_error *err);

/* vm_check_proto with options: VM_CHECK_REWRITTEN also accepts an
   arithmetic op followed by a JMP (to the rewriter's metamethod stub)
   where Lua's compiler puts its MMBIN*, and a function that ends with
   a JMP (the last stub jumps back). */
#define VM_CHECK_REWRITTEN 0x1u
lraf_status vm_check_code(const vm_proto *f, const char *path, unsigned flags,
                          lraf_error *err);

/* Only the debug information of vm_check_code: line information
   (lineinfo and abslineinfo as luaG_getfuncline reads them) and the pc
   ranges of local variables, for a verifier that knows the code itself
   to be sound (rw_verify_lean). */
lraf_status vm_check_debug(const vm_proto *f, const char *path,
                           lraf_error *err);

/* Print a listing of f and its nested functions: one line per
   instruction with its index (1-based), line, opcode name and operands,
   in the same order and with the same operand values as luac -l -l. */
void vm_list(FILE *out, const vm_proto *f, int full);

#endif
