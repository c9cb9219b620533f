/*
** rt_switch.h - the most frequent cases of finding a thread's record and
** of switching the counter between threads, inline, for the coroutine
** wrappers (rt_coro.c) that run them at every resume and yield.  Every
** other case goes to the functions of rt.h.
*/
#ifndef RT_SWITCH_H
#define RT_SWITCH_H

#include "rt.h"

/* rt_thread_other when co has its record. */
static inline rt_thread *rt_switch_thread(lua_State *L, lua_State *co) {
  rt_thread *t = *(rt_thread **)lua_getextraspace(co);
  return t->L == co && t->acct != NULL ? t : rt_thread_other(L, co);
}

/* rt_switch when, on the lraf VM, both threads answer to one manager and
   rt_defer keeps the leaving thread's count. */
static inline lraf_verdict rt_switch_fast(lraf_state *S, lua_State *L,
                                          rt_thread *to, int can_pause) {
  rt_thread *from = S->cur;
  if (S->vmcounter != NULL && to != from && !S->quota &&
      from->acct != NULL && to->acct != NULL &&
      from->acct->manager == to->acct->manager) {
    int64_t c = (int64_t)*S->vmcounter, n = c - S->base + S->pending;
    if (n == 0 || rt_defer(S, from, n)) {
      S->pending = 0;
      S->base = c;
      S->cur = to;
      S->running = to->L;
      return LRAF_CONTINUE;
    }
  }
  return rt_switch(S, L, to, can_pause);
}

#endif
