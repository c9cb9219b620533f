/*
** test_rw_lines.c - which lines each block's increment pays for
** (rw_lines.c), on the blocks rw_cfg_build makes of small functions for
** the profiler (lraf VM, rw_options.lines): a straight-line function's
** one block pays for each line as many instructions as the line has;
** for every function, each block that pays for itself has entries that
** add up to its charge (a branch fold's refunding branch included), by
** line in order and none of 0, and a block paid for by another has
** none.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rw_lines.h"
#include "tutil_vm.h"

typedef struct built {
  bc_chunk *c;
  rw_arena a;
  rw_cfg cfg;
  rw_lines l;
  int *lines;
} built;

/* The blocks and lines of function f (main when fn < 0, else main's
   nested function fn) of src. */
static const bc_proto *build(built *b, const char *src, int fn) {
  const bc_proto *f;
  rw_options o;
  lraf_error err;
  uint32_t *pccost;
  int pc;
  b->c = tutil_vm_read(src, "=lines");
  f = fn < 0 ? b->c->main : b->c->main->p[fn];
  rw_default_options(&o);
  o.target = RW_LRAVM;
  o.lines = 1;
  rw_arena_init(&b->a);
  if (rw_cfg_build(f, &o, "f", &b->a, &b->cfg, &err) != LRAF_OK)
    fail_msg("cfg: %s", err.message);
  pccost = malloc((size_t)f->sizecode * sizeof *pccost);
  b->lines = malloc((size_t)f->sizecode * sizeof *b->lines);
  assert_non_null(pccost);
  assert_non_null(b->lines);
  for (pc = 0; pc < f->sizecode; pc++) pccost[pc] = rw_instr_cost(f, pc, &o);
  bc_getlines(f, b->lines);
  memset(&b->l, 0, sizeof b->l);
  assert_int_equal(rw_lines_build(f, &b->cfg, pccost, b->lines, &b->l), 1);
  free(pccost);
  return f;
}

static void unbuild(built *b) {
  rw_lines_free(&b->l);
  rw_arena_free(&b->a);
  free(b->lines);
  bc_chunk_free(b->c);
}

/* Every block that pays for itself: entries by line, none of 0, adding
   up to its charge; the others: none. */
static void check_sums(const built *b) {
  int i, k;
  for (i = 0; i < b->cfg.nblocks; i++) {
    const rw_block *bl = &b->cfg.b[i];
    int64_t sum = 0;
    for (k = b->l.start[i]; k < b->l.start[i + 1]; k++) {
      assert_int_not_equal(b->l.e[k].cost, 0);
      if (k > b->l.start[i]) assert_true(b->l.e[k - 1].line < b->l.e[k].line);
      sum += b->l.e[k].cost;
    }
    if (bl->fold_into >= 0)
      assert_int_equal(b->l.start[i + 1] - b->l.start[i], 0);
    else if (sum != bl->charge)
      fail_msg("block %d: lines add up to %lld, charge %lld", i,
               (long long)sum, (long long)bl->charge);
  }
}

static void test_straight_line(void **state) {
  static const char src[] =
      "local function f(a, b)\n"      /* 1 */
      "  local c = a + b\n"           /* 2 */
      "  local d = c * a - b // 3\n"  /* 3 */
      "  return c, d\n"               /* 4 */
      "end\n"
      "return f\n";
  built b;
  const bc_proto *f = build(&b, src, 0);
  int want[8], pc, k, line;
  (void)state;
  memset(want, 0, sizeof want);
  for (pc = 0; pc < f->sizecode; pc++) {  /* up to the first return */
    want[b.lines[pc]] += (int)rw_instr_cost(f, pc, &(rw_options){0});
    if (bc_op(f->code[pc]) == BC_OP_RETURN) break;
  }
  for (line = 2, k = b.l.start[0]; line <= 4; line++, k++) {
    assert_true(k < b.l.start[1]);
    assert_int_equal(b.l.e[k].line, line);
    assert_int_equal(b.l.e[k].cost, want[line]);
  }
  assert_int_equal(k, b.l.start[1]);
  check_sums(&b);
  unbuild(&b);
}

static void test_every_shape_adds_up(void **state) {
  static const char *const srcs[] = {
    /* a while loop: its test charges the body ahead, the exit takes it
       back */
    "local function f(n)\n local i, s = 0, 0\n while i < n do\n"
    "  i = i + 1\n  s = s + i\n end\n return s\nend\nreturn f\n",
    /* if-else chains and early returns: folds into dominators */
    "local function f(x)\n if x > 10 then\n  x = x * 2\n elseif x > 5 then\n"
    "  return x\n else\n  x = x - 1\n end\n local y = x + 1\n return y\n"
    "end\nreturn f\n",
    /* nested loops with breaks and a generic for */
    "local function f(t)\n local s = 0\n for i = 1, #t do\n"
    "  for _, v in ipairs(t[i]) do\n   if v < 0 then break end\n"
    "   s = s + v\n  end\n end\n return s\nend\nreturn f\n",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    built b;
    build(&b, srcs[i], 0);
    assert_true(b.cfg.nblocks > 2);
    check_sums(&b);
    unbuild(&b);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_straight_line),
    cmocka_unit_test(test_every_shape_adds_up),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
