/*
** acct.h - internal interface of accounts/: the manager object, the
** per-thread account, and the charge path the runtime calls.
**
** Internal to lraf (prefix acct_).  The public side is in lraf.h.
** Nothing here knows about lua_State: the runtime owns the counter and
** decides when to charge.
*/
#ifndef ACCT_H
#define ACCT_H

#include <stdatomic.h>
#include <stdint.h>

#include "lraf.h"

/* Kinds of stock managers, so that their own functions can check what
   they are given. */
enum { ACCT_CUSTOM, ACCT_TOTAL, ACCT_BUDGET, ACCT_RATE, ACCT_OBSERVER };

struct lraf_manager {
  lraf_manager_ops ops;
  void *ud;
  int kind;
  atomic_llong total;  /* everything charged */
  atomic_int refs;
  lraf_manager *parent;  /* an observer's (owned); NULL for the others */
};

struct lraf_account {
  atomic_int refs;
  int64_t id;
  lraf_manager *manager;  /* owned reference */
  atomic_llong flushed;   /* written by the owning state's thread only */
  _Atomic double wake;
  atomic_llong mem_alloc;  /* bytes allocated while its thread ran */
  atomic_llong mem_peak;   /* highest state in-use figure it reached */
};

/* A manager of a stock kind (see lraf_manager_new). */
lraf_manager *acct_manager_new(const lraf_manager_ops *ops, void *ud,
                               int kind);

/* A new account (one reference) bound to m (retained; must not be
   NULL); NULL when out of memory. */
lraf_account *acct_new(int64_t id, lraf_manager *m);
/* Record that a's thread ran n instructions and report them to its
   manager; returns the manager's verdict. */
lraf_verdict acct_charge(lraf_account *a, int64_t n, int can_pause);
/* How far a's thread may run before its next consume. */
int64_t acct_granularity(lraf_account *a, int64_t dflt);
/* What is left before m stops for a quota: the least of what is left of
   m's own budget and of every limit or hierarchical budget above it
   (lraf_limit_remaining tells m's own); INT64_MAX when none has one. */
int64_t acct_budget_left(const lraf_manager *m);
/* The quota of the first exhausted limit or hierarchical budget from m
   up, else of the first that has one; -1 when none has (a stop message
   names it). */
int64_t acct_budget_quota(const lraf_manager *m);
/* acct_defer_room: how much may be charged to m with its consume doing
   nothing but add to totals and find no budget exhausted: what
   acct_budget_left says when m and every manager above it are limits,
   hierarchical budgets or managers without a consume callback; -1
   otherwise (a callback, or a rate, has a say at every charge).
   acct_budget_room is its part for budgets.  An observer has its
   parent's room: it takes counts late. */
int64_t acct_budget_room(const lraf_manager *m);
static inline int64_t acct_defer_room(const lraf_manager *m) {
  while (m->kind == ACCT_OBSERVER)   /* an observer takes counts late */
    if ((m = m->parent) == NULL) return INT64_MAX;
  if (m->kind == ACCT_BUDGET) return acct_budget_room(m);
  return m->ops.consume == NULL ? INT64_MAX : -1;
}
/* Re-bind a to m (retained). */
void acct_set_manager(lraf_account *a, lraf_manager *m);
/* Record an allocation of n bytes that took its state to in_use. */
void acct_note_alloc(lraf_account *a, int64_t n, int64_t in_use);
/* Used by a pausing manager. */
void acct_set_wake(lraf_account *a, double t);

#endif
