/*
** test_pf_json.c - profile/pf_json.c: a profile's JSON read back by
** pf_read_json, node for node; bad JSON refused with errors that say
** where and what; the extremes of int64 (UBSan found -INT64_MIN).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_pfcore.h"

static void test_roundtrip(void **state) {
  pf_profile *P = tutil_pfcore_sample(100);
  size_t len;
  char *text = tutil_pfcore_write(P, PF_JSON, 0, &len);
  pf_read r;
  lraf_error err;
  int i;
  (void)state;
  if (pf_read_json(text, len, "t.json", &r, &err) != LRAF_OK)
    fail_msg("%s\n%s", err.message, text);
  assert_string_equal(r.model, "test/model");
  assert_int_equal(r.total, 215);
  assert_int_equal(r.n, 3);
  assert_string_equal(r.e[0].frame, "main chunk (m.lua:0)");
  assert_int_equal(r.e[0].self, 10);
  assert_string_equal(r.e[2].frame, "g \"quoted\"\n\x01\xff (m.lua:7)");
  assert_int_equal(r.e[2].self, 200);
  /* the tree, node for node */
  assert_int_equal(r.nt, P->nnode);
  for (i = 0; i < r.nt; i++) {
    assert_int_equal(r.t[i].fn, P->node[i].fn);
    assert_int_equal(r.t[i].parent, i == 0 ? -1 : P->node[i].parent);
    assert_int_equal(r.t[i].self, P->node[i].self);
    assert_int_equal(r.t[i].incl, P->node[i].incl);
    assert_int_equal(r.t[i].calls, P->node[i].calls);
  }
  pf_read_free(&r);
  free(text);
  pf_free(P);
}

static void bad(const char *text, const char *what) {
  pf_read r;
  lraf_error err;
  memset(&err, 0, sizeof err);
  if (pf_read_json(text, strlen(text), "x.json", &r, &err) != LRAF_EFORMAT)
    fail_msg("accepted: %s", text);
  assert_int_equal(err.code, LRAF_EFORMAT);
  if (strstr(err.message, what) == NULL ||
      strncmp(err.message, "x.json: byte ", 13) != 0)
    fail_msg("for %s: message '%s' lacks '%s'", text, err.message, what);
  assert_null(r.e);
}

static void test_bad_input(void **state) {
  char deep[400];
  int i;
  (void)state;
  bad("", "expected '{'");
  bad("[]", "expected '{'");
  bad("{", "expected '\"'");
  bad("{\"format\": \"lraf-profile\"", "expected '}'");
  bad("{\"format\": \"other\", \"total\": 1, \"functions\": []}",
      "not an lraf profile");
  bad("{\"total\": 1, \"functions\": []}", "not an lraf profile");
  bad("{\"format\": \"lraf-profile\", \"total\": 1.5, \"functions\": []}",
      "\"total\" must be an integer");
  bad("{\"format\": \"lraf-profile\", \"total\": 99999999999999999999, "
      "\"functions\": []}", "\"total\" must be an integer");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": 3, \"self\": 1}]}", "expected '\"'");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"self\": 1}]}", "needs \"frame\" and \"self\"");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": \"a\\u00\", \"self\": 1}]}", "bad \\u escape");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": \"a\\u0000\", \"self\": 1}]}", "\\u0000");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": \"a\\q\", \"self\": 1}]}", "bad escape");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": \"a\tb\", \"self\": 1}]}", "control character");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": [],"
      " \"x\": tru}", "expected a value");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": [],"
      " \"x\": 1.}", "digit after '.'");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": [],"
      " \"x\": 1e}", "exponent");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": []} x",
      "text after");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": [], "
      "\"tree\": [{\"function\": 0, \"parent\": -1}]}", "tree node 0");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": \"a\", \"self\": 1}], \"tree\": [{\"function\": -1, "
      "\"parent\": -1}, {\"function\": 0, \"parent\": 1}]}", "tree node 1");
  bad("{\"tree\": [{\"function\": -1, \"parent\": -1}, {\"function\": 1, "
      "\"parent\": 0}], \"format\": \"lraf-profile\", \"total\": 1, "
      "\"functions\": [{\"frame\": \"a\", \"self\": 1}]}", "tree node 1");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": [], "
      "\"tree\": [{\"parent\": -1}]}", "needs \"function\" and \"parent\"");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": [], "
      "\"tree\": [{\"function\": -1, \"parent\": -1, \"self\": -3}]}",
      "\"self\" must be an integer");
  bad("{\"format\": \"lraf-profile\", \"total\": 1, \"functions\": "
      "[{\"frame\": \"abc", "unterminated string");
  memset(deep, '[', sizeof deep - 1);
  deep[sizeof deep - 1] = '\0';
  memcpy(deep, "{\"x\": ", 6);
  bad(deep, "nested more than 64 deep");
  /* every prefix of a good profile is refused, and never read past */
  {
    pf_profile *P = tutil_pfcore_sample(3);
    size_t len;
    char *text = tutil_pfcore_write(P, PF_JSON, 0, &len);
    for (i = 0; (size_t)i < len - 1; i++) {
      pf_read r;
      lraf_error err;
      char *copy = malloc((size_t)i + 1);
      assert_non_null(copy);
      memcpy(copy, text, (size_t)i);
      assert_int_equal(pf_read_json(copy, (size_t)i, "p", &r, &err),
                       LRAF_EFORMAT);
      free(copy);
    }
    free(text);
    pf_free(P);
  }
}

/* A total of INT64_MIN negated INT64_MIN (UBSan); duplicate frames of
   INT64_MAX each overflowed their sum in pf_diff. */
static void test_int64_extremes(void **state) {
  static const char dup[] = "{\"format\": \"lraf-profile\", \"total\": 1, "
      "\"functions\": [{\"frame\": \"a\", \"self\": 9223372036854775807},"
      " {\"frame\": \"a\", \"self\": 9223372036854775807}]}";
  pf_read a;
  pf_diff d;
  lraf_error err;
  (void)state;
  bad("{\"format\": \"lraf-profile\", \"total\": -9223372036854775808, "
      "\"functions\": []}", "\"total\" must be an integer of at least 0");
  bad("{\"format\": \"lraf-profile\", \"total\": -9223372036854775809, "
      "\"functions\": []}", "\"total\" must be an integer");
  {
    static const char other[] = "{\"format\": \"lraf-profile\", \"total\": "
        "1, \"functions\": [], \"x\": -9223372036854775808}";
    assert_int_equal(pf_read_json(other, strlen(other), "o", &a, &err),
                     LRAF_OK);
    pf_read_free(&a);
  }
  assert_int_equal(pf_read_json(dup, strlen(dup), "d", &a, &err), LRAF_OK);
  assert_int_equal(pf_diff_make(&a, &a, &d, &err), LRAF_OK);
  assert_int_equal(d.n, 1);
  assert_true(d.row[0].before == INT64_MAX && d.row[0].after == INT64_MAX);
  pf_diff_free(&d);
  pf_read_free(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_int64_extremes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
