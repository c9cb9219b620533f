/*
** test_bc_read_malformed.c - bc_read on hostile input: every malformed chunk
** is rejected with the right code and a message naming the problem and
** its byte offset, *out is left alone, and nothing crashes or leaks.
**
** Chunks are built byte by byte here (so the offsets are known) or
** dumped by Lua and then mutated.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_bb.h"
#include "tutil_vm.h"
#include "bc.h"

/* ---------------------------------------------------------------- */
/* Functions as bytes (with tutil_bb, tests/support)                  */
/* ---------------------------------------------------------------- */

typedef tutil_bb bb;

/* A function to emit: every part given as it goes into the chunk. */
typedef struct func {
  const char *source;  /* NULL: the NULL string */
  unsigned numparams, is_vararg, maxstack;
  const bc_instr *code;
  int ncode;
  const uint8_t *k;    /* raw constant bytes (tags and values) */
  size_t ksize;
  int nk;
  const uint8_t *up;   /* 3 bytes per upvalue */
  int nup;
  const struct func *child;  /* nchild copies of it */
  int nchild;
  const int8_t *lines;
  int nlines;
  const int *abs;      /* pc, line pairs */
  int nabs;
  const char *const *upnames;
  int nupnames;
} func;

/* Offsets of the parts of the outermost function emitted. */
typedef struct where {
  size_t start, code, k, up, p, lines, abs, locvars, upnames, end;
} where;

static void emit(bb *b, const func *f, where *w) {
  where dummy;
  int i;
  if (w == NULL)
    w = &dummy;
  assert_true(b->nmark < TUTIL_BB_MARKS);
  w->start = b->mark[b->nmark++] = b->n;
  tutil_bb_str(b, f->source);
  tutil_bb_varint(b, 0);
  tutil_bb_varint(b, 0);
  tutil_bb_byte(b, f->numparams);
  tutil_bb_byte(b, f->is_vararg);
  tutil_bb_byte(b, f->maxstack);
  w->code = b->n;
  tutil_bb_varint(b, (uint64_t)f->ncode);
  tutil_bb_put(b, f->code, (size_t)f->ncode * 4);
  w->k = b->n;
  tutil_bb_varint(b, (uint64_t)f->nk);
  tutil_bb_put(b, f->k, f->ksize);
  w->up = b->n;
  tutil_bb_varint(b, (uint64_t)f->nup);
  tutil_bb_put(b, f->up, (size_t)f->nup * 3);
  w->p = b->n;
  tutil_bb_varint(b, (uint64_t)f->nchild);
  for (i = 0; i < f->nchild; i++)
    emit(b, f->child, NULL);
  w->lines = b->n;
  tutil_bb_varint(b, (uint64_t)f->nlines);
  tutil_bb_put(b, f->lines, (size_t)f->nlines);
  w->abs = b->n;
  tutil_bb_varint(b, (uint64_t)f->nabs);
  for (i = 0; i < 2 * f->nabs; i++)
    tutil_bb_varint(b, (uint64_t)f->abs[i]);
  w->locvars = b->n;
  tutil_bb_varint(b, 0);
  w->upnames = b->n;
  tutil_bb_varint(b, (uint64_t)f->nupnames);
  for (i = 0; i < f->nupnames; i++)
    tutil_bb_str(b, f->upnames[i]);
  w->end = b->n;
}

/* The main function of "return": VARARGPREP, RETURN, with _ENV. */
static bc_instr main_code[3];
static const uint8_t env_up[3] = {1, 0, 0};
static const int8_t main_lines[3] = {1, 0, 0};
static const char *const env_name[1] = {"_ENV"};

static func main_func(void) {
  func f;
  memset(&f, 0, sizeof f);
  main_code[0] = bc_abx(BC_OP_VARARGPREP, 0, 0);
  main_code[1] = bc_abck(BC_OP_RETURN, 0, 1, 1, 0);
  f.source = "=t";
  f.is_vararg = 1;
  f.maxstack = 2;
  f.code = main_code;
  f.ncode = 2;
  f.up = env_up;
  f.nup = 1;
  f.lines = main_lines;
  f.nlines = 2;
  f.upnames = env_name;
  f.nupnames = 1;
  return f;
}

/* A nested function that only returns. */
static bc_instr leaf_code[1];
static const int8_t leaf_lines[1] = {0};

static func leaf_func(void) {
  func f;
  memset(&f, 0, sizeof f);
  leaf_code[0] = bc_abck(BC_OP_RETURN0, 0, 0, 0, 0);
  f.maxstack = 2;
  f.code = leaf_code;
  f.ncode = 1;
  f.lines = leaf_lines;
  f.nlines = 1;
  return f;
}

/* Header, main upvalue count byte (offset 31), main function (32). */
static void build(bb *b, const func *f, where *w) {
  tutil_bb_init(b, 0);
  tutil_bb_header(b);
  tutil_bb_byte(b, (unsigned)f->nup);
  emit(b, f, w);
}

/* ---------------------------------------------------------------- */
/* Expectations                                                       */
/* ---------------------------------------------------------------- */

static bc_chunk sentinel_chunk;

/* bc_read must fail with code and a message containing each of the
   given substrings (a NULL-terminated list), leave *out alone, and
   fail the same way without an error record. */
static void expect_v(const void *d, size_t n, const bc_limits *lim,
                     lraf_status code, va_list ap) {
  bc_chunk *out = &sentinel_chunk;
  lraf_error err;
  const char *sub;
  memset(&err, 0, sizeof err);
  if (bc_read(d, n, lim, &out, &err) != code || err.code != code)
    fail_msg("expected status %d, got %d: %s", (int)code, (int)err.code,
             err.message);
  assert_ptr_equal(out, &sentinel_chunk);
  while ((sub = va_arg(ap, const char *)) != NULL) {
    if (strstr(err.message, sub) == NULL)
      fail_msg("message \"%s\" does not contain \"%s\"", err.message, sub);
  }
  assert_int_equal(bc_read(d, n, lim, &out, NULL), code);
  assert_ptr_equal(out, &sentinel_chunk);
}

static void expect(const void *d, size_t n, lraf_status code, ...) {
  va_list ap;
  va_start(ap, code);
  expect_v(d, n, NULL, code, ap);
  va_end(ap);
}

static void expect_lim(const void *d, size_t n, const bc_limits *lim,
                       lraf_status code, ...) {
  va_list ap;
  va_start(ap, code);
  expect_v(d, n, lim, code, ap);
  va_end(ap);
}

/* "at offset N" for an expected message. */
static const char *at(size_t off) {
  static char buf[4][48];
  static int next;
  char *s = buf[next++ % 4];
  snprintf(s, sizeof buf[0], "at offset %zu", off);
  return s;
}

/* A chunk dumped by Lua with constants of every kind, nested functions,
   upvalues, locals and line info. */
static const char sample_src[] =
  "local a, b <const> = 1.5, 'a long string constant well over forty "
  "bytes in size'\n"
  "local t = {n = 1, [true] = false}\n"
  "local function f(x, ...)\n"
  "  if x == nil then return true end\n"
  "  return x + 1, false, ...\n"
  "end\n"
  "for i = 1, 3 do a = a + f(i) end\n"
  "return function(y) return a, b, t, y, 9007199254740993 end\n";

static void sample(int strip, tutil_vm_buf *out) {
  char msg[256];
  if (!tutil_vm_dump(sample_src, sizeof sample_src - 1, "@sample.lua", strip,
                     out, msg, sizeof msg))
    fail_msg("sample does not compile: %s", msg);
}

/* ---------------------------------------------------------------- */
/* Sanity: what the builder makes is valid                            */
/* ---------------------------------------------------------------- */

static void test_builder_valid(void **state) {
  bb b;
  func m = main_func(), leaf = leaf_func();
  bc_chunk *c = NULL;
  lraf_error err;
  void *w = NULL;
  size_t wn = 0;
  char msg[256];
  (void)state;
  m.child = &leaf;
  m.nchild = 2;
  build(&b, &m, NULL);
  if (bc_read(b.d, b.n, NULL, &c, &err) != LRAF_OK)
    fail_msg("builder chunk rejected: %s", err.message);
  assert_int_equal(c->main->sizep, 2);
  assert_int_equal(bc_write(c, &w, &wn, &err), LRAF_OK);
  assert_int_equal(wn, b.n);
  assert_memory_equal(w, b.d, b.n);
  if (!tutil_vm_load(b.d, b.n, msg, sizeof msg))
    fail_msg("lua_load rejects the builder chunk: %s", msg);
  free(w);
  bc_chunk_free(c);
  free(b.d);
}

/* ---------------------------------------------------------------- */
/* Truncation and arbitrary corruption                                */
/* ---------------------------------------------------------------- */

static void test_truncated_everywhere(void **state) {
  int strip;
  (void)state;
  for (strip = 0; strip <= 1; strip++) {
    tutil_vm_buf s;
    size_t len;
    sample(strip, &s);
    for (len = 0; len < s.size; len++) {
      uint8_t *copy = malloc(len + 1);  /* exact size: ASan sees overreads */
      assert_non_null(copy);
      memcpy(copy, s.data, len);
      expect(copy, len, LRAF_EFORMAT, "truncated", "offset", NULL);
      free(copy);
    }
    free(s.data);
  }
}

static void test_empty_input(void **state) {
  (void)state;
  expect("", 0, LRAF_EFORMAT,
         "truncated chunk: expected 4 bytes of signature at offset 0, 0 left",
         NULL);
}

/* Flip bits and set bytes everywhere: each result is either rejected
   with a message that has an offset, or accepted and written back to
   exactly the same bytes. */
static void test_mutations(void **state) {
  static const uint8_t values[] = {0x00, 0xff, 0x80, 0x7f, 0x01};
  tutil_vm_buf s;
  size_t pos, v;
  int rejected = 0, accepted = 0;
  (void)state;
  sample(0, &s);
  for (pos = 0; pos < s.size; pos++) {
    for (v = 0; v < 8 + sizeof values; v++) {
      uint8_t *d = malloc(s.size);
      bc_chunk *c = NULL;
      lraf_error err;
      assert_non_null(d);
      memcpy(d, s.data, s.size);
      d[pos] = v < 8 ? (uint8_t)(d[pos] ^ (1u << v)) : values[v - 8];
      if (bc_read(d, s.size, NULL, &c, &err) == LRAF_OK) {
        void *w = NULL;
        size_t wn = 0;
        assert_int_equal(bc_write(c, &w, &wn, &err), LRAF_OK);
        assert_int_equal(wn, s.size);
        assert_memory_equal(w, d, wn);
        free(w);
        bc_chunk_free(c);
        accepted++;
      }
      else {
        if (strstr(err.message, "offset") == NULL)
          fail_msg("message without offset: %s", err.message);
        rejected++;
      }
      free(d);
    }
  }
  printf("mutations: %d rejected, %d accepted and written back exactly\n",
         rejected, accepted);
  assert_true(rejected > 0);
  free(s.data);
}

/* ---------------------------------------------------------------- */
/* Header                                                             */
/* ---------------------------------------------------------------- */

/* Set byte off of a valid builder chunk to v and expect code/msg. */
static void header_case(size_t off, unsigned v, const char *msg,
                        const char *msg2) {
  bb b;
  func m = main_func();
  build(&b, &m, NULL);
  b.d[off] = (uint8_t)v;
  expect(b.d, b.n, LRAF_EFORMAT, msg, msg2, NULL);
  free(b.d);
}

/* One byte of a valid chunk set to a value, and the message bc_read
   gives (two parts of it; NULL: none). */
static const struct {
  size_t off;
  unsigned v;
  const char *msg, *msg2;
} header_cases[] = {
  {1, 'X', "bad signature", "at offset 0"},
  {4, 0x53, "version 0x53 not supported (lraf reads Lua 5.4 chunks, 0x54) "
            "at offset 4", NULL},
  {5, 1, "format 1 not supported", "at offset 5"},
  {8, '\n', "LUAC_DATA mismatch", "at offset 6"},
  {12, 8, "Instruction size 8 not supported", "at offset 12"},
  {13, 4, "lua_Integer size 4 not supported", "at offset 13"},
  {14, 4, "lua_Number size 4 not supported", "at offset 14"},
  {23 + 7, 0xc0, "float format mismatch at offset 23", NULL},
  {31, 2, "main upvalue count byte 2 at offset 31 does not match the 1 "
          "upvalues", NULL},
};

static void test_header(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof header_cases / sizeof header_cases[0]; i++)
    header_case(header_cases[i].off, header_cases[i].v, header_cases[i].msg,
                header_cases[i].msg2);
}

static void test_not_a_chunk(void **state) {
  (void)state;
  expect("return 1", 8, LRAF_EFORMAT, "bad signature", "at offset 0", NULL);
}

static void test_swapped_luac_int(void **state) {
  bb b;
  func m = main_func();
  int i;
  (void)state;
  build(&b, &m, NULL);
  for (i = 0; i < 4; i++) {
    uint8_t t = b.d[15 + i];
    b.d[15 + i] = b.d[22 - i];
    b.d[22 - i] = t;
  }
  expect(b.d, b.n, LRAF_EFORMAT, "integer format mismatch at offset 15",
         "byte order", NULL);
  free(b.d);
}

static void test_trailing_garbage(void **state) {
  bb b;
  func m = main_func();
  size_t end;
  (void)state;
  build(&b, &m, NULL);
  end = b.n;
  tutil_bb_put(&b, "xyz", 3);
  expect(b.d, b.n, LRAF_EFORMAT, "trailing garbage: 3 bytes", at(end), NULL);
  free(b.d);
}

/* ---------------------------------------------------------------- */
/* Varints, counts, strings                                           */
/* ---------------------------------------------------------------- */

/* Set a count of main (0 code, 1 constants, 2 nested functions) to v. */
static void huge_count(int which, uint64_t v, const char *what) {
  bb b;
  func m = main_func();
  where w;
  size_t off, left;
  uint8_t tmp[10];
  char msg[160];
  build(&b, &m, &w);
  off = which == 0 ? w.code : which == 1 ? w.k : w.p;
  tutil_bb_set_varint(&b, off, v);
  left = b.n - off - tutil_bb_encode(tmp, v);
  snprintf(msg, sizeof msg, "count %llu of %s at offset %zu exceeds the %zu "
           "bytes left", (unsigned long long)v, what, off, left);
  expect(b.d, b.n, LRAF_EFORMAT, msg, NULL);
  free(b.d);
}

/* A count of main far beyond the input, and what it counts. */
static void test_huge_counts(void **state) {
  static const struct {
    int which;  /* as huge_count's */
    uint64_t v;
    const char *what;
  } cases[] = {
    {0, 1000000, "instructions"},
    {1, 1000000, "constants"},
    {2, 2147483647, "nested functions"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    huge_count(cases[i].which, cases[i].v, cases[i].what);
}

/* 100 MB worth of claimed code in a tiny input: rejected before any
   allocation (under ASan/valgrind a big malloc would show). */
static void test_count_beyond_input(void **state) {
  bb b;
  func m = main_func();
  where w;
  (void)state;
  build(&b, &m, &w);
  tutil_bb_set_varint(&b, w.code, 25u * 1024u * 1024u);
  expect(b.d, b.n, LRAF_EFORMAT, "count 26214400 of instructions",
         at(w.code), NULL);
  free(b.d);
}

/* Bytes of main's start replaced (source at offset 32, linedefined at
   35 after the 3-byte source "=t"), or a varint set to v. */
static void test_bad_varints(void **state) {
  static const uint8_t big_int[] = {0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x80};
  static const uint8_t big_size[] = {0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
                                     0x7f, 0x7f, 0x7f, 0x7f, 0xff};
  static const uint8_t zero2[] = {0x00, 0x80};
  static const struct {
    size_t off, oldlen;
    const uint8_t *bytes;  /* NULL: the varint at off set to v */
    size_t n;
    uint64_t v;
    const char *msg;
  } cases[] = {
    {35, 1, big_int, sizeof big_int, 0,
     "varint overflow in linedefined at offset 35"},
    {32, 3, big_size, sizeof big_size, 0,
     "varint overflow in source at offset 32"},
    {35, 0, NULL, 0, (uint64_t)1 << 31,   /* just over INT_MAX */
     "varint overflow in linedefined at offset 35 (more than 2147483647)"},
    {35, 1, zero2, sizeof zero2, 0,
     "non-minimal varint for linedefined at offset 35"},
    {32, 0, NULL, 0, 1000,                /* source claims 999 bytes */
     "truncated chunk: string of 999 bytes (source) at offset 32"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bb b;
    func m = main_func();
    build(&b, &m, NULL);
    if (cases[i].bytes != NULL)
      tutil_bb_splice(&b, cases[i].off, cases[i].oldlen, cases[i].bytes,
                      cases[i].n);
    else
      tutil_bb_set_varint(&b, cases[i].off, cases[i].v);
    expect(b.d, b.n, LRAF_EFORMAT, cases[i].msg, NULL);
    free(b.d);
  }
}

/* ---------------------------------------------------------------- */
/* Constants, upvalues, debug info                                    */
/* ---------------------------------------------------------------- */

/* One part of main made bad, and what the message says: fmt with the
   offset (that of a part of main, plus delta), and up to two words. */
static void bad_tag(func *m) {
  static const uint8_t k[] = {BC_TINT, 1, 0, 0, 0, 0, 0, 0, 0, 0x05};
  m->k = k;
  m->ksize = sizeof k;
  m->nk = 2;
}

static void null_string(func *m) {
  static const uint8_t k[] = {BC_TSHRSTR, 0x80};
  m->k = k;
  m->ksize = sizeof k;
  m->nk = 1;
}

static void bad_instack(func *m) {
  static const uint8_t up[] = {2, 0, 0};
  m->up = up;
}

static void bad_kind(func *m) {
  static const uint8_t up[] = {1, 0, 4};
  m->up = up;
}

static void three_lines(func *m) {
  static const int8_t lines[3] = {1, 0, 0};
  m->lines = lines;
  m->nlines = 3;
}

static void two_upnames(func *m) {
  static const char *const names[2] = {"_ENV", "x"};
  m->upnames = names;
  m->nupnames = 2;
}

/* An abslineinfo entry whose lineinfo byte is not the marker: Lua's
   luaG_getfuncline could then walk from a wrong base. */
static void abs_mismatch(func *m) {
  static const int abs[2] = {0, 5};
  m->abs = abs;
  m->nabs = 1;
}

static void test_bad_parts(void **state) {
  static const struct {
    void (*edit)(func *m);
    size_t part, delta;  /* offsetof(where, ...), then bytes on */
    const char *fmt, *w1, *w2;
  } cases[] = {
    {bad_tag, offsetof(where, k), 10, "at offset %zu",
     "unknown constant tag 0x05", "(constant 1)"},
    {null_string, offsetof(where, k), 1,
     "constant 0 at offset %zu: string constant is NULL", NULL, NULL},
    {bad_instack, offsetof(where, up), 1,
     "upvalue 0 at offset %zu: instack 2 is not 0 or 1", NULL, NULL},
    {bad_kind, offsetof(where, up), 3,
     "upvalue 0 at offset %zu: kind 4 is not 0..3", NULL, NULL},
    {three_lines, offsetof(where, lines), 0,
     "lineinfo size 3 at offset %zu is neither 0 nor the 2 instructions",
     NULL, NULL},
    {two_upnames, offsetof(where, upnames), 0,
     "upvalue names size 2 at offset %zu is neither 0 nor the 1 upvalues",
     NULL, NULL},
    {abs_mismatch, offsetof(where, start), 0, "(function at offset %zu)",
     "line info at pc 0 disagrees", NULL},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bb b;
    func m = main_func();
    where w;
    char msg[128];
    cases[i].edit(&m);
    build(&b, &m, &w);
    snprintf(msg, sizeof msg, cases[i].fmt,
             *(const size_t *)((const char *)&w + cases[i].part) +
             cases[i].delta);
    expect(b.d, b.n, LRAF_EFORMAT, msg, cases[i].w1 ? cases[i].w1 : msg,
           cases[i].w2 ? cases[i].w2 : msg, NULL);
    free(b.d);
  }
}

static void test_too_many_upvalues(void **state) {
  static uint8_t up[256 * 3];
  bb b;
  func m = main_func(), leaf = leaf_func();
  where w;
  int i;
  (void)state;
  for (i = 0; i < 256; i++) {
    up[3 * i] = 0;
    up[3 * i + 1] = (uint8_t)i;
  }
  leaf.up = up;
  leaf.nup = 256;
  m.child = &leaf;
  m.nchild = 1;
  build(&b, &m, &w);
  expect(b.d, b.n, LRAF_EFORMAT, "256 upvalues", "a function has at most 255",
         NULL);
  free(b.d);
}

/* ---------------------------------------------------------------- */
/* Limits                                                             */
/* ---------------------------------------------------------------- */

static void test_nesting_1000(void **state) {
  static func chain[1000];
  bb b;
  int i;
  char msg[64];
  (void)state;
  for (i = 0; i < 1000; i++) {
    chain[i] = i == 0 ? main_func() : leaf_func();
    chain[i].child = i < 999 ? &chain[i + 1] : NULL;
    chain[i].nchild = i < 999;
  }
  build(&b, &chain[0], NULL);
  assert_int_equal(b.nmark, 1000);
  /* main is depth 1: the 201st function is the first too deep */
  snprintf(msg, sizeof msg, "function nesting deeper than 200 at offset %zu",
           b.mark[200]);
  expect(b.d, b.n, LRAF_ELIMIT, msg, NULL);
  free(b.d);
}

static void test_max_functions(void **state) {
  bc_limits lim = bc_default_limits;
  bb b;
  func m = main_func(), leaf = leaf_func();
  char msg[64];
  (void)state;
  m.child = &leaf;
  m.nchild = 5;
  build(&b, &m, NULL);
  lim.max_functions = 3;
  snprintf(msg, sizeof msg, "more than 3 functions: function at offset %zu",
           b.mark[3]);
  expect_lim(b.d, b.n, &lim, LRAF_ELIMIT, msg, NULL);
  lim.max_functions = 6;  /* exactly enough */
  {
    bc_chunk *c = NULL;
    assert_int_equal(bc_read(b.d, b.n, &lim, &c, NULL), LRAF_OK);
    bc_chunk_free(c);
  }
  free(b.d);
}

static void test_max_input(void **state) {
  bc_limits lim = bc_default_limits;
  bb b;
  func m = main_func();
  char msg[80];
  (void)state;
  build(&b, &m, NULL);
  lim.max_input = 40;
  snprintf(msg, sizeof msg, "input of %zu bytes exceeds the limit of 40 "
           "bytes", b.n);
  expect_lim(b.d, b.n, &lim, LRAF_ELIMIT, msg, NULL);
  free(b.d);
}

/* ---------------------------------------------------------------- */
/* Structural checks (bc_check_proto), with the function's offset     */
/* ---------------------------------------------------------------- */

static void code_case(const bc_instr *code, int ncode, int nchild,
                      const char *msg) {
  bb b;
  func m = main_func(), leaf = leaf_func();
  static const int8_t zeros[8];
  m.code = code;
  m.ncode = ncode;
  m.lines = zeros;
  m.nlines = ncode;
  m.child = &leaf;
  m.nchild = nchild;
  build(&b, &m, NULL);
  expect(b.d, b.n, LRAF_EFORMAT, msg, "in function <t:0>",
         "(function at offset 32)", NULL);
  free(b.d);
}

/* main's second instruction (between VARARGPREP and RETURN), the
   nested functions main has, and the message bc_read's check gives. */
static void test_bad_code(void **state) {
  const struct {
    bc_instr mid;
    int nchild;
    const char *msg;
  } cases[] = {
    {90u | (1u << BC_POS_A), 0, "invalid opcode 90 at pc 1"},
    {bc_abx(BC_OP_LOADK, 0, 5), 0,
     "constant index 5 out of range (0 constants)"},
    {bc_abck(BC_OP_GETUPVAL, 0, 3, 0, 0), 0,
     "upvalue index 3 out of range (1 upvalues)"},
    {bc_abx(BC_OP_CLOSURE, 0, 1), 1,
     "function index 1 out of range (1 functions)"},
    {bc_abck(BC_OP_MOVE, 200, 0, 0, 0), 0,
     "register 200 out of range (maxstacksize 2)"},
    {bc_isj(BC_OP_JMP, 50), 0, "out of range (3 instructions) in JMP at pc 1"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bc_instr code[3];
    code[0] = bc_abx(BC_OP_VARARGPREP, 0, 0);
    code[1] = cases[i].mid;
    code[2] = bc_abck(BC_OP_RETURN, 0, 1, 1, 0);
    code_case(code, 3, cases[i].nchild, cases[i].msg);
  }
}

/* The offset given is that of the failing nested function. */
static void test_nested_check_offset(void **state) {
  static bc_instr bad_code[1];
  bb b;
  func m = main_func(), leaf = leaf_func();
  char msg[48];
  (void)state;
  bad_code[0] = bc_abx(BC_OP_LOADK, 0, 0);  /* and no RETURN */
  leaf.code = bad_code;
  m.child = &leaf;
  m.nchild = 1;
  build(&b, &m, NULL);
  snprintf(msg, sizeof msg, "(function at offset %zu)", b.mark[1]);
  expect(b.d, b.n, LRAF_EFORMAT, "constant index 0 out of range", msg, NULL);
  free(b.d);
}

/* ---------------------------------------------------------------- */
/* Arguments                                                          */
/* ---------------------------------------------------------------- */

static void test_bad_arguments(void **state) {
  bc_chunk *out = &sentinel_chunk;
  lraf_error err;
  (void)state;
  assert_int_equal(bc_read(NULL, 10, NULL, &out, &err), LRAF_EARG);
  assert_ptr_equal(out, &sentinel_chunk);
  assert_int_equal(bc_read("x", 1, NULL, NULL, &err), LRAF_EARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_builder_valid),
    cmocka_unit_test(test_truncated_everywhere),
    cmocka_unit_test(test_empty_input),
    cmocka_unit_test(test_mutations),
    cmocka_unit_test(test_header),
    cmocka_unit_test(test_not_a_chunk),
    cmocka_unit_test(test_swapped_luac_int),
    cmocka_unit_test(test_trailing_garbage),
    cmocka_unit_test(test_huge_counts),
    cmocka_unit_test(test_count_beyond_input),
    cmocka_unit_test(test_bad_varints),
    cmocka_unit_test(test_bad_parts),
    cmocka_unit_test(test_too_many_upvalues),
    cmocka_unit_test(test_nesting_1000),
    cmocka_unit_test(test_max_functions),
    cmocka_unit_test(test_max_input),
    cmocka_unit_test(test_bad_code),
    cmocka_unit_test(test_nested_check_offset),
    cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
