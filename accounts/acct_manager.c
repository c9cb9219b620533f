/*
** acct_manager.c - the manager object: a reference-counted pair of
** C callbacks and user data, plus the running total every manager keeps,
** and the total manager (J-RAF2's SimpleCPUManager), which is nothing
** but that total.
*/
#include <stdlib.h>

#include "acct.h"

lraf_manager *acct_manager_new(const lraf_manager_ops *ops, void *ud,
                               int kind) {
  lraf_manager *m = malloc(sizeof *m);
  if (m == NULL) return NULL;
  if (ops != NULL) {
    m->ops = *ops;
  } else {
    m->ops.consume = NULL;
    m->ops.granularity = NULL;
    m->ops.release = NULL;
  }
  m->ud = ud;
  m->kind = kind;
  m->parent = NULL;
  atomic_init(&m->total, 0);
  atomic_init(&m->refs, 1);
  return m;
}

lraf_manager *lraf_manager_new(const lraf_manager_ops *ops, void *ud) {
  return acct_manager_new(ops, ud, ACCT_CUSTOM);
}

lraf_manager *lraf_observer_new(const lraf_manager_ops *ops, void *ud,
                                lraf_manager *parent) {
  lraf_manager *m = acct_manager_new(ops, ud, ACCT_OBSERVER);
  if (m != NULL) m->parent = lraf_manager_retain(parent);
  return m;
}

lraf_manager *lraf_manager_retain(lraf_manager *m) {
  if (m != NULL) atomic_fetch_add(&m->refs, 1);
  return m;
}

void lraf_manager_release(lraf_manager *m) {
  if (m == NULL || atomic_fetch_sub(&m->refs, 1) != 1) return;
  if (m->ops.release != NULL) m->ops.release(m->ud);
  lraf_manager_release(m->parent);
  free(m);
}

int64_t lraf_manager_total(const lraf_manager *m) {
  return m ? (int64_t)atomic_load(&((lraf_manager *)m)->total) : 0;
}

void *lraf_manager_userdata(const lraf_manager *m) {
  return m ? m->ud : NULL;
}

lraf_verdict lraf_manager_consume(lraf_manager *m, lraf_account *account,
                                  int64_t n, int can_pause) {
  if (m == NULL) return LRAF_CONTINUE;
  atomic_fetch_add(&m->total, (long long)n);
  if (m->ops.consume == NULL) return LRAF_CONTINUE;
  return m->ops.consume(m->ud, account, n, can_pause);
}

int64_t lraf_manager_granularity(lraf_manager *m, lraf_account *account,
                                 int64_t dflt) {
  int64_t g;
  if (m == NULL || m->ops.granularity == NULL) return dflt;
  g = m->ops.granularity(m->ud, account, dflt);
  return g < 0 ? 0 : g;
}

lraf_manager *lraf_total_new(void) {
  return acct_manager_new(NULL, NULL, ACCT_TOTAL);
}
