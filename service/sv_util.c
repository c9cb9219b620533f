/*
** sv_util.c - small helpers of service/: hashing, clocks, strings and
** errors.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "sv.h"

uint64_t sv_hash(const char *s, size_t len) {
  uint64_t h = 14695981039346656037u;
  size_t i;
  for (i = 0; i < len; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211u;
  }
  return h;
}

static double seconds(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double sv_now(void) { return seconds(CLOCK_REALTIME); }

void sv_thread_name(const char *name) {
  prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);   /* 15 bytes kept */
}
int64_t sv_us(double s) {
  double u = s * 1e6;
  return (int64_t)(u < 0 ? u - 0.5 : u + 0.5);
}

double sv_mono(void) { return seconds(CLOCK_MONOTONIC); }
double sv_cpu(void) { return seconds(CLOCK_THREAD_CPUTIME_ID); }

void sv_record_texts(lraf_record *r, const char **f[SV_TEXTS]) {
  f[0] = &r->key, f[1] = &r->request_id, f[2] = &r->tenant;
  f[3] = &r->handler, f[4] = &r->model, f[5] = &r->outcome;
  f[6] = &r->note;
}

char *sv_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p != NULL) memcpy(p, s, n);
  return p;
}

lraf_status sv_fail(lraf_error *err, lraf_status code, const char *fmt, ...) {
  va_list ap;
  if (err == NULL) return code;
  err->code = code;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

const char *lraf_outcome_name(lraf_outcome o) {
  static const char *const names[] = {"ok", "error", "request-limit",
                                      "quota", "rate", "memory",
                                      "adjustment"};
  return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}
