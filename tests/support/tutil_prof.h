/*
** tutil_prof.h - test helpers for the profilers' collectors: run a
** source under a profile in a new state and find its functions.
*/
#ifndef TUTIL_PROF_H
#define TUTIL_PROF_H

#include <stdint.h>

#include "lraf.h"

/* A Lua program with recursion, for the profilers' suites: a recursive
   merge sort of n pseudo-random numbers (n: a Lua expression, given as
   a string literal), then a table.sort and a print, as a string
   literal. */
#define TUTIL_PROF_MERGE_SORT(n) \
  "local function merge(a, lo, mid, hi)\n" \
  "  local t, i, j = {}, lo, mid + 1\n" \
  "  while i <= mid and j <= hi do\n" \
  "    if a[i] <= a[j] then t[#t + 1] = a[i]; i = i + 1\n" \
  "    else t[#t + 1] = a[j]; j = j + 1 end\n" \
  "  end\n" \
  "  while i <= mid do t[#t + 1] = a[i]; i = i + 1 end\n" \
  "  while j <= hi do t[#t + 1] = a[j]; j = j + 1 end\n" \
  "  for k = 1, #t do a[lo + k - 1] = t[k] end\n" \
  "end\n" \
  "local function merge_sort(a, lo, hi)\n" \
  "  if lo >= hi then return end\n" \
  "  local mid = (lo + hi) // 2\n" \
  "  merge_sort(a, lo, mid)\n" \
  "  merge_sort(a, mid + 1, hi)\n" \
  "  merge(a, lo, mid, hi)\n" \
  "end\n" \
  "local a, x = {}, 7\n" \
  "for i = 1, " n " do x = (x * 1103515245 + 12345) % 2147483648; " \
  "a[i] = x % 1000 end\n" \
  "merge_sort(a, 1, #a)\n" \
  "table.sort(a, function(p, q) return p > q end)\n" \
  "print(a[1], a[#a])\n"

/* Load and run src (chunk name name) in a new state made with opt
   (NULL: the defaults) between lraf_profile_start and lraf_profile_stop; *counted
   (may be NULL) gets what the state counted meanwhile.  Fails the test
   when anything fails.  Free the profile with lraf_profile_free. */
lraf_profile *tutil_prof_run(const lraf_options *opt, const char *src,
                             const char *name, int64_t *counted);
/* The function of P with this name (and line, unless line is 0); 0
   when there is none. */
int tutil_prof_find(const lraf_profile *P, const char *name, int line,
                    lraf_profile_func *out);
/* P written in format (malloc'ed, NUL-terminated). */
char *tutil_prof_text(const lraf_profile *P, const char *format);

/* Checks each function's per-line counts in P's JSON output (when it
   has them) against its self count; returns the sum of the self counts
   (what: the case, for the messages). */
int64_t tutil_prof_lines(const lraf_profile *P, const char *what);
/* Every path of P's folded output starts at a function whose frame
   name holds chunk (e.g. " (h:"): nothing is charged to the host. */
void tutil_prof_roots(const lraf_profile *P, const char *chunk,
                      const char *what);
/* Every function of Q but the one defined on skip_line has the same
   self count in P. */
void tutil_prof_same(const lraf_profile *P, const lraf_profile *Q,
                     int skip_line, const char *what);

#endif
