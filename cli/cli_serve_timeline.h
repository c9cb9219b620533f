/*
** cli_serve_timeline.h - lraf serve's timeline and delivered share: a
** record of every request's phases (queued for a worker, running on
** it, waiting for the ledger), the per-tenant delivered rate and share
** over windows of a second (/metrics, --expect-share), and with
** --timeline FILE the trace event JSON of it, written at stop.
*/
#ifndef LRAF_CLI_SERVE_TIMELINE_H
#define LRAF_CLI_SERVE_TIMELINE_H

#include <stdint.h>

#include "lraf.h"

typedef struct srv_timeline srv_timeline;

/* What one request did: Unix times from its headers' arrival (submit)
   to its response (done), and what ran. */
typedef struct srv_req_times {
  double submit, start, end, done;
  double cpu;                  /* the worker thread's CPU seconds */
  int64_t instructions;
  int worker, status;
  const char *tenant, *handler, *request_id;
} srv_req_times;

/* A new recorder (NULL when out of memory; said).  path: --timeline's
   file (opened now, a usage error said when it cannot be), or NULL;
   expect_share: --expect-share as a fraction, 0: none. */
int srv_timeline_open(srv_timeline **out, const char *path,
                      double expect_share);
/* Note a request that ran. Thread-safe. */
void srv_timeline_note(srv_timeline *tl, const srv_req_times *r);
/* A tenant's last window (the open one until one closed). */
typedef struct srv_share {
  const char *tenant;
  double rate;                 /* instructions per second of running */
  double share, cpu_share;     /* from the count, from CPU time */
  int64_t short_windows;       /* closed below --expect-share */
} srv_share;
/* Call f for every tenant seen, under the recorder's lock; returns
   --expect-share (0: none). */
double srv_timeline_each(srv_timeline *tl,
                         void (*f)(void *ud, const srv_share *s), void *ud);
/* Write the file (with --timeline) and free everything; NULL ignored. */
void srv_timeline_close(srv_timeline *tl);

#endif
