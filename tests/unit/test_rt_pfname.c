/*
** test_rt_pfname.c - what the profilers' collectors share
** (rt_pfname.c): functions named as debug.getinfo names them at their
** first call (globals, locals, fields, methods, an integer index,
** "function <SOURCE:LINE>" for none, "main chunk"), C functions as
** "[C] module.name" by the loaded module that holds them, Lua functions
** told apart by source and line, the host's C call not a frame (the
** root is the main chunk), and each thread's stack: a coroutine's
** frames under the create or wrap call that made it.  On both targets'
** collectors.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_prof.h"

static const char src[] =
  "function global_fn() return 1 end\n"
  "local function local_fn() return 2 end\n"
  "local t = {field = function() return 3 end}\n"
  "function t:method() return 4 end\n"
  "local anon = {function() return 5 end}\n"
  "global_fn() local_fn() t.field() t:method() anon[1]()\n"
  "local s = string.rep('x', 3)\n"
  "local function maker() return coroutine.wrap(\n"
  "  function() return global_fn() end) end\n"
  "maker()()\n"
  "pcall(function() return 6 end)\n";

static const struct {
  const char *name;
  const char *source;
  int line;  /* -1: a C function */
} names[] = {
  {"main chunk", "n", 0}, {"global_fn", "n", 1}, {"local_fn", "n", 2},
  {"t.field", "n", 3}, {"t:method", "n", 4}, {"integer index", "n", 5},
  {"string.rep", "[C]", -1}, {"maker", "n", 8}, {"function <n:9>", "n", 9},
  {"function <n:11>", "n", 11}, {"coroutine.wrap", "[C]", -1}, {"pcall", "[C]", -1},
};

static void test_names(void **state) {
  static const lraf_vm vms[] = {LRAF_VM_DEFAULT, LRAF_VM_STOCK};
  size_t v, i;
  (void)state;
  for (v = 0; v < 2; v++) {
    lraf_options opt;
    lraf_profile *P;
    lraf_profile_func first;
    lraf_default_options(&opt);
    opt.vm = vms[v];
    P = tutil_prof_run(&opt, src, "=n", NULL);
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
      lraf_profile_func f;
      if (!tutil_prof_find(P, names[i].name, names[i].line, &f))
        fail_msg("vm %zu: no %s", v, names[i].name);
      assert_string_equal(f.source, names[i].source);
      assert_int_equal(f.is_c, names[i].line < 0);
    }
    /* the host's C call is no frame: the main chunk comes first */
    assert_true(lraf_profile_function(P, 0, &first));
    assert_string_equal(first.name, "main chunk");
    lraf_profile_free(P);
  }
}

/* The coroutine's frames hang under the wrap call that made it. */
static void test_stacks(void **state) {
  lraf_profile *P = tutil_prof_run(NULL, src, "=n", NULL);
  char *folded = tutil_prof_text(P, "folded");
  (void)state;
  if (strstr(folded, "main chunk (n:0);maker (n:8);[C] coroutine.wrap;function <n:9> (n:9)") ==
      NULL)
    fail_msg("%s", folded);
  assert_non_null(strstr(folded, "main chunk (n:0);global_fn (n:1) "));
  free(folded);
  lraf_profile_free(P);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_stacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
