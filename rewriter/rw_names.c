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
    case VM_OP_SETUPVAL: case VM_OP_SETTABUP: case VM_OP_SETTABLE:
    case VM_OP_SETI: case VM_OP_SETFIELD: case VM_OP_MMBIN:
    case VM_OP_MMBINI: case VM_OP_MMBINK: case VM_OP_CLOSE: case VM_OP_TBC:
    case VM_OP_JMP: case VM_OP_EQ: case VM_OP_LT: case VM_OP_LE:
    case VM_OP_EQK: case VM_OP_EQI: case VM_OP_LTI: case VM_OP_LEI:
    case VM_OP_GTI: case VM_OP_GEI: case VM_OP_TEST: case VM_OP_RETURN:
    case VM_OP_RETURN0: case VM_OP_RETURN1: case VM_OP_TFORPREP:
    case VM_OP_TFORCALL: case VM_OP_SETLIST: case VM_OP_EXTRAARG:
      return 0;
    default:
      return 1;
  }
}

/* Only instructions Lua derives a name from are worth copying; a copy
   must not need a partner instruction after it. */
static int names_register(int op) {
  switch (op) {
    case VM_OP_MOVE: case VM_OP_GETTABUP: case VM_OP_GETTABLE:
    case VM_OP_GETI: case VM_OP_GETFIELD: case VM_OP_GETUPVAL:
    case VM_OP_LOADK: case VM_OP_SELF:
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

static void record_writes(writers *w, vm_instr i, int pc) {
  int op = vm_op(i), a = vm_a(i);
  switch (op) {
    case VM_OP_LOADNIL: written(w, a, a + vm_b(i), pc); break;
    case VM_OP_TFORCALL: written(w, a + 2, 255, pc); break;
    case VM_OP_CALL: case VM_OP_TAILCALL: written(w, a, 255, pc); break;
    default: if (sets_register_a(op)) written(w, a, a, pc); break;
  }
}

/* jumped[pc]: the nearest destination beyond pc of a JMP before pc, or
   INT_MAX.  Lua's scan gives up on a writer that such a JMP skips. */
static int *jumps_over(const vm_proto *f) {
  int n = f->sizecode, pc, nheap = 0;
  int *jumped = malloc(((size_t)n + 1) * sizeof *jumped);
  int *heap = malloc(((size_t)n + 1) * sizeof *heap);  /* min-heap */
  if (jumped == NULL || heap == NULL) {
    free(jumped);
    free(heap);
    return NULL;
  }
  for (pc = 0; pc < n; pc++) {
    if (pc > 0 && vm_op(f->code[pc - 1]) == VM_OP_JMP) {  /* push */
      int k = nheap++, d = pc + vm_sj(f->code[pc - 1]);
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
  return op == VM_OP_MMBIN || op == VM_OP_MMBINI || op == VM_OP_MMBINK;
}

int rw_name_setters(const vm_proto *f, int *setters, unsigned char *nsetters) {
  writers w;
  int pc, *jumped = jumps_over(f);
  if (jumped == NULL) return 0;
  memset(w.t, 0xff, sizeof w.t);  /* all -1 */
  for (pc = 0; pc < f->sizecode; pc++) {
    vm_instr i = f->code[pc];
    nsetters[pc] = 0;
    if (pc + 1 < f->sizecode && is_mmbin(vm_op(f->code[pc + 1])) &&
        vm_required_next(i) == vm_op(f->code[pc + 1])) {
      vm_instr mm = f->code[pc + 1];
      int regs[2], nregs = 0, r;
      regs[nregs++] = vm_a(mm);
      if (vm_op(mm) == VM_OP_MMBIN && vm_b(mm) != vm_a(mm))
        regs[nregs++] = vm_b(mm);
      for (r = 0; r < nregs; r++) {
        int s = last_writer(&w, regs[r]);
        if (s >= 0 && jumped[s] > pc && names_register(vm_op(f->code[s])))
          setters[2 * pc + nsetters[pc]++] = s;
      }
    }
    record_writes(&w, i, pc);
  }
  free(jumped);
  return 1;
}
