/*
** test_rw_verify_lean.c - the lean verifier of code rewritten in memory
** (rw_verify_lean, rw_verify_lean.c), which checks only what rewriting
** for the lraf VM changed in the code that Lua's parser produced.  On
** corpus programs rewritten for the lraf VM (default and exact mode) it
** takes the lean path for every function and accepts; it refuses a
** removed zero check exactly when the full verifier (rw_verify_target,
** itself compared with an oracle in test_rw_verify) does; and it
** refuses, or leaves to bc_check_code, which refuses, a jump out of the
** code, a TFORPREP off its TFORCALL, an ACCT inside an instruction pair
** or with a bad mode, a copied instruction with an operand changed,
** VARARGPREP moved, the parser's code not used up and functions that do
** not match the parser's.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"
#include "rw_verify_lean.h"
#include "tutil_run.h"
#include "tutil_vm.h"

static const char *const programs[] = {
  "tests/corpus/gotos.lua", "tests/corpus/loops.lua",
  "tests/corpus/iterators.lua", "tests/corpus/richards.lua",
  "tests/corpus/json.lua", "tests/corpus/coroutines.lua",
  "tests/corpus/deltablue.lua",
};

static const char *const snippets[] = {
  "local n = ... or 0\nif n > 1 then goto b end\n::a:: n = n + 1\n"
  "::b:: if n < 10 then goto a end\nreturn n",
  "for k, v in pairs({1, 2}) do repeat local y = v until true end",
  "local t = {} for i = 1, 10 do t[i] = i > 5 and i or nil end return t",
  "local a, b = ... return a + 1, b * 2.5, a // b, -a, #b, a .. b",
};

/* src compiled (the parser's code) and the same rewritten for the lraf
   VM. */
typedef struct pair {
  bc_chunk *orig, *rw;
  rw_original o[256];
  int n;
} pair;

static bc_chunk *read_chunk(const tutil_vm_buf *buf, const char *name) {
  bc_chunk *chunk = NULL;
  lraf_error err;
  if (bc_read(buf->data, buf->size, NULL, &chunk, &err) != LRAF_OK)
    fail_msg("%s: %s", name, err.message);
  return chunk;
}

static void originals(const bc_proto *f, pair *p) {
  int i;
  rw_original *x;
  if (p->n >= (int)(sizeof p->o / sizeof p->o[0]))
    fail_msg("too many functions");
  x = &p->o[p->n++];
  x->code = f->code;
  x->sizecode = f->sizecode;
  x->maxstacksize = f->maxstacksize;
  x->sizek = f->sizek;
  x->sizeupvalues = f->sizeupvalues;
  x->sizep = f->sizep;
  for (i = 0; i < f->sizep; i++) originals(f->p[i], p);
}

static void make_pair(pair *p, const char *src, size_t len, const char *name,
                      int exact) {
  tutil_vm_buf buf;
  rw_options opt;
  lraf_error err;
  char msg[256];
  if (!tutil_vm_dump(src, len, name, 0, &buf, msg, sizeof msg))
    fail_msg("%s does not compile: %s", name, msg);
  p->orig = read_chunk(&buf, name);
  p->rw = read_chunk(&buf, name);
  free(buf.data);
  rw_default_options(&opt);
  opt.target = RW_LRAVM;
  opt.exact = exact;
  if (rw_rewrite(p->rw, &opt, NULL, &err) != LRAF_OK)
    fail_msg("%s: %s", name, err.message);
  p->n = 0;
  originals(p->orig->main, p);
}

static void free_pair(pair *p) {
  bc_chunk_free(p->orig);
  bc_chunk_free(p->rw);
}

static lraf_status lean(pair *p, lraf_error *err) {
  memset(err, 0, sizeof *err);
  return rw_verify_lean(p->rw, p->o, p->n, err);
}

static int is_check(bc_instr i) {
  return bc_op(i) == BC_OP_ACCT && bc_a(i) != BC_ACCT_ADD;
}

static int mutations, splits;

/* f is function k (preorder) of p: its zero checks taken out one at a
   time, then structural damage, each undone afterwards. */
static void mutate(pair *p, bc_proto *f, const rw_original *o,
                   const char *name) {
  lraf_error err, full;
  int pc;
  if (!rw_verify_lean_code(f, o))
    fail_msg("%s: function at line %d does not take the lean path", name,
             f->linedefined);
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr saved = f->code[pc];
    int t;
    if (is_check(saved)) {  /* the same verdict as the full verifier */
      lraf_status a, b;
      f->code[pc] = bc_set_a(saved, BC_ACCT_ADD);
      a = lean(p, &err);
      b = rw_verify_target(p->rw, RW_LRAVM, &full);
      if (a != b || (a != LRAF_OK && strcmp(err.message, full.message)))
        fail_msg("%s: without the check at pc %d: lean says %s, full %s",
                 name, pc + 1, a == LRAF_OK ? "ok" : err.message,
                 b == LRAF_OK ? "ok" : full.message);
      f->code[pc] = saved;
      mutations++;
    }
    if (bc_op(saved) == BC_OP_ACCT) {  /* a mode that does not exist */
      f->code[pc] = bc_set_a(saved, 3);
      assert_int_equal(rw_verify_lean_code(f, o), 0);
      assert_int_equal(lean(p, &err), LRAF_EVERIFY);
      f->code[pc] = saved;
      mutations++;
    }
    if (bc_jump_target(saved, pc, &t)) {  /* out of the code */
      if (bc_set_jump_target(&f->code[pc], pc, f->sizecode + 3) ||
          bc_set_jump_target(&f->code[pc], pc, -3)) {
        assert_int_equal(rw_verify_lean_code(f, o), 0);
        assert_int_equal(lean(p, &err), LRAF_EVERIFY);
        mutations++;
      }
      f->code[pc] = saved;
      if (bc_op(saved) == BC_OP_TFORPREP && t > 0 &&
          bc_set_jump_target(&f->code[pc], pc, t - 1)) {  /* off TFORCALL */
        assert_int_equal(rw_verify_lean_code(f, o), 0);
        assert_int_equal(lean(p, &err), LRAF_EVERIFY);
        f->code[pc] = saved;
        mutations++;
      }
    }
    if (bc_op(saved) == BC_OP_MOVE) {  /* a register beyond the frame */
      f->code[pc] = bc_set_a(saved, 254);
      assert_int_equal(rw_verify_lean_code(f, o), 0);
      assert_int_equal(lean(p, &err), LRAF_EVERIFY);
      f->code[pc] = saved;
      mutations++;
    }
    if (bc_op(saved) == BC_OP_ACCT && pc + 2 < f->sizecode &&
        bc_required_next(f->code[pc + 1]) >= 0) {
      /* ACCT X Y, X needing Y next, made X ACCT Y: the parser's code in
         its order still, but the pair split */
      f->code[pc] = f->code[pc + 1];
      f->code[pc + 1] = saved;
      assert_int_equal(rw_verify_lean_code(f, o), 0);
      assert_int_equal(lean(p, &err), LRAF_EVERIFY);
      f->code[pc + 1] = f->code[pc];
      f->code[pc] = saved;
      splits++;
      mutations++;
    }
  }
  if (bc_op(f->code[0]) == BC_OP_VARARGPREP && f->sizecode > 1 &&
      bc_op(f->code[1]) == BC_OP_ACCT) {  /* VARARGPREP no longer first */
    bc_instr a = f->code[0];
    f->code[0] = f->code[1];
    f->code[1] = a;
    assert_int_equal(rw_verify_lean_code(f, o), 0);
    assert_int_equal(lean(p, &err), LRAF_EVERIFY);
    f->code[1] = f->code[0];
    f->code[0] = a;
    mutations++;
  }
  f->sizecode--;  /* the parser's last instruction missing */
  assert_int_equal(rw_verify_lean_code(f, o), 0);
  f->sizecode++;
  assert_int_equal(rw_verify_lean_code(f, o), 1);
}

static void mutate_tree(pair *p, bc_proto *f, int *k, const char *name) {
  int i, me = (*k)++;
  mutate(p, f, &p->o[me], name);
  for (i = 0; i < f->sizep; i++) mutate_tree(p, f->p[i], k, name);
}

static void check_source(const char *src, size_t len, const char *name) {
  int exact;
  for (exact = 0; exact <= 1; exact++) {
    pair p;
    lraf_error err;
    int k = 0;
    make_pair(&p, src, len, name, exact);
    if (lean(&p, &err) != LRAF_OK)
      fail_msg("%s as rewritten does not verify: %s", name, err.message);
    mutate_tree(&p, p.rw->main, &k, name);
    assert_int_equal(k, p.n);
    assert_int_equal(lean(&p, &err), LRAF_OK);
    free_pair(&p);
  }
}

static void test_lean_matches_full(void **state) {
  size_t i;
  (void)state;
  mutations = splits = 0;
  for (i = 0; i < sizeof snippets / sizeof snippets[0]; i++)
    check_source(snippets[i], strlen(snippets[i]), snippets[i]);
  for (i = 0; i < sizeof programs / sizeof programs[0]; i++) {
    size_t len;
    char *src = tutil_run_slurp(programs[i], &len);
    if (src == NULL) fail_msg("cannot read %s", programs[i]);
    check_source(src, len, programs[i]);
    free(src);
  }
  if (mutations < 500 || splits < 20)
    fail_msg("only %d mutations, %d pairs split", mutations, splits);
}

/* Functions that do not match the parser's: too few or too many
   originals, or one with another number of nested functions. */
static void test_refuses_other_functions(void **state) {
  const char *src = "local function f() return function() end end "
                    "return f";
  pair p;
  lraf_error err;
  (void)state;
  make_pair(&p, src, strlen(src), "=shape", 0);
  assert_int_equal(lean(&p, &err), LRAF_OK);
  assert_int_equal(rw_verify_lean(p.rw, p.o, p.n - 1, &err), LRAF_EVERIFY);
  p.o[p.n] = p.o[p.n - 1];
  assert_int_equal(rw_verify_lean(p.rw, p.o, p.n + 1, &err), LRAF_EVERIFY);
  assert_non_null(strstr(err.message, "parser made"));
  p.o[1].sizep++;
  assert_int_equal(lean(&p, &err), LRAF_EVERIFY);
  assert_non_null(strstr(err.message, "does not fit"));
  p.o[1].sizep--;
  p.o[0].maxstacksize++;  /* another stack size: the full check, ok */
  assert_int_equal(rw_verify_lean_code(p.rw->main, &p.o[0]), 0);
  assert_int_equal(lean(&p, &err), LRAF_OK);
  free_pair(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lean_matches_full),
    cmocka_unit_test(test_refuses_other_functions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
