/*
** test_err.c - common/err.c: err_fail fills an lraf_error with its code
** and formatted message (cut to the buffer, always terminated), returns
** the code, and takes a NULL error; lraf_status_name gives each code
** its word and "unknown" for anything else.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "err.h"

static void test_format(void **state) {
  lraf_error e;
  (void)state;
  memset(&e, 'x', sizeof e);
  assert_int_equal(err_fail(&e, LRAF_EFORMAT, "bad %s at byte %zu (%d%%)",
                            "constant tag", (size_t)1234, 50),
                   LRAF_EFORMAT);
  assert_int_equal(e.code, LRAF_EFORMAT);
  assert_string_equal(e.message, "bad constant tag at byte 1234 (50%)");
  assert_int_equal(err_fail(&e, LRAF_OK, "%s", ""), LRAF_OK);
  assert_int_equal(e.code, LRAF_OK);
  assert_string_equal(e.message, "");
  assert_int_equal(err_fail(&e, LRAF_EIO, "%lld", (long long)INT64_MIN),
                   LRAF_EIO);
  assert_string_equal(e.message, "-9223372036854775808");
}

/* A message longer than the buffer is cut and stays terminated. */
static void test_truncation(void **state) {
  static const size_t lens[] = {0, 1, 510, 511, 512, 513, 4000};
  char big[4001];
  lraf_error e;
  size_t i, want;
  (void)state;
  for (i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    memset(big, 'a' + (int)(i % 26), lens[i]);
    big[lens[i]] = '\0';
    memset(&e, 'x', sizeof e);
    err_fail(&e, LRAF_ELIMIT, "%s", big);
    want = lens[i] < sizeof e.message ? lens[i] : sizeof e.message - 1;
    assert_int_equal(strlen(e.message), want);
    assert_memory_equal(e.message, big, want);
  }
}

/* A NULL error: only the code comes back. */
static void test_null(void **state) {
  (void)state;
  assert_int_equal(err_fail(NULL, LRAF_EARG, "%s", "ignored"), LRAF_EARG);
  assert_int_equal(err_fail(NULL, LRAF_OK, "x"), LRAF_OK);
}

/* Each code has its own word (lraf run's report uses them). */
static void test_status_names(void **state) {
  static const struct { lraf_status code; const char *name; } names[] = {
    {LRAF_OK, "ok"}, {LRAF_EMEM, "out-of-memory"}, {LRAF_EFORMAT, "format"},
    {LRAF_ELIMIT, "limit"}, {LRAF_EREWRITE, "rewrite"},
    {LRAF_EVERIFY, "verify"}, {LRAF_ESYNTAX, "syntax"},
    {LRAF_ERUN, "runtime"}, {LRAF_EQUOTA, "quota"},
    {LRAF_EMEMLIMIT, "memory"}, {LRAF_EIO, "io"}, {LRAF_EARG, "argument"},
  };
  size_t n = sizeof names / sizeof names[0], i, j;
  (void)state;
  for (i = 0; i < n; i++) {
    assert_string_equal(lraf_status_name(names[i].code), names[i].name);
    for (j = 0; j < i; j++)
      assert_string_not_equal(lraf_status_name(names[i].code),
                              lraf_status_name(names[j].code));
  }
  assert_string_equal(lraf_status_name((lraf_status)(LRAF_EARG + 1)),
                      "unknown");
  assert_string_equal(lraf_status_name((lraf_status)-1), "unknown");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_format),
    cmocka_unit_test(test_truncation),
    cmocka_unit_test(test_null),
    cmocka_unit_test(test_status_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
