/*
** tutil_pfcore.c - the profile helpers of tutil_pfcore.h.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "tutil_pfcore.h"

pf_profile *tutil_pfcore_sample(int64_t g_self) {
  pf_profile *P = pf_new("test/model");
  int s, main_fn, f, g;
  static const char frames[4] = {0};
  assert_non_null(P);
  main_fn = pf_func_id(P, "m.lua", 0, "main chunk", 0);
  f = pf_func_id(P, "m.lua", 3, "f", 0);
  g = pf_func_id(P, "m.lua", 7, "g \"quoted\"\n\x01\xff", 0);
  s = pf_stack_id(P, (const void *)P, 0);
  pf_enter(P, s, main_fn, &frames[0]);
  pf_charge(P, pf_top(P, s), 10);
  pf_enter(P, s, f, &frames[1]);
  pf_charge(P, pf_top(P, s), 5);
  pf_enter(P, s, g, &frames[2]);
  pf_charge(P, pf_top(P, s), g_self);
  pf_leave(P, s);
  pf_leave(P, s);
  pf_enter(P, s, g, &frames[1]);
  pf_charge(P, pf_top(P, s), g_self);
  assert_int_equal(pf_unwind(P, s, &frames[0]), 1);  /* g unwound */
  pf_leave(P, s);
  pf_finish(P);
  return P;
}

char *tutil_pfcore_write(const pf_profile *P, pf_format fmt, int top,
                         size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  lraf_error err;
  assert_non_null(f);
  if (pf_write(P, fmt, top, f, &err) != LRAF_OK)
    fail_msg("pf_write: %s", err.message);
  fclose(f);
  if (len != NULL) *len = n;
  return buf;
}

void tutil_pfcore_read(const pf_profile *P, const char *name, pf_read *r) {
  size_t len;
  char *text = tutil_pfcore_write(P, PF_JSON, 0, &len);
  lraf_error err;
  if (pf_read_json(text, len, name, r, &err) != LRAF_OK)
    fail_msg("%s: %s\n%s", name, err.message, text);
  free(text);
}
