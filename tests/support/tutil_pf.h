/*
** tutil_pf.h - the profiler's oracle for the tests (tutil_pf.c): a
** count hook of 1 on the unmodified program, per function and per
** line, and a profile's comparison with it.
*/
#ifndef TUTIL_PF_H
#define TUTIL_PF_H

#include <stddef.h>
#include <stdint.h>

#include "lraf.h"

/* Run a file, or source text named name, under the oracle (standard
   output discarded); fails the test when the program fails. */
void tutil_pf_oracle_file(const char *path);
void tutil_pf_oracle_src(const char *src, size_t len, const char *name);
/* Instructions the oracle counted in its last run. */
long long tutil_pf_oracle_total(void);
/* Forget the last run; _release also frees the oracle's tables. */
void tutil_pf_oracle_free(void);
void tutil_pf_oracle_release(void);

/* The sum of P's self counts. */
int64_t tutil_pf_self_sum(const lraf_profile *P);
/* P's Lua functions' self counts against the oracle's, C functions at
   0 (no native charging); the number that differ, printed when
   report. */
int tutil_pf_compare_functions(const lraf_profile *P, const char *name,
                               int report);
/* P's per-line counts (from its JSON output): each function's lines sum
   to its self count, and when strict they equal the oracle's.  The
   number of differences (printed); *with_lines gets the number of
   functions that have lines. */
int tutil_pf_compare_lines(const lraf_profile *P, const char *name,
                           int strict, int *with_lines);
/* P written in format (malloc'ed, *len bytes). */
char *tutil_pf_write(const lraf_profile *P, const char *format,
                     size_t *len);
/* Standard output to /dev/null and back (the saved descriptor). */
int tutil_pf_quiet(void);
void tutil_pf_loud(int saved);

#endif
