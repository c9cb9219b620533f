/*
** tutil_oracle.h - a program run both ways of tutil_run (under the
** count hook, and rewritten by lraf) as a cmocka check: both must run
** to the end and print the same.  (tutil_run.c itself does not use
** cmocka: the benchmarks build it.)
*/
#ifndef TUTIL_ORACLE_H
#define TUTIL_ORACLE_H

#include "tutil_run.h"

/* Run src (chunk name name) under the hook into hook, and rewritten with
   the default options at granularity into rw; fails the test unless
   both ran to the end and printed the same.  Free both with
   tutil_run_free. */
void tutil_oracle_both(const char *src, const char *name,
                       long long granularity, tutil_run *hook,
                       tutil_run *rw);

#endif
