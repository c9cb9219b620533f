/*
** rt_defer.c - deferred charges.  At a switch between two threads that
** answer to the same manager, the leaving thread's count waits in its
** record (no atomics, no manager call) when charging it could only add
** to totals: no callback would hear it and no budget would be exhausted
** by it.  The waiting counts are charged, each to its own account, at
** the next settle: before any other charge (consume, flush, a switch to
** another manager), before an account is read or retired, and before
** the state closes.  Everything a host or manager can observe is then
** what it was when every switch charged at once.  Keeping a count is
** rt_defer, inline in rt.h; charging the kept counts is here.
*/
#include "rt.h"

void rt_settle_deferred(lraf_state *S) {
  rt_thread *t = S->deferred;
  S->deferred = NULL;
  S->dsum = 0;
  while (t != NULL) {
    rt_thread *next = t->dnext;
    int64_t n = t->deferred;
    t->deferred = 0;
    t->dlisted = 0;
    t->dnext = NULL;
    if (n != 0 && acct_charge(t->acct, n, 0) == LRAF_STOP) S->quota = 1;
    t = next;
  }
}
