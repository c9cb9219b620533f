/*
** rt_usage.c - what a host reads about a state's use between calls:
** the native units charged so far, and a peak of memory that can be
** restarted (a request pool measures each request's own peak).
*/
#include "rt.h"

int64_t lraf_native_units(const lraf_state *S) {
  return S != NULL ? S->native_units : 0;
}

void lraf_memory_reset_peak(lraf_state *S) {
  if (S != NULL) S->mem_peak = S->mem_used;
}
