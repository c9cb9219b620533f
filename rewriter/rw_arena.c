/*
** rw_arena.c - the rewriter's scratch memory (see rw_arena.h): blocks of
** a fixed size that small requests are bumped from, and a block of its
** own for each large request, so that little is wasted either way.  The
** free space of the current block is a->next .. a->limit, which
** rw_arena_alloc bumps inline; cur->used is brought up to date from it
** here (sync) before anything else looks at it.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rw_arena.h"

typedef rw_arena_align align;

#define BLOCK (16384 / sizeof(align))  /* units of a block: most functions
                                          need one */
#define LARGE (BLOCK / 4)  /* requests above get a block of their own */

struct rw_arena_block {
  rw_arena_block *prev;
  size_t cap, used;  /* data, in units of sizeof(align) */
  align data[];
};

static rw_arena_block *new_block(rw_arena *a, size_t cap) {
  rw_arena_block *b;
  if (cap > (SIZE_MAX - sizeof *b) / sizeof(align)) return NULL;
  b = malloc(sizeof *b + cap * sizeof(align));
  if (b == NULL) return NULL;
  b->prev = a->head;
  b->cap = cap;
  b->used = 0;
  a->head = b;
  return b;
}

/* cur->used from the inline bumps. */
static void sync(rw_arena *a) {
  if (a->cur != NULL)
    a->cur->used = (size_t)((align *)(void *)a->next - a->cur->data);
}

/* The free space of cur, after cur or cur->used changed. */
static void expose(rw_arena *a) {
  if (a->cur == NULL) {  /* no space: pointers into a itself, which
                           subtract to 0 (NULLs would not subtract) */
    a->next = a->limit = (char *)a;
  } else {
    a->next = (char *)&a->cur->data[a->cur->used];
    a->limit = (char *)&a->cur->data[a->cur->cap];
  }
}

void rw_arena_init(rw_arena *a) {
  a->head = a->cur = NULL;
  expose(a);
}

void *rw_arena_alloc_slow(rw_arena *a, size_t n, size_t size) {
  void *p;
  size_t units, half = (size_t)1 << (sizeof(size_t) * 4);
  /* n * size overflows only when one of them is over half the bits (the
     division, slow and nearly always needless, only then) */
  if ((n >= half || size >= half) && size != 0 && n > SIZE_MAX / size)
    return NULL;
  units = (n * size + sizeof(align) - 1) / sizeof(align);
  if (units == 0) units = 1;  /* a distinct pointer even for nothing */
  if (units > LARGE) {
    rw_arena_block *b = new_block(a, units);
    if (b == NULL) return NULL;
    b->used = units;
    return b->data;
  }
  sync(a);
  if (a->cur == NULL || a->cur->cap - a->cur->used < units) {
    rw_arena_block *b = new_block(a, BLOCK);
    if (b == NULL) return NULL;
    a->cur = b;
  }
  a->cur->used += units;
  p = &a->cur->data[a->cur->used - units];
  expose(a);
  return p;
}

void rw_arena_restore_slow(rw_arena *a, rw_arena_mark m) {
  while (a->head != m.head) {  /* blocks made since m: newer than m.head */
    rw_arena_block *b = a->head;
    a->head = b->prev;
    free(b);
  }
  a->cur = m.cur;
  if (a->cur != NULL)
    a->cur->used = (size_t)((align *)(void *)m.next - a->cur->data);
  expose(a);
}

void rw_arena_reset(rw_arena *a) {
  rw_arena_block *b = a->head, *keep = NULL;
  while (b != NULL) {
    rw_arena_block *prev = b->prev;
    if (keep == NULL && b->cap == BLOCK) keep = b;
    else free(b);
    b = prev;
  }
  if (keep != NULL) {
    keep->prev = NULL;
    keep->used = 0;
  }
  a->head = a->cur = keep;
  expose(a);
}

void rw_arena_free(rw_arena *a) {
  rw_arena_reset(a);
  free(a->head);
  a->head = a->cur = NULL;
  expose(a);
}
