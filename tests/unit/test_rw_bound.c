/*
** test_rw_bound.c - declared costs (rw_bound.c) read from
** rw_bound_chunk's results on small chunks: every function listed in
** pre-order with its parent, name, line and whether the chunk makes it
** a global or returns it (a lraf serve handler); a loop of constant trip
** count multiplies its body (ten more trips add a multiple of ten); a
** call to a closure of the chunk adds the callee's bound; what cannot
** be bounded (a while loop, recursion, a call of an unknown function)
** says why and on which line.  (test_rt_bound checks the bounds against
** measured runs through lraf_bound.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw_bound.h"
#include "tutil_vm.h"

static const char src[] =
    "local function handler(x) return x end\n"  /* the first local */
    "function ten() local s = 0 for i = 1, 10 do s = s + i end return s end\n"
    "function twenty() local s = 0\n"
    "  for i = 1, 20 do s = s + i end return s end\n"
    "function leaf(a) return a * 2 end\n"
    "function caller(a) return leaf(a) + 1 end\n"
    "function spin(n) while n > 0 do n = n - 1 end return n end\n"
    "function rec(n) if n > 0 then return rec(n - 1) end return 0 end\n"
    "function unknown(f) return f() end\n"
    "return handler\n";

static const rw_bound_fn *named(const rw_bound_result *r, const char *name) {
  int i;
  for (i = 0; i < r->n; i++)
    if (strcmp(r->fn[i].name, name) == 0) return &r->fn[i];
  fail_msg("no function %s", name);
  return NULL;
}

static void test_functions_listed(void **state) {
  bc_chunk *c = tutil_vm_read(src, "=bound");
  rw_bound_result r;
  lraf_error err;
  int i;
  (void)state;
  assert_int_equal(rw_bound_chunk(c, &r, &err), LRAF_OK);
  assert_int_equal(r.n, 1 + c->main->sizep);
  assert_ptr_equal(r.fn[0].f, c->main);
  assert_int_equal(r.fn[0].parent, -1);
  for (i = 1; i < r.n; i++) {  /* main's children, in order */
    assert_int_equal(r.fn[i].parent, 0);
    assert_int_equal(r.fn[i].child, i - 1);
    assert_ptr_equal(r.fn[i].f, c->main->p[i - 1]);
    assert_int_equal(r.fn[i].line, c->main->p[i - 1]->linedefined);
  }
  assert_true(named(&r, "ten")->global);
  assert_false(named(&r, "handler")->global);
  assert_true(named(&r, "handler")->returned);
  assert_false(named(&r, "ten")->returned);
  rw_bound_free(&r);
  bc_chunk_free(c);
}

static void test_bounds(void **state) {
  bc_chunk *c = tutil_vm_read(src, "=bound");
  rw_bound_result r;
  lraf_error err;
  const rw_bound_fn *ten, *twenty, *leaf, *caller;
  (void)state;
  assert_int_equal(rw_bound_chunk(c, &r, &err), LRAF_OK);
  ten = named(&r, "ten");
  twenty = named(&r, "twenty");
  leaf = named(&r, "leaf");
  caller = named(&r, "caller");
  assert_true(ten->bounded && twenty->bounded);
  assert_false(ten->loopfree);
  /* the same code with twice the trips: ten more turns of the body */
  assert_true(twenty->bound > ten->bound);
  assert_int_equal((twenty->bound - ten->bound) % 10, 0);
  assert_true(twenty->bound - ten->bound <= ten->bound);
  assert_true(leaf->bounded && leaf->loopfree);
  assert_true(leaf->metamethods);  /* its MUL may call one */
  assert_true(caller->bounded && caller->loopfree);
  assert_true(caller->bound > leaf->bound);  /* the callee's included */
  rw_bound_free(&r);
  bc_chunk_free(c);
}

static void test_unbounded_say_why(void **state) {
  static const struct { const char *name; int line; } want[] = {
    {"spin", 7}, {"rec", 8}, {"unknown", 9}};
  bc_chunk *c = tutil_vm_read(src, "=bound");
  rw_bound_result r;
  lraf_error err;
  size_t i;
  (void)state;
  assert_int_equal(rw_bound_chunk(c, &r, &err), LRAF_OK);
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    const rw_bound_fn *fn = named(&r, want[i].name);
    if (fn->bounded) fail_msg("%s is bounded", want[i].name);
    assert_true(strlen(fn->reason) > 0);
    assert_int_equal(fn->reason_line, want[i].line);
  }
  rw_bound_free(&r);
  bc_chunk_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_functions_listed),
    cmocka_unit_test(test_bounds),
    cmocka_unit_test(test_unbounded_say_why),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
