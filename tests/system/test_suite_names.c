/*
** test_suite_names.c - every source file of the library and the command
** has a test suite found by its name: for DIR/X.c, tests/unit/test_X.c,
** tests/system/test_X.c or a test_X_WHAT.c in either.  Run from the top
** of the tree, as every suite is.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The folders whose .c files need a suite. */
static const char *const source_dir[] = {
  "common", "bytecode", "rewriter", "accounts", "profile", "runtime",
  "runtime/native", "service", "cli", NULL
};
static const char *const suite_dir[] = { "tests/unit", "tests/system", NULL };

typedef struct names {
  char **name;
  size_t n, cap;
} names;

static void names_add(names *ns, const char *s, size_t len) {
  if (ns->n == ns->cap) {
    ns->cap = ns->cap ? 2 * ns->cap : 64;
    ns->name = realloc(ns->name, ns->cap * sizeof *ns->name);
    assert_non_null(ns->name);
  }
  ns->name[ns->n] = strndup(s, len);
  assert_non_null(ns->name[ns->n]);
  ns->n++;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(names *ns) {
  size_t i;
  for (i = 0; i < ns->n; i++) free(ns->name[i]);
  free(ns->name);
}

/* Add the stems of dir's files that start with prefix and end in .c;
** return whether dir exists. */
static int list_stems(const char *dir, const char *prefix, names *ns) {
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t plen = strlen(prefix), first = ns->n;
  if (d == NULL) return 0;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len > plen + 2 && strncmp(e->d_name, prefix, plen) == 0 &&
        strcmp(e->d_name + len - 2, ".c") == 0)
      names_add(ns, e->d_name + plen, len - plen - 2);
  }
  closedir(d);
  qsort(ns->name + first, ns->n - first, sizeof *ns->name, compare_names);
  return 1;
}

/* Whether suite s is named after file: its stem is file's or begins with
** file's and an underscore. */
static int names_file(const char *s, const char *file) {
  size_t len = strlen(file);
  return strncmp(s, file, len) == 0 && (s[len] == '\0' || s[len] == '_');
}

/* Whether file owns a suite: one named after it and after no file with
** a longer name (test_cli_serve_http is cli_serve_http.c's, not
** cli_serve.c's). */
static int has_suite(const names *suites, const names *files,
                     const char *file) {
  size_t i, j;
  for (i = 0; i < suites->n; i++) {
    const char *s = suites->name[i];
    int owner = names_file(s, file);
    for (j = 0; owner && j < files->n; j++)
      if (strlen(files->name[j]) > strlen(file) &&
          names_file(s, files->name[j]))
        owner = 0;
    if (owner) return 1;
  }
  return 0;
}

static void test_every_file_has_a_suite(void **state) {
  names suites = {0}, files = {0};
  size_t i, missing = 0;
  size_t first[sizeof source_dir / sizeof *source_dir];
  int d;
  (void)state;
  for (d = 0; suite_dir[d] != NULL; d++)
    assert_true(list_stems(suite_dir[d], "test_", &suites));
  for (d = 0; source_dir[d] != NULL; d++) {
    first[d] = files.n;
    list_stems(source_dir[d], "", &files);
  }
  first[d] = files.n;
  assert_true(files.n > 50);  /* the folders were found from the top */
  for (d = 0; source_dir[d] != NULL; d++)
    for (i = first[d]; i < first[d + 1]; i++)
      if (!has_suite(&suites, &files, files.name[i])) {
        print_error("%s/%s.c has no suite tests/{unit,system}/test_%s*.c\n",
                    source_dir[d], files.name[i], files.name[i]);
        missing++;
      }
  names_free(&suites);
  names_free(&files);
  assert_int_equal(missing, 0);
}

/* The rule itself, on made-up names. */
static void test_longest_name_owns_a_suite(void **state) {
  char *file[] = { "cli_serve", "cli_serve_http", "rt_natcost" };
  char *suite[] = { "cli_serve_http_hostile", "rt_natcost" };
  names files = { file, 3, 3 }, suites = { suite, 2, 2 };
  (void)state;
  assert_true(has_suite(&suites, &files, "rt_natcost"));
  assert_true(has_suite(&suites, &files, "cli_serve_http"));
  assert_false(has_suite(&suites, &files, "cli_serve"));
  assert_false(has_suite(&suites, &files, "rt_nat"));
  suite[1] = "cli_serve_crash";
  assert_true(has_suite(&suites, &files, "cli_serve"));
  assert_false(has_suite(&suites, &files, "rt_natcost"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_longest_name_owns_a_suite),
    cmocka_unit_test(test_every_file_has_a_suite),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
