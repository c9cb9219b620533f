/*
** sv_period.c - times and billing periods: ISO 8601 dates and times
** read and written in UTC, calendar days and months (UTC), a quota with
** its period ("N/day"), and a window [from, to) from two times.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv.h"

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d) {
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* The date of day z (days since 1970-01-01). */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  int64_t era, doe, yoe, doy, mp;
  z += 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int days_in_month(int64_t y, int m) {
  static const int n[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : n[m - 1];
}

/* n digits at *p as a number (moving *p), or -1. */
static int digits(const char **p, int n) {
  int v = 0, i;
  for (i = 0; i < n; i++) {
    if ((*p)[i] < '0' || (*p)[i] > '9') return -1;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  return v;
}

static lraf_status bad_time(const char *text, const char *why,
                            lraf_error *err) {
  return sv_fail(err, LRAF_EARG, "'%.60s' is not an ISO 8601 date or time "
                 "(%s; e.g. 2026-11-01 or 2026-11-01T12:30:00Z)", text, why);
}

lraf_status lraf_time_parse(const char *text, double *t, lraf_error *err) {
  const char *p = text;
  int y, mo, d, h = 0, mi = 0, s = 0, off = 0;
  double frac = 0;
  *t = 0;
  if (text == NULL) return bad_time("", "nothing given", err);
  if ((y = digits(&p, 4)) < 0 || *p++ != '-' || (mo = digits(&p, 2)) < 0 ||
      *p++ != '-' || (d = digits(&p, 2)) < 0)
    return bad_time(text, "expected YYYY-MM-DD", err);
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
    return bad_time(text, "no such day", err);
  if (*p == 'T') {
    p++;
    if ((h = digits(&p, 2)) < 0 || *p++ != ':' || (mi = digits(&p, 2)) < 0)
      return bad_time(text, "expected THH:MM", err);
    if (*p == ':') {
      p++;
      if ((s = digits(&p, 2)) < 0)
        return bad_time(text, "expected seconds as SS", err);
      if (*p == '.') {
        double scale = 0.1;
        p++;
        if (*p < '0' || *p > '9')
          return bad_time(text, "expected digits after the point", err);
        while (*p >= '0' && *p <= '9') {
          frac += (*p++ - '0') * scale;
          scale /= 10;
        }
      }
    }
    if (h > 23 || mi > 59 || s > 59)
      return bad_time(text, "no such time of day", err);
    if (*p == 'Z') {
      p++;
    } else if (*p == '+' || *p == '-') {
      int sign = *p++ == '-' ? -1 : 1, oh, om;
      if ((oh = digits(&p, 2)) < 0 || *p++ != ':' ||
          (om = digits(&p, 2)) < 0 || oh > 23 || om > 59)
        return bad_time(text, "expected an offset +HH:MM", err);
      off = sign * (oh * 3600 + om * 60);
    }
  }
  if (*p != '\0') return bad_time(text, "unexpected text at its end", err);
  *t = (double)(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s -
                off) + frac;
  return LRAF_OK;
}

void lraf_time_format(double t, char buf[32]) {
  double day = floor(t / 86400);
  int64_t us = sv_us(t - day * 86400), y;
  int m, d;
  if (!isfinite(t) || fabs(t) > 2.5e11) {
    snprintf(buf, 32, "%s", "out of range");
    return;
  }
  if (us >= 86400000000LL) {   /* rounded up to the next day */
    day += 1;
    us -= 86400000000LL;
  }
  civil_from_days((int64_t)day, &y, &m, &d);
  snprintf(buf, 32, "%04lld-%02d-%02dT%02d:%02d:%02d.%06dZ", (long long)y,
           m, d, (int)(us / 3600000000LL), (int)(us / 60000000 % 60),
           (int)(us / 1000000 % 60), (int)(us % 1000000));
}

double lraf_period_start(lraf_period p, double t) {
  double day = floor(t / 86400);
  int64_t y;
  int m, d;
  if (p == LRAF_PERIOD_DAY) return day * 86400;
  if (p != LRAF_PERIOD_MONTH || !isfinite(t)) return -HUGE_VAL;
  civil_from_days((int64_t)day, &y, &m, &d);
  return (double)days_from_civil(y, m, 1) * 86400;
}

double lraf_period_end(lraf_period p, double t) {
  double day = floor(t / 86400);
  int64_t y;
  int m, d;
  if (p == LRAF_PERIOD_DAY) return (day + 1) * 86400;
  if (p != LRAF_PERIOD_MONTH || !isfinite(t)) return HUGE_VAL;
  civil_from_days((int64_t)day, &y, &m, &d);
  return (double)days_from_civil(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1,
                                 1) * 86400;
}

void lraf_period_name(lraf_period p, double t, char buf[16]) {
  double day = floor(t / 86400);
  int64_t y;
  int m, d;
  if ((p != LRAF_PERIOD_DAY && p != LRAF_PERIOD_MONTH) || !isfinite(t) ||
      fabs(t) > 2.5e11) {
    snprintf(buf, 16, "total");
    return;
  }
  civil_from_days((int64_t)day, &y, &m, &d);
  if (p == LRAF_PERIOD_DAY)
    snprintf(buf, 16, "%04lld-%02d-%02d", (long long)y, m, d);
  else
    snprintf(buf, 16, "%04lld-%02d", (long long)y, m);
}

lraf_status lraf_period_parse(const char *word, lraf_period *p,
                              lraf_error *err) {
  *p = LRAF_PERIOD_NONE;
  if (word != NULL && strcmp(word, "day") == 0) *p = LRAF_PERIOD_DAY;
  else if (word != NULL && strcmp(word, "month") == 0) *p = LRAF_PERIOD_MONTH;
  else if (word == NULL || strcmp(word, "total") != 0)
    return sv_fail(err, LRAF_EARG, "'%.40s' is not a period (day, month or "
                   "total)", word != NULL ? word : "");
  return LRAF_OK;
}

lraf_status lraf_quota_parse(const char *text, int64_t *n, lraf_period *p,
                             lraf_error *err) {
  static const struct { char suffix; int64_t mul; } units[] = {
    {'k', 1000}, {'M', 1000000}, {'G', 1000000000}};
  const char *q = text, *slash;
  int64_t v = 0, mul = 1;
  size_t i;
  *n = 0;
  *p = LRAF_PERIOD_NONE;
  if (text == NULL || *q < '0' || *q > '9')
    return sv_fail(err, LRAF_EARG, "quota '%.60s': expected N, N/day or "
                   "N/month (N a count, k, M, G allowed)", text ? text : "");
  for (; *q >= '0' && *q <= '9'; q++) {
    if (v > (INT64_MAX - (*q - '0')) / 10)
      return sv_fail(err, LRAF_EARG, "quota '%.60s': too large", text);
    v = v * 10 + (*q - '0');
  }
  for (i = 0; i < sizeof units / sizeof units[0]; i++)
    if (*q == units[i].suffix) {
      mul = units[i].mul;
      q++;
      break;
    }
  if (v > INT64_MAX / mul)
    return sv_fail(err, LRAF_EARG, "quota '%.60s': too large", text);
  slash = q;
  if (*slash == '/') {
    if (lraf_period_parse(slash + 1, p, err) != LRAF_OK ||
        *p == LRAF_PERIOD_NONE)
      return sv_fail(err, LRAF_EARG, "quota '%.60s': the period after / is "
                     "day or month", text);
  } else if (*slash != '\0') {
    return sv_fail(err, LRAF_EARG, "quota '%.60s': expected N, N/day or "
                   "N/month (N a count, k, M, G allowed)", text);
  }
  *n = v * mul;
  return LRAF_OK;
}

lraf_status lraf_window_parse(const char *from, const char *to, double *f,
                              double *t, lraf_error *err) {
  char why[sizeof err->message];
  *f = -HUGE_VAL;
  *t = HUGE_VAL;
  if (from != NULL && lraf_time_parse(from, f, err) != LRAF_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    return sv_fail(err, LRAF_EARG, "from: %s", why);
  }
  if (to != NULL && lraf_time_parse(to, t, err) != LRAF_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    return sv_fail(err, LRAF_EARG, "to: %s", why);
  }
  if (*f >= *t)
    return sv_fail(err, LRAF_EARG, "from (%.40s) is not before to (%.40s)",
                   from, to);
  return LRAF_OK;
}
