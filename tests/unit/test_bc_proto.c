/*
** test_bc_proto.c - bytecode/bc_proto.c: bc_getline on hand-made line
** information (deltas, absolute entries, stripped functions, pcs out of
** range, lines beyond int), bc_getlines agreeing with it at every pc
** of generated functions and of compiled code, and freeing partly
** built prototypes and chunks (the sanitizer build sees a leak).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_vm.h"
#include "bc.h"

#define ABS BC_ABSLINEINFO
#define MAXPC 8

/* Line information by hand: linedefined, the deltas, the absolute
   entries, and the line of every pc (-1: none). */
typedef struct lcase {
  const char *what;
  int linedefined, n, nli;
  int8_t li[MAXPC];
  int nabs;
  bc_absline abs[2];
  int want[MAXPC];
} lcase;

static const lcase cases[] = {
  {"deltas", 10, 4, 4, {1, 0, 2, -1}, 0, {{0, 0}}, {11, 11, 13, 12}},
  {"an absolute entry", 10, 4, 4, {1, 1, ABS, 3}, 1, {{2, 100}},
   {11, 12, 100, 103}},
  {"absolute at pc 0", 0, 3, 3, {ABS, 1, 1}, 1, {{0, 50}}, {50, 51, 52}},
  {"two entries", 1, 5, 5, {ABS, 2, ABS, -3, 0}, 2, {{0, 7}, {2, 40}},
   {7, 9, 40, 37, 37}},
  {"stripped", 10, 3, 0, {0}, 0, {{0, 0}}, {-1, -1, -1}},
  {"fewer lines than code", 5, 4, 2, {1, 1}, 0, {{0, 0}}, {6, 7, -1, -1}},
  {"beyond INT_MAX", INT_MAX - 1, 3, 3, {1, 1, 1}, 0, {{0, 0}},
   {INT_MAX, -1, -1}},
  {"below INT_MIN", INT_MIN + 1, 3, 3, {-1, -1, 5}, 0, {{0, 0}},
   {INT_MIN, -1, INT_MIN + 4}},
  {"entry before pc 0", 3, 3, 3, {1, 1, 1}, 1, {{-5, 7}}, {-1, -1, -1}},
};

static void fill(bc_proto *f, bc_instr *code, const lcase *c) {
  int pc;
  memset(f, 0, sizeof *f);
  for (pc = 0; pc < c->n; pc++) code[pc] = bc_abck(BC_OP_RETURN0, 0, 0, 0, 0);
  f->code = code;
  f->sizecode = c->n;
  f->linedefined = c->linedefined;
  f->lineinfo = c->nli > 0 ? (int8_t *)c->li : NULL;
  f->sizelineinfo = c->nli;
  f->abslineinfo = c->nabs > 0 ? (bc_absline *)c->abs : NULL;
  f->sizeabslineinfo = c->nabs;
}

static void test_getline(void **state) {
  size_t i;
  int pc;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bc_proto f;
    bc_instr code[MAXPC];
    int lines[MAXPC];
    fill(&f, code, &cases[i]);
    print_message("  %s\n", cases[i].what);
    for (pc = 0; pc < cases[i].n; pc++)
      assert_int_equal(bc_getline(&f, pc), cases[i].want[pc]);
    assert_int_equal(bc_getline(&f, -1), -1);
    assert_int_equal(bc_getline(&f, cases[i].n), -1);
    memset(lines, 0x55, sizeof lines);
    bc_getlines(&f, lines);
    for (pc = 0; pc < cases[i].n; pc++)
      assert_int_equal(lines[pc], cases[i].want[pc]);
  }
  assert_int_equal(bc_getline(NULL, 0), -1);
}

/* Generated functions: absolute entries every so often (as Lua puts
   them), deltas of every size; bc_getlines is bc_getline at each pc. */
static void test_getlines_generated(void **state) {
  unsigned seed = 12345;
  int round;
  (void)state;
  for (round = 0; round < 200; round++) {
    int n = 1 + (int)(seed % 700), pc, nabs = 0;
    bc_proto f;
    bc_instr *code = calloc((size_t)n, sizeof *code);
    int8_t *li = calloc((size_t)n, 1);
    bc_absline *abs = calloc((size_t)n, sizeof *abs);
    int *lines = calloc((size_t)n, sizeof *lines);
    assert_true(code && li && abs && lines);
    memset(&f, 0, sizeof f);
    f.linedefined = (int)(seed % 1000);
    for (pc = 0; pc < n; pc++) {
      seed = seed * 1103515245u + 12345u;
      if ((seed >> 16) % 17 == 0) {
        li[pc] = ABS;
        abs[nabs].pc = pc;
        abs[nabs++].line = (int)((seed >> 8) % 100000);
      } else {
        li[pc] = (int8_t)((int)((seed >> 16) % 255) - 127);
      }
    }
    f.code = code;
    f.sizecode = n;
    f.lineinfo = li;
    f.sizelineinfo = n;
    f.abslineinfo = nabs > 0 ? abs : NULL;
    f.sizeabslineinfo = nabs;
    bc_getlines(&f, lines);
    for (pc = 0; pc < n; pc++)
      if (lines[pc] != bc_getline(&f, pc))
        fail_msg("round %d pc %d: %d against %d", round, pc, lines[pc],
                 bc_getline(&f, pc));
    free(code);
    free(li);
    free(abs);
    free(lines);
  }
}

static int lines_checked;

static void getlines_tree(const bc_proto *f) {
  int *lines = calloc((size_t)f->sizecode, sizeof *lines), pc, n;
  assert_non_null(lines);
  bc_getlines(f, lines);
  for (pc = 0; pc < f->sizecode; pc++) {
    assert_int_equal(lines[pc], bc_getline(f, pc));
    assert_true(lines[pc] >= f->linedefined);
    lines_checked++;
  }
  free(lines);
  for (n = 0; n < f->sizep; n++) getlines_tree(f->p[n]);
}

/* Compiled code: every line lies at or after the function's start. */
static void test_getlines_compiled(void **state) {
  static const char src[] =
    "local t = {}\n"
    "for i = 1, 3 do\n"
    "  t[i] = function(x)\n"
    "    return x +\n"
    "      i\n"
    "  end\n"
    "end\n"
    "return t\n";
  bc_chunk *c = tutil_vm_read(src, "=lines");
  (void)state;
  lines_checked = 0;
  getlines_tree(c->main);
  assert_true(lines_checked > 10);
  assert_int_equal(bc_getline(c->main, 0), 1);
  bc_chunk_free(c);
}

/* A prototype as the reader leaves it when it fails halfway: arrays
   allocated, some of their entries still empty. */
static void test_free_partial(void **state) {
  bc_proto *f = calloc(1, sizeof *f), *child = calloc(1, sizeof *child);
  bc_chunk *c = calloc(1, sizeof *c);
  (void)state;
  assert_true(f && child && c);
  f->source.data = strdup("@x.lua");
  f->source.present = 1;
  f->sizek = 3;
  f->k = calloc(3, sizeof *f->k);
  f->k[0].tag = BC_TSHRSTR;
  f->k[0].s.data = strdup("k");
  f->sizep = 2;
  f->p = calloc(2, sizeof *f->p);
  f->p[0] = child;
  child->code = calloc(4, sizeof *child->code);
  f->sizelocvars = 2;
  f->locvars = calloc(2, sizeof *f->locvars);
  f->locvars[1].name.data = strdup("v");
  f->sizeupnames = 1;
  f->upnames = calloc(1, sizeof *f->upnames);
  f->upnames[0].data = strdup("_ENV");
  f->ahead = calloc(1, sizeof *f->ahead);
  c->main = f;
  bc_chunk_free(c);
  bc_chunk_free(NULL);
  bc_proto_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_getline),
    cmocka_unit_test(test_getlines_generated),
    cmocka_unit_test(test_getlines_compiled),
    cmocka_unit_test(test_free_partial),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
