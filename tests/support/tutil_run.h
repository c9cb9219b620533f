/*
** tutil_run.h - test helpers that run Lua source two ways: unmodified
** under a count hook of 1 (the oracle), and rewritten by lraf with a
** minimal binding of the counter, capturing what the program prints.
*/
#ifndef TUTIL_RUN_H
#define TUTIL_RUN_H

#include <stddef.h>

#include "rw.h"

/* The VM part of this build's default cost-model ids (rw_model_id):
   the lraf VM's when built with LRAF_VM=1. */
#ifdef LRAF_VM
#define TUTIL_VM "lraf-vm5.4"
#define TUTIL_ACCT_CODE "ACCT"  /* what disasm shows of accounting code */
#else
#define TUTIL_VM "lua5.4"
#define TUTIL_ACCT_CODE "(lraf counter)"
#endif

typedef struct tutil_run {
  long long count;   /* instructions counted */
  long long consumes;  /* consume() calls (rewritten runs) */
  char *output;      /* what print and io.write wrote (malloc'ed) */
  size_t outlen;
  int ok;            /* 1 when the chunk ran without an error */
  char error[512];   /* the error message otherwise */
  rw_stats stats;    /* rewritten runs: what the rewriter did */
} tutil_run;

/* Run src unmodified with a count hook of 1. */
void tutil_run_hook(const char *src, size_t len, const char *name,
                    tutil_run *r);
/* Run src unmodified with a count hook every period instructions (none
   when period is 0); r->count is the number of hook calls. */
void tutil_run_every(const char *src, size_t len, const char *name,
                     int period, tutil_run *r);
/* Run src rewritten with opt and granularity; load() inside the program
   goes through the rewriter too.  With hook set, a count hook of 1 also
   runs, and r->count is what the hook saw instead (overhead mode's
   oracle). */
void tutil_run_rewritten(const char *src, size_t len, const char *name,
                         const rw_options *opt, long long granularity,
                         int hook, tutil_run *r);
void tutil_run_free(tutil_run *r);

/* Whether two runs printed the same. */
int tutil_run_same_output(const tutil_run *a, const tutil_run *b);
/* Accounting instructions run per original instruction: what a count
   hook sees of src rewritten with opt (granularity 100000) against what
   it sees of src itself.  stats, when not NULL, gets what the rewriter
   did.  -1 when either run fails. */
double tutil_run_accounting_ratio(const char *src, size_t len,
                                  const char *name, const rw_options *opt,
                                  rw_stats *stats);

/* When positive, consume() raises an error after this many calls, so
   tests can stop runaway programs. */
extern long long tutil_run_consume_limit;

/* Read a file into a NUL-terminated malloc'ed buffer; NULL on failure. */
char *tutil_run_slurp(const char *path, size_t *len);

#endif
