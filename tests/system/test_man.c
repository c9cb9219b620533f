/*
** test_man.c - the man pages cover the whole interface: lraf(1) names
** every subcommand `lraf --help` lists, lraf-lua and LRAF_OPTIONS;
** lraf-lua(1) exists and names LRAF_OPTIONS; lraf(3) names every
** function include/lraf.h exports (LRAF_API), so every function family.
** Runs from the repository root with $LRAF.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"
#include "tutil_sh.h"

/* Whether word occurs in text as a whole word (man's "\-" read as "-"). */
static int has_word(const char *text, const char *word) {
  size_t n = strlen(word);
  char *plain = strdup(text), *d = plain;
  const char *s, *p;
  int found = 0;
  assert_non_null(plain);
  for (s = text; *s; s++) {
    if (s[0] == '\\' && s[1] == '-') s++;
    *d++ = *s;
  }
  *d = '\0';
  for (p = plain; !found && (p = strstr(p, word)) != NULL; p += n)
    found = (p == plain || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
                             p[-1] == '-')) &&
            !(isalnum((unsigned char)p[n]) || p[n] == '_');
  free(plain);
  return found;
}

static void test_lraf_1(void **state) {
  tutil_sh sh;
  char *help, *man, *p;
  int n = 0;
  (void)state;
  assert_int_equal(tutil_sh_init(&sh, "man"), 0);
  assert_int_equal(tutil_sh_run(&sh, "%s --help", tutil_sh_lraf()), 0);
  help = tutil_sh_read(sh.out);
  man = tutil_sh_read("man/lraf.1");
  p = strstr(help, "\ncommands:\n");
  assert_non_null(p);
  for (p = strstr(p, "\n  "); p != NULL; p = strstr(p + 1, "\n  ")) {
    char name[32];
    if (p[3] == ' ' || sscanf(p + 3, "%31[a-z]", name) != 1) continue;
    if (!has_word(man, name)) fail_msg("lraf(1) does not name %s", name);
    n++;
  }
  assert_true(n >= 7);
  assert_true(has_word(man, "lraf-lua"));
  assert_true(has_word(man, "LRAF_OPTIONS"));
  free(man);
  man = tutil_sh_read("man/lraf-lua.1");
  assert_true(has_word(man, "LRAF_OPTIONS"));
  free(man);
  free(help);
  tutil_sh_cleanup(&sh);
}

static void test_lraf_3(void **state) {
  char *h = tutil_sh_read("include/lraf.h"),
       *man = tutil_sh_read("man/lraf.3"), *p;
  int n = 0;
  (void)state;
  for (p = strstr(h, "LRAF_API "); p != NULL; p = strstr(p + 1, "LRAF_API ")) {
    const char *paren = strchr(p, '('), *q, *name = NULL;
    char fn[64];
    if (paren == NULL) break;
    for (q = p; q < paren; q++)  /* the last lraf_ name before '(' */
      if (strncmp(q, "lraf_", 5) == 0 && (q == p || !isalnum(
              (unsigned char)q[-1]))) name = q;
    if (name == NULL) continue;
    snprintf(fn, sizeof fn, "%.*s", (int)strspn(name,
             "abcdefghijklmnopqrstuvwxyz0123456789_"), name);
    if (!has_word(man, fn)) fail_msg("lraf(3) does not name %s", fn);
    n++;
  }
  assert_true(n >= 80);
  free(h);
  free(man);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lraf_1),
    cmocka_unit_test(test_lraf_3),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
