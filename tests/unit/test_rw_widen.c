/*
** test_rw_widen.c - loops whose bodies outgrow the 17-bit jumps of
** FORPREP/FORLOOP/TFORPREP/TFORLOOP once rewritten: the rewriter widens
** them with trampolines, and counts stay equal to the hook's in every
** mode, with the same output.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"

typedef struct text {
  char *p;
  size_t n, cap;
} text;

static void add(text *t, const char *s) {
  size_t len = strlen(s);
  if (t->n + len + 1 > t->cap) {
    t->cap = (t->n + len + 1) * 2;
    t->p = realloc(t->p, t->cap);
    assert_non_null(t->p);
  }
  memcpy(t->p + t->n, s, len + 1);
  t->n += len;
}

/* A body of about 4 * reps original instructions that roughly doubles
   when rewritten: every 'if' makes a block that pays for itself. */
static void body(text *t, int reps) {
  int i;
  for (i = 0; i < reps; i++)
    add(t, i % 97 == 0 ? "if x > 0 then x = x - 1 else goto skip end\n"
                       : "if x > 0 then x = x - 1 end\n");
}

/* Numeric and generic loops, nested, with break and a goto to the loop
   end, each with a body of reps statements. */
static char *program(int reps) {
  text t = {NULL, 0, 0};
  add(&t, "local x, s = 0, 0\n"
          "local t = {5, 6, 7, nil, 9}\n"
          "for i = 1, 4 do\n  x = x + i * 3\n");
  body(&t, reps);
  add(&t, "  ::skip::\n  if i == 3 then break end\n  s = s + i\nend\n"
          "for k, v in ipairs(t) do\n  x = x + v\n");
  body(&t, reps);
  add(&t, "  ::skip::\n  s = s + k * v\nend\n"
          "for k, v in pairs({a = 1, b = 2}) do\n"
          "  for j = 2.5, 1, -0.5 do x = x + 1\n");
  body(&t, reps);
  add(&t, "  ::skip::\n  s = s + j + v end\nend\n"
          "for i = 10, 1 do s = s + 1\n");  /* never runs */
  body(&t, reps);
  add(&t, "  ::skip::\nend\n"
          "print(s, x)\n");
  return t.p;
}

static void check_widened(const tutil_run *r, const char *what,
                          int expect_widened) {
  if (expect_widened && r->stats.widened < expect_widened)
    fail_msg("%s: %ld loops widened, expected %d", what, r->stats.widened,
             expect_widened);
  if (!expect_widened && r->stats.widened != 0)
    fail_msg("%s: %ld loops widened in a small program", what,
             r->stats.widened);
}

static void check_modes(const char *src, int expect_widened) {
  tutil_run hook, rw, seen;
  rw_options opt;
  int exact;
  tutil_run_hook(src, strlen(src), "=widen", &hook);
  if (!hook.ok) fail_msg("oracle failed: %s", hook.error);
  for (exact = 0; exact <= 1; exact++) {
    rw_default_options(&opt);
    opt.target = RW_STOCK;  /* whose accounting code makes loops this long */
    opt.exact = exact;
    tutil_run_rewritten(src, strlen(src), "=widen", &opt, 1000, 0, &rw);
    if (!rw.ok) fail_msg("exact=%d: %s", exact, rw.error);
    if (rw.outlen != hook.outlen || memcmp(rw.output, hook.output, rw.outlen))
      fail_msg("exact=%d: output differs: '%.*s' vs '%.*s'", exact,
               (int)rw.outlen, rw.output, (int)hook.outlen, hook.output);
    if (rw.count != hook.count)
      fail_msg("exact=%d: lraf counted %lld, the hook %lld", exact, rw.count,
               hook.count);
    check_widened(&rw, exact ? "exact" : "default", expect_widened);
    tutil_run_free(&rw);
  }
  /* overhead mode: lraf's count is what a hook sees on the rewritten code,
     trampolines included */
  rw_default_options(&opt);
  opt.target = RW_STOCK;
  opt.mode = RW_OVERHEAD;
  tutil_run_rewritten(src, strlen(src), "=widen", &opt, 1000, 1, &seen);
  tutil_run_rewritten(src, strlen(src), "=widen", &opt, 1000, 0, &rw);
  if (!seen.ok || !rw.ok) fail_msg("overhead: %s", rw.ok ? seen.error : rw.error);
  if (rw.count != seen.count)
    fail_msg("overhead: lraf counted %lld, a hook on the rewritten code %lld",
             rw.count, seen.count);
  check_widened(&rw, "overhead", expect_widened);
  tutil_run_free(&seen);
  tutil_run_free(&rw);
  tutil_run_free(&hook);
}

static void test_small_loops_stay_narrow(void **state) {
  char *src = program(50);
  (void)state;
  check_modes(src, 0);
  free(src);
}

static void test_long_loops_widened(void **state) {
  char *src = program(20000);
  (void)state;
  check_modes(src, 5);
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_small_loops_stay_narrow),
    cmocka_unit_test(test_long_loops_widened),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
