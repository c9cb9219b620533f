/*
** sv_tenant.c - a billing's tenants: made at a tenant's first request,
** with its terms (its own, else those of "*") and its manager: a rate
** or a total at the root, and the tenant's quota below it, kept by the
** ledger when there is one, for the current period when the quota has
** one (a new manager at the first request of a new period).  At most
** max_tenants are kept: an idle one whose quota the SQLite ledger keeps
** (or who has no quota) makes room for a new one.
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

/* The term of kind for tenant: its own, else "*"'s (the last given
   wins), else NULL. */
static const sv_term *term(const lraf_billing *b, lraf_term_kind kind,
                           const char *tenant) {
  int i;
  for (i = b->nterms - 1; i >= 0; i--)
    if (b->terms[i].kind == kind && strcmp(b->terms[i].tenant, tenant) == 0)
      return &b->terms[i];
  for (i = b->nterms - 1; i >= 0; i--)
    if (b->terms[i].kind == kind && strcmp(b->terms[i].tenant, "*") == 0)
      return &b->terms[i];
  return NULL;
}

static int64_t value(const sv_term *t, int64_t dflt) {
  return t != NULL ? t->value : dflt;
}

static void tenant_free(sv_tenant *t) {
  lraf_manager_release(t->manager);
  lraf_manager_release(t->root);
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

/* Set t's quota manager for the period holding now (b->lock held);
   LRAF_OK, or an error with err set. */
static lraf_status quota_for(lraf_billing *b, sv_tenant *t, double now,
                             lraf_error *err) {
  lraf_manager *m;
  if (b->ledger != NULL) {
    m = sv_ledger_period_tenant(b->ledger, t->name, t->quota, t->period, now,
                                b->slice, t->root, err);
  } else {
    m = lraf_hier_new(t->root, t->quota);
    if (m == NULL) sv_fail(err, LRAF_EMEM, "out of memory");
  }
  if (m == NULL) return err->code != LRAF_OK ? err->code : LRAF_EMEM;
  lraf_manager_release(t->manager);
  t->manager = m;
  /* nothing ran under it yet: what is left is its budget */
  t->budget = t->quota >= 0 && lraf_limit_remaining(m) < INT64_MAX
                  ? lraf_limit_remaining(m) : -1;
  t->period_start = lraf_period_start(t->period, now);
  t->period_end = lraf_period_end(t->period, now);
  return LRAF_OK;
}

/* A new tenant called name (b->lock held); NULL with err set. */
static sv_tenant *tenant_new(lraf_billing *b, const char *name, double now,
                             lraf_error *err) {
  sv_tenant *t = calloc(1, sizeof *t);
  const sv_term *q;
  if (t == NULL) {
    sv_fail(err, LRAF_EMEM, "out of memory");
    return NULL;
  }
  snprintf(t->name, sizeof t->name, "%s", name);
  t->limit = value(term(b, LRAF_TERM_REQUEST_LIMIT, name), -1);
  t->rate = value(term(b, LRAF_TERM_RATE, name), 0);
  q = term(b, LRAF_TERM_QUOTA, name);
  t->quota = value(q, -1);
  t->period = q != NULL ? q->period : LRAF_PERIOD_NONE;
  /* a quota held in memory only, or leased from PostgreSQL, stays */
  t->keep = t->quota >= 0 &&
            (b->ledger == NULL || sv_ledger_shared(b->ledger));
  t->root = t->rate > 0 ? lraf_rate_new((double)t->rate, 1.0, NULL)
                        : lraf_total_new();
  if (t->root == NULL) {
    sv_fail(err, LRAF_EMEM, "out of memory");
    free(t);
    return NULL;
  }
  if (quota_for(b, t, now, err) != LRAF_OK) {
    tenant_free(t);
    return NULL;
  }
  return t;
}

sv_tenant *sv_tenant_get(lraf_billing *b, const char *name, double now,
                         lraf_manager **m, int *full, lraf_error *err) {
  sv_tenant *t;
  *full = 0;
  *m = NULL;
  pthread_mutex_lock(&b->lock);
  b->tick++;
  for (t = b->tenants; t != NULL; t = t->next)
    if (strcmp(t->name, name) == 0) break;
  if (t != NULL && t->quota >= 0 && t->period != LRAF_PERIOD_NONE &&
      (now < t->period_start || now >= t->period_end) &&
      quota_for(b, t, now, err) != LRAF_OK) {
    pthread_mutex_unlock(&b->lock);
    return NULL;
  }
  if (t == NULL) {
    if (b->ntenants >= b->max_tenants && !evict(b)) {
      pthread_mutex_unlock(&b->lock);
      *full = 1;
      sv_fail(err, LRAF_ELIMIT, "too many tenants: %d kept at once and none "
              "is idle", b->max_tenants);
      return NULL;
    }
    if ((t = tenant_new(b, name, now, err)) == NULL) {
      pthread_mutex_unlock(&b->lock);
      return NULL;
    }
    t->next = b->tenants;
    b->tenants = t;
    b->ntenants++;
  }
  t->inflight++;
  t->used = b->tick;
  *m = lraf_manager_retain(t->manager);
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
