/*
** cli_serve_metrics.h - what lraf serve's /metrics shows, in one place:
** the counters and histograms the HTTP front keeps, and the OpenMetrics
** text made of them, the billing's tenants, the ledger and the build.
** A new metric is a field of srv_metrics (or a call in
** srv_metrics_render) and its family in cli_serve_metrics.c.
*/
#ifndef LRAF_CLI_SERVE_METRICS_H
#define LRAF_CLI_SERVE_METRICS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lraf.h"

/* A histogram of seconds over SRV_HIST_BUCKETS fixed upper bounds (and
   +Inf), as Prometheus keeps one. */
#define SRV_HIST_BUCKETS 15
typedef struct srv_hist {
  pthread_mutex_t lock;
  int64_t count[SRV_HIST_BUCKETS + 1];   /* per bucket, not cumulative */
  int64_t n;
  double sum;
} srv_hist;

typedef struct srv_metrics {
  srv_hist request;            /* a request from its headers to its
                                  response: run, recorded, committed */
  atomic_int_fast64_t inflight;      /* handler requests being served */
  atomic_int_fast64_t unauthorized;  /* 401s: no or a wrong key or token */
  atomic_int_fast64_t ledger_errors; /* requests the ledger failed */
} srv_metrics;

void srv_metrics_init(srv_metrics *m);
void srv_metrics_free(srv_metrics *m);
void srv_hist_add(srv_hist *h, double seconds);

/* Text that grows; failed is set when memory ran out. */
typedef struct srv_text {
  char *b;
  size_t len, cap;
  int failed;
} srv_text;

void srv_text_add(srv_text *t, const char *fmt, ...);
/* A label value, escaped as the exposition format wants (\\, \", \n). */
void srv_text_label(srv_text *t, const char *value);
/* The lines of one tenant in family f (0 to SRV_TENANT_FAMILIES - 1);
   their # TYPE and # HELP lines are srv_text_family's. */
#define SRV_TENANT_FAMILIES 5
void srv_text_family(srv_text *t, int f);
void srv_text_tenant(srv_text *t, int f, const lraf_tenant_stats *s);

/* The whole /metrics text of the server (ends with # EOF). */
struct srv;
void srv_metrics_render(struct srv *s, srv_text *t);

#endif
