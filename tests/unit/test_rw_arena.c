/*
** test_rw_arena.c - the rewriter's scratch memory (rw_arena.c): small
** and large requests are aligned for any type and never overlap (each
** is filled with its own pattern, checked after all others were made);
** requests whose size overflows fail; zalloc zeroes memory that was
** used before; restoring a mark drops what came after it and gives the
** same memory out again, across blocks too; reset and free leave
** nothing behind (the sanitizer and valgrind runs see any leak).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw_arena.h"

#define NREQ 3000

typedef struct req {
  unsigned char *p;
  size_t n;
} req;

static int aligned(const void *p) {
  return (uintptr_t)p % sizeof(rw_arena_align) == 0;
}

/* Fill r with a pattern of its own. */
static void fill(const req *r, int k) {
  size_t i;
  for (i = 0; i < r->n; i++) r->p[i] = (unsigned char)(k * 31 + i);
}

static int intact(const req *r, int k) {
  size_t i;
  for (i = 0; i < r->n; i++)
    if (r->p[i] != (unsigned char)(k * 31 + i)) return 0;
  return 1;
}

/* Sizes from a few bytes to past a block, small ones most often (as the
   analyses ask). */
static size_t size_of(int k) {
  static const size_t sizes[] = {1, 3, 8, 16, 24, 100, 7, 4000, 40,
                                 12, 70000, 2, 5000, 9};
  return sizes[k % (int)(sizeof sizes / sizeof sizes[0])];
}

static void test_requests_apart_and_aligned(void **state) {
  static req r[NREQ];
  rw_arena a;
  int k;
  (void)state;
  rw_arena_init(&a);
  for (k = 0; k < NREQ; k++) {
    r[k].n = size_of(k);
    r[k].p = rw_arena_alloc(&a, r[k].n, 1);
    assert_non_null(r[k].p);
    assert_true(aligned(r[k].p));
    fill(&r[k], k);
  }
  for (k = 0; k < NREQ; k++) assert_true(intact(&r[k], k));
  /* element sizes other than 1: n * size bytes */
  {
    double *d = rw_arena_alloc(&a, 1000, sizeof *d);
    long double *ld = rw_arena_alloc(&a, 3, sizeof *ld);
    int i;
    assert_non_null(d);
    assert_non_null(ld);
    assert_true(aligned(d) && aligned(ld));
    for (i = 0; i < 1000; i++) d[i] = i * 0.5;
    ld[0] = ld[1] = ld[2] = 1.25L;
    for (i = 0; i < 1000; i++) assert_true(d[i] == i * 0.5);
  }
  for (k = 0; k < NREQ; k++) assert_true(intact(&r[k], k));
  rw_arena_free(&a);
}

static void test_overflow_fails(void **state) {
  rw_arena a;
  (void)state;
  rw_arena_init(&a);
  assert_null(rw_arena_alloc(&a, SIZE_MAX / 2 + 1, 2));
  assert_null(rw_arena_alloc(&a, SIZE_MAX, SIZE_MAX));
  assert_null(rw_arena_zalloc(&a, (size_t)1 << (sizeof(size_t) * 4),
                              (size_t)1 << (sizeof(size_t) * 4)));
  /* and the arena still serves */
  assert_non_null(rw_arena_alloc(&a, 10, 4));
  rw_arena_free(&a);
}

static void test_zalloc_zeroes_used_memory(void **state) {
  rw_arena a;
  rw_arena_mark m;
  unsigned char *p, *q;
  size_t sizes[] = {64, 100000}, i, s;
  (void)state;
  rw_arena_init(&a);
  for (s = 0; s < 2; s++) {
    m = rw_arena_save(&a);
    p = rw_arena_alloc(&a, sizes[s], 1);
    assert_non_null(p);
    memset(p, 0xab, sizes[s]);
    rw_arena_restore(&a, m);
    q = rw_arena_zalloc(&a, sizes[s], 1);
    assert_non_null(q);
    for (i = 0; i < sizes[s]; i++) assert_int_equal(q[i], 0);
    rw_arena_restore(&a, m);
  }
  rw_arena_free(&a);
}

static void test_restore_gives_memory_again(void **state) {
  rw_arena a;
  rw_arena_mark m;
  req keep = {NULL, 200}, after;
  unsigned char *first;
  int k;
  (void)state;
  rw_arena_init(&a);
  keep.p = rw_arena_alloc(&a, keep.n, 1);
  assert_non_null(keep.p);
  fill(&keep, 7);
  m = rw_arena_save(&a);
  first = rw_arena_alloc(&a, 48, 1);
  assert_non_null(first);
  /* within the block: the bump goes back */
  rw_arena_restore(&a, m);
  assert_ptr_equal(rw_arena_alloc(&a, 48, 1), first);
  rw_arena_restore(&a, m);
  /* across blocks: enough small requests to need new blocks, and a
     large one */
  for (k = 0; k < 200; k++) {
    after.n = 1000;
    after.p = rw_arena_alloc(&a, after.n, 1);
    assert_non_null(after.p);
    fill(&after, k);
  }
  assert_non_null(rw_arena_alloc(&a, 1 << 20, 1));
  rw_arena_restore(&a, m);
  assert_ptr_equal(rw_arena_alloc(&a, 48, 1), first);
  assert_true(intact(&keep, 7));  /* what came before the mark stays */
  /* marks nest */
  {
    rw_arena_mark inner;
    unsigned char *x, *y;
    rw_arena_restore(&a, m);
    x = rw_arena_alloc(&a, 16, 1);
    inner = rw_arena_save(&a);
    y = rw_arena_alloc(&a, 16, 1);
    assert_non_null(rw_arena_alloc(&a, 50000, 1));
    rw_arena_restore(&a, inner);
    assert_ptr_equal(rw_arena_alloc(&a, 16, 1), y);
    rw_arena_restore(&a, m);
    assert_ptr_equal(rw_arena_alloc(&a, 16, 1), x);
  }
  rw_arena_free(&a);
}

static void test_reset_and_free(void **state) {
  rw_arena a;
  int round, k;
  (void)state;
  rw_arena_init(&a);
  rw_arena_reset(&a);  /* an empty arena */
  rw_arena_free(&a);
  rw_arena_init(&a);
  for (round = 0; round < 3; round++) {  /* as rw_rewrite, per function */
    req r[50];
    for (k = 0; k < 50; k++) {
      r[k].n = size_of(k + round);
      r[k].p = rw_arena_alloc(&a, r[k].n, 1);
      assert_non_null(r[k].p);
      fill(&r[k], k);
    }
    for (k = 0; k < 50; k++) assert_true(intact(&r[k], k));
    rw_arena_reset(&a);
  }
  rw_arena_free(&a);
  rw_arena_free(&a);  /* twice is harmless */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_requests_apart_and_aligned),
    cmocka_unit_test(test_overflow_fails),
    cmocka_unit_test(test_zalloc_zeroes_used_memory),
    cmocka_unit_test(test_restore_gives_memory_again),
    cmocka_unit_test(test_reset_and_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
