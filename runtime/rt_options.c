/*
** rt_options.c - lraf_options: their defaults, the weights file, and
** the rewriter options and cost-model id they stand for (shared by
** states, rt_state.c, and offline rewriting, rt_offline.c).
*/
#include <string.h>

#include "rt.h"

_Static_assert(LRAF_NUM_OPCODES == BC_NUM_OPCODES,
               "lraf.h and bc.h disagree on the number of opcodes");

void lraf_default_options(lraf_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->mode = LRAF_MODE_ORIGINAL;
  opt->granularity = LRAF_DEFAULT_GRANULARITY;
  opt->env = LRAF_ENV_FULL;
  opt->native = LRAF_NATIVE_AUTO;
  opt->native_call = LRAF_NATIVE_CALL_DEFAULT;
  opt->deterministic = LRAF_DETERMINISTIC_AUTO;
}

lraf_status lraf_parse_weights(const char *text, size_t len,
                               uint32_t *weights, lraf_error *err) {
  return rw_parse_weights(text, len, weights, err);
}

lraf_status rt_rw_options(const lraf_options *o, rw_options *opt,
                          uint32_t *weights, char *model, size_t msize,
                          lraf_error *err) {
  rw_default_options(opt);
  switch (o->mode) {
    case LRAF_MODE_ORIGINAL: opt->mode = RW_ORIGINAL; break;
    case LRAF_MODE_OVERHEAD: opt->mode = RW_OVERHEAD; break;
    case LRAF_MODE_WEIGHTED:
      if (o->weights == NULL)
        return err_fail(err, LRAF_EARG, "weighted mode needs weights");
      if (rw_check_weights(o->weights, err) != LRAF_OK) return LRAF_EARG;
      memcpy(weights, o->weights, LRAF_NUM_OPCODES * sizeof *weights);
      opt->mode = RW_WEIGHTED;
      opt->weights = weights;
      break;
    default:
      return err_fail(err, LRAF_EARG, "unknown accounting mode %d",
                      (int)o->mode);
  }
  opt->exact = o->exact != 0;
  switch (o->vm) {
    case LRAF_VM_DEFAULT: opt->target = RW_DEFAULT_TARGET; break;
    case LRAF_VM_STOCK: opt->target = RW_STOCK; break;
    case LRAF_VM_LRAF:
      if (!lraf_vm_builtin())
        return err_fail(err, LRAF_EARG, "this lraf is built for stock Lua "
                        "5.4; the lraf VM needs the lraf VM build (make vm)");
      opt->target = RW_LRAVM;
      break;
    default:
      return err_fail(err, LRAF_EARG, "unknown VM %d", (int)o->vm);
  }
  rw_model_id(opt, model, msize);
  return LRAF_OK;
}
