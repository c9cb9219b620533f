/*
** rw_finish.h - making what the emitter wrote the function's own
** (rw_finish.c), for the emitter.
*/
#ifndef RW_FINISH_H
#define RW_FINISH_H

#include "rw_code.h"

/* Give c->f the emitted code, of which the main part (not the stubs)
   ends at main_end, with its line information, table of what is
   charged ahead, local-variable ranges, stack size and line costs.
   LRAF_ELIMIT when a charge is too large for the table, LRAF_EMEM when
   out of memory. */
lraf_status rw_finish(rw_emitctx *c, int main_end);

#endif
