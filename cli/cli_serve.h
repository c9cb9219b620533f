/*
** cli_serve.h - what the two halves of lraf serve share: the server's
** settings (cli_serve.c) and the HTTP front (cli_serve_http.c).  The
** tenants, what to bill and retries are service/'s (lraf_billing_*).
*/
#ifndef LRAF_CLI_SERVE_H
#define LRAF_CLI_SERVE_H

#include <stdint.h>

#include "cli.h"
#include "cli_serve_auth.h"
#include "cli_serve_metrics.h"
#include "cli_serve_timeline.h"

typedef struct srv {
  const char *dir;
  const char *ledger_spec;
  lraf_durability durability;  /* --ledger-durability */
  const char *bind;
  int port, workers, metering;
  int deterministic;       /* lraf_options.deterministic */
  int max_conns, max_per_ip, idle_timeout;
  int max_tenants;
  int64_t memory_limit, slice;
  const cli_tenant_value *tv;  /* the per-tenant options, in order */
  int ntv;
  lraf_pool *pool;
  lraf_ledger *ledger;     /* NULL without metering */
  lraf_billing *billing;   /* the tenants, what to bill, retries */
  srv_auth auth;           /* API keys, the admin token */
  srv_metrics metrics;     /* what the HTTP front counts (/metrics) */
  srv_timeline *timeline;  /* requests' phases, tenants' shares */
  cli_contract *contract;  /* --contract: "HANDLER N" lines, or NULL */
} srv;

/* The value of an X-Lraf-Max-Instructions header: NULL with *n set when
   v is 1 to 18 decimal digits of a number of at least 1 and nothing
   else; else why not (cli_serve_http.c). */
const char *srv_max_instructions(const char *v, int64_t *n);

/* Start / stop the HTTP front; srv_http_start prints the address. */
struct MHD_Daemon;
struct MHD_Daemon *srv_http_start(srv *s);
void srv_http_stop(struct MHD_Daemon *d);

#endif
