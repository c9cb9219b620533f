/*
** sv_tenant.c - a billing's tenants: made at a tenant's first request,
** with its terms (its own, else those of "*") and its manager: a rate
** or a total at the root, and the tenant's quota below it, kept by the
** ledger when there is one.  At most max_tenants are kept: an idle one
** whose quota the SQLite ledger keeps (or who has no quota) makes room
** for a new one.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv.h"

int sv_valid_name(const char *s, size_t max) {
  size_t n = 0;
  for (; *s; s++, n++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.'))
      return 0;
  return n > 0 && n <= max;
}

/* Term kind's value for tenant: its own, else "*"'s (the last given
   wins), else dflt. */
static int64_t term(const lraf_billing *b, lraf_term_kind kind,
                    const char *tenant, int64_t dflt) {
  int i;
  for (i = b->nterms - 1; i >= 0; i--)
    if (b->terms[i].kind == kind && strcmp(b->terms[i].tenant, tenant) == 0)
      return b->terms[i].value;
  for (i = b->nterms - 1; i >= 0; i--)
    if (b->terms[i].kind == kind && strcmp(b->terms[i].tenant, "*") == 0)
      return b->terms[i].value;
  return dflt;
}

static void tenant_free(sv_tenant *t) {
  lraf_manager_release(t->manager);
  free(t);
}

/* Unlink the least recently used idle tenant that may go (b->lock
   held); 0 when none may. */
static int evict(lraf_billing *b) {
  sv_tenant **p, **lru = NULL, *t;
  for (p = &b->tenants; *p != NULL; p = &(*p)->next)
    if ((*p)->inflight == 0 && !(*p)->keep &&
        (lru == NULL || (*p)->used < (*lru)->used))
      lru = p;
  if (lru == NULL) return 0;
  t = *lru;
  *lru = t->next;
  b->ntenants--;
  tenant_free(t);
  return 1;
}

/* The manager of a new tenant t (b->lock held); NULL with err set. */
static lraf_manager *tenant_manager(lraf_billing *b, sv_tenant *t,
                                    lraf_error *err) {
  lraf_manager *root, *m;
  int64_t rate = t->rate = term(b, LRAF_TERM_RATE, t->name, 0);
  int64_t quota = t->quota = term(b, LRAF_TERM_QUOTA, t->name, -1);
  /* a quota held in memory only, or leased from PostgreSQL, stays */
  t->keep = quota >= 0 && (b->ledger == NULL || sv_ledger_shared(b->ledger));
  root = rate > 0 ? lraf_rate_new((double)rate, 1.0, NULL) : lraf_total_new();
  if (root == NULL) {
    sv_fail(err, LRAF_EMEM, "out of memory");
    return NULL;
  }
  if (b->ledger != NULL) {
    m = lraf_ledger_tenant(b->ledger, t->name, quota, b->slice, root, err);
  } else {
    m = lraf_hier_new(root, quota);
    if (m == NULL) sv_fail(err, LRAF_EMEM, "out of memory");
  }
  lraf_manager_release(root);
  return m;
}

sv_tenant *sv_tenant_get(lraf_billing *b, const char *name, int *full,
                         lraf_error *err) {
  sv_tenant *t;
  *full = 0;
  pthread_mutex_lock(&b->lock);
  b->clock++;
  for (t = b->tenants; t != NULL; t = t->next)
    if (strcmp(t->name, name) == 0) break;
  if (t != NULL) {
    t->inflight++;
    t->used = b->clock;
    pthread_mutex_unlock(&b->lock);
    return t;
  }
  if (b->ntenants >= b->max_tenants && !evict(b)) {
    pthread_mutex_unlock(&b->lock);
    *full = 1;
    sv_fail(err, LRAF_ELIMIT, "too many tenants: %d kept at once and none "
            "is idle", b->max_tenants);
    return NULL;
  }
  t = calloc(1, sizeof *t);
  if (t == NULL) {
    pthread_mutex_unlock(&b->lock);
    sv_fail(err, LRAF_EMEM, "out of memory");
    return NULL;
  }
  snprintf(t->name, sizeof t->name, "%s", name);
  t->limit = term(b, LRAF_TERM_REQUEST_LIMIT, name, -1);
  t->manager = tenant_manager(b, t, err);
  if (t->manager == NULL) {
    pthread_mutex_unlock(&b->lock);
    free(t);
    return NULL;
  }
  t->inflight = 1;
  t->used = b->clock;
  t->next = b->tenants;
  b->tenants = t;
  b->ntenants++;
  pthread_mutex_unlock(&b->lock);
  return t;
}

void sv_tenant_put(lraf_billing *b, sv_tenant *t) {
  pthread_mutex_lock(&b->lock);
  t->inflight--;
  pthread_mutex_unlock(&b->lock);
}

void sv_tenant_free_all(lraf_billing *b) {
  sv_tenant *t, *next;
  for (t = b->tenants; t != NULL; t = next) {
    next = t->next;
    tenant_free(t);
  }
  b->tenants = NULL;
  b->ntenants = 0;
}
