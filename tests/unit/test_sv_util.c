/*
** test_sv_util.c - the small helpers of service/ (service/sv_util.c),
** called directly: FNV-1a on its published vectors (and every byte
** counting), seconds to microseconds rounded half away from zero, the
** three clocks (Unix time, monotonic, this thread's CPU time), the
** string copy, errors as values (formatted, truncated, or only a code
** without an error to fill) and the ledger's outcome words.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sv.h"

static void test_hash(void **state) {
  static const struct { const char *s; uint64_t h; } v[] = {
    {"", 0xcbf29ce484222325u},
    {"a", 0xaf63dc4c8601ec8cu},
    {"foobar", 0x85944171f73967e8u},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof v / sizeof v[0]; i++)
    assert_true(sv_hash(v[i].s, strlen(v[i].s)) == v[i].h);
  /* bytes past a NUL, and high bytes, count */
  assert_true(sv_hash("a\0b", 3) != sv_hash("a\0c", 3));
  assert_true(sv_hash("\xff", 1) != sv_hash("\x7f", 1));
  assert_true(sv_hash("ab", 2) != sv_hash("ba", 2));
}

static void test_us(void **state) {
  static const struct { double s; int64_t us; } v[] = {
    {0.0, 0}, {1.0, 1000000}, {0.0000004, 0}, {0.0000006, 1},
    {0.0000015, 2}, {-0.0000015, -2}, {-0.0000004, 0},
    {1700000000.000001, 1700000000000001}, {-2.5e-6, -3},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof v / sizeof v[0]; i++)
    if (sv_us(v[i].s) != v[i].us)
      fail_msg("sv_us(%.9g) = %lld, want %lld", v[i].s,
               (long long)sv_us(v[i].s), (long long)v[i].us);
}

static void test_clocks(void **state) {
  double now = sv_now(), wall = (double)time(NULL);
  double m0 = sv_mono(), c0 = sv_cpu(), m1, c1;
  volatile double x = 0;
  long i;
  (void)state;
  assert_true(now > wall - 2 && now < wall + 2);
  for (i = 0; i < 20000000; i++) x += 1;
  m1 = sv_mono();
  c1 = sv_cpu();
  assert_true(m1 > m0);
  assert_true(c1 > c0);
  /* a thread's CPU time does not pass its wall time */
  assert_true(c1 - c0 <= m1 - m0 + 0.01);
}

static void test_strdup(void **state) {
  char *p;
  (void)state;
  p = sv_strdup("tenant-1");
  assert_non_null(p);
  assert_string_equal(p, "tenant-1");
  free(p);
  p = sv_strdup("");
  assert_non_null(p);
  assert_string_equal(p, "");
  free(p);
}

static void test_fail(void **state) {
  lraf_error err;
  char long_text[600];
  (void)state;
  memset(&err, 0, sizeof err);
  assert_int_equal(sv_fail(&err, LRAF_EARG, "term %d: %s", 3, "bad"),
                   LRAF_EARG);
  assert_int_equal(err.code, LRAF_EARG);
  assert_string_equal(err.message, "term 3: bad");
  /* no error to fill: only the code */
  assert_int_equal(sv_fail(NULL, LRAF_EIO, "x"), LRAF_EIO);
  /* a message longer than the buffer is cut, terminated */
  memset(long_text, 'x', sizeof long_text - 1);
  long_text[sizeof long_text - 1] = '\0';
  assert_int_equal(sv_fail(&err, LRAF_EIO, "%s", long_text), LRAF_EIO);
  assert_int_equal(strlen(err.message), sizeof err.message - 1);
}

static void test_outcome_names(void **state) {
  static const char *const want[] = {"ok", "error", "request-limit",
                                     "quota", "rate", "memory",
                                     "adjustment"};
  static const lraf_outcome o[] = {
    LRAF_OUTCOME_OK, LRAF_OUTCOME_ERROR, LRAF_OUTCOME_REQUEST_LIMIT,
    LRAF_OUTCOME_QUOTA, LRAF_OUTCOME_RATE, LRAF_OUTCOME_MEMORY,
    LRAF_OUTCOME_ADJUSTMENT};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof o / sizeof o[0]; i++)
    assert_string_equal(lraf_outcome_name(o[i]), want[i]);
  assert_string_equal(lraf_outcome_name((lraf_outcome)7), "?");
  assert_string_equal(lraf_outcome_name((lraf_outcome)-1), "?");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hash),
    cmocka_unit_test(test_us),
    cmocka_unit_test(test_clocks),
    cmocka_unit_test(test_strdup),
    cmocka_unit_test(test_fail),
    cmocka_unit_test(test_outcome_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
