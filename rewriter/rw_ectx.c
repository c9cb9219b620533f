/*
** rw_ectx.c - the emitter's output (rw_ectx.h): growing the code it
** writes and the records beside it, and noting the jumps whose targets
** are set once everything is written.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_ectx.h"

/* Move the first n elements of size bytes at old into new storage of
   cap elements from the arena. */
static inline void *regrow(rw_arena *a, const void *old, int n, int cap,
                           size_t size) {
  void *p = rw_arena_alloc(a, (size_t)cap, size);
  if (p != NULL && n > 0) memcpy(p, old, (size_t)n * size);
  return p;
}

int rw_grow(ctx *c) {
  out *o = &c->o;
  if (o->oom) return 0;
  /* first guess: rewritten code is usually under three times longer.
     The code grows by realloc, to become f's own (with opt->alloc it
     lives in the arena, and rw_finish copies it out); the side tables
     live in the arena, where growing leaves the old ones until the
     function is done: a good guess matters, and what it does not use of
     a large one is never touched. */
  int cap = o->cap ? o->cap * 2
          : c->f->sizecode < (1 << 24) ? 3 * c->f->sizecode + 64 : 1 << 26;
  rw_arena *a = c->a;
  bc_instr *code = c->opt->alloc != NULL  /* rw_finish copies it out */
      ? regrow(a, o->code, o->n, cap, sizeof *code)
      : realloc(o->code, (size_t)cap * sizeof *code);
  side *sd = regrow(a, o->side, o->n, cap, sizeof *sd);
  if (code != NULL) o->code = code;
  if (!code || !sd || cap > (1 << 26)) {
    o->oom = 1;
    return 0;
  }
  o->side = sd;
  o->cap = cap;
  return 1;
}

int rw_grow_jumps(ctx *c) {
  out *o = &c->o;
  int cap = o->capjumps ? 2 * o->capjumps : c->f->sizecode + 16;
  jump *p = regrow(c->a, o->jumps, o->njumps, cap, sizeof *p);
  if (p == NULL) { o->oom = 1; return 0; }
  o->jumps = p;
  o->capjumps = cap;
  return 1;
}
