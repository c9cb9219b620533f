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
#include "rw_emit.h"

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

static int changes(vm_instr i, int reg) {
  int op = vm_op(i), a = vm_a(i);
  switch (op) {
    case VM_OP_LOADNIL: return a <= reg && reg <= a + vm_b(i);
    case VM_OP_TFORCALL: return reg >= a + 2;
    case VM_OP_CALL: case VM_OP_TAILCALL: return reg >= a;
    default: return sets_register_a(op) && reg == a;
  }
}

/* The pc of the instruction Lua's scan would credit with setting reg
   before lastpc (the arithmetic op itself), or -1. */
static int find_setter(const vm_proto *f, int lastpc, int reg) {
  int pc, setter = -1, jmptarget = 0;
  for (pc = 0; pc < lastpc; pc++) {
    vm_instr i = f->code[pc];
    if (vm_op(i) == VM_OP_JMP) {
      int dest = pc + 1 + vm_sj(i);
      if (dest <= lastpc && dest > jmptarget)
        jmptarget = dest;
    } else if (changes(i, reg)) {
      setter = pc < jmptarget ? -1 : pc;
    }
  }
  return setter;
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

int rw_name_setters(const vm_proto *f, int oppc, int *setters) {
  vm_instr mm = f->code[oppc + 1];
  int regs[2], nregs = 0, n = 0, r;
  regs[nregs++] = vm_a(mm);
  if (vm_op(mm) == VM_OP_MMBIN && vm_b(mm) != vm_a(mm))
    regs[nregs++] = vm_b(mm);
  for (r = 0; r < nregs; r++) {
    int s = find_setter(f, oppc, regs[r]);
    if (s >= 0 && names_register(vm_op(f->code[s])))
      setters[n++] = s;
  }
  return n;
}
