/*
** rt_usage.c - what a host reads about a state's use between calls: a
** peak of memory that can be restarted (a request pool measures each
** request's own peak).  The native units are lraf_native_units, rt_stop.c.
*/
#include "rt.h"

void lraf_memory_reset_peak(lraf_state *S) {
  if (S != NULL) S->mem_peak = S->mem_used;
}
