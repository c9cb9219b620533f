/*
** test_rt_bound.c - lraf_bound (rt_bound.c): the declared cost of a
** branch-free function without arithmetic is what one call of it runs
** (lraf.measure); of arithmetic (whose metamethod fallbacks count) and
** of a loop of constant trip count, at least that; a function without
** a bound says why and where; the three formats (table, JSON,
** contract) carry the same numbers; source text and its binary chunk
** give the same text; bad formats, rewritten chunks and syntax errors
** are refused with a message.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "tutil_rt.h"

static const char src[] =
  "function straight(a, b)\n"
  "  local c = {a, b, a}\n"
  "  return c, #c, b\n"
  "end\n"
  "function looping(n)\n"
  "  local s = 0\n"
  "  for i = 1, 10 do s = s + i * n end\n"
  "  return s\n"
  "end\n"
  "function forever()\n"
  "  while true do end\n"
  "end\n"
  "function arith(a, b) local c = a * b + 1 return c - a end\n";

static char *bound(const void *data, size_t size, const char *format) {
  char *out;
  size_t len;
  lraf_error err;
  if (lraf_bound(data, size, "=b", format, &out, &len, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  assert_int_equal(strlen(out), len);
  return out;
}

/* A function's number in the contract, or -1. */
static long long contract_of(const char *contract, const char *fn) {
  char key[64];
  const char *p;
  snprintf(key, sizeof key, "%s ", fn);
  for (p = contract; (p = strstr(p, key)) != NULL; p++)
    if (p == contract || p[-1] == '\n') return atoll(p + strlen(key));
  return -1;
}

/* What one call runs, measured by lraf in the original cost model. */
static long long measured(const char *call) {
  char prog[1024];
  lraf_error err;
  char *out;
  long long n;
  snprintf(prog, sizeof prog, "%s\nprint((require('lraf').measure(%s)))",
           src, call);
  if (tutil_rt_once(NULL, prog, &err, &out) != LRAF_OK)
    fail_msg("%s", err.message);
  n = atoll(out);
  free(out);
  return n;
}

static void test_bounds_hold(void **state) {
  char *contract = bound(src, strlen(src), "contract");
  char *table = bound(src, strlen(src), "table");
  long long straight = contract_of(contract, "straight");
  long long looping = contract_of(contract, "looping");
  (void)state;
  assert_true(straight > 0);
  assert_int_equal(straight, measured("straight, 3, 4"));
  /* arithmetic: the bound counts the metamethod fallbacks too */
  assert_true(contract_of(contract, "arith") >= measured("arith, 3, 4"));
  assert_true(looping >= measured("looping, 2"));
  assert_true(looping > 10 * 3);
  assert_int_equal(contract_of(contract, "forever"), -1);
  assert_non_null(strstr(table, "unbounded: "));
  assert_non_null(strstr(table, " at line 11"));
  assert_non_null(strstr(table, "(loops)"));
  free(contract);
  free(table);
}

/* The formats agree, and a binary chunk bounds as its source. */
static void test_formats_and_inputs(void **state) {
  static const char *const formats[] = {"table", "json", "contract"};
  char *dump, num[32];
  size_t dsize, i;
  lraf_error err;
  char *contract = bound(src, strlen(src), "contract");
  (void)state;
  snprintf(num, sizeof num, "%lld", contract_of(contract, "straight"));
  assert_int_equal(rt_compile(src, strlen(src), "=b", 0, &dump, &dsize,
                              &err), LRAF_OK);
  for (i = 0; i < 3; i++) {
    char *a = bound(src, strlen(src), formats[i]);
    char *b = bound(dump, dsize, formats[i]);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, num));
    free(a);
    free(b);
  }
  {
    char *json = bound(src, strlen(src), "json");
    char *dflt = bound(src, strlen(src), NULL);
    char *table = bound(src, strlen(src), "table");
    assert_int_equal(json[0], '{');
    assert_non_null(strstr(json, "\"straight\""));
    assert_string_equal(dflt, table);
    free(json);
    free(dflt);
    free(table);
  }
  free(dump);
  free(contract);
}

static void test_refused(void **state) {
  lraf_options o;
  void *rewritten;
  size_t size, len;
  char *out;
  lraf_error err;
  (void)state;
  assert_int_equal(lraf_bound(src, strlen(src), "=b", "xml", &out, &len,
                              &err), LRAF_EARG);
  assert_string_equal(err.message, "lraf_bound: unknown format 'xml' "
                                   "(table, json or contract)");
  lraf_default_options(&o);
  assert_int_equal(lraf_rewrite(&o, src, strlen(src), "=b", &rewritten,
                                &size, &err), LRAF_OK);
  assert_int_equal(lraf_bound(rewritten, size, "r.luac", NULL, &out, &len,
                              &err), LRAF_EARG);
  assert_string_equal(err.message, "lraf_bound: r.luac is a rewritten "
                                   "chunk; bound its source");
  free(rewritten);
  assert_int_equal(lraf_bound("x = = 1", 7, "=s", NULL, &out, &len, &err),
                   LRAF_ESYNTAX);
  assert_int_equal(lraf_bound(NULL, 0, "=s", NULL, &out, &len, &err),
                   LRAF_EARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bounds_hold),
    cmocka_unit_test(test_formats_and_inputs),
    cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
