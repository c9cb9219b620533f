/*
** cli_serve_auth.h - who may ask lraf serve: API keys mapped to
** tenants (--tenants) and the admin token of /usage and /metrics
** (--admin-token-file), both given as "Authorization: Bearer ...".
*/
#ifndef LRAF_CLI_SERVE_AUTH_H
#define LRAF_CLI_SERVE_AUTH_H

#include "lraf.h"

typedef struct srv_auth {
  lraf_keys *keys;                      /* NULL: X-Tenant is taken */
  char admin[LRAF_KEY_HASH_SIZE];       /* the token's hash; "": none */
} srv_auth;

/* Read the files (either may be NULL); reports the error on stderr
   (file and line) and returns its exit status, or CLI_OK. */
int srv_auth_open(srv_auth *a, const char *keys_file, const char *token_file);
void srv_auth_close(srv_auth *a);

/* The tenant a request is from, given its Authorization and X-Tenant
   headers (either may be NULL).  NULL when refused: *status is 401 (no
   or a wrong key), 403 (an X-Tenant other than the key's) or 400 (no or
   a bad X-Tenant without --tenants), and *why says so. */
const char *srv_auth_tenant(const srv_auth *a, const char *authorization,
                            const char *x_tenant, int *status,
                            const char **why);
/* 1 when the request may read /usage and /metrics. */
int srv_auth_admin(const srv_auth *a, const char *authorization);

/* The header a 401 carries. */
#define SRV_AUTH_CHALLENGE "WWW-Authenticate: Bearer realm=\"lraf\"\n"

#endif
