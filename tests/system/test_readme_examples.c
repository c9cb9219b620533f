/*
** test_readme_examples.c - the README's example runs are the command's
** output: every "    $ lraf ARGS" block's indented lines are what
** `$LRAF ARGS` prints now (stdout, then the report's stderr), timings
** aside (a line's "wall ..." tail).  tools/readme-reference.sh writes
** them.  The README shows the lraf VM build's model ids: on the stock
** target the test is skipped.  Runs from the repository root.
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
#include "tutil_sh.h"

/* Two lines agree: equal, or both the report's timing line. */
static int same_line(const char *a, size_t na, const char *b, size_t nb) {
  if (na > 11 && nb > 11 && strncmp(a, "lraf: wall ", 11) == 0 &&
      strncmp(b, "lraf: wall ", 11) == 0)
    return 1;
  return na == nb && memcmp(a, b, na) == 0;
}

static void test_examples_are_output(void **state) {
  tutil_sh sh;
  char *readme = tutil_sh_read("README.md"), *p;
  int blocks = 0;
  (void)state;
  assert_int_equal(tutil_sh_init(&sh, "readme"), 0);
  assert_int_equal(tutil_sh_run(&sh, "%s run --report - examples/hello.lua",
                                tutil_sh_lraf()), 0);
  p = tutil_sh_read(sh.err);
  if (strstr(p, "(lraf-vm") == NULL) {
    free(p);
    free(readme);
    tutil_sh_cleanup(&sh);
    skip();  /* the stock target: other model ids */
  }
  free(p);
  for (p = strstr(readme, "\n    $ lraf "); p != NULL;
       p = strstr(p + 1, "\n    $ lraf ")) {
    const char *cmd = p + 12, *eol = strchr(cmd, '\n'), *want, *got;
    char *out;
    assert_non_null(eol);
    tutil_sh_run(&sh, "{ { %s %.*s; } 2>&1; }", tutil_sh_lraf(),
                 (int)(eol - cmd), cmd);
    out = tutil_sh_read(sh.out);
    want = eol + 1;
    got = out;
    while (strncmp(want, "    ", 4) == 0) {
      const char *we = strchr(want + 4, '\n'), *ge = strchr(got, '\n');
      if (we == NULL || ge == NULL ||
          !same_line(want + 4, (size_t)(we - want - 4), got,
                     (size_t)(ge - got)))
        fail_msg("README: `lraf %.*s` shows\n%.*s\nbut prints\n%.*s\n"
                 "(tools/readme-reference.sh rewrites them)",
                 (int)(eol - cmd), cmd, (int)(we ? we - want : 40), want,
                 (int)(ge ? ge - got : (long)strlen(got)), got);
      want = we + 1;
      got = ge + 1;
    }
    if (*got != '\0')
      fail_msg("README: `lraf %.*s` prints more: %s", (int)(eol - cmd), cmd,
               got);
    free(out);
    blocks++;
  }
  assert_true(blocks >= 1);
  free(readme);
  tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_examples_are_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
