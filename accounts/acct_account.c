/*
** acct_account.c - one account per Lua thread (J-RAF2's
** ThreadCPUAccount): its manager, what it has flushed, and the charge
** path that reports to the manager.
*/
#include <stdlib.h>

#include "acct.h"

lraf_account *acct_new(int64_t id, lraf_manager *m) {
  lraf_account *a = malloc(sizeof *a);
  if (a == NULL) return NULL;
  atomic_init(&a->refs, 1);
  a->id = id;
  a->manager = lraf_manager_retain(m);
  atomic_init(&a->flushed, 0);
  atomic_init(&a->wake, 0.0);
  atomic_init(&a->mem_alloc, 0);
  atomic_init(&a->mem_peak, 0);
  return a;
}

lraf_account *lraf_account_retain(lraf_account *a) {
  if (a != NULL) atomic_fetch_add(&a->refs, 1);
  return a;
}

void lraf_account_release(lraf_account *a) {
  if (a == NULL || atomic_fetch_sub(&a->refs, 1) != 1) return;
  lraf_manager_release(a->manager);
  free(a);
}

lraf_verdict acct_charge(lraf_account *a, int64_t n, int can_pause) {
  atomic_fetch_add(&a->flushed, (long long)n);
  return lraf_manager_consume(a->manager, a, n, can_pause);
}

int64_t acct_granularity(lraf_account *a, int64_t dflt) {
  return lraf_manager_granularity(a->manager, a, dflt);
}

void acct_set_manager(lraf_account *a, lraf_manager *m) {
  lraf_manager *old = a->manager;
  a->manager = lraf_manager_retain(m);
  lraf_manager_release(old);
}

/* Written only by the OS thread that runs the account's state. */
void acct_note_alloc(lraf_account *a, int64_t n, int64_t in_use) {
  atomic_store_explicit(&a->mem_alloc,
                        atomic_load_explicit(&a->mem_alloc,
                                             memory_order_relaxed) + n,
                        memory_order_relaxed);
  if (in_use > atomic_load_explicit(&a->mem_peak, memory_order_relaxed))
    atomic_store_explicit(&a->mem_peak, in_use, memory_order_relaxed);
}

void lraf_account_memory(const lraf_account *a, int64_t *allocated,
                         int64_t *peak) {
  lraf_account *m = (lraf_account *)a;
  if (allocated != NULL)
    *allocated = m ? (int64_t)atomic_load(&m->mem_alloc) : 0;
  if (peak != NULL) *peak = m ? (int64_t)atomic_load(&m->mem_peak) : 0;
}

void acct_set_wake(lraf_account *a, double t) {
  atomic_store(&a->wake, t);
}

int64_t lraf_account_id(const lraf_account *a) {
  return a ? a->id : -1;
}

lraf_manager *lraf_account_manager(const lraf_account *a) {
  return a ? a->manager : NULL;
}

int64_t lraf_account_flushed(const lraf_account *a) {
  return a ? (int64_t)atomic_load(&((lraf_account *)a)->flushed) : 0;
}

double lraf_account_wake_time(const lraf_account *a) {
  return a ? atomic_load(&((lraf_account *)a)->wake) : 0.0;
}
