/*
** test_rt_options.c - what lraf_options stand for (rt_options.c): the
** defaults, the rewriter options and cost-model id of every mode, the
** weights copied (a host may free its own), and options that are
** refused with a message saying which and why (a weighted mode without
** weights, a weight of 0 where a loop would run free, an unknown mode or
** VM, the lraf VM in a build for stock Lua).  lraf_new and lraf_rewrite
** give the same refusals.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "tutil_run.h"

static void test_defaults(void **state) {
  lraf_options o;
  (void)state;
  memset(&o, 0x5a, sizeof o);
  lraf_default_options(&o);
  assert_int_equal(o.mode, LRAF_MODE_ORIGINAL);
  assert_int_equal(o.exact, 0);
  assert_int_equal(o.granularity, LRAF_DEFAULT_GRANULARITY);
  assert_int_equal(o.env, LRAF_ENV_FULL);
  assert_int_equal(o.native, LRAF_NATIVE_AUTO);
  assert_int_equal(o.native_call, LRAF_NATIVE_CALL_DEFAULT);
  assert_int_equal(o.deterministic, LRAF_DETERMINISTIC_AUTO);
  assert_null(o.manager);
  assert_null(o.weights);
  assert_int_equal(o.memory_limit, 0);
  assert_int_equal(o.vm, LRAF_VM_DEFAULT);
  assert_int_equal(o.offline_key_len, 0);
}

static uint32_t ones[LRAF_NUM_OPCODES], twos[LRAF_NUM_OPCODES],
                free_jmp[LRAF_NUM_OPCODES];

static int setup(void **state) {
  int i;
  (void)state;
  for (i = 0; i < LRAF_NUM_OPCODES; i++) ones[i] = 1, twos[i] = 2;
  memcpy(free_jmp, ones, sizeof ones);
  free_jmp[BC_OP_JMP] = 0;
  return 0;
}

static const struct {
  lraf_mode mode;
  int exact;
  const uint32_t *weights;
  const char *model;   /* after the VM's part; NULL: refused */
  const char *error;   /* part of the message when refused */
} cases[] = {
  {LRAF_MODE_ORIGINAL, 0, NULL, "/original", NULL},
  {LRAF_MODE_ORIGINAL, 1, NULL, "/original/exact", NULL},
  {LRAF_MODE_OVERHEAD, 0, NULL, "/overhead", NULL},
  {LRAF_MODE_OVERHEAD, 1, NULL, "/overhead/exact", NULL},
  {LRAF_MODE_WEIGHTED, 0, ones, "/weighted/", NULL},
  {LRAF_MODE_WEIGHTED, 1, twos, "/weighted/", NULL},
  {LRAF_MODE_WEIGHTED, 0, NULL, NULL, "weighted mode needs weights"},
  {LRAF_MODE_WEIGHTED, 0, free_jmp, NULL, "JMP"},
  {(lraf_mode)7, 0, NULL, NULL, "unknown accounting mode 7"},
};

static void test_modes(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options o;
    rw_options rw;
    uint32_t w[LRAF_NUM_OPCODES];
    char model[96];
    lraf_error err;
    lraf_status st;
    lraf_default_options(&o);
    o.mode = cases[i].mode;
    o.exact = cases[i].exact;
    o.weights = cases[i].weights;
    st = rt_rw_options(&o, &rw, w, model, sizeof model, &err);
    if (cases[i].model == NULL) {
      assert_int_equal(st, LRAF_EARG);
      if (strstr(err.message, cases[i].error) == NULL)
        fail_msg("case %zu: %s", i, err.message);
      continue;
    }
    assert_int_equal(st, LRAF_OK);
    assert_int_equal(rw.exact, cases[i].exact);
    assert_int_equal(rw.target, RW_DEFAULT_TARGET);
    assert_int_equal(strncmp(model, TUTIL_VM, strlen(TUTIL_VM)), 0);
    if (cases[i].weights == NULL) {
      assert_string_equal(model + strlen(TUTIL_VM), cases[i].model);
      continue;
    }
    /* the weights are copied: the options' array may go */
    assert_ptr_equal(rw.weights, w);
    assert_memory_equal(w, cases[i].weights, sizeof w);
    assert_int_equal(strncmp(model + strlen(TUTIL_VM), cases[i].model,
                             strlen(cases[i].model)), 0);
  }
}

/* The weighted model id names the weights: equal tables, equal ids. */
static void test_weighted_ids(void **state) {
  const uint32_t *tabs[] = {ones, twos, ones};
  char model[3][96];
  int i;
  (void)state;
  for (i = 0; i < 3; i++) {
    lraf_options o;
    rw_options rw;
    uint32_t w[LRAF_NUM_OPCODES];
    lraf_error err;
    lraf_default_options(&o);
    o.mode = LRAF_MODE_WEIGHTED;
    o.weights = tabs[i];
    assert_int_equal(rt_rw_options(&o, &rw, w, model[i], sizeof model[i],
                                   &err), LRAF_OK);
  }
  assert_string_not_equal(model[0], model[1]);
  assert_string_equal(model[0], model[2]);
}

/* The VM: stock always, the lraf VM only in its build, nothing else;
   lraf_new and lraf_rewrite refuse what rt_rw_options refuses. */
static void test_vms(void **state) {
  static const struct {
    lraf_vm vm;
    int ok;  /* -1: only in the lraf VM's build */
    rw_target target;
  } vms[] = {
    {LRAF_VM_DEFAULT, 1, RW_DEFAULT_TARGET},
    {LRAF_VM_STOCK, 1, RW_STOCK},
    {LRAF_VM_LRAF, -1, RW_LRAVM},
    {(lraf_vm)9, 0, RW_STOCK},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof vms / sizeof vms[0]; i++) {
    lraf_options o;
    rw_options rw;
    uint32_t w[LRAF_NUM_OPCODES];
    char model[96], *out = NULL;
    size_t size = 0;
    lraf_state *S = NULL;
    lraf_error err;
    int ok = vms[i].ok < 0 ? lraf_vm_builtin() : vms[i].ok;
    lraf_status want = ok ? LRAF_OK : LRAF_EARG;
    lraf_default_options(&o);
    o.vm = vms[i].vm;
    assert_int_equal(rt_rw_options(&o, &rw, w, model, sizeof model, &err),
                     want);
    if (ok) assert_int_equal(rw.target, vms[i].target);
    else if (vms[i].vm == LRAF_VM_LRAF)
      assert_non_null(strstr(err.message, "stock Lua"));
    else assert_non_null(strstr(err.message, "unknown VM 9"));
    assert_int_equal(lraf_new(&o, &S, &err), want);
    lraf_close(S);
    assert_int_equal(lraf_rewrite(&o, "return 1", 8, "=x", (void **)&out,
                                  &size, &err), want);
    free(out);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_defaults),
    cmocka_unit_test(test_modes),
    cmocka_unit_test(test_weighted_ids),
    cmocka_unit_test(test_vms),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
