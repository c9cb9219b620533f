/*
** tutil_prof.c - running sources under a profile (see tutil_prof.h).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_prof.h"

lraf_profile *tutil_prof_run(const lraf_options *opt, const char *src,
                             const char *name, int64_t *counted) {
  lraf_state *S;
  lraf_profile *P;
  lraf_error err;
  int64_t before;
  if (lraf_new(opt, &S, &err) != LRAF_OK) fail_msg("%s", err.message);
  before = lraf_total(S);
  /* started first: the lraf VM counts lines of chunks loaded after */
  if (lraf_profile_start(S, &err) != LRAF_OK) fail_msg("%s", err.message);
  if (lraf_load_string(S, src, strlen(src), name, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  if (lraf_call(S, 0, 0, &err) != LRAF_OK) fail_msg("%s", err.message);
  if (lraf_profile_stop(S, &P, &err) != LRAF_OK) fail_msg("%s", err.message);
  if (counted != NULL) *counted = lraf_total(S) - before;
  lraf_close(S);
  return P;
}

int tutil_prof_find(const lraf_profile *P, const char *name, int line,
                    lraf_profile_func *out) {
  int i, n = lraf_profile_functions(P);
  for (i = 0; i < n; i++) {
    lraf_profile_function(P, i, out);
    if (strcmp(out->name, name) == 0 && (line == 0 || out->line == line))
      return 1;
  }
  return 0;
}

char *tutil_prof_text(const lraf_profile *P, const char *format) {
  char *buf = NULL;
  size_t len = 0;
  lraf_error err;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  if (lraf_profile_write(P, format, 0, f, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  fclose(f);
  return buf;
}

/* Sums each function's per-line counts in P's JSON output and checks
   them against its self count; returns the sum of the self counts. */
int64_t tutil_prof_lines(const lraf_profile *P, const char *what) {
  char *json = tutil_prof_text(P, "json");
  const char *p = json;
  int64_t selfsum = 0;
  while ((p = strstr(p, "{\"frame\": ")) != NULL) {
    const char *end = strchr(p, '\n'), *q;
    long long self, line, n, sum = 0;
    assert_non_null(end);
    q = strstr(p, "\"self\": ");
    assert_true(q != NULL && q < end);
    assert_int_equal(sscanf(q, "\"self\": %lld", &self), 1);
    selfsum += self;
    q = strstr(p, "\"lines\": [");
    if (q != NULL && q < end) {
      q += strlen("\"lines\": [");
      while (sscanf(q, "[%lld, %lld]", &line, &n) == 2) {
        sum += n;
        q = strchr(q, ']') + 1;
        if (*q == ',') q += 2;
      }
      if (sum != self)
        fail_msg("%s: %.*s: lines sum to %lld", what, (int)(end - p), p,
                 sum);
    }
    p = end;
  }
  free(json);
  return selfsum;
}

/* Every path of the folded output starts at a function of the script
   (chunk "h"): the main chunk, or a hook's function called after the
   main chunk returned; nothing is charged to the host. */
void tutil_prof_roots(const lraf_profile *P, const char *chunk,
                      const char *what) {
  char *folded = tutil_prof_text(P, "folded");
  char *line = folded, *next;
  for (; *line != '\0'; line = next) {
    char *semi;
    next = strchr(line, '\n');
    if (next != NULL) *next++ = '\0';
    else next = line + strlen(line);
    semi = strchr(line, ';');
    if (semi != NULL) *semi = '\0';
    if (strstr(line, chunk) == NULL)
      fail_msg("%s: a path outside the script: %s", what, line);
  }
  free(folded);
}

/* Every function of Q (the program unhooked) but the stand-in for
   debug.sethook (line 1) has the same self count in P. */
void tutil_prof_same(const lraf_profile *P, const lraf_profile *Q,
                     int skip_line, const char *what) {
  int i;
  lraf_profile_func q, p;
  for (i = 0; lraf_profile_function(Q, i, &q); i++) {
    if (q.line == skip_line) continue;
    if (!tutil_prof_find(P, q.name, q.line, &p))
      fail_msg("%s: %s (line %d) is missing", what, q.name, q.line);
    if (p.self != q.self)
      fail_msg("%s: %s (line %d) ran %lld, unhooked %lld", what, q.name,
               q.line, (long long)p.self, (long long)q.self);
  }
}
