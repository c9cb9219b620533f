/*
** test_bc_read_limits.c - the reader's resource limits on hostile chunks.
**
** Chunks of up to 100 MB are built here: some only claim huge counts,
** others really hold millions of elements.  Each must be refused with
** LRAF_ELIMIT or LRAF_EFORMAT and a message naming the limit or count
** and the byte offset, without allocating for what a count claims.
** (How fast, and with how much memory, is measured by hand: see the
** README's Limits section.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"
#include "tutil_bb.h"

#define MB (1024u * 1024u)

typedef tutil_bb chunk;   /* cap: the input's size */

/* A zero-filled buffer of cap bytes holding a Lua 5.4 header and the
   start of a main function (no source, no parameters), up to and
   excluding its instruction count. */
static chunk start_chunk(size_t cap) {
  chunk c;
  tutil_bb_init(&c, cap);
  tutil_bb_header(&c);
  tutil_bb_byte(&c, 0);     /* main's upvalue count */
  tutil_bb_varint(&c, 0);   /* source: NULL */
  tutil_bb_varint(&c, 0);   /* linedefined */
  tutil_bb_varint(&c, 0);   /* lastlinedefined */
  tutil_bb_byte(&c, 0);     /* numparams */
  tutil_bb_byte(&c, 0);     /* is_vararg */
  tutil_bb_byte(&c, 2);     /* maxstacksize */
  return c;
}

/* One instruction: RETURN0. */
static void put_return0(chunk *c) {
  bc_instr i = bc_abck(BC_OP_RETURN0, 0, 1, 0, 0);
  tutil_bb_varint(c, 1);
  tutil_bb_put(c, &i, 4);
}

static void expect(const chunk *c, const bc_limits *lim, lraf_status code,
                   const char *s1, const char *s2) {
  bc_chunk *out = NULL;
  lraf_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(bc_read(c->d, c->cap, lim, &out, &err), code);
  assert_null(out);
  assert_int_equal(err.code, code);
  if (strstr(err.message, s1) == NULL || strstr(err.message, s2) == NULL)
    fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err.message, s1, s2);
  printf("  refused as expected: %s\n", err.message);
}

/* 100 MB: over the input limit; with the input limit lifted, a claimed
   count of INT_MAX instructions is refused before any allocation. */
static void test_100mb_claiming_huge_counts(void **state) {
  chunk c = start_chunk(100u * MB);
  bc_limits lim = bc_default_limits;
  (void)state;
  tutil_bb_varint(&c, INT_MAX);
  expect(&c, NULL, LRAF_ELIMIT, "input of 104857600 bytes exceeds the limit",
         "67108864");
  lim.max_input = SIZE_MAX;
  lim.max_code = INT_MAX;
  expect(&c, &lim, LRAF_EFORMAT, "count 2147483647 of instructions",
         "bytes left");
  free(c.d);
}

/* 60 MB that really hold 15 million instructions. */
static void test_real_instructions_over_limit(void **state) {
  chunk c = start_chunk(60u * MB);
  (void)state;
  tutil_bb_varint(&c, 15000000);
  expect(&c, NULL, LRAF_ELIMIT, "15000000 instructions at offset 38",
         "at most 2097152");
  free(c.d);
}

/* 40 MB of 40 million nil constants: over the constant limit, and with
   that lifted over the memory limit (40 million bc_const would take
   gigabytes) long before the end. */
static void test_real_constants_over_limits(void **state) {
  chunk c = start_chunk(40u * MB);
  bc_limits lim = bc_default_limits;
  (void)state;
  put_return0(&c);
  tutil_bb_varint(&c, 40000000);  /* the zero bytes after it are BC_TNIL tags */
  expect(&c, NULL, LRAF_ELIMIT, "40000000 constants at offset 43",
         "at most 4194304");
  lim.max_constants = INT_MAX;
  expect(&c, &lim, LRAF_ELIMIT, "reading constants at offset",
         "limit of 268435456 bytes of memory");
  free(c.d);
}

/* 100000 real local variable entries (3 bytes each). */
static void test_real_locvars_over_limit(void **state) {
  chunk c = start_chunk(64u + 3u * 100000u);
  int i;
  (void)state;
  put_return0(&c);
  tutil_bb_varint(&c, 0);  /* constants */
  tutil_bb_varint(&c, 0);  /* upvalues */
  tutil_bb_varint(&c, 0);  /* nested functions */
  tutil_bb_varint(&c, 0);  /* lineinfo */
  tutil_bb_varint(&c, 0);  /* abslineinfo */
  tutil_bb_varint(&c, 100000);
  for (i = 0; i < 100000; i++) {
    tutil_bb_varint(&c, 0);
    tutil_bb_varint(&c, 0);
    tutil_bb_varint(&c, 0);
  }
  c.cap = c.n + 1;  /* then an (empty) upvalue name count */
  tutil_bb_varint(&c, 0);
  expect(&c, NULL, LRAF_ELIMIT, "100000 local variables at offset",
         "at most 32767");
  free(c.d);
}

/* A real chunk under a small memory limit, and under the defaults. */
static void test_memory_limit_on_a_real_chunk(void **state) {
  chunk c;
  bc_limits lim = bc_default_limits;
  bc_chunk *out = NULL;
  lraf_error err;
  (void)state;
  {
    FILE *p = popen("luac5.4 -o - tests/corpus/richards.lua", "r");
    size_t n;
    assert_non_null(p);
    tutil_bb_init(&c, 1u * MB);
    n = fread(c.d, 1, c.cap, p);
    assert_int_equal(pclose(p), 0);
    assert_true(n > 1000 && n < c.cap);
    c.cap = c.n = n;
  }
  assert_int_equal(bc_read(c.d, c.cap, NULL, &out, &err), LRAF_OK);
  bc_chunk_free(out);
  lim.max_memory = 4096;
  expect(&c, &lim, LRAF_ELIMIT, "at offset", "limit of 4096 bytes of memory");
  free(c.d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_100mb_claiming_huge_counts),
    cmocka_unit_test(test_real_instructions_over_limit),
    cmocka_unit_test(test_real_constants_over_limits),
    cmocka_unit_test(test_real_locvars_over_limit),
    cmocka_unit_test(test_memory_limit_on_a_real_chunk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
