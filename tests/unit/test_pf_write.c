/*
** test_pf_write.c - profile/pf_write.c: the table, folded stacks and
** Callgrind's format of hand-made profiles.  The table lists every
** function by self count with its counts and honours --top; the folded
** stacks are the tree's nodes with their paths and add up to the
** total; in Callgrind's format each function's cost lines are its self
** count and its self count plus its call lines its inclusive count,
** also through recursion; per-line counts; no control character in the
** line-based formats; format names.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_pfcore.h"

static void test_format_of(void **state) {
  static const struct { const char *name; int ok; pf_format fmt; } rows[] = {
    {"table", 1, PF_TABLE}, {"folded", 1, PF_FOLDED},
    {"callgrind", 1, PF_CALLGRIND}, {"svg", 1, PF_SVG}, {"json", 1, PF_JSON},
    {"JSON", 0, PF_TABLE}, {"", 0, PF_TABLE}, {"tables", 0, PF_TABLE},
    {NULL, 0, PF_TABLE},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    pf_format f = (pf_format)99;
    assert_int_equal(pf_format_of(rows[i].name, &f), rows[i].ok);
    assert_int_equal(f, rows[i].ok ? rows[i].fmt : (pf_format)99);
  }
}

/* A frame name as the line-based formats write it. */
static void line_name(const pf_func *f, char *buf, size_t size, int folded) {
  char *p;
  pf_frame_name(f, buf, size);
  for (p = buf; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f || (folded && *p == ';'))
      *p = ',';
}

/* main -> a -> b -> a -> a -> b, with a charge in each frame, and a C
   function under main: recursion through two functions. */
static pf_profile *recursive(void) {
  static const char fr[8] = {0};
  pf_profile *P = pf_new("rec/model");
  int m = pf_func_id(P, "r.lua", 0, "main chunk", 0);
  int a = pf_func_id(P, "r.lua", 2, "a", 0);
  int b = pf_func_id(P, "r.lua", 6, "b;x", 0);
  int c = pf_func_id(P, "[C]", -1, "print", 1);
  int s = pf_stack_id(P, P, 0), i;
  const int path[] = {m, a, b, a, a, b};
  for (i = 0; i < 6; i++) {
    pf_enter(P, s, path[i], &fr[i]);
    pf_charge(P, pf_top(P, s), 10 * (i + 1));
  }
  assert_true(pf_return(P, s, &fr[1]) > 0);   /* back in main */
  pf_enter(P, s, c, &fr[6]);
  pf_charge(P, pf_top(P, s), 4);
  pf_leave(P, s);
  pf_enter(P, s, a, &fr[7]);
  pf_charge(P, pf_top(P, s), 1);
  pf_leave(P, s);
  pf_leave(P, s);
  pf_finish(P);
  return P;
}

static void test_table(void **state) {
  static const int tops[] = {0, 1, 2, 4, 10};
  pf_profile *P = recursive();
  char head[128], name[256], line[512];
  size_t t;
  (void)state;
  for (t = 0; t < sizeof tops / sizeof tops[0]; t++) {
    char *text = tutil_pfcore_write(P, PF_TABLE, tops[t], NULL), *at;
    int64_t last = INT64_MAX;
    int i, rows = 0;
    snprintf(head, sizeof head, "lraf profile: %" PRId64
             " instructions, cost model rec/model\n", P->total);
    assert_true(strncmp(text, head, strlen(head)) == 0);
    for (i = 0; i < P->nfn; i++) {
      const pf_func *f = &P->fn[i];
      line_name(f, name, sizeof name, 0);
      snprintf(line, sizeof line, "%14" PRId64 " %6.2f%% %14" PRId64
               " %6.2f%% %11" PRId64 "  %s\n", f->self,
               100.0 * (double)f->self / (double)P->total, f->incl,
               100.0 * (double)f->incl / (double)P->total, f->calls, name);
      at = strstr(text, line);
      if (at != NULL) rows++;
    }
    /* rows by self count, the largest first */
    for (at = strstr(text, "function\n") + 9;
         at != NULL && *at != '\0' && *at != '('; at = strchr(at, '\n') + 1) {
      long long self = strtoll(at, NULL, 10);
      assert_true(self <= last);
      last = self;
    }
    assert_int_equal(rows, tops[t] > 0 && tops[t] < P->nfn ? tops[t] : P->nfn);
    assert_int_equal(strstr(text, "more functions; --top 0 lists all") != NULL,
                     tops[t] > 0 && tops[t] < P->nfn);
    free(text);
  }
  pf_free(P);
}

/* Each folded line is a node with its own count: the path of frame
   names from the root, and the lines add up to the total. */
static void test_folded(void **state) {
  pf_profile *P = recursive();
  char *text = tutil_pfcore_write(P, PF_FOLDED, 0, NULL), *line, *save;
  char want[2048], name[256];
  int64_t sum = 0;
  int i, lines = 0, nodes = 0;
  (void)state;
  for (i = 1; i < P->nnode; i++) {
    int path[64], n = 0, u;
    size_t k = 0;
    if (P->node[i].self == 0) continue;
    nodes++;
    for (u = i; u > 0; u = P->node[u].parent) path[n++] = u;
    while (n-- > 0) {
      line_name(&P->fn[P->node[path[n]].fn], name, sizeof name, 1);
      k += (size_t)snprintf(want + k, sizeof want - k, "%s%s", name,
                            n > 0 ? ";" : "");
    }
    snprintf(want + k, sizeof want - k, " %" PRId64 "\n", P->node[i].self);
    if (strstr(text, want) == NULL) fail_msg("no line %s in\n%s", want, text);
  }
  for (line = strtok_r(text, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    sum += strtoll(strrchr(line, ' ') + 1, NULL, 10);
    lines++;
  }
  assert_int_equal(lines, nodes);
  assert_int_equal(sum, P->total);
  free(text);
  pf_free(P);
}

/* Callgrind: the cost lines after fn= are the function's self count;
   with those after its calls= lines, its inclusive count. */
static void check_callgrind(const pf_profile *P) {
  char *text = tutil_pfcore_write(P, PF_CALLGRIND, 0, NULL), *line, *save;
  int64_t *self = calloc((size_t)P->nfn, sizeof *self);
  int64_t *calls = calloc((size_t)P->nfn, sizeof *calls);
  int fn = -1, after_calls = 0, i;
  char want[64];
  assert_true(self && calls);
  snprintf(want, sizeof want, "\nsummary: %" PRId64 "\n", P->total);
  assert_non_null(strstr(text, want));
  for (line = strtok_r(text, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    long long pos, cost;
    if (strncmp(line, "fn=", 3) == 0) {
      char name[256];
      fn++;
      assert_true(fn < P->nfn);
      line_name(&P->fn[fn], name, sizeof name, 0);
      assert_string_equal(line + 3, name);
    } else if (strncmp(line, "calls=", 6) == 0) {
      after_calls = 1;
    } else if (fn >= 0 && sscanf(line, "%lld %lld", &pos, &cost) == 2) {
      if (after_calls) calls[fn] += cost;
      else self[fn] += cost;
      after_calls = 0;
    }
  }
  assert_int_equal(fn, P->nfn - 1);
  for (i = 0; i < P->nfn; i++) {
    assert_int_equal(self[i], P->fn[i].self);
    assert_int_equal(self[i] + calls[i], P->fn[i].incl);
  }
  free(self);
  free(calls);
  free(text);
}

static void test_callgrind(void **state) {
  pf_profile *P = recursive(), *S = tutil_pfcore_sample(100);
  (void)state;
  check_callgrind(P);
  check_callgrind(S);
  pf_free(P);
  pf_free(S);
}

/* Per-line counts (a collector that sees lines, e.g. the lraf VM's):
   JSON lists them and Callgrind's format puts the cost on each line. */
static void test_lines(void **state) {
  pf_profile *P = tutil_pfcore_sample(100);
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
    cmocka_unit_test(test_format_of),
    cmocka_unit_test(test_table),
    cmocka_unit_test(test_folded),
    cmocka_unit_test(test_callgrind),
    cmocka_unit_test(test_lines),
    cmocka_unit_test(test_control_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
