/*
** test_pf_diff.c - profile/pf_diff.c: two profiles compared function by
** function.  Counts before and after per row, rows sorted by absolute
** change; functions matched by name and file, not line (moved ones,
** anonymous ones in line order, a file in a new directory, C
** functions); each entry's row; the similarity against the weighted
** cosine worked out here; percentages; the public lraf_profile_diff_*
** over the same.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_pfcore.h"

static void test_diff(void **state) {
  pf_profile *A = tutil_pfcore_sample(100), *B = tutil_pfcore_sample(130);
  size_t la, lb;
  char *ta = tutil_pfcore_write(A, PF_JSON, 0, &la),
       *tb = tutil_pfcore_write(B, PF_JSON, 0, &lb);
  pf_read a, b;
  pf_diff d;
  lraf_error err;
  (void)state;
  assert_int_equal(pf_read_json(ta, la, "a", &a, &err), LRAF_OK);
  assert_int_equal(pf_read_json(tb, lb, "b", &b, &err), LRAF_OK);
  assert_int_equal(pf_diff_make(&a, &a, &d, &err), LRAF_OK);
  assert_true(d.similarity > 0.999999 && d.similarity < 1.000001);
  assert_int_equal(d.row[0].before, d.row[0].after);
  pf_diff_free(&d);
  assert_int_equal(pf_diff_make(&a, &b, &d, &err), LRAF_OK);
  assert_int_equal(d.n, 3);
  assert_non_null(strstr(d.row[0].frame, "(m.lua:7)"));  /* g changed */
  assert_int_equal(d.row[0].before, 200);
  assert_int_equal(d.row[0].after, 260);
  assert_int_equal(d.before, 215);
  assert_int_equal(d.after, 275);
  assert_true(d.similarity < 1.0 && d.similarity > 0.9);
  pf_diff_free(&d);
  pf_read_free(&a);
  pf_read_free(&b);
  free(ta);
  free(tb);
  pf_free(A);
  pf_free(B);
}

/* A JSON profile of functions "NAME|SOURCE|LINE|SELF" (SOURCE "" for
   a C function). */
static char *profile_text(const char *const *fns) {
  static char buf[4096];
  size_t k;
  int i;
  k = (size_t)snprintf(buf, sizeof buf, "{\"format\": \"lraf-profile\", "
                       "\"model\": \"m\", \"total\": 0, \"functions\": [");
  for (i = 0; fns[i] != NULL; i++) {
    char name[64], source[64];
    int line;
    long self;
    assert_int_equal(sscanf(fns[i], "%63[^|]|%63[^|]|%d|%ld", name, source,
                            &line, &self), 4);
    if (strcmp(source, "-") == 0) source[0] = '\0';
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s{\"frame\": "
        "\"%s@%s:%d\", \"name\": \"%s\", \"source\": \"%s\", \"line\": %d, "
        "\"c\": %s, \"self\": %ld}", i ? ", " : "", name, source, line,
        name, source[0] ? source : "[C]", line, source[0] ? "false" : "true",
        self);
  }
  snprintf(buf + k, sizeof buf - k, "]}");
  return buf;
}

static const pf_diffrow *row_of(const pf_diff *d, const char *frame) {
  int i;
  for (i = 0; i < d->n; i++)
    if (strcmp(d->row[i].frame, frame) == 0) return &d->row[i];
  fail_msg("no row %s", frame);
  return NULL;
}

/* Functions are matched by name and file, not line: moved functions,
   anonymous ones paired in line order, one of two same-named functions
   removed, a file followed to a new directory, a C function. */
static void test_diff_matching(void **state) {
  static const char *const fa[] = {
    "f|a/x.lua|10|100", "?|a/x.lua|20|5", "?|a/x.lua|30|7",
    "m|a/x.lua|40|11", "m|a/x.lua|50|13", "m|a/x.lua|60|17",
    "string.rep|-|-1|3", "gone|a/x.lua|70|1", NULL};
  static const char *const fb[] = {
    "f|b/x.lua|12|100", "?|b/x.lua|22|5", "function <b/x.lua:32>|b/x.lua|32|7",
    "m|b/x.lua|42|11", "m|b/x.lua|62|17", "string.rep|-|-1|3",
    "new|b/x.lua|80|2", NULL};
  pf_read a, b;
  pf_diff d;
  lraf_error err;
  char *ta = strdup(profile_text(fa)), *tb = strdup(profile_text(fb));
  const pf_diffrow *r;
  (void)state;
  assert_int_equal(pf_read_json(ta, strlen(ta), "a", &a, &err), LRAF_OK);
  assert_int_equal(pf_read_json(tb, strlen(tb), "b", &b, &err), LRAF_OK);
  assert_int_equal(pf_diff_make(&a, &b, &d, &err), LRAF_OK);
  assert_int_equal(d.n, 9);
  r = row_of(&d, "f@b/x.lua:12");
  assert_true(r->before == 100 && r->after == 100 && r->line_before == 10);
  r = row_of(&d, "?@b/x.lua:22");
  assert_true(r->before == 5 && r->line_before == 20);
  r = row_of(&d, "function <b/x.lua:32>@b/x.lua:32");
  assert_true(r->before == 7 && r->line_before == 30);
  r = row_of(&d, "m@b/x.lua:42");
  assert_true(r->before == 11 && r->line_before == 40);
  r = row_of(&d, "m@b/x.lua:62");
  assert_true(r->before == 17 && r->line_before == 60);
  r = row_of(&d, "m@a/x.lua:50");
  assert_true(r->in_before && !r->in_after && r->before == 13);
  r = row_of(&d, "string.rep@:-1");
  assert_true(r->before == 3 && r->after == 3);
  r = row_of(&d, "new@b/x.lua:80");
  assert_true(!r->in_before && r->after == 2);
  r = row_of(&d, "gone@a/x.lua:70");
  assert_true(!r->in_after && r->before == 1);
  assert_string_equal(d.row[0].frame, "m@a/x.lua:50");  /* largest change */
  pf_diff_free(&d);
  assert_int_equal(pf_diff_make(&a, &a, &d, &err), LRAF_OK);
  assert_true(d.similarity == 1.0);  /* exactly */
  pf_diff_free(&d);
  pf_read_free(&a);
  pf_read_free(&b);
  free(ta);
  free(tb);
}

/* Sorted by absolute change, then by count after; each entry of a and
   b has the row that holds it. */
static void check_rows(const pf_read *a, const pf_read *b, const pf_diff *d) {
  int i;
  for (i = 1; i < d->n; i++) {
    int64_t c0 = llabs(d->row[i - 1].after - d->row[i - 1].before);
    int64_t c1 = llabs(d->row[i].after - d->row[i].before);
    assert_true(c0 > c1 ||
                (c0 == c1 && d->row[i - 1].after >= d->row[i].after));
  }
  for (i = 0; i < a->n; i++) {
    const pf_diffrow *r = &d->row[d->arow[i]];
    assert_true(r->in_before);
    assert_true(r->before >= a->e[i].self);
  }
  for (i = 0; i < b->n; i++) {
    const pf_diffrow *r = &d->row[d->brow[i]];
    assert_true(r->in_after);
    assert_true(r->after >= b->e[i].self);
  }
  /* the totals are the profiles' own (a hand-made one says 0) */
  assert_int_equal(d->before, a->total);
  assert_int_equal(d->after, b->total);
}

/* The similarity is the cosine of the rows' counts, each weighted by
   1 + ln(2 / number of profiles that ran the function). */
static double cosine_here(const pf_diff *d) {
  double dot = 0, qa = 0, qb = 0;
  int i;
  for (i = 0; i < d->n; i++) {
    double w = 1 + log(2.0 / ((d->row[i].before > 0) + (d->row[i].after > 0)));
    dot += (double)d->row[i].before * (double)d->row[i].after * w * w;
    qa += (double)d->row[i].before * (double)d->row[i].before * w * w;
    qb += (double)d->row[i].after * (double)d->row[i].after * w * w;
  }
  return dot / sqrt(qa) / sqrt(qb);
}

static void test_similarity(void **state) {
  static const char *const sets[][5] = {
    {"f|x.lua|1|100", "g|x.lua|5|50", NULL},
    {"f|x.lua|1|100", "g|x.lua|5|80", NULL},
    {"f|x.lua|1|10", "h|y.lua|2|300", "g|x.lua|5|50", NULL},
    {"k|z.lua|1|100", NULL},
    {"f|x.lua|1|100", "g|x.lua|5|50", "string.rep|-|-1|20", NULL},
  };
  size_t i, j, n = sizeof sets / sizeof sets[0];
  (void)state;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      char *ta = strdup(profile_text(sets[i])), *tb = strdup(profile_text(sets[j]));
      pf_read a, b;
      pf_diff d;
      lraf_error err;
      assert_int_equal(pf_read_json(ta, strlen(ta), "a", &a, &err), LRAF_OK);
      assert_int_equal(pf_read_json(tb, strlen(tb), "b", &b, &err), LRAF_OK);
      assert_int_equal(pf_diff_make(&a, &b, &d, &err), LRAF_OK);
      check_rows(&a, &b, &d);
      if (i == j) assert_true(d.similarity == 1.0);
      else assert_true(fabs(d.similarity - cosine_here(&d)) < 1e-12);
      assert_true(d.similarity >= 0 && d.similarity <= 1.0);
      pf_diff_free(&d);
      pf_read_free(&a);
      pf_read_free(&b);
      free(ta);
      free(tb);
    }
}

static void test_percent(void **state) {
  static const struct { int64_t before, after; double want; } rows[] = {
    {200, 260, 30.0}, {100, 50, -50.0}, {5, 0, -100.0}, {0, 0, 0.0},
    {7, 7, 0.0}, {3, 4, 100.0 / 3}, {INT64_MAX, INT64_MAX, 0.0},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    assert_true(fabs(pf_diff_percent(rows[i].before, rows[i].after) -
                     rows[i].want) < 1e-9);
    assert_true(lraf_profile_change_percent(rows[i].before, rows[i].after) ==
                pf_diff_percent(rows[i].before, rows[i].after));
  }
  assert_true(isinf(pf_diff_percent(0, 5)) && pf_diff_percent(0, 5) > 0);
}

/* The public API gives the same rows and refuses bad input. */
static void test_public(void **state) {
  pf_profile *A = tutil_pfcore_sample(100), *B = tutil_pfcore_sample(130);
  size_t la, lb;
  char *ta = tutil_pfcore_write(A, PF_JSON, 0, &la);
  char *tb = tutil_pfcore_write(B, PF_JSON, 0, &lb);
  lraf_profile_diff *D;
  lraf_profile_change ch;
  pf_read a, b;
  pf_diff d;
  lraf_error err;
  int i;
  (void)state;
  assert_int_equal(lraf_profile_diff_new(ta, la, "a.json", tb, lb, "b.json",
                                         &D, &err), LRAF_OK);
  tutil_pfcore_read(A, "a", &a);
  tutil_pfcore_read(B, "b", &b);
  assert_int_equal(pf_diff_make(&a, &b, &d, &err), LRAF_OK);
  assert_int_equal(lraf_profile_diff_rows(D), d.n);
  for (i = 0; i < d.n; i++) {
    assert_int_equal(lraf_profile_diff_row(D, i, &ch), 1);
    assert_string_equal(ch.frame, d.row[i].frame);
    assert_int_equal(ch.before, d.row[i].before);
    assert_int_equal(ch.after, d.row[i].after);
  }
  assert_int_equal(lraf_profile_diff_row(D, d.n, &ch), 0);
  assert_int_equal(lraf_profile_diff_row(D, -2, &ch), 0);
  assert_int_equal(lraf_profile_diff_row(D, -1, &ch), 1);
  assert_string_equal(ch.frame, "(total)");
  assert_int_equal(ch.before, A->total);
  assert_int_equal(ch.after, B->total);
  assert_true(lraf_profile_diff_similarity(D) == d.similarity);
  assert_string_equal(lraf_profile_diff_model(D, 1), "test/model");
  lraf_profile_diff_free(D);
  assert_int_equal(lraf_profile_diff_new(ta, la, "a.json", "{}", 2, "bad.json",
                                         &D, &err), LRAF_EFORMAT);
  assert_null(D);
  assert_non_null(strstr(err.message, "bad.json"));
  lraf_profile_diff_free(NULL);
  pf_diff_free(&d);
  pf_read_free(&a);
  pf_read_free(&b);
  free(ta);
  free(tb);
  pf_free(A);
  pf_free(B);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_diff),
    cmocka_unit_test(test_diff_matching),
    cmocka_unit_test(test_similarity),
    cmocka_unit_test(test_percent),
    cmocka_unit_test(test_public),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
