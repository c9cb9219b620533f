/*
** rt.h - internal interface of runtime/: the lraf state, per-thread
** records, the shared counter, loading through the rewriter (the
** pipeline is rt_pipeline.h), and the wrappers that keep the quota
** error and coroutine attribution right.  Each heading names the file
** that defines what follows it.
**
** Internal to lraf (prefix rt_).  Uses bytecode/, rewriter/ and accounts/
** through their headers only.
*/
#ifndef RT_H
#define RT_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "acct.h"
#include "lraf.h"
#include "rt_pipeline.h"
#include "rw.h"

/* The record of one Lua thread: a full userdata kept alive by its thread
   (a weak-keyed registry table), whose address is stored in the
   thread's extra space.  The main thread's record lives in the state. */
typedef struct rt_thread {
  lua_State *L;
  lraf_state *S;
  lraf_account *acct;  /* owned; NULL once the thread was finalized */
  int host;            /* being resumed by lraf_resume */
  size_t slot;         /* index in S->live (coroutines) */
  int64_t deferred;    /* counted, not yet charged to acct (rt_defer.c) */
  struct rt_thread *dnext;  /* next in S->deferred */
  int dlisted;         /* in S->deferred */
  /* the script's own debug hook on this thread (rt_debug.c): its mask
     (LUA_MASK*) and count as debug.sethook set them or the creating
     thread had them, and when the next count event is due */
  int hookmask, hookcount;
  int64_t hooknext;
  int hookarmed;       /* hooknext is set */
  int hookbusy;        /* its hook function is running */
  int followed;        /* the collector (S->collector) follows it */
} rt_thread;

/* A collector of calls and returns that shares the threads' debug hook
   with the script's own hooks (rt_debug.c dispatches): the stock
   target's profile (rt_profile.c). */
typedef struct rt_collector {
  /* A call, tail call or return of followed thread L; also the thread's
     Lua hook itself while the script sets none there. */
  void (*event)(lua_State *L, lua_Debug *ar);
  /* The script's hook function at the top of L is about to be called
     for ar's event, and has returned: it is a frame of its own. */
  void (*enter)(lua_State *L, lua_Debug *ar);
  void (*leave)(lua_State *L);
} rt_collector;

/* A living coroutine's record and its account (kept apart so that the
   account can be released after lua_close has freed the record). */
struct rt_live {
  rt_thread *t;
  lraf_account *a;
};

#define RT_HOST_BLOCKS 32

struct lraf_state {
  lua_State *L;          /* the main thread */
  rw_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  char model[96];         /* the cost-model id (lraf_model) */
  char rwmodel[80];       /* the rewriter's part, for offline chunks */
  int native;             /* charge native work */
  int det;                /* deterministic (lraf_options.deterministic) */
  uint32_t hash_seed;     /* with det: 0 or the host's string hash seed */
  int det_marked;         /* lraf_deterministic_restart: cid_mark is set */
  unsigned det_cid;       /* the lraf VM's creation number to restart at */
  int native_after;       /* set by a size function: charge after too */
  int64_t native_call;    /* default per-call charge of C modules */
  void *natnext;          /* nat_next.c's scan cache (in the registry) */
  size_t mem_limit;       /* 0: none */
  size_t mem_used, mem_peak;
  int mem_refused;        /* the allocator refused a block */
  /* rt_alloc.c: host strings (paths, a command line) left out of the
     count, so that what a script may allocate does not depend on them */
  int host_strings;       /* lraf_host_strings is on */
  size_t host_want;       /* the next host_want_n string blocks: out
                             while of this size */
  int host_want_n;
  size_t host_credit;     /* what of such a block is out (0: all) */
  size_t str_header;      /* a string's block: str_header + length + 1 */
  int nhost;
  struct { void *p; size_t credit; } host[RT_HOST_BLOCKS];
  size_t mem_grown;       /* bytes allocations grew by, in all */
  size_t mem_refused_at;  /* mem_grown at the last refusal + 1; 0: none */
  int mem_thrash;         /* refusals too close: refuse every growth */
  int memerr;             /* the stop propagating is the memory limit */
  int64_t granularity;
  lraf_env env;
  int keep_accounts;     /* how many dead coroutines' accounts to keep */
  int traceback;
  int anchor_ref;        /* registry reference of the anchor closure */
  int counter_up;        /* 1-based upvalue index of its counter */
  int64_t base;          /* counter value at the last reset */
  int64_t pending;       /* small native charges not yet in the counter
                            (< RT_PENDING_MAX; part of rt_live) */
  int64_t native_units;  /* native work charged so far (rt_charge) */
  rt_thread main;
  rt_thread *cur;        /* whose instructions the counter counts */
  lua_State *running;    /* the thread running now */
  int64_t next_id;
  int quota;             /* a quota error is propagating */
  lua_CFunction os_exit; /* Lua's os.exit, which lraf's calls */
  int depth;             /* nesting of lraf entry points */
  int paused;            /* consume paused the running coroutine */
  struct rt_live *live;  /* living coroutines */
  size_t nlive, caplive;
  lraf_account **dead;   /* keep_accounts: accounts of dead coroutines */
  size_t ndead, capdead;
  int closing;           /* inside lua_close */
  char *last_error;      /* full message of the last failed call */
  int64_t retired_sum, retired_count;
  char *cpath;           /* sandbox: package.cpath when created */
  /* rt_stop.c: where the last call stopped */
  char where[192], mem_where[192];
  int where_noted;
  int64_t charged;       /* everything ever charged (rt_total) */
  rt_thread *deferred;   /* threads with a deferred count (rt_defer.c),
                            all answering to the current manager */
  int64_t dsum;          /* their deferred counts together */
  lua_Integer *vmcounter;  /* the lraf VM's counter (RW_LRAVM), or NULL */
  struct lraf_profile *profile;  /* the running profile (rt_profile.c) */
  const rt_collector *collector; /* its hook's events, or NULL */
  struct rt_pflines *pflines;    /* ACCT counts for profiles (rt_pfvm.c) */
  char **allow_dirs;     /* sandbox: real paths of the allowed
                            directories (NULL-terminated) */
  char **allow_modules;  /* sandbox: C modules require may load */
  int allow_offline;     /* lraf_load_rewritten takes unsigned chunks */
  unsigned char *key;    /* offline_key (copied); NULL: none */
  size_t keylen;
};

/* ---- rt_thread.c: thread records ---- */
/* The lraf state of L, a thread of it. */
lraf_state *rt_state(lua_State *L);
void rt_threads_init(lua_State *L, lraf_state *S);
/* The record of co, from the running thread L, creating it (inheriting
   the current thread's manager) when co has none yet; raises a Lua
   error when out of memory.  rt_switch.h has the case of an existing
   record inline for the coroutine wrappers. */
rt_thread *rt_thread_other(lua_State *L, lua_State *co);
/* The record of L. */
rt_thread *rt_thread_of(lua_State *L);
/* Create co's record from the running thread L with manager m. */
rt_thread *rt_thread_new(lua_State *L, lua_State *co, lraf_manager *m);
/* Free what the records hold after lua_close. */
void rt_threads_free(lraf_state *S);

/* ---- rt_defer.c: deferred charges ---- */
/* Charge every deferred count to its account and manager (sets
   S->quota when a manager stops); inline when nothing waits. */
void rt_settle_deferred(lraf_state *S);
static inline void rt_settle(lraf_state *S) {
  if (S->deferred != NULL) rt_settle_deferred(S);
}
/* Keep n, counted for t (not yet charged) at a switch to a thread of
   the same manager, for the next settle; 0 (nothing kept) when charging
   n now could make the manager do more than add it up.  Inline: it runs
   at every resume and yield. */
static inline int rt_defer(lraf_state *S, rt_thread *t, int64_t n) {
  int64_t room = acct_defer_room(t->acct->manager);
  if (room < 0 || S->dsum + n > room) return 0;
  if (!t->dlisted) {
    t->dlisted = 1;
    t->dnext = S->deferred;
    S->deferred = t;
  }
  t->deferred += n;
  S->dsum += n;
  S->charged += n;
  return 1;
}

/* ---- rt_counter.c: the shared counter ---- */
/* The stock target's counter cell (an upvalue of the anchor): read and
   set it. */
int64_t rt_counter_cell(lraf_state *S, lua_State *L);
void rt_counter_set_cell(lraf_state *S, lua_State *L, int64_t v);
/* Native charges below this wait in S->pending. */
#define RT_PENDING_MAX 256
/* The current counter value minus the value of the last reset. */
int64_t rt_live(lraf_state *S, lua_State *L);
/* rt_live less what L's frames have charged ahead of what they ran (the
   lraf VM in exact mode: blocks are charged when they start), so that a
   count read during a call is exact. */
int64_t rt_live_run(lraf_state *S, lua_State *L);
/* rt_total less the same (the profiler's running total). */
int64_t rt_total_run(lraf_state *S, lua_State *L);
/* Charge the live count (plus extra) to the current account and reset
   the counter to the next granularity (0 when stopping). */
lraf_verdict rt_flush(lraf_state *S, lua_State *L, int64_t extra,
                      int can_pause);
/* Flush for the current thread (or keep its count, rt_defer) and make
   `to` the current one.  Returns the flush's verdict; sets S->quota on
   LRAF_STOP.  can_pause: the thread left is host scheduled (a pause only
   sets its wake time).  rt_switch.h has the deferred case inline for the
   coroutine wrappers. */
lraf_verdict rt_switch(lraf_state *S, lua_State *L, rt_thread *to,
                       int can_pause);
/* Charge n units of native work to L's thread (may raise the quota
   error; nat_wrap.c's wrappers call it). */
void rt_charge(lua_State *L, int64_t n);
/* The consume function the rewritten code calls. */
int rt_consume(lua_State *L);
/* Reset the counter to the current account's granularity (nothing
   live: call right after a flush). */
void rt_regranulate(lraf_state *S, lua_State *L);
/* Everything the state counted so far, live counter included: grows by
   exactly what runs (the profiler reads it at calls and returns). */
int64_t rt_total(lraf_state *S, lua_State *L);
/* The same from the counter's value (the lraf VM's profiler reads it at
   every call and return: rt_pfvm.c). */
static inline int64_t rt_total_of(const lraf_state *S, int64_t value) {
  return S->charged + value - S->base + S->pending;
}

/* ---- rt_profile.c: the profiler's stock collector ---- */
/* Stop and free the running profile, if any (lraf_close). */
void rt_profile_drop(lraf_state *S);
/* Free the ACCT counts of the lraf VM's profiles (rt_pfvm.c), after
   lua_close. */
void rt_pfvm_close(lraf_state *S);

/* ---- rt_lravm.c: the lraf VM's counter (target RW_LRAVM only) ---- */
/* The state's ACCT counter, which replaces the counter cell. */
lua_Integer *rt_vm_counter(lua_State *L);
/* What L's Lua frames have charged ahead (0 without refund tables). */
int64_t rt_vm_ahead(lua_State *L);
/* Make consume the function ACCT calls at a zero check and let MMBIN*
   charge their cost under opt when they run; with native, also charge
   the VM's work that grows with its operands (long-string comparisons,
   values moved by VARARG, RETURN, TAILCALL, SETLIST). */
void rt_vm_bind(lua_State *L, lua_CFunction consume, const rw_options *opt,
                int native);
/* The units the lraf VM's size charges added to its counter (0 on stock
   Lua): native work, not instructions. */
int64_t rt_vm_work(lua_State *L);
/* The number of upvalues of the unmodified function at idx, or -1 when
   it does not carry lraf's counter and consume. */
int rt_own_upvalues(lua_State *L, int idx);

/* ---- rt_protect.c: the quota error, and pcall/xpcall that pass it on ---- */
void rt_protect_init(lua_State *L);
/* rt_counter.c: raise the quota error (the memory one after a memory
   stop); the registry keys of the two stop values. */
int rt_raise_quota(lua_State *L);
extern const char rt_quota_key, rt_memory_key;
int rt_is_quota(lua_State *L, int idx);
/* After a protected call or resume in L ended with status: a memory
   error caused by the memory limit becomes the sticky stop.  Returns 1
   when a stop (quota or memory) is propagating. */
int rt_stopping(lua_State *L, int status);
/* Install pcall and xpcall in the table at the top. */
void rt_protect_open(lua_State *L);

/* ---- rt_load.c: compiling through the rewriter ---- */
/* Lua load status plus the lraf status that explains it. */
typedef struct rt_loadres {
  int status;        /* LUA_OK or a Lua error status */
  lraf_status code;
} rt_loadres;
/* Load source text / a file / a reader (as lua_load) with Lua's mode
   argument; binary chunks are refused.  Pushes the rewritten function
   joined to the state's counter, or an error message. */
rt_loadres rt_load_buffer(lua_State *L, const char *s, size_t len,
                          const char *name, const char *mode);
rt_loadres rt_load_file(lua_State *L, const char *path, const char *mode);
rt_loadres rt_load_reader(lua_State *L, lua_Reader reader, void *ud,
                          const char *name, const char *mode);
/* Load a rewritten chunk (no mode checks) and join it to the counter.
   *chunk is written out, then freed and set to NULL before Lua loads
   what was written, so that the two are not held at once. */
rt_loadres rt_load_rewritten(lua_State *L, bc_chunk **chunk,
                             const char *name);

/* ---- rt_alloc.c: the rewriter's memory under the memory limit ---- */
/* Count the rewriter's estimated memory for a dump of `dumped` bytes in
   L's state (*held); 0 when the memory limit refuses it. */
int rt_rwmem_reserve(lua_State *L, size_t dumped, size_t *held);
void rt_rwmem_release(lua_State *L, size_t held);

/* ---- rt_loadlib.c: load, loadfile, dofile, require's Lua searcher ---- */
void rt_loadlib_open(lua_State *L, lraf_state *S);

/* ---- rt_coro.c: coroutine wrappers ---- */
void rt_coro_open(lua_State *L);

/* ---- rt_env.c: environments ---- */
void rt_env_open(lua_State *L, lraf_state *S);

/* ---- rt_debug.c: the debug library blind to the accounting ---- */
/* Replace the debug library's introspection functions (stock target;
   call after the environment is open). */
void rt_debug_open(lua_State *L);
/* Give L1 the debug hook that its record asks for: the script's own
   mask and count, with calls and returns when the collector follows
   it; none when neither wants events.  Call it again for every thread
   the collector follows when it stops. */
void rt_hook_set(lua_State *L1);
/* Whether L's debug hook was set by other code than lraf's (the host's
   lua_sethook). */
int rt_hook_foreign(lua_State *L);

/* ---- rt_hmac.c: HMAC-SHA-256 of offline chunks ---- */
#define RT_MAC_LEN 32
void rt_hmac(const void *key, size_t keylen, const void *data, size_t len,
             unsigned char out[RT_MAC_LEN]);
/* Compare two MACs in constant time. */
int rt_hmac_equal(const unsigned char *a, const unsigned char *b);

/* ---- rt_sandbox.c: files and C modules in the sandbox ---- */
lraf_status rt_sandbox_options(lraf_state *S, const lraf_options *o,
                               lraf_error *err);
void rt_sandbox_free(lraf_state *S);
/* Restrict loadfile, dofile, package.searchpath and require's
   searchers (after rt_loadlib_open). */
void rt_sandbox_open(lua_State *L);

/* ---- rt_dump.c: string.dump and the binary chunks it makes ---- */
/* Keep the original dump of a chunk being loaded. */
lraf_status rt_dump_remember(lua_State *L, const char *p, size_t n,
                             lraf_error *err);
/* 1 when s is a binary chunk this state's string.dump made and the
   environment is full. */
int rt_dump_known(lua_State *L, const char *s, size_t len);
/* Replace string.dump. */
void rt_dump_open(lua_State *L);

/* ---- native/nat_open.c: installing charged wrappers (the models:
   nat_cost.h; the wrapper: nat_wrap.c) ---- */
/* With S->native: wrap the modelled built-ins and the C searchers. */
void nat_open(lua_State *L, lraf_state *S);
/* With native charging: wrap the modelled functions of the library
   table at t (lraf's own versions of lib's functions). */
void nat_wrap_lib(lua_State *L, int t, const char *lib);
/* When the function at idx is one of the closures of native charging (a
   charging wrapper, a wrapped searcher or loader), push the function it
   stands for, whose upvalues a script sees, and return 1; else 0. */
int nat_wrapped(lua_State *L, int idx);
/* nat_wrap.c: 1 when the function at idx is a charging wrapper. */
int rt_is_wrapper(lua_State *L, int idx);
/* nat_lpeg.c: for require's C searcher with native charging on: when the
   name at 1 is "lpeg" and the library has its metered LPeg, push its
   loader and "lraf:metered" and return 1; else 0. */
int nat_lpeg_search(lua_State *L);

/* ---- rt_stop.c: where a call stopped (lraf_last_where) ---- */
/* At the start of an outermost call: forget the last place. */
void rt_stop_clear(lraf_state *S);
/* A Lua error is being raised in L (from the message handler). */
void rt_stop_error(lua_State *L);
/* The quota error (or, with memory, the memory limit) stops L. */
void rt_stop_limit(lraf_state *S, lua_State *L, int memory);
/* The allocator refuses a block for the memory limit. */
void rt_stop_refused(lraf_state *S);

/* ---- rt_sort.c: table.sort with a fixed pivot (stock target) ---- */
int rt_sort(lua_State *L);
/* Make it the table library's sort. */
void rt_sort_open(lua_State *L);

/* ---- rt_alloc.c: the state's allocator ---- */
void *rt_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Measure the block of a string (once, when the state is made). */
void rt_alloc_probe(lraf_state *S);
/* Leave the next n string blocks out of the count while they have the
   size of a string of len bytes (a chunk name: rt_load.c): credit bytes
   of each (0: all of it). */
void rt_alloc_want(lraf_state *S, size_t len, int n, size_t credit);
/* Lua's longest interned string (LUAI_MAXSHORTLEN) */
#define RT_SHORTSTR 40

/* ---- rt_module.c: require "lraf" ---- */
int rt_open_module(lua_State *L);

/* ---- rt_enter.c: entering and leaving the state (under the host API) ---- */
/* Leave an lraf entry point: at the outermost one, flush the counter
   and clear the pending quota error. */
void rt_leave(lraf_state *S);
/* Convert the error object at the top of L into err (popping it). */
/* Fill err (and lraf_last_error) for a quota stop (memory 0) or a
   memory stop: the limit, where the code was, the native units. */
lraf_status rt_stop_fail(lraf_state *S, int memory, lraf_error *err);
lraf_status rt_error(lraf_state *S, lua_State *L, int status,
                     lraf_error *err);
/* Run f(L) with ud as its light userdata argument in protected mode on
   the main thread; Lua errors become err. */
lraf_status rt_protected(lraf_state *S, lua_CFunction f, void *ud,
                         int nresults, lraf_error *err);

/* ---- rt_options.c: what lraf_options stand for ---- */
/* Rewriter options and model id for o (weights copied to weights). */
lraf_status rt_rw_options(const lraf_options *o, rw_options *opt,
                          uint32_t *weights, char *model, size_t msize,
                          lraf_error *err);

/* ---- rt_offline.c: offline-rewritten chunks ---- */
/* The header of an offline chunk: magic, model id length, model id.
   Sets the model id (*mlen bytes, not terminated) and the size of the
   header (*skip). */
lraf_status rt_offline_header(const void *data, size_t size,
                              const char **model, size_t *mlen,
                              size_t *skip, lraf_error *err);

/* The host API (include/lraf.h) is defined in rt_state.c (states),
   rt_options.c, rt_host_load.c (loading), rt_call.c (calls, resumes),
   rt_accounts.c (accounts), nat_wrap.c (native work), rt_alloc.c
   (memory), rt_offline.c (offline chunks and listings), over the files
   above. */

#endif
