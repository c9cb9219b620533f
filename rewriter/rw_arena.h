/*
** rw_arena.h - the rewriter's scratch memory.  Rewriting one function
** takes some thirty small arrays (blocks, graphs, orders, the emitted
** code and its side tables) that all die when the function is done; an
** arena hands them out from large blocks and drops them together, and
** the next function reuses the same memory.  One arena serves a whole
** chunk (rw_rewrite) or a whole verification (rw_verify_target).  A
** step whose scratch dies with it saves the arena's state and restores
** it when done, so that the peak stays what freeing would give.
**
** Internal to the rewriter (prefix rw_arena_).
*/
#ifndef RW_ARENA_H
#define RW_ARENA_H

#include <stddef.h>
#include <string.h>

typedef struct rw_arena_block rw_arena_block;

typedef struct rw_arena {
  rw_arena_block *head;  /* every block, newest first */
  rw_arena_block *cur;   /* the block small requests come from */
  char *next, *limit;    /* cur's free space, bumped inline */
} rw_arena;

/* The strictest alignment of the basic types: every request is rounded
   up to a multiple of its size. */
typedef union rw_arena_align {
  long double d;
  long long l;
  void *p;
  void (*f)(void);
} rw_arena_align;

/* What rw_arena_restore goes back to. */
typedef struct rw_arena_mark {
  rw_arena_block *head, *cur;
  char *next;  /* cur's free space began here */
} rw_arena_mark;

void rw_arena_init(rw_arena *a);
/* rw_arena_alloc when the request does not fit cur's free space. */
void *rw_arena_alloc_slow(rw_arena *a, size_t n, size_t size);

/* n elements of size bytes, aligned for any type; uninitialised.  NULL
   when out of memory or when n * size overflows.  Inline: the analyses
   ask for some forty arrays per function. */
static inline void *rw_arena_alloc(rw_arena *a, size_t n, size_t size) {
  if (n < 65536 && size < 65536) {  /* n * size cannot overflow */
    size_t bytes = (n * size + sizeof(rw_arena_align) - 1) /
                   sizeof(rw_arena_align) * sizeof(rw_arena_align);
    if (bytes != 0 && bytes <= (size_t)(a->limit - a->next)) {
      void *p = a->next;
      a->next += bytes;
      return p;
    }
  }
  return rw_arena_alloc_slow(a, n, size);
}
/* The same, zeroed. */
static inline void *rw_arena_zalloc(rw_arena *a, size_t n, size_t size) {
  void *p = rw_arena_alloc(a, n, size);
  if (p != NULL) memset(p, 0, n * size);
  return p;
}
/* rw_arena_restore when blocks were made since the mark. */
void rw_arena_restore_slow(rw_arena *a, rw_arena_mark m);

/* Drop what was allocated since the mark m was saved.  Inline: the
   analyses save and restore a dozen times per function, and mostly
   everything since came from the same block (the bump goes back). */
static inline rw_arena_mark rw_arena_save(const rw_arena *a) {
  rw_arena_mark m;
  m.head = a->head;
  m.cur = a->cur;
  m.next = a->next;
  return m;
}
static inline void rw_arena_restore(rw_arena *a, rw_arena_mark m) {
  if (a->head == m.head && a->cur == m.cur)  /* no block since */
    a->next = m.next;
  else
    rw_arena_restore_slow(a, m);
}
/* Drop everything allocated; one block is kept for reuse. */
void rw_arena_reset(rw_arena *a);
/* Drop everything and give the memory back. */
void rw_arena_free(rw_arena *a);

#endif
