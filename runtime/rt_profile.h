/*
** rt_profile.h - what the profiler's two collectors share: the stock
** target's call and return hook (rt_profile.c, with the lraf_profile_*
** API) and the lraf VM's callback (rt_pfvm.c).  Both name functions the
** same way (rt_pfname.c) and feed the same core (profile/pf.h).
*/
#ifndef RT_PROFILE_H
#define RT_PROFILE_H

#include "pf.h"
#include "rt.h"

#define RT_PF_LUA_CACHE 1024  /* Lua functions: source, line -> function */
#define RT_PF_C_CACHE 256     /* C functions: closure -> function */
#define RT_PF_C_WAYS 4        /* entries a C function may take */

typedef struct rt_pf_centry {
  const void *p;
  lua_CFunction cfn;  /* against a reused address */
  int fn;             /* -1: in no loaded module */
} rt_pf_centry;

struct lraf_profile {
  pf_profile *P;
  lraf_state *S;
  int64_t last;          /* rt_total at the last event */
  int running;           /* the node on top since the last event */
  const lua_State *curL; /* the stack of the last event's thread */
  int cur;
  int create_fn, wrap_fn;  /* coroutine.create and wrap, once seen */
  int lua[RT_PF_LUA_CACHE];  /* -1: empty */
  rt_pf_centry c[RT_PF_C_CACHE];
  struct rt_pfvm *vm;    /* the lraf VM's collector; NULL: the hook's */
  int lines_was;         /* S->opt.lines before the profile */
};

/* ---- rt_pfname.c ---- */
/* The stack of thread L (-1: out of memory). */
int rt_pf_stack(lraf_profile *R, lua_State *L);
/* The Lua function that ar describes (lua_getinfo "S" done; ar->i_ci
   set, for its name). */
int rt_pf_lua(lraf_profile *R, lua_State *L, lua_Debug *ar);
/* A script's hook function at the top of L (left there), about to be
   called by the dispatcher of the script's hooks: named as a call by
   a hook ("hook") is. */
int rt_pf_hookfn(lraf_profile *R, lua_State *L);
/* The cache entry of a C function (its closure or light pointer p), or
   NULL when it has none. */
rt_pf_centry *rt_pf_cfind(lraf_profile *R, const void *p);
/* The C function at the top of L (left there; ar->i_ci set). */
int rt_pf_c(lraf_profile *R, lua_State *L, lua_Debug *ar);
/* Whether a C function called now on stack s is the host's (the C code
   that runs the profiled chunk: called on the main thread with no frame
   under it), which is not a frame: the root's first frame is the main
   chunk. */
int rt_pf_host_c(const lraf_profile *R, int s);
/* A coroutine.create or wrap call (node) returned thread co: its stack
   starts afresh under node. */
void rt_pf_created(lraf_profile *R, lua_State *co, int node);
/* What ran since the last event goes to the node on top after it. */
void rt_pf_charge(lraf_profile *R, lua_State *L);

/* ---- rt_pfvm.c: the lraf VM's collector (LUA_ACCT_VM builds) ---- */
/* Whether this build has it (then it is the one used). */
int rt_pfvm_builtin(void);
/* Follow calls and returns through the VM's callback; count the ACCTs
   of the chunks loaded from now on (per-line counts) when the state's
   target is the lraf VM's.  0 when out of memory. */
int rt_pfvm_start(lraf_profile *R);
/* Stop following; the per-line counts into the profile. */
void rt_pfvm_stop(lraf_profile *R);
void rt_pfvm_free(lraf_profile *R);
/* The Proto tree p (rt_inplace.c) was rewritten as f with
   rw_options.lines: count its ACCTs (their arrays live as long as the
   state: rt_pfvm_close, after lua_close). */
void rt_pfvm_attach(lua_State *L, void *p, const bc_proto *f);

#endif
