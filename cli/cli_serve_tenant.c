/*
** cli_serve_tenant.c - the tenants of lraf serve: made at a tenant's
** first request, with its per-tenant settings (the tenant's own, else
** those of "*") and its manager: a rate or a total at the root, and the
** tenant's quota below it, kept by the ledger when there is one.  At
** most max_tenants are kept: an idle one whose quota the SQLite ledger
** keeps (or who has no quota) makes room for a new one.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_serve.h"

/* Option o's value for tenant: its own, else "*"'s (the last given
   wins), else dflt. */
static int64_t setting(const srv *s, cli_opt o, const char *tenant,
                       int64_t dflt) {
  int i;
  for (i = s->ntv - 1; i >= 0; i--)
    if (s->tv[i].opt == o && strcmp(s->tv[i].tenant, tenant) == 0)
      return s->tv[i].value;
  for (i = s->ntv - 1; i >= 0; i--)
    if (s->tv[i].opt == o && strcmp(s->tv[i].tenant, "*") == 0)
      return s->tv[i].value;
  return dflt;
}

static void tenant_free(srv_tenant *t) {
  lraf_manager_release(t->manager);
  free(t);
}

/* Unlink the least recently used idle tenant that may go (s->lock
   held); 0 when none may. */
static int evict(srv *s) {
  srv_tenant **p, **lru = NULL, *t;
  for (p = &s->tenants; *p != NULL; p = &(*p)->next)
    if ((*p)->inflight == 0 && !(*p)->keep &&
        (lru == NULL || (*p)->used < (*lru)->used))
      lru = p;
  if (lru == NULL) return 0;
  t = *lru;
  *lru = t->next;
  s->ntenants--;
  tenant_free(t);
  return 1;
}

srv_tenant *srv_tenant_get(srv *s, const char *name, int *full,
                           lraf_error *err) {
  srv_tenant *t;
  lraf_manager *root;
  int64_t rate, quota;
  *full = 0;
  pthread_mutex_lock(&s->lock);
  s->clock++;
  for (t = s->tenants; t != NULL; t = t->next)
    if (strcmp(t->name, name) == 0) break;
  if (t != NULL) {
    t->inflight++;
    t->used = s->clock;
    pthread_mutex_unlock(&s->lock);
    return t;
  }
  if (s->ntenants >= s->max_tenants && !evict(s)) {
    pthread_mutex_unlock(&s->lock);
    *full = 1;
    snprintf(err->message, sizeof err->message, "too many tenants");
    return NULL;
  }
  t = calloc(1, sizeof *t);
  if (t == NULL) {
    pthread_mutex_unlock(&s->lock);
    snprintf(err->message, sizeof err->message, "out of memory");
    return NULL;
  }
  snprintf(t->name, sizeof t->name, "%s", name);
  t->limit = setting(s, CLI_OPT_REQUEST_LIMIT, name, -1);
  rate = setting(s, CLI_OPT_TENANT_RATE, name, 0);
  quota = setting(s, CLI_OPT_QUOTA, name, -1);
  /* a quota held in memory only, or leased from PostgreSQL, stays */
  t->keep = quota >= 0 &&
            (s->ledger == NULL || strncmp(s->ledger_spec, "sqlite:", 7) != 0);
  root = rate > 0 ? lraf_rate_new((double)rate, 1.0, NULL) : lraf_total_new();
  if (root == NULL) {
    snprintf(err->message, sizeof err->message, "out of memory");
  } else if (s->ledger != NULL) {
    t->manager = lraf_ledger_tenant(s->ledger, name, quota, s->slice, root,
                                    err);
  } else {
    t->manager = lraf_hier_new(root, quota);
  }
  lraf_manager_release(root);
  if (t->manager == NULL) {
    pthread_mutex_unlock(&s->lock);
    free(t);
    return NULL;
  }
  t->inflight = 1;
  t->used = s->clock;
  t->next = s->tenants;
  s->tenants = t;
  s->ntenants++;
  pthread_mutex_unlock(&s->lock);
  return t;
}

void srv_tenant_put(srv *s, srv_tenant *t) {
  pthread_mutex_lock(&s->lock);
  t->inflight--;
  pthread_mutex_unlock(&s->lock);
}
