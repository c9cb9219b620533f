/*
** pf_timeline.h - the timeline's samples and the analysis its outputs
** share (pf_timeline.c records and analyses, pf_tlout.c writes).
**
** Internal to lraf (prefix pf_).  Knows no Lua: a timeline is a manager
** (lraf.h) that sees consumes, never the state.
*/
#ifndef PF_TIMELINE_H
#define PF_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lraf.h"

#define PF_TL_STOP 1          /* the parent answered LRAF_STOP */
#define PF_TL_PAUSE 20000     /* ns in the parent's consume that count as
                                 a pause (a rate manager's sleep) */

/* One consume: at t (ns since the timeline began) account's thread on
   OS thread `thread` reported n instructions; the parent then held it
   wait ns (0 below PF_TL_PAUSE); cpu is the OS thread's CPU time in ns,
   read at most every millisecond (-1 when not read). */
typedef struct pf_tl_sample {
  int64_t t, n, wait, cpu;
  int64_t account;
  int thread;
  int flags;
} pf_tl_sample;

typedef struct pf_timeline pf_timeline;

/* m's timeline, or NULL when m is not one. */
pf_timeline *pf_timeline_of(lraf_manager *m);
/* A malloc'ed copy of the samples so far (NULL when out of memory). */
pf_tl_sample *pf_timeline_samples(pf_timeline *tl, size_t *n);

/* An interval of one OS thread: from its previous sample (after any
   wait) to sample; gap > 0 when it took that many seconds longer than
   its count predicts at the solo rate, beyond the threshold (placed at
   its end). */
typedef struct pf_tl_interval {
  const pf_tl_sample *sample;
  double start, end, gap;    /* seconds */
  int first;                 /* the thread's first sample */
} pf_tl_interval;
typedef void (*pf_tl_visit)(const pf_tl_interval *iv, void *ud);

/* The gap threshold and the window of o, defaults filled in. */
void pf_timeline_options(const lraf_timeline_opts *o, double *gap,
                         double *window);
/* Call f for every interval, in sample order; 0 when out of memory. */
int pf_timeline_walk(const pf_tl_sample *s, size_t n, double solo,
                     double gap_threshold, pf_tl_visit f, void *ud);
/* A whole window of an OS thread: from t, the share from the count and
   from the thread's CPU time (-1 when not known: the first window). */
typedef void (*pf_tl_window)(int thread, double t, double share,
                             double cpu_share, void *ud);
/* The summary of samples s (lraf_timeline_analyse), and each whole
   window to f when f is not NULL; 0 when out of memory. */
int pf_timeline_summarise(const pf_tl_sample *s, size_t n,
                          const lraf_timeline_opts *o,
                          lraf_timeline_summary *sum, pf_tl_window f,
                          void *ud);

/* Write samples x as lraf_timeline_write does (fmt must be valid);
   LRAF_EMEM or LRAF_EIO, without a message. */
lraf_status pf_timeline_write(const pf_tl_sample *x, size_t n, FILE *f,
                              lraf_timeline_format fmt,
                              const lraf_timeline_opts *opt,
                              const char *title,
                              lraf_timeline_summary *sum_out);

#endif
