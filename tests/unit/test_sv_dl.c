/*
** test_sv_dl.c - the run-time loader of libsqlite3 and libpq
** (service/sv_dl.c), called directly:
**   - sv_dl_open opens a library by its soname, or the file an
**     environment variable names instead (an empty one: the soname);
**     a file that cannot be opened gives NULL and a message naming the
**     file, what it was for and dlerror's text;
**   - sv_dl_sym fills a function pointer, and for a missing symbol (or
**     a slot of the wrong size) leaves it and says which symbol;
**   - the libsqlite3 table loads by its build-time soname and works
**     (an in-memory database); the libpq table, pointed by LRAF_LIBPQ
**     at a library without libpq's functions, fails naming the first
**     one missing, with the same message on every later call.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_dl.h"

#define ENV "LRAF_TEST_SV_DL"
#define MISSING "/nonexistent/lraf-test-missing.so"

/* why starts with prefix and holds part (dlerror's text). */
static void check_why(const char *why, const char *prefix, const char *part) {
  if (strncmp(why, prefix, strlen(prefix)) != 0 || strstr(why, part) == NULL)
    fail_msg("message: '%s' (expected '%s' ... '%s')", why, prefix, part);
}

static void test_open_by_soname(void **state) {
  char why[400] = "";
  void *h;
  (void)state;
  unsetenv(ENV);
  h = sv_dl_open(ENV, "libm.so.6", "the maths", why, sizeof why);
  assert_non_null(h);
  assert_string_equal(why, "");
  dlclose(h);
  /* an empty variable is no override */
  setenv(ENV, "", 1);
  h = sv_dl_open(ENV, "libm.so.6", "the maths", why, sizeof why);
  assert_non_null(h);
  dlclose(h);
  unsetenv(ENV);
}

/* Each override: the file opened, or the error naming it. */
static const struct override {
  const char *file, *soname;
  int opens;
} overrides[] = {
  {"libm.so.6", "liblraf-no-such-soname.so.9", 1},
  {MISSING, "libm.so.6", 0},
  {"/", "libm.so.6", 0},
};

static void test_env_override(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof overrides / sizeof overrides[0]; i++) {
    const struct override *o = &overrides[i];
    char why[400] = "", prefix[200];
    void *h;
    setenv(ENV, o->file, 1);
    h = sv_dl_open(ENV, o->soname, "a test library", why, sizeof why);
    if (o->opens) {
      if (h == NULL) fail_msg("%s: %s", o->file, why);
      dlclose(h);
      continue;
    }
    assert_null(h);
    snprintf(prefix, sizeof prefix, "cannot load %s (a test library): ",
             o->file);
    check_why(why, prefix, o->file);
  }
  unsetenv(ENV);
  /* the soname itself missing: named the same way */
  {
    char why[400];
    assert_null(sv_dl_open(ENV, "liblraf-no-such-soname.so.9", "x", why,
                           sizeof why));
    check_why(why, "cannot load liblraf-no-such-soname.so.9 (x): ",
              "cannot open shared object file");
  }
}

static void test_sym(void **state) {
  size_t (*len)(const char *) = NULL;
  double (*cosine)(double) = NULL;
  char why[400] = "";
  void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  (void)state;
  assert_non_null(h);
  assert_int_equal(sv_dl_sym(h, "cos", &cosine, sizeof cosine, why,
                             sizeof why), 1);
  assert_true(cosine(0.0) == 1.0);
  /* missing: 0, the slot left as it was, the symbol named */
  assert_int_equal(sv_dl_sym(h, "lraf_no_such_symbol", &len, sizeof len,
                             why, sizeof why), 0);
  assert_null(len);
  check_why(why, "cannot find lraf_no_such_symbol: ", "lraf_no_such_symbol");
  /* a slot that cannot hold a function's address */
  {
    int small = 7;
    assert_int_equal(sv_dl_sym(h, "cos", &small, sizeof small, why,
                               sizeof why), 0);
    assert_int_equal(small, 7);
    assert_string_equal(why, "cannot find cos: not a function");
  }
  dlclose(h);
}

static void test_sqlite_table(void **state) {
  const char *why = NULL;
  sqlite3 *db = NULL;
  (void)state;
  unsetenv("LRAF_LIBSQLITE3");
  if (!sv_dl_sqlite_load(&why)) fail_msg("%s", why);
  assert_int_equal(sv_sq.open_v2(":memory:", &db, SQLITE_OPEN_READWRITE |
                                 SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
  assert_int_equal(sv_sq.exec(db, "create table t(x); insert into t "
                              "values (1), (2)", NULL, NULL, NULL),
                   SQLITE_OK);
  assert_int_equal(sv_sq.changes(db), 2);
  assert_int_equal(sv_sq.exec(db, "no sql", NULL, NULL, NULL), SQLITE_ERROR);
  assert_non_null(strstr(sv_sq.errmsg(db), "syntax error"));
  assert_int_equal(sv_sq.close(db), SQLITE_OK);
}

static void test_pg_table_wrong_library(void **state) {
  const char *why = NULL, *again = NULL;
  (void)state;
  setenv("LRAF_LIBPQ", "libm.so.6", 1);
  assert_int_equal(sv_dl_pg_load(&why), 0);
  check_why(why, "cannot find PQconnectdb: ", "PQconnectdb");
  /* loaded once: the same answer without trying again */
  unsetenv("LRAF_LIBPQ");
  assert_int_equal(sv_dl_pg_load(&again), 0);
  assert_string_equal(again, why);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_open_by_soname),
    cmocka_unit_test(test_env_override),
    cmocka_unit_test(test_sym),
    cmocka_unit_test(test_sqlite_table),
    cmocka_unit_test(test_pg_table_wrong_library),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
