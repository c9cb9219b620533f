/*
** test_pf_svg.c - profile/pf_svg.c: text escaped for XML; a hand-made
** tree of boxes laid out by pf_svg_flame (each box as wide as its
** units, on its parent, after its earlier siblings, at its depth, in
** the colour it was given; boxes of no width or below 0.1 pixel left
** out); a profile's flame graph with a box per context and its frame
** name; xmllint reads both.
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

static char *svg_text(const char *s, size_t max) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  pf_svg_text(f, s, max);
  fclose(f);
  return buf;
}

static void test_text(void **state) {
  static const struct { const char *in; size_t max; const char *out; } rows[] = {
    {"plain", 100, "plain"},
    {"a<b>&\"c'", 100, "a&lt;b&gt;&amp;&quot;c'"},
    {"tab\there\nnl\x7f\x01", 100, "tab?here?nl??"},
    {"caf\xc3\xa9", 100, "caf??"},
    {"truncated here", 9, "truncated"},
    {"<<<<", 2, "&lt;&lt;"},
    {"", 10, ""},
    {"abc", 0, ""},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char *got = svg_text(rows[i].in, rows[i].max);
    assert_string_equal(got, rows[i].out);
    free(got);
  }
}

/* A tree of 8 boxes: 0 the root; 6 has no width; 7 is too narrow to
   draw (1 unit of 100000). */
#define NB 8
static const int parent[NB] = {-1, 0, 0, 1, 1, 3, 2, 2};
static const int64_t width[NB] = {100000, 60000, 39999, 30000, 20000, 5000,
                                  0, 1};

static void describe(const void *ud, int i, char *name, size_t nsize,
                     char *info, size_t isize, int rgb[3]) {
  (void)ud;
  snprintf(name, nsize, "box<%d>", i);
  snprintf(info, isize, " (info %d)", i);
  rgb[0] = 10 * i;
  rgb[1] = 20 + i;
  rgb[2] = 255 - i;
}

static void test_flame_layout(void **state) {
  pf_flame F;
  tutil_box box[NB + 2];
  char *text = NULL, want[64];
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  double next[NB], o[NB];
  int depth[NB], i, n, k;
  (void)state;
  memset(&F, 0, sizeof F);
  F.title = "title & <more>";
  F.subtitle = "sub";
  F.n = NB;
  F.parent = parent;
  F.width = width;
  F.describe = describe;
  pf_svg_flame(&F, f);
  fclose(f);
  /* the layout worked out here: depth, and left edges siblings after
     siblings */
  for (i = 0; i < NB; i++) {
    depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1;
    o[i] = parent[i] < 0 ? 0 : next[parent[i]];
    if (parent[i] >= 0) next[parent[i]] += (double)width[i];
    next[i] = o[i];
  }
  n = tutil_pfcore_boxes(text, box, NB + 2);
  assert_int_equal(n, NB - 2);          /* 6 and 7 not drawn */
  for (i = 0, k = 0; i < NB; i++) {
    if (i == 6 || i == 7) continue;
    snprintf(want, sizeof want, "box&lt;%d&gt;", i);
    assert_string_equal(box[k].name, want);
    assert_int_equal(box[k].w, width[i]);
    assert_int_equal(box[k].d, depth[i]);
    assert_true(box[k].o == o[i]);
    assert_int_equal(box[k].rgb[0], 10 * i);
    assert_int_equal(box[k].rgb[1], 20 + i);
    assert_int_equal(box[k].rgb[2], 255 - i);
    snprintf(want, sizeof want, "<title>box&lt;%d&gt; (info %d)</title>", i,
             i);
    assert_non_null(strstr(text, want));
    k++;
  }
  assert_non_null(strstr(text, "title &amp; &lt;more&gt;"));
  if (tutil_pfcore_xmllint(text, len) == 0) fail_msg("xmllint:\n%s", text);
  free(text);
}

/* A profile's graph: one box per context with a count, named as its
   frame, as wide as its inclusive count. */
static void test_profile_svg(void **state) {
  pf_profile *P = tutil_pfcore_sample(100);
  size_t len;
  char *text = tutil_pfcore_write(P, PF_SVG, 0, &len), name[256];
  tutil_box box[16];
  int n = tutil_pfcore_boxes(text, box, 16), i;
  (void)state;
  assert_int_equal(n, P->nnode);
  assert_string_equal(box[0].name, "all");
  assert_int_equal(box[0].w, P->total);
  for (i = 1; i < P->nnode; i++) {
    char *esc;
    pf_frame_name(&P->fn[P->node[i].fn], name, sizeof name);
    esc = svg_text(name, sizeof name);
    assert_string_equal(box[i].name, esc);
    assert_int_equal(box[i].w, P->node[i].incl);
    free(esc);
  }
  assert_non_null(strstr(text, "lraf profile: m.lua"));
  if (tutil_pfcore_xmllint(text, len) == 0) fail_msg("xmllint:\n%s", text);
  free(text);
  pf_free(P);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_text),
    cmocka_unit_test(test_flame_layout),
    cmocka_unit_test(test_profile_svg),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
