/*
** rw_verify.c - checks a rewritten chunk before it is loaded.
**
** Beyond the structural checks of vm_check_code (valid opcodes, operand
** ranges, jump targets, required pairs), every function must carry the
** counter and consume upvalues, nested functions must capture their
** parent's, and the accounting code may touch them only through the
** scratch register at the top of the frame.
*/
#include <stdio.h>

#include "rw.h"

static lraf_status verify_accounting(const vm_proto *f, const char *path,
                                     lraf_error *err) {
  int counter = f->sizeupvalues - 2, consume = counter + 1;
  int scratch = f->maxstacksize - 1, pc;
  for (pc = 0; pc < f->sizecode; pc++) {
    vm_instr i = f->code[pc];
    int op = vm_op(i);
    if ((op == VM_OP_GETUPVAL || op == VM_OP_SETUPVAL) &&
        (vm_b(i) == counter || vm_b(i) == consume) && vm_a(i) != scratch)
      return err_fail(err, LRAF_EVERIFY,
                      "%s: pc %d uses the lraf upvalue %d outside the "
                      "scratch register", path, pc + 1, vm_b(i));
    if (op == VM_OP_SETUPVAL && vm_b(i) == consume)
      return err_fail(err, LRAF_EVERIFY, "%s: pc %d overwrites consume", path,
                      pc + 1);
  }
  return LRAF_OK;
}

static lraf_status verify_function(const vm_proto *f, const vm_proto *parent,
                                   int index, int depth, lraf_error *err) {
  char path[64];
  lraf_status st;
  int i;
  snprintf(path, sizeof path, "function %d at depth %d (line %d)", index,
           depth, f->linedefined);
  if (f->sizeupvalues < 2)
    return err_fail(err, LRAF_EVERIFY, "%s lacks the lraf upvalues", path);
  if (f->maxstacksize < 1)
    return err_fail(err, LRAF_EVERIFY, "%s has no scratch register", path);
  if (parent != NULL) {
    const vm_upvaldesc *uv = &f->upvalues[f->sizeupvalues - 2];
    int pc = parent->sizeupvalues - 2;
    if (uv[0].instack || uv[1].instack || uv[0].idx != pc ||
        uv[1].idx != pc + 1)
      return err_fail(err, LRAF_EVERIFY,
                      "%s does not capture its parent's counter and consume",
                      path);
  }
  st = vm_check_code(f, path, VM_CHECK_REWRITTEN, err);
  if (st == LRAF_OK)
    st = verify_accounting(f, path, err);
  for (i = 0; st == LRAF_OK && i < f->sizep; i++)
    st = verify_function(f->p[i], f, i, depth + 1, err);
  if (st != LRAF_OK && err != NULL)
    err->code = LRAF_EVERIFY;
  return st != LRAF_OK ? LRAF_EVERIFY : LRAF_OK;
}

lraf_status rw_verify(const vm_chunk *chunk, lraf_error *err) {
  if (chunk == NULL || chunk->main == NULL)
    return err_fail(err, LRAF_EARG, "rw_verify: no chunk");
  if (chunk->nupvalues != chunk->main->sizeupvalues)
    return err_fail(err, LRAF_EVERIFY,
                    "chunk header says %d upvalues, main has %d",
                    chunk->nupvalues, chunk->main->sizeupvalues);
  return verify_function(chunk->main, NULL, 0, 0, err);
}
