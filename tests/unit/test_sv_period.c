/*
** test_sv_period.c - the billing parsers (service/sv_period.c): ISO 8601
** times against known Unix times (leap days, offsets, fractions), UTC
** days and months and their names, quotas with periods, windows; bad
** input refused with a message saying what; and 20,000 generated
** inputs through the fuzz target's checks (tutil_fuzz_billing.c).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lraf.h"
#include "tutil_fuzz.h"

static double when(const char *s) {
  lraf_error err;
  double t = NAN;
  if (lraf_time_parse(s, &t, &err) != LRAF_OK)
    fail_msg("'%s' refused: %s", s, err.message);
  return t;
}

static void test_times(void **state) {
  static const struct { const char *text; double t; } ok[] = {
    {"1970-01-01", 0},
    {"2026-03-01", 1772323200},
    {"2024-02-29", 1709164800},
    {"2000-02-29", 951782400},
    {"1969-12-31", -86400},
    {"9999-12-31", 253402214400.0},
    {"2026-03-01T00:00Z", 1772323200},
    {"2026-03-01T01:30:00+01:30", 1772323200},
    {"2026-02-28T23:00:00-01:00", 1772323200},
    {"2026-03-01T00:00:00.25", 1772323200.25},
  };
  static const struct { const char *text, *says; } bad[] = {
    {"2023-02-29", "no such day"}, {"2100-02-29", "no such day"},
    {"2026-00-10", "no such day"}, {"2026-04-31", "no such day"},
    {"2026-1-01", "YYYY-MM-DD"},   {"20260101", "YYYY-MM-DD"},
    {"2026-01-01T24:00", "no such time"}, {"2026-01-01T12", "THH:MM"},
    {"2026-01-01T12:00:00.", "after the point"},
    {"2026-01-01T12:00+1", "offset"}, {"2026-01-01 12:00", "at its end"},
    {"", "YYYY-MM-DD"},
    {"0000-01-01T00:00+01:00", "outside the years"},
    {"9999-12-31T23:00-05:00", "outside the years"},
  };
  char buf[32];
  lraf_error err;
  double t;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
    if (when(ok[i].text) != ok[i].t)
      fail_msg("'%s' is %.3f, not %.3f", ok[i].text, when(ok[i].text),
               ok[i].t);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(lraf_time_parse(bad[i].text, &t, &err), LRAF_EARG);
    if (strstr(err.message, bad[i].says) == NULL)
      fail_msg("'%s': '%s' does not say %s", bad[i].text, err.message,
               bad[i].says);
  }
  lraf_time_format(1772323200.5, buf);
  assert_string_equal(buf, "2026-03-01T00:00:00.500000Z");
  lraf_time_format(-0.000001, buf);
  assert_string_equal(buf, "1969-12-31T23:59:59.999999Z");
  lraf_time_format(1e15, buf);
  assert_string_equal(buf, "out of range");
}

static void test_periods(void **state) {
  char name[16];
  double t = when("2026-12-31T23:59:59Z");
  (void)state;
  assert_true(lraf_period_start(LRAF_PERIOD_MONTH, t) == when("2026-12-01"));
  assert_true(lraf_period_end(LRAF_PERIOD_MONTH, t) == when("2027-01-01"));
  assert_true(lraf_period_start(LRAF_PERIOD_DAY, t) == when("2026-12-31"));
  assert_true(lraf_period_end(LRAF_PERIOD_DAY, t) == when("2027-01-01"));
  assert_true(lraf_period_end(LRAF_PERIOD_MONTH, when("2024-02-10")) ==
              when("2024-03-01"));
  assert_true(isinf(lraf_period_start(LRAF_PERIOD_NONE, t)));
  lraf_period_name(LRAF_PERIOD_MONTH, t, name);
  assert_string_equal(name, "2026-12");
  lraf_period_name(LRAF_PERIOD_DAY, when("2026-01-01T00:00:00+01:00"), name);
  assert_string_equal(name, "2025-12-31");
  lraf_period_name(LRAF_PERIOD_NONE, t, name);
  assert_string_equal(name, "total");
}

static void test_quotas(void **state) {
  static const struct { const char *text; int64_t n; lraf_period p; } ok[] = {
    {"0", 0, LRAF_PERIOD_NONE}, {"5k/day", 5000, LRAF_PERIOD_DAY},
    {"2M", 2000000, LRAF_PERIOD_NONE}, {"1G/month", 1000000000,
                                         LRAF_PERIOD_MONTH},
    {"9223372036854775807", INT64_MAX, LRAF_PERIOD_NONE},
  };
  static const char *const bad[] = {"", "k", "-5", "5/week", "5x", "5/",
                                    "5kM", "9223372036854775808",
                                    "9300000000G", "5/day/day"};
  lraf_error err;
  lraf_period p;
  int64_t n;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    assert_int_equal(lraf_quota_parse(ok[i].text, &n, &p, &err), LRAF_OK);
    assert_int_equal(n, ok[i].n);
    assert_int_equal(p, ok[i].p);
  }
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (lraf_quota_parse(bad[i], &n, &p, &err) != LRAF_EARG)
      fail_msg("quota '%s' accepted", bad[i]);
    assert_int_equal(strncmp(err.message, "quota '", 7), 0);
  }
}

static void test_windows(void **state) {
  lraf_error err;
  double f, t;
  (void)state;
  assert_int_equal(lraf_window_parse(NULL, NULL, &f, &t, &err), LRAF_OK);
  assert_true(isinf(f) && f < 0 && isinf(t) && t > 0);
  assert_int_equal(lraf_window_parse("2026-01-01", "2026-02-01", &f, &t,
                                     &err), LRAF_OK);
  assert_true(t - f == 31 * 86400);
  assert_int_equal(lraf_window_parse("2026-02-01", "2026-02-01", &f, &t,
                                     &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "not before"));
  assert_int_equal(lraf_window_parse(NULL, "2026-02-30", &f, &t, &err),
                   LRAF_EARG);
  assert_int_equal(strncmp(err.message, "to: ", 4), 0);
}

/* Inputs made from valid ones, changed at random (a fixed seed): a
   byte replaced, the text cut, a piece inserted; up to three parts
   apart by NUL bytes.  The fuzz target's checks hold for each. */
static uint64_t next(uint64_t *x) {
  *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
  return *x;
}

static void test_generated(void **state) {
  static const char *const valid[] = {
    "2026-02-28T23:59:59.5+01:00", "2024-02-29", "1970-01-01T00:00Z",
    "9999-12-31T23:59:59.999999Z", "0000-01-01", "2026-12-31T12:00:00-14:00",
    "1000/month", "5k/day", "2G", "day", "month", "total"};
  static const char *const pieces[] = {
    "-", "T", ":", ".", "Z", "+", "/", "k", "M", "9", "0", "1", "3", "60",
    "29", "day", "week", " "};
  uint64_t x = 88172645463325252ULL;
  char why[512];
  uint8_t buf[200];
  int i, bad = 0, times = 0, quotas = 0;
  (void)state;
  for (i = 0; i < 20000; i++) {
    size_t len = 0;
    int k, parts = 1 + (int)(next(&x) % 3);
    for (k = 0; k < parts; k++) {
      char part[64];
      size_t n;
      int m, changes = (int)(next(&x) % 4);
      snprintf(part, sizeof part, "%s",
               valid[next(&x) % (sizeof valid / sizeof valid[0])]);
      for (m = 0; m < changes; m++) {
        size_t at = next(&x) % (strlen(part) + 1);
        const char *p = pieces[next(&x) % (sizeof pieces / sizeof pieces[0])];
        switch (next(&x) % 3) {
          case 0:
            if (at < strlen(part)) part[at] = p[0];
            break;
          case 1:
            part[at] = '\0';
            break;
          default:
            if (strlen(part) + strlen(p) < sizeof part) {
              memmove(part + at + strlen(p), part + at,
                      strlen(part + at) + 1);
              memcpy(part + at, p, strlen(p));
            }
        }
      }
      if (k == 0) {   /* the first part alone, as a time and a quota */
        lraf_error err;
        lraf_period pp;
        int64_t q;
        double t;
        times += lraf_time_parse(part, &t, &err) == LRAF_OK;
        quotas += lraf_quota_parse(part, &q, &pp, &err) == LRAF_OK;
      }
      n = strlen(part);
      if (len + n + 1 >= sizeof buf) break;
      memcpy(buf + len, part, n);
      len += n;
      if (k + 1 < parts) buf[len++] = 0;
    }
    if (tutil_fuzz_billing(buf, len, why, sizeof why) != 0) {
      printf("input %d: %s\n", i, why);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
  printf("generated: %d times and %d quotas accepted of 20000\n", times,
         quotas);
  assert_true(times > 1000 && quotas > 1000);   /* both paths exercised */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_times),
    cmocka_unit_test(test_periods),
    cmocka_unit_test(test_quotas),
    cmocka_unit_test(test_windows),
    cmocka_unit_test(test_generated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
