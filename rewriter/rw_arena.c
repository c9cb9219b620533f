/*
** rw_arena.c - the rewriter's scratch memory (see rw_arena.h): a chain
** of blocks, each at least twice as large as the one before, bumped
** from the top one.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rw_arena.h"

#define FIRST_BLOCK 16384  /* bytes: enough for most functions */

typedef union align {  /* the strictest alignment of the basic types */
  long double d;
  long long l;
  void *p;
  void (*f)(void);
} align;

struct rw_arena_block {
  rw_arena_block *prev;
  size_t cap, used;  /* bytes of data, in units of sizeof(align) */
  align data[];
};

void rw_arena_init(rw_arena *a) {
  a->top = NULL;
}

void *rw_arena_alloc(rw_arena *a, size_t n, size_t size) {
  rw_arena_block *b = a->top;
  size_t units;
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  units = (n * size + sizeof(align) - 1) / sizeof(align);
  if (units == 0) units = 1;  /* a distinct pointer even for nothing */
  if (b == NULL || b->cap - b->used < units) {
    size_t cap = b ? 2 * b->cap : FIRST_BLOCK / sizeof(align);
    if (cap < units) cap = units;
    if (cap > (SIZE_MAX - sizeof *b) / sizeof(align)) return NULL;
    b = malloc(sizeof *b + cap * sizeof(align));
    if (b == NULL) return NULL;
    b->prev = a->top;
    b->cap = cap;
    b->used = 0;
    a->top = b;
  }
  b->used += units;
  return &b->data[b->used - units];
}

void *rw_arena_zalloc(rw_arena *a, size_t n, size_t size) {
  void *p = rw_arena_alloc(a, n, size);
  if (p != NULL) memset(p, 0, n * size);
  return p;
}

void rw_arena_reset(rw_arena *a) {
  rw_arena_block *b = a->top, *prev;
  if (b == NULL) return;
  prev = b->prev;  /* top is the largest: keep it alone */
  b->prev = NULL;
  b->used = 0;
  while (prev != NULL) {
    b = prev->prev;
    free(prev);
    prev = b;
  }
}

void rw_arena_free(rw_arena *a) {
  rw_arena_reset(a);
  free(a->top);
  a->top = NULL;
}
