/*
** rw_emit.h - producing the rewritten code of one function from its
** blocks: accounting code, metamethod stubs, relocated jumps, line info
** and local-variable ranges.
*/
#ifndef RW_EMIT_H
#define RW_EMIT_H

#include "rw_cfg.h"

/* Rewrite the code of f (not its children) in place.  counter and
   consume are the upvalue indices the driver added. */
lraf_status rw_emit(vm_proto *f, const rw_cfg *cfg, const rw_options *opt,
                    int counter, int consume, const char *path,
                    rw_stats *stats, lraf_error *err);

/* For each arithmetic op followed by its MMBIN*, at pc, store in
   setters[2*pc..] the pcs of the instructions that name its operands in
   error messages, as Lua's debug library finds them, and their number
   (0..2) in nsetters[pc].  One pass over f; returns 0 when out of
   memory. */
int rw_name_setters(const vm_proto *f, int *setters, unsigned char *nsetters);

#endif
