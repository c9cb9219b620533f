/*
** test_rw_names.c - which instructions name an arithmetic op's operands
** (rw_names.c), so that a metamethod stub can carry copies of them and
** errors raised there keep Lua's names: for the first arithmetic op of
** each small function, the instructions rw_name_setters finds, against
** what Lua's debug library would scan back to (the last writer of each
** operand register, when it is one that names, and no jump skips it).
** (test_rw_finish_fidelity compares the messages themselves.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rw_names.h"
#include "tutil_vm.h"

static const struct {
  const char *src;
  const char *want[2];  /* the setters' opcodes, in operand order */
} cases[] = {
  {"local x = g + 1", {"GETTABUP", NULL}},
  {"local t = {} local y = t.f * t.g", {"GETFIELD", "GETFIELD"}},
  {"local t = {} local y = t[1] - t.k", {"GETI", "GETFIELD"}},
  {"local t, i = {}, 2 return t[i] // 3.5", {"GETTABLE", NULL}},
  {"local up = 3 return function() return up % 2 end", {"GETUPVAL", NULL}},
  {"local a = ... local b = a + 1", {NULL, NULL}},  /* VARARG names none */
  {"local a = ... local b = a & a", {NULL, NULL}},
  /* the writer of x is skipped by a jump: Lua's scan gives up on it */
  {"local x if c then x = g end return x + 1", {NULL, NULL}},
  {"local s = 'a' return (s .. 'b') + 1", {NULL, NULL}},  /* CONCAT */
  {"local m = h return m << n", {"GETTABUP", "GETTABUP"}},
  {"local m = h local k = m return k << 1", {"MOVE", NULL}},
};

/* The first function of c that has an arithmetic op followed by its
   MMBIN*: main, or its first nested function. */
static const bc_proto *with_mmbin(const bc_chunk *c, int *pc) {
  const bc_proto *f = c->main;
  int k, round;
  for (round = 0; round < 2; round++) {
    for (k = 0; k + 1 < f->sizecode; k++) {
      int op = bc_op(f->code[k + 1]);
      if ((op == BC_OP_MMBIN || op == BC_OP_MMBINI || op == BC_OP_MMBINK) &&
          bc_required_next(f->code[k]) == op) {
        *pc = k;
        return f;
      }
    }
    if (f->sizep == 0) break;
    f = f->p[0];
  }
  return NULL;
}

static void test_setters(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bc_chunk *c = tutil_vm_read(cases[i].src, "=names");
    int pc = -1, k, nwant = 0, *setters;
    unsigned char *nsetters;
    const bc_proto *f = with_mmbin(c, &pc);
    if (f == NULL) fail_msg("case %zu: no arithmetic op", i);
    setters = malloc(2 * (size_t)f->sizecode * sizeof *setters);
    nsetters = malloc((size_t)f->sizecode);
    assert_non_null(setters);
    assert_non_null(nsetters);
    assert_int_equal(rw_name_setters(f, setters, nsetters), 1);
    while (nwant < 2 && cases[i].want[nwant] != NULL) nwant++;
    if (nsetters[pc] != nwant)
      fail_msg("case %zu (%s): %d setters, want %d", i, cases[i].src,
               nsetters[pc], nwant);
    for (k = 0; k < nwant; k++) {
      int s = setters[2 * pc + k];
      assert_true(s >= 0 && s < pc);
      if (strcmp(bc_opname(bc_op(f->code[s])), cases[i].want[k]) != 0)
        fail_msg("case %zu (%s): setter %d is %s, want %s", i, cases[i].src,
                 k, bc_opname(bc_op(f->code[s])), cases[i].want[k]);
    }
    for (k = 0; k < f->sizecode; k++)  /* only ops with an MMBIN* get any */
      if (nsetters[k] > 0) {
        int op = bc_op(f->code[k + 1]);
        assert_true(op == BC_OP_MMBIN || op == BC_OP_MMBINI ||
                    op == BC_OP_MMBINK);
      }
    free(setters);
    free(nsetters);
    bc_chunk_free(c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_setters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
