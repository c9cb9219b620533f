/*
** tutil_oracle.h - a program run both ways of tutil_run (under the
** count hook, and rewritten by lraf) as a cmocka check: both must run
** to the end and print the same.  (tutil_run.c itself does not use
** cmocka: the benchmarks build it.)
*/
#ifndef TUTIL_ORACLE_H
#define TUTIL_ORACLE_H

#include "tutil_run.h"

/* Fail the test unless both runs of the program name ran to the end
   and printed the same. */
void tutil_oracle_check(const char *name, const tutil_run *hook,
                        const tutil_run *rw);
/* Run src (chunk name name) under the hook into hook, and rewritten with
   opt (NULL: the default options) at granularity into rw; then
   tutil_oracle_check.  Free both with tutil_run_free. */
void tutil_oracle_both(const char *src, const char *name,
                       const rw_options *opt, long long granularity,
                       tutil_run *hook, tutil_run *rw);

#endif
