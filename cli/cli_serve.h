/*
** cli_serve.h - what the two halves of lraf serve share: the server's
** settings and tenants (cli_serve.c) and the HTTP front
** (cli_serve_http.c).
*/
#ifndef LRAF_CLI_SERVE_H
#define LRAF_CLI_SERVE_H

#include <pthread.h>
#include <stdint.h>

#include "cli.h"
#include "cli_serve_auth.h"

typedef struct srv_tenant {
  char name[65];
  lraf_manager *manager;   /* the tenant's budget */
  int64_t limit;           /* each request's own quota; -1: none */
  int64_t requests, instructions, native;   /* since start */
  int64_t by_class[6];     /* responses by status class 1xx..5xx */
  int inflight;            /* requests holding it (srv_tenant_get) */
  int keep;                /* never evicted: its quota lives here only */
  uint64_t used;           /* s->clock at its last request */
  struct srv_tenant *next;
} srv_tenant;

typedef struct srv {
  const char *dir;
  const char *ledger_spec;
  const char *bind;
  int port, workers, metering;
  int deterministic;       /* lraf_options.deterministic */
  int max_conns, max_per_ip, idle_timeout;
  int max_tenants, ntenants;
  uint64_t clock;          /* counts srv_tenant_get calls */
  int64_t memory_limit, slice;
  const cli_tenant_value *tv;  /* the per-tenant options, in order */
  int ntv;
  lraf_pool *pool;
  lraf_ledger *ledger;     /* NULL without metering */
  srv_auth auth;           /* API keys, the admin token */
  pthread_mutex_t lock;    /* tenants and their counters */
  srv_tenant *tenants;
} srv;

/* The tenant called name (created at its first request), held until
   srv_tenant_put; NULL with err set when its manager cannot be made, or
   when there are max_tenants tenants and none can be evicted (*full is
   then 1).  An idle tenant whose state the ledger keeps (or who has
   none) is evicted to make room, the least recently used first. */
srv_tenant *srv_tenant_get(srv *s, const char *name, int *full,
                           lraf_error *err);
void srv_tenant_put(srv *s, srv_tenant *t);

/* Start / stop the HTTP front; srv_http_start prints the address. */
struct MHD_Daemon;
struct MHD_Daemon *srv_http_start(srv *s);
void srv_http_stop(struct MHD_Daemon *d);

#endif
