/*
** rw_emit.h - producing the rewritten code of one function from its
** blocks: accounting code, metamethod stubs, relocated jumps, line info
** and local-variable ranges.
**
** The rest of the rewriter calls rw_emit alone; rw_code.h holds what
** the emitter's files share.
*/
#ifndef RW_EMIT_H
#define RW_EMIT_H

#include "rw_cfg.h"

/* Rewrite the code of f (not its children) in place.  counter and
   consume are the upvalue indices the driver added.  The scratch
   memory comes from a; f's new arrays are malloc'ed as f's own. */
lraf_status rw_emit(bc_proto *f, const rw_cfg *cfg, const rw_options *opt,
                    int counter, int consume, const char *path, rw_arena *a,
                    rw_stats *stats, lraf_error *err);

#endif
