/*
** rw_code.c - the output the emitter puts the rewritten code into
** (rw_put, rw_code.h): growing the code, its line information and the
** records beside it (jumps, places a frame may be left) as it fills,
** and freeing them.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_code.h"

/* *p resized to cap elements of size bytes (cap > 0): 0 when out of
   memory (*p is then left as it was). */
static int resize(void *p, int cap, size_t size) {
  void *q = realloc(*(void **)p, (size_t)cap * size);
  if (q == NULL) return 0;
  *(void **)p = q;
  return 1;
}

int rw_grow(rw_emitctx *c) {
  rw_emitout *o = &c->o;
  /* first guess: rewritten code is usually under three times longer.
     The arrays grow by realloc, which moves large ones without copying
     and leaves nothing behind; what a large one does not use is never
     touched, so a generous guess costs no memory. */
  int cap = o->cap ? o->cap * 2
          : c->f->sizecode < (1 << 24) ? 3 * c->f->sizecode + 64 : 1 << 26;
  if (o->oom) return 0;
  if (cap > (1 << 26) || !resize(&o->code, cap, sizeof *o->code) ||
      !resize(&o->line, cap, sizeof *o->line)) {
    o->oom = 1;
    return 0;
  }
  o->cap = cap;
  return 1;
}

int rw_grow_jumps(rw_emitctx *c) {
  rw_emitout *o = &c->o;
  int cap = o->capjumps ? 2 * o->capjumps : c->f->sizecode + 16;
  if (o->oom || cap > (1 << 26) ||
      !resize(&o->jumps, cap, sizeof *o->jumps)) {
    o->oom = 1;
    return 0;
  }
  o->capjumps = cap;
  return 1;
}

int rw_grow_leaves(rw_emitctx *c) {
  rw_emitout *o = &c->o;
  int cap = o->capleaves ? 2 * o->capleaves : 64;
  if (o->oom || cap > (1 << 26) ||
      !resize(&o->leaves, cap, sizeof *o->leaves)) {
    o->oom = 1;
    return 0;
  }
  o->capleaves = cap;
  return 1;
}

void rw_code_free(rw_emitout *o) {
  free(o->code);
  free(o->line);
  free(o->jumps);
  free(o->leaves);
  memset(o, 0, sizeof *o);
}
