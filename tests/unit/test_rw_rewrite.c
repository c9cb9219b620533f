/*
** test_rw_rewrite.c - the rewriter's driver (rw_rewrite.c): it refuses
** bad arguments; on the stock target it gives every function the
** counter and consume upvalues (main's from its stack, a nested
** function's from its parent's, named where the chunk keeps names) and
** on the lraf VM none; it rewrites every function of the tree and counts
** them; and it refuses, naming the function and its line, a function
** with no room for the scratch register or for the two upvalues.
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
#include "tutil_vm.h"

static const char nested[] =
    "local a = 1\n"
    "local function f(x)\n"
    "  local function g() return x + a end\n"
    "  return g() * 2\n"
    "end\n"
    "return f(3)\n";

static void test_bad_arguments(void **state) {
  bc_chunk *c = tutil_vm_read("return 1", "=args");
  rw_options o;
  lraf_error err;
  (void)state;
  rw_default_options(&o);
  assert_int_equal(rw_rewrite(NULL, &o, NULL, &err), LRAF_EARG);
  assert_int_equal(rw_rewrite(c, NULL, NULL, &err), LRAF_EARG);
  o.target = (rw_target)7;
  assert_int_equal(rw_rewrite(c, &o, NULL, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "unknown target 7"));
  rw_default_options(&o);
  o.mode = RW_WEIGHTED;
  assert_int_equal(rw_rewrite(c, &o, NULL, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "weights table"));
  bc_chunk_free(c);
}

static void test_stock_upvalues(void **state) {
  bc_chunk *c = tutil_vm_read(nested, "=up");
  bc_proto *m = c->main, *f = m->p[0], *g = f->p[0];
  int nm = m->sizeupvalues, nf = f->sizeupvalues, ng = g->sizeupvalues;
  rw_options o;
  rw_stats st;
  lraf_error err;
  (void)state;
  rw_default_options(&o);
  o.target = RW_STOCK;
  assert_int_equal(rw_rewrite(c, &o, &st, &err), LRAF_OK);
  assert_int_equal(st.functions, 3);
  assert_int_equal(m->sizeupvalues, nm + 2);
  assert_int_equal(f->sizeupvalues, nf + 2);
  assert_int_equal(g->sizeupvalues, ng + 2);
  assert_int_equal(c->nupvalues, nm + 2);
  /* main's come from the stack the runtime sets them in */
  assert_int_equal(m->upvalues[RW_COUNTER_UPVAL(nm)].instack, 1);
  assert_int_equal(m->upvalues[RW_CONSUME_UPVAL(nm)].instack, 1);
  /* a nested function captures its parent's two */
  assert_int_equal(f->upvalues[nf].instack, 0);
  assert_int_equal(f->upvalues[nf].idx, RW_COUNTER_UPVAL(nm));
  assert_int_equal(f->upvalues[nf + 1].idx, RW_CONSUME_UPVAL(nm));
  assert_int_equal(g->upvalues[ng].instack, 0);
  assert_int_equal(g->upvalues[ng].idx, RW_COUNTER_UPVAL(nf));
  assert_int_equal(g->upvalues[ng + 1].idx, RW_CONSUME_UPVAL(nf));
  /* named, since the chunk keeps names */
  assert_int_equal(g->sizeupnames, ng + 2);
  assert_string_equal(g->upnames[ng].data, "(lraf counter)");
  assert_string_equal(g->upnames[ng + 1].data, "(lraf consume)");
  assert_int_equal(rw_verify(c, &err), LRAF_OK);
  bc_chunk_free(c);
}

static void test_lravm_adds_no_upvalues(void **state) {
  bc_chunk *c = tutil_vm_read(nested, "=vm");
  bc_proto *m = c->main, *g = m->p[0]->p[0];
  int nm = m->sizeupvalues, ng = g->sizeupvalues;
  rw_options o;
  rw_stats st;
  lraf_error err;
  (void)state;
  rw_default_options(&o);
  o.target = RW_LRAVM;
  assert_int_equal(rw_rewrite(c, &o, &st, &err), LRAF_OK);
  assert_int_equal(st.functions, 3);
  assert_int_equal(m->sizeupvalues, nm);
  assert_int_equal(g->sizeupvalues, ng);
  assert_int_equal(rw_verify_target(c, RW_LRAVM, &err), LRAF_OK);
  bc_chunk_free(c);
}

/* A function that uses every register but one: lraf needs that one. */
static void test_register_limit(void **state) {
  bc_chunk *c = tutil_vm_read("local x = 1\nlocal function f()\n"
                              "  return x\nend\nreturn f", "=regs");
  rw_options o;
  lraf_error err;
  char want[128];
  (void)state;
  rw_default_options(&o);
  c->main->p[0]->maxstacksize = BC_MAXREGS - 1;
  assert_int_equal(rw_rewrite(c, &o, NULL, &err), LRAF_EREWRITE);
  snprintf(want, sizeof want, "function at regs:2 uses %d registers",
           BC_MAXREGS - 1);
  assert_non_null(strstr(err.message, want));
  bc_chunk_free(c);
}

/* A function with 254 upvalues (127 locals of each of two enclosing
   functions): on the stock target there is no room for two more; the
   lraf VM adds none. */
static void test_upvalue_limit(void **state) {
  char *src = malloc(16384), *p = src;
  bc_chunk *c;
  rw_options o;
  lraf_error err;
  int i;
  (void)state;
  assert_non_null(src);
  for (i = 0; i < 127; i++) p += sprintf(p, "local a%d = %d\n", i, i);
  p += sprintf(p, "local function mid()\n");
  for (i = 0; i < 127; i++) p += sprintf(p, "local b%d = %d\n", i, i);
  p += sprintf(p, "return function()\nreturn 0");
  for (i = 0; i < 127; i++) p += sprintf(p, "+a%d+b%d", i, i);
  sprintf(p, "\nend\nend\nreturn mid");
  c = tutil_vm_read(src, "=ups");
  assert_int_equal(c->main->p[0]->p[0]->sizeupvalues, 254);
  rw_default_options(&o);
  o.target = RW_STOCK;
  assert_int_equal(rw_rewrite(c, &o, NULL, &err), LRAF_EREWRITE);
  assert_non_null(strstr(err.message, "function at ups:256 has 254 "
                                      "upvalues; lraf adds two"));
  bc_chunk_free(c);
  c = tutil_vm_read(src, "=ups");
  o.target = RW_LRAVM;
  assert_int_equal(rw_rewrite(c, &o, NULL, &err), LRAF_OK);
  bc_chunk_free(c);
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bad_arguments),
    cmocka_unit_test(test_stock_upvalues),
    cmocka_unit_test(test_lravm_adds_no_upvalues),
    cmocka_unit_test(test_register_limit),
    cmocka_unit_test(test_upvalue_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
