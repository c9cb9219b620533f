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

#define MB (1024u * 1024u)

typedef struct chunk {
  uint8_t *b;
  size_t n, cap;
} chunk;

static void put(chunk *c, const void *p, size_t n) {
  assert_true(c->n + n <= c->cap);
  memcpy(c->b + c->n, p, n);
  c->n += n;
}

static void put_byte(chunk *c, unsigned v) {
  uint8_t b = (uint8_t)v;
  put(c, &b, 1);
}

/* lua_dump's varint: 7 bits a byte, most significant first, high bit on
   the last byte. */
static void put_varint(chunk *c, uint64_t x) {
  uint8_t buf[10];
  size_t n = 0;
  do {
    buf[sizeof buf - ++n] = (uint8_t)(x & 0x7fu);
    x >>= 7;
  } while (x != 0);
  buf[sizeof buf - 1] |= 0x80u;
  put(c, buf + sizeof buf - n, n);
}

/* A zero-filled buffer of cap bytes holding a Lua 5.4 header and the
   start of a main function (no source, no parameters), up to and
   excluding its instruction count. */
static chunk start_chunk(size_t cap) {
  chunk c;
  int64_t i = 0x5678;
  double d = 370.5;
  c.b = calloc(cap, 1);
  assert_non_null(c.b);
  c.n = 0;
  c.cap = cap;
  put(&c, "\x1bLua\x54\x00\x19\x93\r\n\x1a\n\x04\x08\x08", 15);
  put(&c, &i, 8);
  put(&c, &d, 8);
  put_byte(&c, 0);     /* main's upvalue count */
  put_varint(&c, 0);   /* source: NULL */
  put_varint(&c, 0);   /* linedefined */
  put_varint(&c, 0);   /* lastlinedefined */
  put_byte(&c, 0);     /* numparams */
  put_byte(&c, 0);     /* is_vararg */
  put_byte(&c, 2);     /* maxstacksize */
  return c;
}

/* One instruction: RETURN0. */
static void put_return0(chunk *c) {
  bc_instr i = bc_abck(BC_OP_RETURN0, 0, 1, 0, 0);
  put_varint(c, 1);
  put(c, &i, 4);
}

static void expect(const chunk *c, const bc_limits *lim, lraf_status code,
                   const char *s1, const char *s2) {
  bc_chunk *out = NULL;
  lraf_error err;
  memset(&err, 0, sizeof err);
  assert_int_equal(bc_read(c->b, c->cap, lim, &out, &err), code);
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
  put_varint(&c, INT_MAX);
  expect(&c, NULL, LRAF_ELIMIT, "input of 104857600 bytes exceeds the limit",
         "67108864");
  lim.max_input = SIZE_MAX;
  lim.max_code = INT_MAX;
  expect(&c, &lim, LRAF_EFORMAT, "count 2147483647 of instructions",
         "bytes left");
  free(c.b);
}

/* 60 MB that really hold 15 million instructions. */
static void test_real_instructions_over_limit(void **state) {
  chunk c = start_chunk(60u * MB);
  (void)state;
  put_varint(&c, 15000000);
  expect(&c, NULL, LRAF_ELIMIT, "15000000 instructions at offset 38",
         "at most 2097152");
  free(c.b);
}

/* 40 MB of 40 million nil constants: over the constant limit, and with
   that lifted over the memory limit (40 million bc_const would take
   gigabytes) long before the end. */
static void test_real_constants_over_limits(void **state) {
  chunk c = start_chunk(40u * MB);
  bc_limits lim = bc_default_limits;
  (void)state;
  put_return0(&c);
  put_varint(&c, 40000000);  /* the zero bytes after it are BC_TNIL tags */
  expect(&c, NULL, LRAF_ELIMIT, "40000000 constants at offset 43",
         "at most 4194304");
  lim.max_constants = INT_MAX;
  expect(&c, &lim, LRAF_ELIMIT, "reading constants at offset",
         "limit of 268435456 bytes of memory");
  free(c.b);
}

/* 100000 real local variable entries (3 bytes each). */
static void test_real_locvars_over_limit(void **state) {
  chunk c = start_chunk(64u + 3u * 100000u);
  int i;
  (void)state;
  put_return0(&c);
  put_varint(&c, 0);  /* constants */
  put_varint(&c, 0);  /* upvalues */
  put_varint(&c, 0);  /* nested functions */
  put_varint(&c, 0);  /* lineinfo */
  put_varint(&c, 0);  /* abslineinfo */
  put_varint(&c, 100000);
  for (i = 0; i < 100000; i++) {
    put_varint(&c, 0);
    put_varint(&c, 0);
    put_varint(&c, 0);
  }
  c.cap = c.n + 1;  /* then an (empty) upvalue name count */
  put_varint(&c, 0);
  expect(&c, NULL, LRAF_ELIMIT, "100000 local variables at offset",
         "at most 32767");
  free(c.b);
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
    c.cap = 1u * MB;
    c.b = malloc(c.cap);
    assert_non_null(c.b);
    n = fread(c.b, 1, c.cap, p);
    assert_int_equal(pclose(p), 0);
    assert_true(n > 1000 && n < c.cap);
    c.cap = c.n = n;
  }
  assert_int_equal(bc_read(c.b, c.cap, NULL, &out, &err), LRAF_OK);
  bc_chunk_free(out);
  lim.max_memory = 4096;
  expect(&c, &lim, LRAF_ELIMIT, "at offset", "limit of 4096 bytes of memory");
  free(c.b);
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
