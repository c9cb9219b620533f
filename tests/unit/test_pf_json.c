/*
** test_pf_json.c - the profile core without Lua (profile/): a tree
** built from events, its JSON read back by pf_read_json, bad JSON
** refused with errors that say where and what, and pf_diff's order and
** similarity; the extremes of int64 (UBSan found -INT64_MIN); control
** characters of chunk names kept out of the line-based formats.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

/* main -> f -> g, main -> g, with self counts; a frame id per call. */
static pf_profile *sample(int64_t g_self) {
  pf_profile *P = pf_new("test/model");
  int s, main_fn, f, g;
  static const char frames[4] = {0};
  assert_non_null(P);
  main_fn = pf_func_id(P, "m.lua", 0, "main chunk", 0);
  f = pf_func_id(P, "m.lua", 3, "f", 0);
  g = pf_func_id(P, "m.lua", 7, "g \"quoted\"\n\x01\xff", 0);
  s = pf_stack_id(P, (const void *)P, 0);
  pf_enter(P, s, main_fn, &frames[0]);
  pf_charge(P, pf_top(P, s), 10);
  pf_enter(P, s, f, &frames[1]);
  pf_charge(P, pf_top(P, s), 5);
  pf_enter(P, s, g, &frames[2]);
  pf_charge(P, pf_top(P, s), g_self);
  pf_leave(P, s);
  pf_leave(P, s);
  pf_enter(P, s, g, &frames[1]);
  pf_charge(P, pf_top(P, s), g_self);
  assert_int_equal(pf_unwind(P, s, &frames[0]), 1);  /* g unwound */
  pf_leave(P, s);
  pf_finish(P);
  return P;
}

static char *json_of(const pf_profile *P, size_t *len) {
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  lraf_error err;
  assert_non_null(f);
  assert_int_equal(pf_write(P, PF_JSON, 0, f, &err), LRAF_OK);
  fclose(f);
  return buf;
}

static void test_tree(void **state) {
  pf_profile *P = sample(100);
  (void)state;
  assert_int_equal(P->total, 215);
  assert_int_equal(P->nfn, 3);
  assert_int_equal(P->fn[2].calls, 2);
  assert_int_equal(P->fn[2].self, 200);
  assert_int_equal(P->fn[1].incl, 105);
  assert_int_equal(P->fn[0].incl, 215);
  assert_int_equal(P->nnode, 5);  /* root, main, f, f/g, main/g */
  pf_free(P);
}

static void test_roundtrip(void **state) {
  pf_profile *P = sample(100);
  size_t len;
  char *text = json_of(P, &len);
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
    pf_profile *P = sample(3);
    size_t len;
    char *text = json_of(P, &len);
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

static void test_diff(void **state) {
  pf_profile *A = sample(100), *B = sample(130);
  size_t la, lb;
  char *ta = json_of(A, &la), *tb = json_of(B, &lb);
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
  assert_true(pf_diff_percent(200, 260) > 29.99 &&
              pf_diff_percent(200, 260) < 30.01);
  assert_true(pf_diff_percent(0, 5) > 1e300);
  assert_true(pf_diff_percent(0, 0) == 0);
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

/* Per-line counts (a collector that sees lines, e.g. the lraf VM's):
   JSON lists them and Callgrind's format puts the cost on each line. */
static void test_lines(void **state) {
  pf_profile *P = sample(100);
  char *buf = NULL;
  size_t len;
  FILE *f;
  lraf_error err;
  (void)state;
  pf_line(P, 2, 9, 150);
  pf_line(P, 2, 8, 50);
  pf_line(P, 2, 12, 0);
  pf_line(P, 2, 9, 0);
  assert_int_equal(P->fn[2].first, 8);
  assert_int_equal(P->fn[2].nlines, 5);
  f = open_memstream(&buf, &len);
  assert_int_equal(pf_write(P, PF_JSON, 0, f, &err), LRAF_OK);
  fclose(f);
  assert_non_null(strstr(buf, "\"lines\": [[8, 50], [9, 150]]"));
  free(buf);
  f = open_memstream(&buf, &len);
  assert_int_equal(pf_write(P, PF_CALLGRIND, 0, f, &err), LRAF_OK);
  fclose(f);
  assert_non_null(strstr(buf, "\n8 50\n9 150\n"));
  assert_non_null(strstr(buf, "summary: 215\n"));
  free(buf);
  pf_free(P);
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

/* Chunk and function names can hold any byte: CR, VT, FF and ESC
   reached the table, folded and Callgrind outputs (a terminal acts on
   ESC; the formats are read line by line).  No control character but
   the newlines that end lines is written. */
static void test_control_names(void **state) {
  static const pf_format fmts[] = {PF_TABLE, PF_FOLDED, PF_CALLGRIND};
  pf_profile *P = pf_new("test/model");
  static const char frames[2] = {0};
  size_t k, i;
  int s, m, f;
  (void)state;
  assert_non_null(P);
  m = pf_func_id(P, "=a\rb\vc\fd\x1b[31me\x7f", 0, "main chunk", 0);
  f = pf_func_id(P, "=x\ty\x1b]0;t\x07z", 2, "f\r\x1b[2J;g", 0);
  s = pf_stack_id(P, (const void *)P, 0);
  pf_enter(P, s, m, &frames[0]);
  pf_charge(P, pf_top(P, s), 4);
  pf_enter(P, s, f, &frames[1]);
  pf_charge(P, pf_top(P, s), 6);
  pf_leave(P, s);
  pf_leave(P, s);
  pf_finish(P);
  for (k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    lraf_error err;
    assert_non_null(out);
    assert_int_equal(pf_write(P, fmts[k], 0, out, &err), LRAF_OK);
    fclose(out);
    for (i = 0; i < len; i++) {
      unsigned char c = (unsigned char)buf[i];
      if ((c < 0x20 && c != '\n') || c == 0x7f)
        fail_msg("format %d: byte 0x%02x at %zu in:\n%s", (int)fmts[k], c, i,
                 buf);
    }
    assert_non_null(strstr(buf, "e,"));  /* the name is still there */
    free(buf);
  }
  pf_free(P);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tree),
    cmocka_unit_test(test_roundtrip),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_diff),
    cmocka_unit_test(test_diff_matching),
    cmocka_unit_test(test_lines),
    cmocka_unit_test(test_int64_extremes),
    cmocka_unit_test(test_control_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
