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
