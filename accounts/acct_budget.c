/*
** acct_budget.c - the limit manager (an absolute instruction quota) and
** the hierarchical manager (a budget drawn from a parent manager).  A
** limit is a budget without a parent.  Lock-free: the quota and the
** manager's total are atomics.
*/
#include <stdlib.h>

#include "acct.h"

typedef struct budget {
  lraf_manager *parent;  /* owned reference, or NULL */
  atomic_llong quota;    /* < 0: no budget of its own */
  lraf_manager *self;
} budget;

static int exhausted(const budget *b) {
  long long q = atomic_load(&((budget *)b)->quota);
  return q >= 0 && lraf_manager_total(b->self) > q;
}

static lraf_verdict budget_consume(void *ud, lraf_account *a, int64_t n,
                                   int can_pause) {
  budget *b = ud;
  lraf_verdict v = LRAF_CONTINUE;
  if (b->parent != NULL)
    v = lraf_manager_consume(b->parent, a, n, can_pause);
  if (exhausted(b)) v = LRAF_STOP;
  return v;
}

static int64_t budget_granularity(void *ud, lraf_account *a, int64_t dflt) {
  budget *b = ud;
  int64_t g = dflt;
  long long q = atomic_load(&b->quota);
  if (b->parent != NULL) g = lraf_manager_granularity(b->parent, a, dflt);
  if (q >= 0) {
    int64_t left = (int64_t)q - lraf_manager_total(b->self);
    if (left < 0) left = 0;
    if (left < g) g = left;
  }
  return g;
}

static void budget_release(void *ud) {
  budget *b = ud;
  lraf_manager_release(b->parent);
  free(b);
}

static const lraf_manager_ops budget_ops = {
  budget_consume, budget_granularity, budget_release
};

lraf_manager *lraf_hier_new(lraf_manager *parent, int64_t quota) {
  budget *b = malloc(sizeof *b);
  lraf_manager *m;
  if (b == NULL) return NULL;
  b->parent = NULL;
  atomic_init(&b->quota, (long long)quota);
  m = acct_manager_new(&budget_ops, b, ACCT_BUDGET);
  if (m == NULL) {
    free(b);
    return NULL;
  }
  b->self = m;
  b->parent = lraf_manager_retain(parent);
  return m;
}

lraf_manager *lraf_limit_new(int64_t quota) {
  return lraf_hier_new(NULL, quota < 0 ? 0 : quota);
}

int64_t lraf_limit_remaining(const lraf_manager *m) {
  budget *b;
  long long q;
  if (m == NULL || m->kind != ACCT_BUDGET) return INT64_MAX;
  b = m->ud;
  q = atomic_load(&b->quota);
  if (q < 0) return INT64_MAX;
  return (int64_t)q - lraf_manager_total(m);
}

/* The manager above m that acct_budget_left looks at next: a budget's
   parent, an observer's; NULL above any other kind. */
static const lraf_manager *above(const lraf_manager *m) {
  if (m->kind == ACCT_BUDGET) return ((budget *)m->ud)->parent;
  if (m->kind == ACCT_OBSERVER) return m->parent;
  return NULL;
}

int64_t acct_budget_left(const lraf_manager *m) {
  int64_t left = INT64_MAX;
  for (; m != NULL; m = above(m)) {
    if (m->kind == ACCT_BUDGET) {
      int64_t own = lraf_limit_remaining(m);
      if (own < left) left = own;
    } else if (m->kind != ACCT_OBSERVER) {
      break;
    }
  }
  return left;
}

int64_t acct_budget_quota(const lraf_manager *m) {
  int64_t quota = -1;
  for (; m != NULL && m->kind == ACCT_BUDGET; m = ((budget *)m->ud)->parent) {
    budget *b = m->ud;
    long long q = atomic_load(&b->quota);
    if (q < 0) continue;
    if (exhausted(b)) return (int64_t)q;
    if (quota < 0) quota = (int64_t)q;
  }
  return quota;
}

int64_t acct_budget_room(const lraf_manager *m) {
  const lraf_manager *p = m;
  while (p != NULL && (p->kind == ACCT_BUDGET || p->kind == ACCT_OBSERVER))
    p = above(p);
  if (p != NULL && p->ops.consume != NULL) return -1;
  return acct_budget_left(m);
}

void lraf_limit_set(lraf_manager *m, int64_t quota) {
  if (m == NULL || m->kind != ACCT_BUDGET) return;
  atomic_store(&((budget *)m->ud)->quota, (long long)quota);
}
