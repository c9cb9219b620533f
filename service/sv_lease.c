/*
** sv_lease.c - a tenant manager whose quota is shared by many hosts
** through the ledger's database: it runs on slices leased from the
** database (one transaction each) and stops when the database grants
** nothing more.  Its granularity never exceeds what is left of its
** slices, so a host spends at most what it was granted plus what its
** running threads overshoot (as with a limit).  Once out, it stays out.
*/
#include <stdlib.h>

#include "sv.h"

typedef struct sv_lease {
  sv_store *store;
  pthread_mutex_t *store_lock;
  char *tenant;
  int64_t slice;
  lraf_manager *parent;      /* retained; NULL: none */
  pthread_mutex_t lock;
  int64_t used, granted;
  int out;                   /* the database granted nothing more */
} sv_lease;

static lraf_verdict lease_consume(void *ud, lraf_account *a, int64_t n,
                                  int can_pause) {
  sv_lease *l = ud;
  lraf_verdict v = LRAF_CONTINUE;
  int stop;
  if (l->parent != NULL) v = lraf_manager_consume(l->parent, a, n, can_pause);
  pthread_mutex_lock(&l->lock);
  l->used += n;
  /* at the end of its grant (a first consume of 0 included) it leases
     the next slice, so that a tenant the database has nothing left for
     stops before it runs */
  while (l->used >= l->granted && !l->out) {
    int64_t got = 0;
    lraf_status st;
    pthread_mutex_lock(l->store_lock);
    st = l->store->ops->lease(l->store, l->tenant, l->slice, &got, NULL);
    pthread_mutex_unlock(l->store_lock);
    if (st != LRAF_OK || got <= 0) l->out = 1;
    else l->granted += got;
  }
  stop = l->used > l->granted || (l->out && l->used >= l->granted);
  pthread_mutex_unlock(&l->lock);
  return stop ? LRAF_STOP : v;
}

static int64_t lease_granularity(void *ud, lraf_account *a, int64_t dflt) {
  sv_lease *l = ud;
  int64_t g = l->parent != NULL ? lraf_manager_granularity(l->parent, a, dflt)
                                : dflt, left;
  pthread_mutex_lock(&l->lock);
  left = l->granted - l->used;
  pthread_mutex_unlock(&l->lock);
  if (left < g) g = left > 0 ? left : 0;
  return g;
}

static void lease_release(void *ud) {
  sv_lease *l = ud;
  lraf_manager_release(l->parent);
  pthread_mutex_destroy(&l->lock);
  free(l->tenant);
  free(l);
}

static const lraf_manager_ops lease_ops = {lease_consume, lease_granularity,
                                           lease_release};

lraf_manager *sv_lease_new(sv_store *s, pthread_mutex_t *store_lock,
                           const char *tenant, int64_t slice,
                           lraf_manager *parent) {
  sv_lease *l = calloc(1, sizeof *l);
  lraf_manager *m;
  if (l == NULL || (l->tenant = sv_strdup(tenant)) == NULL) {
    free(l);
    return NULL;
  }
  l->store = s;
  l->store_lock = store_lock;
  l->slice = slice;
  pthread_mutex_init(&l->lock, NULL);
  l->parent = lraf_manager_retain(parent);
  m = lraf_manager_new(&lease_ops, l);
  if (m == NULL) lease_release(l);
  return m;
}

void sv_lease_return(lraf_manager *m) {
  sv_lease *l = lraf_manager_userdata(m);
  int64_t unused;
  pthread_mutex_lock(&l->lock);
  unused = l->granted - l->used;
  if (unused > 0) {
    pthread_mutex_lock(l->store_lock);
    l->store->ops->give(l->store, l->tenant, unused, NULL);
    pthread_mutex_unlock(l->store_lock);
    l->granted = l->used;
  }
  l->out = 1;
  pthread_mutex_unlock(&l->lock);
}
