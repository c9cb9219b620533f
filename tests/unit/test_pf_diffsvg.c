/*
** test_pf_diffsvg.c - profile/pf_diffsvg.c: the differential flame
** graph of two hand-made profiles.  It has the second profile's shape
** (a box per context, as wide as its inclusive count), each box
** coloured by the change of its context's self count: red when it
** grew, blue when it shrank, grey when it stayed, deeper for a larger
** change, "new here" for a context the first profile lacks.  A profile
** without a tree is drawn as its functions under the root.  xmllint
** reads it.
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

/* main (10) -> f (fs) -> g (g1); main -> g (g2); main -> h (hs, when
   hs > 0).  Nodes: root, main, f, f/g, main/g[, main/h]. */
static pf_profile *build(int64_t fs, int64_t g1, int64_t g2, int64_t hs) {
  static const char fr[4] = {0};
  pf_profile *P = pf_new("test/model");
  int m = pf_func_id(P, "m.lua", 0, "main chunk", 0);
  int f = pf_func_id(P, "m.lua", 3, "f", 0);
  int g = pf_func_id(P, "m.lua", 7, "g<&>", 0);
  int s = pf_stack_id(P, P, 0);
  pf_enter(P, s, m, &fr[0]);
  pf_charge(P, pf_top(P, s), 10);
  pf_enter(P, s, f, &fr[1]);
  pf_charge(P, pf_top(P, s), fs);
  pf_enter(P, s, g, &fr[2]);
  pf_charge(P, pf_top(P, s), g1);
  pf_leave(P, s);
  pf_leave(P, s);
  pf_enter(P, s, g, &fr[1]);
  pf_charge(P, pf_top(P, s), g2);
  pf_leave(P, s);
  if (hs > 0) {
    pf_enter(P, s, pf_func_id(P, "n.lua", 1, "h", 0), &fr[3]);
    pf_charge(P, pf_top(P, s), hs);
    pf_leave(P, s);
  }
  pf_leave(P, s);
  pf_finish(P);
  return P;
}

static char *diff_svg(const pf_read *a, const pf_read *b, size_t *len) {
  pf_diff d;
  lraf_error err;
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  assert_non_null(f);
  assert_int_equal(pf_diff_make(a, b, &d, &err), LRAF_OK);
  pf_diff_svg(a, b, &d, "before.json", "after<1>.json", f);
  fclose(f);
  pf_diff_free(&d);
  return text;
}

enum { SAME, GREW, SHRANK };

static int kind(const tutil_box *b) {
  if (b->rgb[0] == 225 && b->rgb[1] == 225 && b->rgb[2] == 225) return SAME;
  if (b->rgb[0] == 255 && b->rgb[1] == b->rgb[2] && b->rgb[1] < 225)
    return GREW;
  if (b->rgb[2] == 255 && b->rgb[0] == b->rgb[1] && b->rgb[0] < 225)
    return SHRANK;
  fail_msg("box %s has colour %d,%d,%d", b->name, b->rgb[0], b->rgb[1],
           b->rgb[2]);
  return -1;
}

static void test_colours(void **state) {
  /* f shrinks by 3, f/g grows by 30, main/g by 1, main/h is new (40);
     main stays */
  pf_profile *A = build(5, 100, 100, 0), *B = build(2, 130, 101, 40);
  static const int want[] = {SAME, SAME, SHRANK, GREW, GREW, GREW};
  pf_read a, b;
  size_t len;
  char *text;
  tutil_box box[8];
  int n, i;
  (void)state;
  tutil_pfcore_read(A, "a", &a);
  tutil_pfcore_read(B, "b", &b);
  text = diff_svg(&a, &b, &len);
  n = tutil_pfcore_boxes(text, box, 8);
  assert_int_equal(n, B->nnode);
  for (i = 0; i < n; i++) {
    assert_int_equal(kind(&box[i]), want[i]);
    assert_int_equal(box[i].w, i == 0 ? B->total : B->node[i].incl);
  }
  assert_string_equal(box[0].name, "all");
  assert_string_equal(box[3].name, "g&lt;&amp;&gt; (m.lua:7)");
  /* deeper for larger: |+1| < |-3| < |+30| < |+40| */
  assert_true(box[4].rgb[1] > box[2].rgb[0]);
  assert_true(box[2].rgb[0] > box[3].rgb[1]);
  assert_true(box[3].rgb[1] > box[5].rgb[1]);
  assert_non_null(strstr(text, "h (n.lua:1) (after 40, before 0; self 0 -&gt; "
                               "40, +40, new here)"));
  assert_non_null(strstr(text, "lraf diff: before.json -&gt; after&lt;1&gt;"
                               ".json"));
  if (tutil_pfcore_xmllint(text, len) == 0) fail_msg("xmllint:\n%s", text);
  free(text);
  /* the same profile twice: all grey */
  text = diff_svg(&a, &a, &len);
  n = tutil_pfcore_boxes(text, box, 8);
  assert_int_equal(n, A->nnode);
  for (i = 0; i < n; i++) assert_int_equal(kind(&box[i]), SAME);
  free(text);
  pf_read_free(&a);
  pf_read_free(&b);
  pf_free(A);
  pf_free(B);
}

/* A profile written by hand, with functions and no tree. */
static void test_flat(void **state) {
  static const char ta[] = "{\"format\": \"lraf-profile\", \"total\": 30, "
    "\"functions\": [{\"frame\": \"p\", \"self\": 10}, "
    "{\"frame\": \"q\", \"self\": 20}]}";
  static const char tb[] = "{\"format\": \"lraf-profile\", \"total\": 45, "
    "\"functions\": [{\"frame\": \"q\", \"self\": 5}, "
    "{\"frame\": \"p\", \"self\": 10}, {\"frame\": \"r\", \"self\": 30}]}";
  static const int want[] = {SAME, SHRANK, SAME, GREW};
  static const char *const names[] = {"all", "q", "p", "r"};
  pf_read a, b;
  lraf_error err;
  size_t len;
  char *text;
  tutil_box box[8];
  int n, i;
  (void)state;
  assert_int_equal(pf_read_json(ta, strlen(ta), "a", &a, &err), LRAF_OK);
  assert_int_equal(pf_read_json(tb, strlen(tb), "b", &b, &err), LRAF_OK);
  text = diff_svg(&a, &b, &len);
  n = tutil_pfcore_boxes(text, box, 8);
  assert_int_equal(n, b.n + 1);
  for (i = 0; i < n; i++) {
    assert_string_equal(box[i].name, names[i]);
    assert_int_equal(kind(&box[i]), want[i]);
    assert_int_equal(box[i].d, i == 0 ? 0 : 1);
    assert_int_equal(box[i].w, i == 0 ? b.total : b.e[i - 1].self);
  }
  free(text);
  pf_read_free(&a);
  pf_read_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_colours),
    cmocka_unit_test(test_flat),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
