/*
** rw_names.c - keeping Lua's variable names in errors raised on the
** metamethod side paths.
**
** When an arithmetic op falls back to its MMBIN and no metamethod
** exists, Lua names the offending operand ("local 'x'", "global 'g'")
** by scanning the code before the MMBIN for the instruction that last
** set the register.  The rewriter moves that MMBIN to a stub at the end
** of the function, where the scan would find nothing useful, so the stub
** carries a never-executed copy of that instruction.  This file finds it,
** following the same rules as the scan in Lua's debug library.
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rw_names.h"

/* Whether op writes register A (Lua's "A mode" of the opcode). */
static int sets_register_a(int op) {
  switch (op) {
    case BC_OP_SETUPVAL: case BC_OP_SETTABUP: case BC_OP_SETTABLE:
    case BC_OP_SETI: case BC_OP_SETFIELD: case BC_OP_MMBIN:
    case BC_OP_MMBINI: case BC_OP_MMBINK: case BC_OP_CLOSE: case BC_OP_TBC:
    case BC_OP_JMP: case BC_OP_EQ: case BC_OP_LT: case BC_OP_LE:
    case BC_OP_EQK: case BC_OP_EQI: case BC_OP_LTI: case BC_OP_LEI:
    case BC_OP_GTI: case BC_OP_GEI: case BC_OP_TEST: case BC_OP_RETURN:
    case BC_OP_RETURN0: case BC_OP_RETURN1: case BC_OP_TFORPREP:
    case BC_OP_TFORCALL: case BC_OP_SETLIST: case BC_OP_EXTRAARG:
      return 0;
    default:
      return 1;
  }
}

/* Only instructions Lua derives a name from are worth copying; a copy
   must not need a partner instruction after it. */
static int names_register(int op) {
  switch (op) {
    case BC_OP_MOVE: case BC_OP_GETTABUP: case BC_OP_GETTABLE:
    case BC_OP_GETI: case BC_OP_GETFIELD: case BC_OP_GETUPVAL:
    case BC_OP_LOADK: case BC_OP_SELF:
      return 1;
    default:
      return 0;
  }
}

/* Last writer of each register so far: a segment tree over the 256
   registers whose nodes hold the pc of the latest write covering them
   (pcs only grow, so a write is a max). */
typedef struct writers { int t[2 * 256]; } writers;

static void written(writers *w, int lo, int hi, int pc) {
  if (hi > 255) hi = 255;
  for (lo += 256, hi += 257; lo < hi; lo >>= 1, hi >>= 1) {
    if (lo & 1) w->t[lo++] = pc;
    if (hi & 1) w->t[--hi] = pc;
  }
}

static int last_writer(const writers *w, int reg) {
  int i, best = -1;
  for (i = reg + 256; i >= 1; i >>= 1)
    if (w->t[i] > best) best = w->t[i];
  return best;
}

static void record_writes(writers *w, bc_instr i, int pc) {
  int op = bc_op(i), a = bc_a(i);
  switch (op) {
    case BC_OP_LOADNIL: written(w, a, a + bc_b(i), pc); break;
    case BC_OP_TFORCALL: written(w, a + 2, 255, pc); break;
    case BC_OP_CALL: case BC_OP_TAILCALL: written(w, a, 255, pc); break;
    default: if (sets_register_a(op)) written(w, a, a, pc); break;
  }
}

/* jumped[pc]: the nearest destination beyond pc of a JMP before pc, or
   INT_MAX.  Lua's scan gives up on a writer that such a JMP skips. */
static int *jumps_over(const bc_proto *f) {
  int n = f->sizecode, pc, nheap = 0;
  int *jumped = malloc(((size_t)n + 1) * sizeof *jumped);
  int *heap = malloc(((size_t)n + 1) * sizeof *heap);  /* min-heap */
  if (jumped == NULL || heap == NULL) {
    free(jumped);
    free(heap);
    return NULL;
  }
  for (pc = 0; pc < n; pc++) {
    if (pc > 0 && bc_op(f->code[pc - 1]) == BC_OP_JMP) {  /* push */
      int k = nheap++, d = pc + bc_sj(f->code[pc - 1]);
      while (k > 0 && heap[(k - 1) / 2] > d) {
        heap[k] = heap[(k - 1) / 2];
        k = (k - 1) / 2;
      }
      heap[k] = d;
    }
    while (nheap > 0 && heap[0] <= pc) {  /* pop what is behind pc */
      int k = 0, last = heap[--nheap];
      for (;;) {
        int ch = 2 * k + 1;
        if (ch >= nheap) break;
        if (ch + 1 < nheap && heap[ch + 1] < heap[ch]) ch++;
        if (heap[ch] >= last) break;
        heap[k] = heap[ch];
        k = ch;
      }
      heap[k] = last;
    }
    jumped[pc] = nheap > 0 ? heap[0] : INT_MAX;
  }
  free(heap);
  return jumped;
}

static int is_mmbin(int op) {
  return op == BC_OP_MMBIN || op == BC_OP_MMBINI || op == BC_OP_MMBINK;
}

int rw_name_setters(const bc_proto *f, int *setters, unsigned char *nsetters) {
  writers w;
  int pc, *jumped = jumps_over(f);
  if (jumped == NULL) return 0;
  memset(w.t, 0xff, sizeof w.t);  /* all -1 */
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr i = f->code[pc];
    nsetters[pc] = 0;
    if (pc + 1 < f->sizecode && is_mmbin(bc_op(f->code[pc + 1])) &&
        bc_required_next(i) == bc_op(f->code[pc + 1])) {
      bc_instr mm = f->code[pc + 1];
      int regs[2], nregs = 0, r;
      regs[nregs++] = bc_a(mm);
      if (bc_op(mm) == BC_OP_MMBIN && bc_b(mm) != bc_a(mm))
        regs[nregs++] = bc_b(mm);
      for (r = 0; r < nregs; r++) {
        int s = last_writer(&w, regs[r]);
        if (s >= 0 && jumped[s] > pc && names_register(bc_op(f->code[s])))
          setters[2 * pc + nsetters[pc]++] = s;
      }
    }
    record_writes(&w, i, pc);
  }
  free(jumped);
  return 1;
}
