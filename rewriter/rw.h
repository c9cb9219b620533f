/*
** rw.h - the bytecode rewriter: makes every function of a Lua 5.4 chunk
** count the VM instructions it executes.
**
** Internal to lraf (prefix rw_).  Input and output are bc_chunk trees
** (bytecode/bc.h); the runtime binds the two upvalues the rewriter adds.
**
** The contract with the runtime.  Every function gets two upvalues after
** its own: the counter (an integer) and consume (a function).  Nested
** functions capture them from their parent, so one pair of upvalue cells
** serves a whole chunk.  Each accounting block adds its cost to the
** counter when it starts; at function entry and at every loop header the
** code runs "if counter >= 0 then consume() end".  The counter runs from
** -granularity up to 0; consume flushes and resets it.
*/
#ifndef RW_H
#define RW_H

#include <stddef.h>
#include <stdint.h>

#include "bc.h"

typedef enum rw_mode {
  RW_ORIGINAL,  /* what a count hook of 1 sees on the unmodified code */
  RW_OVERHEAD,  /* the same, on the rewritten code: includes accounting */
  RW_WEIGHTED   /* per-opcode weights */
} rw_mode;

/* What the rewritten code runs on.  The stock target is any Lua 5.4 and
   uses the counter and consume upvalues described above; the lraf VM
   (lravm) has ACCT, one instruction per increment and zero check,
   and the counter in the Lua state (no upvalue, no scratch register). */
typedef enum rw_target {
  RW_STOCK,
  RW_LRAVM
} rw_target;

/* The default target: the lraf VM when lraf is built against it (make
   vm), which defines LRAF_VM; stock Lua otherwise. */
#ifdef LRAF_VM
#define RW_DEFAULT_TARGET RW_LRAVM
#else
#define RW_DEFAULT_TARGET RW_STOCK
#endif

typedef struct rw_options {
  rw_mode mode;
  int exact;                 /* also end blocks at calls and error points */
  int fold;                  /* fold control-equivalent blocks (default 1) */
  const uint32_t *weights;   /* RW_WEIGHTED: BC_NUM_OPCODES weights */
  rw_target target;          /* RW_DEFAULT_TARGET unless set */
  int lines;                 /* the lraf VM's target: give every block
                                that pays for itself an ACCT and say which
                                lines each ACCT and MMBIN* pays for
                                (bc_proto.linecosts, rw_lines.c) */
  int refunds;               /* lraf VM, code rewritten in memory: the VM
                                gives back what frames charged ahead when
                                an error discards them or a yield suspends
                                them (bc_proto.ahead), so exact mode keeps
                                the default mode's blocks (rw_refunds) */
  /* Where the emitter takes a function's final code and line
     information, exactly sized (a lua_Alloc: rewriting in memory hands
     Lua's allocator, so that the arrays become the Proto's as they are,
     rt_inplace.c); NULL for malloc.  Such arrays are marked BC_HOOK_*
     and freed by whoever set the hook.  When it gives NULL the emitter
     falls back to malloc. */
  void *(*alloc)(void *ud, void *ptr, size_t osize, size_t nsize);
  void *alloc_ud;
} rw_options;

/* What a rewrite did, summed over all functions. */
typedef struct rw_stats {
  long functions;
  long blocks;        /* accounting blocks */
  long increments;    /* blocks that got their own increment */
  long synced;        /* accounting code that found r holding the counter */
  long lazy;          /* increments that leave r ahead of the cell */
  long flushes;       /* write-backs of r without an increment */
  long folded;        /* blocks whose cost was folded into another's */
  long branch_folds;  /* blocks charged ahead by the test before them */
  long paid_by_preds; /* blocks paid for by their predecessors (lraf VM) */
  long paid_at_end;   /* blocks (with what folds into them) paid by the
                         JMPACCT or FORLOOPACCT that ends one of them */
  long paid_at_entry; /* functions whose first block the lraf VM charges
                         as a call starts (bc_proto.entry), with no ACCT */
  long paid_by_tforloop;  /* generic for loop bodies paid ahead by the
                         TFORLOOPACCT that goes back to them */
  long checks;        /* zero checks inserted */
  long stubs;         /* metamethod stubs (MMBIN side paths) */
  long widened;       /* loops whose jumps needed trampolines */
  long code_before;   /* instructions in */
  long code_after;    /* instructions out */
} rw_stats;

/* Extra instructions a consume() call runs in RW_OVERHEAD mode (the
   GETUPVAL and CALL of consume, the GETUPVAL that reloads the counter),
   which the runtime adds to the count each time it is called. */
#define RW_CONSUME_OVERHEAD 3
/* The same for opt's target: none on the lraf VM, whose ACCT calls
   consume itself. */
int rw_consume_overhead(const rw_options *opt);

/* Metamethod event number for "add" (Lua's TM_ADD), used by MMBINI. */
#define RW_TM_ADD 6

/* Whether opt's exact mode uses refunds: exact, refunds asked for, the
   lraf VM, and not the overhead mode (whose per-pc costs include the
   rewritten code's own).  The blocks are then the default mode's. */
int rw_refunds(const rw_options *opt);

/* Whether blocks may pay at the jump that ends them (rw_pay_elsewhere.c): the
   lraf VM, code rewritten in memory (rw_options.refunds: the Proto
   carries the table that charges what such a block ran when an error or
   a yield leaves it before its end), the default mode (not exact, not a
   profile's lines, not the overhead mode).  Inline: the analyses and the
   emitter ask it for every function, several times. */
static inline int rw_tail_payments(const rw_options *opt) {
  return opt->target == RW_LRAVM && opt->refunds && !opt->exact &&
         !opt->lines && opt->mode != RW_OVERHEAD;
}

/* Default options: original mode, not exact, folding on. */
void rw_default_options(rw_options *opt);

/* Rewrite every function of chunk in place.  On failure the chunk must
   only be freed.  stats may be NULL. */
lraf_status rw_rewrite(bc_chunk *chunk, const rw_options *opt,
                       rw_stats *stats, lraf_error *err);

/* The upvalue index of the counter / consume in a rewritten function
   whose original upvalue count was n: n and n + 1. */
#define RW_COUNTER_UPVAL(n) (n)
#define RW_CONSUME_UPVAL(n) ((n) + 1)

/* Check a rewritten chunk before it is loaded: structure of every
   function (bc_check_proto), stack size, upvalue descriptors of the
   counter and consume, and that the accounting code is well formed. */
lraf_status rw_verify(const bc_chunk *chunk, lraf_error *err);
/* The same for a chunk rewritten for target: on the lraf VM, functions
   have no lraf upvalues and the accounting is ACCT; on the stock target
   no ACCT may appear (rw_verify is rw_verify_target for RW_STOCK). */
lraf_status rw_verify_target(const bc_chunk *chunk, rw_target target,
                             lraf_error *err);

/* What Lua's parser made of one function, for rw_verify_lean: its code
   and the sizes that rewriting for the lraf VM keeps. */
typedef struct rw_original {
  const bc_instr *code;
  int sizecode;
  int maxstacksize, sizek, sizeupvalues, sizep;
} rw_original;

/* rw_verify_target for RW_LRAVM, for a chunk rewritten in memory from
   the functions that Lua's own parser produced: orig holds them in
   preorder (a function, then its nested ones, in order), norig of them.
   Code that is the parser's, instruction for instruction, but for
   inserted ACCTs, relocated jumps and LFALSESKIP made LOADFALSE + JMP,
   has only what changed checked (rw_verify_lean.c); any other code gets
   bc_check_code.  Entry and cycle checks are rw_verify_target's. */
lraf_status rw_verify_lean(const bc_chunk *chunk, const rw_original *orig,
                           int norig, lraf_error *err);

/* The cost-model id of opt, e.g. "lua5.4/original" or
   "lua5.4/weighted/5f1c03aa", with "/exact" in exact mode (its
   accounting code differs, so an offline chunk of one mode must not
   load into a state of the other).  Writes at most size bytes. */
void rw_model_id(const rw_options *opt, char *buf, size_t size);

/* Parse a weights file's text: lines "OPNAME WEIGHT", '#' starts a
   comment, unlisted opcodes weigh 1.  Fills weights[BC_NUM_OPCODES]. */
lraf_status rw_parse_weights(const char *text, size_t len, uint32_t *weights,
                             lraf_error *err);
/* LRAF_EARG when an opcode that closes loops or makes calls (JMP,
   FORLOOP, TFORCALL, TFORLOOP, the tests, CALL, TAILCALL) weighs 0
   (rw_parse_weights refuses such a line too). */
lraf_status rw_check_weights(const uint32_t *weights, lraf_error *err);

/* ---- internal to the rewriter ---- */

/* The cost of one executed instruction of opcode op. */
static inline uint32_t rw_op_cost(int op, const rw_options *opt) {
  if (opt->mode == RW_WEIGHTED && opt->weights != NULL)
    return opt->weights[op];
  return 1;
}
/* Whether the instruction before pc has one of flags. */
static inline int rw_follows_op_with(const bc_proto *f, int pc,
                                     unsigned flags) {
  const bc_opinfo *prev;
  if (pc == 0)
    return 0;
  prev = bc_opinfo_of(bc_op(f->code[pc - 1]));
  return prev != NULL && (prev->flags & flags) != 0;
}
/* The cost the metric assigns to the instruction at pc of f, as part of
   its block (0 for instructions the count hook never sees: rw_cost.c). */
static inline uint32_t rw_instr_cost(const bc_proto *f, int pc,
                                     const rw_options *opt) {
  int op = bc_op(f->code[pc]);
  switch (op) {
    case BC_OP_VARARGPREP:
    case BC_OP_EXTRAARG:
    case BC_OP_TFORLOOP:
      return 0;
    case BC_OP_JMP:
      if (rw_follows_op_with(f, pc, BC_OPF_TEST))
        return 0;
      break;
    case BC_OP_MMBIN:
    case BC_OP_MMBINI:
    case BC_OP_MMBINK:
      if (rw_follows_op_with(f, pc, BC_OPF_MMBIN))
        return 0;  /* charged on the metamethod side path */
      break;
    default:
      break;
  }
  return rw_op_cost(op, opt);
}

#endif
