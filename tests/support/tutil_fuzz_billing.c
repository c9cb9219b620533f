/*
** tutil_fuzz_billing.c - what fuzz_billing does with one input: the
** bytes, split at NUL bytes into up to three strings, read as a quota
** with its period (--quota T=N/P), as times and a window (/usage?from=
** &to=, lraf ledger export --from --to) and as a period word
** (/usage?period=, lraf ledger verify --period).  Checked:
**   - a refusal comes with a message that says what was expected;
**   - an accepted time formats and reads back to the same microsecond,
**     and lies in its day and month: start <= t < end, the period's
**     start has the same name, and the end starts the next one;
**   - an accepted quota prints as N/P and reads back the same;
**   - an accepted window has from before to.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_fuzz.h"

static int broken(char *why, size_t n, const char *fmt, const char *a,
                  const char *b) {
  snprintf(why, n, fmt, a, b);
  return -1;
}

static int64_t usec(double t) { return (int64_t)llround(t * 1e6); }

static int check_time(const char *s, char *why, size_t n) {
  static const lraf_period periods[] = {LRAF_PERIOD_DAY, LRAF_PERIOD_MONTH};
  lraf_error err;
  double t, back;
  char text[32], name[16], name2[16];
  size_t i;
  if (lraf_time_parse(s, &t, &err) != LRAF_OK)
    return strstr(err.message, "not an ISO 8601") != NULL
               ? 0 : broken(why, n, "time '%s' refused without saying: %s",
                            s, err.message);
  lraf_time_format(t, text);
  if (lraf_time_parse(text, &back, &err) != LRAF_OK ||
      llabs(usec(back) - usec(t)) > 1)
    return broken(why, n, "time '%s' formats as '%s', which reads back "
                  "differently", s, text);
  for (i = 0; i < 2; i++) {
    double a = lraf_period_start(periods[i], t);
    double b = lraf_period_end(periods[i], t);
    if (!(a <= t && t < b))
      return broken(why, n, "time '%s' (%s) is outside its period", s, text);
    lraf_period_name(periods[i], t, name);
    lraf_period_name(periods[i], a, name2);
    if (strcmp(name, name2) != 0)
      return broken(why, n, "the start of %s's period is named %s", name,
                    name2);
    if (lraf_period_start(periods[i], b) != b)
      return broken(why, n, "the end of %s's period (%s) starts no period",
                    name, text);
  }
  return 0;
}

static int check_quota(const char *s, char *why, size_t n) {
  lraf_error err;
  lraf_period p, p2;
  int64_t v, v2;
  char text[64];
  if (lraf_quota_parse(s, &v, &p, &err) != LRAF_OK)
    return strncmp(err.message, "quota '", 7) == 0
               ? 0 : broken(why, n, "quota '%s' refused unnamed: %s", s,
                            err.message);
  snprintf(text, sizeof text, "%lld%s", (long long)v,
           p == LRAF_PERIOD_DAY ? "/day" : p == LRAF_PERIOD_MONTH ? "/month"
                                                                  : "");
  if (v < 0 || lraf_quota_parse(text, &v2, &p2, &err) != LRAF_OK ||
      v2 != v || p2 != p)
    return broken(why, n, "quota '%s' prints as '%s', read back otherwise",
                  s, text);
  return 0;
}

int tutil_fuzz_billing(const uint8_t *data, size_t size, char *why,
                       size_t n) {
  char part[3][256];
  size_t i, k = 0, len = 0;
  lraf_error err;
  lraf_period p;
  double f, t;
  memset(part, 0, sizeof part);
  for (i = 0; i < size && k < 3; i++) {
    if (data[i] == 0) {
      k++;
      len = 0;
    } else if (len < sizeof part[0] - 1) {
      part[k][len++] = (char)data[i];
    }
  }
  if (check_quota(part[0], why, n) != 0) return -1;
  for (i = 0; i < 3; i++)
    if (check_time(part[i], why, n) != 0) return -1;
  if (lraf_window_parse(part[1][0] ? part[1] : NULL,
                        part[2][0] ? part[2] : NULL, &f, &t, &err) ==
      LRAF_OK) {
    if (!(f < t)) return broken(why, n, "window %s .. %s accepted, not "
                                "in order", part[1], part[2]);
  } else if (strncmp(err.message, "from", 4) != 0 &&
             strncmp(err.message, "to", 2) != 0) {
    return broken(why, n, "window %s .. %s refused without naming the "
                  "bound", part[1], part[2]);
  }
  if (lraf_period_parse(part[0], &p, &err) != LRAF_OK &&
      strstr(err.message, "is not a period") == NULL)
    return broken(why, n, "period '%s' refused without saying: %s", part[0],
                  err.message);
  return 0;
}
