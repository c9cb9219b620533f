/*
** lraf.h - the public interface of lraf, the Lua Resource Accounting
** Framework.  This is the only header a host includes.
**
** Everything that can fail returns an lraf_status and, where the caller
** passes one, fills an lraf_error with a message that says what was wrong
** and where.  Nothing in the library calls exit() or prints.
*/
#ifndef LRAF_H
#define LRAF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LRAF_VERSION "0.1.0"

/* What the library exports.  It is built with -fvisibility=hidden, so
   the functions declared here with LRAF_API are the only names a
   program linked with liblraf.so can see. */
#if defined(__GNUC__) || defined(__clang__)
#define LRAF_API __attribute__((visibility("default")))
#else
#define LRAF_API
#endif

/* Result codes.  Every failing call returns one of these. */
typedef enum lraf_status {
  LRAF_OK = 0,
  LRAF_EMEM,      /* out of memory */
  LRAF_EFORMAT,   /* malformed or unsupported binary chunk */
  LRAF_ELIMIT,    /* input exceeds a documented resource limit */
  LRAF_EREWRITE,  /* a function cannot be rewritten (e.g. too many registers) */
  LRAF_EVERIFY,   /* rewritten code failed verification (an lraf bug) */
  LRAF_ESYNTAX,   /* Lua source did not compile */
  LRAF_ERUN,      /* a Lua error escaped the script */
  LRAF_EQUOTA,    /* an instruction quota was exhausted */
  LRAF_EMEMLIMIT, /* a memory limit was exceeded */
  LRAF_EIO,       /* a file could not be read or written */
  LRAF_EARG       /* the caller passed an invalid argument */
} lraf_status;

/* A failure: the code and a message naming what was wrong and where. */
typedef struct lraf_error {
  lraf_status code;
  char message[512];
} lraf_error;

/* A short constant name for a status code, e.g. "format" for LRAF_EFORMAT;
   "quota" and "memory" (LRAF_EMEMLIMIT) are the words of lraf run's
   report status too. */
LRAF_API const char *lraf_status_name(lraf_status code);

struct lua_State;

/* ================================================================== */
/* Accounts and CPU managers (accounts/)                               */
/* ================================================================== */

/* Every Lua thread of an lraf state - the main thread and each
   coroutine - has its own account (J-RAF2's ThreadCPUAccount).  An
   account counts the instructions its thread executes and reports them
   to its manager (J-RAF2's CPUManager), synchronously, in the thread
   that executed them: whenever the shared counter reaches 0 (a
   "consume"), and whenever the state switches between coroutines (the
   counter then restarts at the entering thread's granularity, or keeps
   running when both threads answer to the same manager).  At a switch
   between threads of one manager that has no consume callback of its
   own (a total, or limits and hierarchical budgets over one) and whose
   budgets have room for it, the leaving thread's count waits in the
   state instead, and is reported before anything else is: at the next
   consume, flush, switch to another manager, read of an account
   through the state (lraf_consumed, lraf_foreach_account, lraf.count),
   collection of the thread, or return to the host.  A manager with a
   consume callback hears every switch.  A coroutine's
   account starts with the manager of the thread that created it.  Managers are reference counted and may be shared by any number of
   accounts, lua_States and OS threads. */
typedef struct lraf_account lraf_account;
typedef struct lraf_manager lraf_manager;

/* What a manager decides about a consuming thread. */
typedef enum lraf_verdict {
  LRAF_CONTINUE = 0, /* go on */
  LRAF_STOP,         /* quota exhausted: the runtime raises the quota error */
  LRAF_PAUSE         /* yield the running coroutine to its host scheduler */
} lraf_verdict;

/* A manager written in C: function pointers plus user data.
   consume(ud, account, n, can_pause) is told that account's thread ran
     n more instructions.  It is called in the OS thread that ran them,
     possibly concurrently from several OS threads (it must be
     thread-safe), and never with a lock of lraf held.  It must not call
     Lua.  What it may do:
       - return LRAF_CONTINUE;
       - block the calling OS thread, e.g. sleep (rate control);
       - return LRAF_STOP: the runtime raises the quota error in the
         thread (and keeps raising it; see the limit manager);
       - return LRAF_PAUSE, only when can_pause is 1: the running
         coroutine was resumed by lraf_resume and can yield, and the
         runtime yields it; lraf_resume then reports LRAF_CO_PAUSED.
         When can_pause is 0, LRAF_PAUSE is treated as LRAF_CONTINUE, so
         a manager that wants to slow a thread down should sleep instead.
     n may be 0.  In two rare cases of the default mode it is negative, a
     refund: a loop test or if-test is charged with one of its branches
     ahead, and the other branch takes that charge back; or, on the lraf
     VM, a coroutine that yielded inside a block that pays at its end was
     charged what it had run of the block, and is charged back on
     resuming, before the block's end pays.  When a flush fell in between
     and the thread then stopped before running as much again, the next
     flush is below 0.  The sum of every n is the exact count.
     NULL: the manager only sums (see lraf_manager_total).
   granularity(ud, account, dflt) returns how many instructions account's
     thread may run before its next consume; dflt is the state's option.
     Same threading rules as consume.  0 makes the next zero check
     consume.  NULL: dflt.
   release(ud) is called once, when the last reference goes.  May be
     NULL. */
typedef struct lraf_manager_ops {
  lraf_verdict (*consume)(void *ud, lraf_account *account, int64_t n,
                          int can_pause);
  int64_t (*granularity)(void *ud, lraf_account *account, int64_t dflt);
  void (*release)(void *ud);
} lraf_manager_ops;

/* A new manager (one reference) over ops (copied) and ud; NULL when out
   of memory, in which case release(ud) is not called. */
LRAF_API lraf_manager *lraf_manager_new(const lraf_manager_ops *ops, void *ud);
/* Add / drop a reference.  Both are thread-safe; NULL is ignored. */
LRAF_API lraf_manager *lraf_manager_retain(lraf_manager *m);
LRAF_API void lraf_manager_release(lraf_manager *m);
/* Everything ever charged to m (by any account, state or OS thread).
   Thread-safe; exact once the charging states have been flushed (every
   lraf entry point flushes when it returns to the host). */
LRAF_API int64_t lraf_manager_total(const lraf_manager *m);
LRAF_API void *lraf_manager_userdata(const lraf_manager *m);
/* Charge m directly, as an account would: adds n to its total and runs
   its consume.  For managers that forward to another (see hierarchical). */
LRAF_API lraf_verdict lraf_manager_consume(lraf_manager *m,
                                           lraf_account *account,
                                           int64_t n, int can_pause);
/* m's granularity for account (dflt when m has no granularity function). */
LRAF_API int64_t lraf_manager_granularity(lraf_manager *m,
                                          lraf_account *account,
                                          int64_t dflt);

/* An observer: a manager whose consume sees every charge and passes it
   on to parent (retained; its consume must call lraf_manager_consume on
   parent and return parent's verdict, and its granularity, if any, ask
   parent's).  Everything that depends on limits sees through it: what
   is left of a limit above it, and which counts may wait at coroutine
   switches (those reach its consume late, at the next consume or
   flush, in a burst).  A timeline is one.  NULL when out of memory. */
LRAF_API lraf_manager *lraf_observer_new(const lraf_manager_ops *ops,
                                         void *ud, lraf_manager *parent);

/* ---- Stock managers ---- */

/* total: sums what it is charged (J-RAF2's SimpleCPUManager); read it
   with lraf_manager_total. */
LRAF_API lraf_manager *lraf_total_new(void);

/* limit: an absolute quota of quota instructions for everything charged
   to it.  Once more than quota has been charged, every consume returns
   LRAF_STOP and its granularity is 0, so exhaustion is sticky: the next
   zero check of every thread charged to it raises the quota error again.
   The error is a unique userdata that Lua code cannot swallow: pcall,
   xpcall, coroutine.resume/wrap/close, load with a reader function and
   the runtime's own protected calls all pass it on, error values with
   metamethods are not consulted, and __close/__gc handlers that run
   while it propagates hit it again at their first zero check.  (Lua
   turns an error in a __gc handler into a warning; the code that
   triggered the collection then stops at its next zero check.)

   Overshoot.  A thread notices exhaustion at its next zero check.  Zero
   checks sit at the entry of every function and at every loop header
   (in exact mode also in every block that returns), and blocks are
   charged when they start, so past the quota a thread runs at most one
   check-free stretch: the longest loop-free path through one function.
   This holds for loops, recursion, tail calls, metamethods, callbacks
   from C functions (string.gsub, table.sort) and frames returning one
   after another (tests/unit/test_rt_protect.c computes the bound from the
   bytecode and checks it).  States or OS threads sharing the manager may
   each also run the granularity they were last given, which is at most
   what was left of the quota then. */
LRAF_API lraf_manager *lraf_limit_new(int64_t quota);
/* The quota left (negative once exceeded); INT64_MAX for a manager
   that is not a limit or hierarchical manager. */
LRAF_API int64_t lraf_limit_remaining(const lraf_manager *m);
/* Change the quota (e.g. grant more); thread-safe. */
LRAF_API void lraf_limit_set(lraf_manager *m, int64_t quota);

/* hierarchical: a child budget drawn from a parent, such as a request
   inside a tenant.  Everything charged to the child is charged to the
   parent too (its consume runs, and may sleep, stop or pause); the child
   stops when more than budget was charged to it (budget < 0: no budget
   of its own) or when the parent stops.  Its granularity is the smaller
   of the parent's and what is left of the budget.  The child holds a
   reference to parent.  lraf_limit_remaining and lraf_limit_set work on
   it. */
LRAF_API lraf_manager *lraf_hier_new(lraf_manager *parent, int64_t budget);

/* A clock for the rate manager: now() in seconds (monotonic) and
   sleep(seconds).  Tests inject a fake one. */
typedef struct lraf_clock {
  double (*now)(void *ud);
  void (*sleep)(void *ud, double seconds);
  void *ud;
} lraf_clock;

/* rate: at most rate instructions per second across every thread
   charged to it.  Over any interval of T seconds it lets at most
   rate * (T + window) instructions through plus one granularity per
   thread (idle time earns at most window seconds of credit).  A thread
   that gets ahead sleeps until it is back on schedule, or, when it runs
   in a coroutine resumed by lraf_resume, is paused (lraf_resume reports
   LRAF_CO_PAUSED; resume it after lraf_account_wake_time).  The
   granularity is at most rate * window / 8.  clock NULL: the monotonic
   clock and nanosleep.  NULL when rate or window is not positive. */
LRAF_API lraf_manager *lraf_rate_new(double rate, double window,
                                     const lraf_clock *clock);

/* ---- Accounts ---- */

/* 0 for the main thread, then 1, 2, ... in the order a state creates
   coroutines. */
LRAF_API int64_t lraf_account_id(const lraf_account *a);
/* The account's manager (a borrowed reference). */
LRAF_API lraf_manager *lraf_account_manager(const lraf_account *a);
/* Instructions already reported to managers (without the live counter
   or a count waiting from a coroutine switch; see lraf_consumed). */
LRAF_API int64_t lraf_account_flushed(const lraf_account *a);
/* When the account's coroutine was paused by a rate manager: the clock
   time at which it is back on schedule. */
LRAF_API double lraf_account_wake_time(const lraf_account *a);
/* Keep an account beyond the life of its thread / drop that reference. */
LRAF_API lraf_account *lraf_account_retain(lraf_account *a);
LRAF_API void lraf_account_release(lraf_account *a);

/* ---- Timeline ---- */

/* A timeline records when each thread ran and how much: a manager that
   notes the wall time, the OS thread and the account of every consume
   it sees, then forwards the charge to parent (retained; NULL: it only
   sums) and returns parent's verdict.  Its granularity is parent's.
   Nothing runs per instruction: the timeline samples at the managers'
   granularity (a consume every LRAF_DEFAULT_GRANULARITY instructions by
   default), so a gap is located to within one such interval.
   From the samples, lraf_timeline_analyse infers (docs/timeline.md):
     - slices: intervals of continuous execution of one account on one
       OS thread, each with its instruction count;
     - the solo rate: instructions per second when the thread was not
       held back, taken from the run itself (the median of the
       intervals' rates), since the count is exact progress;
     - gaps: intervals that took longer than their count predicts at the
       solo rate, by more than gap_threshold seconds (the thread was not
       running; a gap is certain, its cause is not);
     - the delivered share per window of window seconds: instructions per
       wall second against the solo rate (what the script sees for
       itself), and thread CPU time against wall time (what the host's
       clock says).
   Thread-safe as managers must be.  NULL when out of memory. */
typedef struct lraf_timeline_opts {
  double gap_threshold;  /* seconds; 0: 0.001 */
  double window;         /* seconds; 0: 0.1 */
} lraf_timeline_opts;
LRAF_API lraf_manager *lraf_timeline_new(lraf_manager *parent);

/* What the analysis found.  Shares are fractions (1.0 = the whole CPU);
   min_share and min_cpu_share are over whole windows (the whole run
   when it is shorter than one window). */
typedef struct lraf_timeline_summary {
  double start, end;      /* first and last sample, seconds since the
                             timeline was created */
  int64_t instructions;   /* everything the timeline saw charged */
  double solo_rate;       /* instructions per second; 0 when unknown */
  double share, min_share;          /* from the count */
  double cpu_share, min_cpu_share;  /* from thread CPU time */
  double min_share_at;    /* start of the window with min_share */
  int64_t gaps;           /* number of gaps */
  double gap_time;        /* their total, seconds */
  double longest_gap, longest_gap_at;  /* seconds; where it started */
  double pause_time;      /* time parent made threads wait (rate) */
  int stopped;            /* parent answered LRAF_STOP */
  int64_t samples;
} lraf_timeline_summary;

/* Analyse what m (a timeline) recorded so far.  LRAF_EARG when m is not
   a timeline. */
LRAF_API lraf_status lraf_timeline_analyse(lraf_manager *m,
                                           const lraf_timeline_opts *o,
                                           lraf_timeline_summary *sum,
                                           lraf_error *err);

/* Write m's timeline to f: LRAF_TIMELINE_JSON is the Chrome trace event
   format (Perfetto, chrome://tracing and speedscope open it): a track
   per OS thread and account, slices with their instruction counts,
   gaps, rate pauses and a stop as events, and the delivered share as
   counters; LRAF_TIMELINE_SVG draws the same tracks as an SVG picture.
   title names the run (may be NULL).  sum (may be NULL) gets what
   lraf_timeline_analyse would give.  LRAF_EIO when f could not be
   written. */
typedef enum lraf_timeline_format {
  LRAF_TIMELINE_JSON,
  LRAF_TIMELINE_SVG
} lraf_timeline_format;
LRAF_API lraf_status lraf_timeline_write(lraf_manager *m, FILE *f,
                                         lraf_timeline_format fmt,
                                         const lraf_timeline_opts *o,
                                         const char *title,
                                         lraf_timeline_summary *sum,
                                         lraf_error *err);

/* ================================================================== */
/* States (runtime/)                                                    */
/* ================================================================== */

/* An lraf state: a lua_State in which every function runs rewritten. */
typedef struct lraf_state lraf_state;

typedef enum lraf_mode {
  LRAF_MODE_ORIGINAL = 0, /* count what a count hook of 1 sees (default) */
  LRAF_MODE_OVERHEAD,     /* count the rewritten code, accounting included */
  LRAF_MODE_WEIGHTED      /* per-opcode weights */
} lraf_mode;

typedef enum lraf_env {
  LRAF_ENV_FULL = 0, /* the whole standard library (trusted code) */
  LRAF_ENV_SANDBOX   /* untrusted code: no debug, no io, os.clock/time/date
                        only, no package.loadlib, C modules only from the
                        package.cpath the state started with */
} lraf_env;

/* What rewritten code runs on (lraf_options.vm, docs/lraf-vm.md). */
typedef enum lraf_vm {
  LRAF_VM_DEFAULT = 0, /* the lraf VM when this library is built against it
                          (lraf_vm_builtin), stock Lua 5.4 otherwise */
  LRAF_VM_STOCK,       /* any Lua 5.4: accounting through two upvalues */
  LRAF_VM_LRAF         /* the lraf VM: one ACCT instruction per increment
                          and zero check (needs lraf_vm_builtin()) */
} lraf_vm;

/* 1 when this library is built against the lraf VM (make vm), 0 when
   against stock Lua 5.4. */
LRAF_API int lraf_vm_builtin(void);

#define LRAF_NUM_OPCODES 83
#define LRAF_DEFAULT_GRANULARITY 10000

typedef struct lraf_options {
  lraf_mode mode;
  int exact;               /* end accounting blocks at calls and error
                              points too: exact even when errors are caught
                              or coroutines abandoned (slower) */
  int64_t granularity;     /* default consume interval; 0: the default.
                              (consume is a C call, so a program that
                              recurses until "stack overflow" may stop at
                              a depth that depends on it) */
  const uint32_t *weights; /* LRAF_MODE_WEIGHTED: LRAF_NUM_OPCODES weights,
                              in Lua's opcode order (copied); those
                              that close loops or make calls (see
                              lraf_parse_weights) at least 1 */
  lraf_env env;
  lraf_manager *manager;   /* the main thread's manager (the state takes
                              its own reference); NULL: a new total */
  int keep_accounts;       /* keep the accounts of up to this many dead
                              coroutines for lraf_foreach_account (the
                              rest are summed, see lraf_retired) */
  int traceback;           /* error messages get a stack traceback */
  int native;              /* charge the native work of C built-ins and
                              C modules to the calling thread (see
                              "Native work" below); 0: off, counts equal
                              the count hook's; 1: on; LRAF_NATIVE_AUTO
                              (the default): on in the sandbox, where
                              untrusted code must not escape its quota
                              through C functions, off in full */
  int64_t native_call;     /* with native: units charged per call of a C
                              function that a C module loaded by require
                              exports and that has no registered cost
                              (default LRAF_NATIVE_CALL_DEFAULT) */
  size_t memory_limit;     /* bytes the state may hold; 0: no limit (see
                              "Memory" below) */
  lraf_vm vm;              /* what the rewritten code runs on */
  const char *const *allow_dirs;    /* sandbox: NULL-terminated list of
                              directories whose files loadfile, dofile
                              and require may read (NULL: none; each
                              must exist; symbolic links are resolved) */
  const char *const *allow_modules; /* sandbox: NULL-terminated list of C
                              modules require may load besides "lpeg",
                              found on the default package.cpath */
  int allow_offline;       /* lraf_load_rewritten accepts unsigned chunks
                              rewritten offline, in both environments
                              (refused otherwise: their accounting is
                              verified for form only, see
                              docs/security.md) */
  const void *offline_key; /* with offline_key_len > 0: lraf_rewrite signs
                              its output with HMAC-SHA-256 under this key,
                              and a state loads only chunks that carry a
                              valid signature under it (in the sandbox
                              too, without allow_offline); copied */
  size_t offline_key_len;
  int deterministic;       /* a deterministic state (docs/cost-model.md,
                              "Determinism"): its counts do not depend on
                              the run, the machine, addresses or paths:
                              a fixed string hash seed (hash_seed when
                              nonzero) and sort pivot on the lraf VM,
                              math.random seeded with a fixed value, the
                              memory of host strings (lraf_host_strings)
                              left out of the count.  0: off; 1: on;
                              LRAF_DETERMINISTIC_AUTO (the default): on
                              in the sandbox, off in full */
  uint32_t hash_seed;      /* deterministic, lraf VM: the string hash seed
                              (0: lraf's fixed one) */
} lraf_options;

#define LRAF_NATIVE_CALL_DEFAULT 20
#define LRAF_NATIVE_AUTO (-1)
#define LRAF_DETERMINISTIC_AUTO (-1)

/* Defaults: original mode, not exact, default granularity, full
   environment, a fresh total manager, native charging in the sandbox
   only, no memory limit. */
LRAF_API void lraf_default_options(lraf_options *opt);
/* Parse a weights file ("OPNAME WEIGHT" lines, '#' comments, unlisted
   opcodes weigh 1) into weights[LRAF_NUM_OPCODES].  A weight of 0 is
   LRAF_EARG for the opcodes that close loops or make calls (JMP,
   FORLOOP, TFORCALL, TFORLOOP, EQ, LT, LE, EQK, EQI, LTI, LEI, GTI, GEI,
   TEST, TESTSET, CALL, TAILCALL): a loop would run free. */
LRAF_API lraf_status lraf_parse_weights(const char *text, size_t len,
                                        uint32_t *weights, lraf_error *err);

/* Create / close a state.  lraf_close runs pending finalizers (counted
   like any code) and frees everything. */
LRAF_API lraf_status lraf_new(const lraf_options *opt, lraf_state **out,
                              lraf_error *err);
LRAF_API void lraf_close(lraf_state *S);
/* While on, the strings created in S are the host's (a command line,
   paths): they are left out of its memory count, limit and accounts
   (up to 32 of them), so that where a memory limit stops a script does
   not depend on them.  Chunk names are always left out so.  Turn it on
   only around pushing such strings, before the state runs code of its
   own: a finalizer that ran meanwhile would get the same favour. */
LRAF_API void lraf_host_strings(lraf_state *S, int on);
/* The main thread, for the ordinary Lua C API (pushing arguments,
   reading results, registering host functions).  Do not load code into
   it with lua_load: use the lraf_load_* functions. */
LRAF_API struct lua_State *lraf_lua(lraf_state *S);
/* The lraf state of a thread of it (for host C functions). */
LRAF_API lraf_state *lraf_from_lua(struct lua_State *L);
/* The cost-model id, e.g. "lua5.4/original". */
LRAF_API const char *lraf_model(const lraf_state *S);
/* 1 when S is deterministic (lraf_options.deterministic). */
LRAF_API int lraf_deterministic(const lraf_state *S);
/* A deterministic state that runs the same work again (a request
   after another, as lraf serve does): math.random's seed, the numbers
   that order table keys on the lraf VM (from those of the first call
   on) and the native charges' caches start over, so that the same work
   counts the same.  Does nothing in other states. */
LRAF_API void lraf_deterministic_restart(lraf_state *S);

/* Load Lua source text (name as for luaL_loadbuffer), a source file
   (NULL: stdin), or a chunk rewritten offline by lraf_rewrite /
   `lraf rewrite`.  On success the function is pushed on the main
   thread's stack.  Binary Lua chunks are refused (LRAF_EFORMAT): they
   could carry unaccounted code.  Inside the state, load (string and
   reader forms), loadfile, dofile and require (package.path) compile
   source through the same rewriter and refuse binary chunks too. */
LRAF_API lraf_status lraf_load_string(lraf_state *S, const char *src,
                                      size_t len, const char *name,
                                      lraf_error *err);
LRAF_API lraf_status lraf_load_file(lraf_state *S, const char *path,
                                    lraf_error *err);
/* Only chunks that start with LRAF_OFFLINE_MAGIC and were rewritten for
   this state's cost model are accepted; they are read with bc_read's
   limits and verified again.  The marker says who made the chunk, it
   does not authenticate it: an unsigned chunk is refused unless the
   options allowed it (allow_offline: load such chunks only from a
   source you trust as much as the rewriter).  With offline_key, a chunk
   must end with the HMAC-SHA-256 of everything before it under that
   key. */
LRAF_API lraf_status lraf_load_rewritten(lraf_state *S, const void *data,
                                         size_t size, lraf_error *err);

/* The first bytes of an offline-rewritten chunk. */
#define LRAF_OFFLINE_MAGIC "\x1bLRAF\x01"
#define LRAF_OFFLINE_MAGIC_LEN 6

/* Rewrite Lua source, or a binary chunk from a trusted compiler (luac),
   offline for states created with opt's mode, exact and weights.  *out
   (free it with free) gets LRAF_OFFLINE_MAGIC, the cost-model id and
   the rewritten chunk; plain lua_load refuses it. */
LRAF_API lraf_status lraf_rewrite(const lraf_options *opt, const char *src,
                                  size_t len, const char *name, void **out,
                                  size_t *outsize, lraf_error *err);

/* The bytecode listing of data - Lua source (compiled with chunk name
   name), a binary chunk, or a chunk rewritten offline (its first line
   then names the cost model) - in the layout of luac -l -l.  *out (free
   it with free) gets the NUL-terminated text and *outlen its length. */
LRAF_API lraf_status lraf_listing(const void *data, size_t size,
                                  const char *name, char **out,
                                  size_t *outlen, lraf_error *err);

/* Declared costs (docs/bound.md): an upper bound on the instructions
   one call of each function of data (Lua source compiled with chunk
   name name, or a binary chunk) runs, proven from its bytecode in the
   original cost model, or why none is proven and where.  format:
   "table", "json", or "contract" (lines "FUNCTION MAX_INSTRUCTIONS" for
   the bounded global functions, for lraf run --contract).  *out (free
   it with free) gets the NUL-terminated text and *outlen its length. */
LRAF_API lraf_status lraf_bound(const void *data, size_t size,
                                const char *name, const char *format,
                                char **out, size_t *outlen,
                                lraf_error *err);

/* Call the function below nargs arguments on the main thread's stack
   (from the host, or from a host function the main thread runs), like
   lua_pcall: on success nresults results (LUA_MULTRET: all) are
   left on the stack; on failure nothing is, and err says why:
   LRAF_EQUOTA when a manager stopped the code, LRAF_ERUN for a Lua error
   (its message, converted with __tostring in protected mode; with a
   traceback when the traceback option is set), LRAF_EMEM.  When the
   outermost lraf call returns, the live counter is flushed to the
   managers and the pending quota error is cleared (a limit that is still
   exhausted raises it again at the next zero check). */
LRAF_API lraf_status lraf_call(lraf_state *S, int nargs, int nresults,
                               lraf_error *err);
/* The whole message of the last failed call (err->message may be
   truncated); "" when there is none. */
LRAF_API const char *lraf_last_error(const lraf_state *S);
/* Where the last failed lraf_call or lraf_resume stopped, as a line of
   a Lua traceback ("fib.lua:3: in local 'fib'"): the innermost Lua
   function running when the error was raised, when the quota error was
   first raised, or when the allocator refused the block that hit the
   memory limit; "" when unknown (e.g. a syntax error, or no Lua
   function was running). */
LRAF_API const char *lraf_last_where(const lraf_state *S);
/* LRAF_EQUOTA or LRAF_EMEMLIMIT while a stop propagates through the
   script (a __close or __gc handler runs during it), else LRAF_OK.  A
   host function that would end the run (its own os.exit) asks this
   first, so that no handler turns a stop into success; lraf's os.exit
   raises the stop again instead of exiting. */
LRAF_API lraf_status lraf_stopping(lraf_state *S);
/* Load and call with no arguments and no results. */
LRAF_API lraf_status lraf_run_string(lraf_state *S, const char *src,
                                     const char *name, lraf_error *err);
LRAF_API lraf_status lraf_run_file(lraf_state *S, const char *path,
                                   lraf_error *err);

/* What became of a coroutine resumed from C. */
typedef enum lraf_costatus {
  LRAF_CO_DONE = 0, /* returned (its results are on its stack) */
  LRAF_CO_YIELDED,  /* yielded (the yielded values are on its stack) */
  LRAF_CO_PAUSED    /* paused by its manager (no values); resume it later */
} lraf_costatus;

/* Resume co, a thread of S (e.g. from lua_newthread; keep it referenced)
   with nargs arguments on its stack, like lua_resume, attributing its
   instructions to its own account.  *nresults (may be NULL) gets the
   number of values co returned or yielded.  A coroutine resumed here is
   "host scheduled": a rate manager may pause it instead of sleeping.  On
   an error co is dead and its error object stays on its stack. */
LRAF_API lraf_status lraf_resume(lraf_state *S, struct lua_State *co, int nargs,
                                 int *nresults, lraf_costatus *costatus,
                                 lraf_error *err);

/* Accounts of S's threads (borrowed; valid while the thread lives, or
   with keep_accounts until lraf_close; use lraf_account_retain to keep
   one longer).  lraf_thread_account creates the account of a thread
   that has none yet (NULL when out of memory or not S's thread). */
LRAF_API lraf_account *lraf_main_account(lraf_state *S);
LRAF_API lraf_account *lraf_current_account(lraf_state *S);
LRAF_API lraf_account *lraf_thread_account(lraf_state *S,
                                           struct lua_State *thread);

/* An account's exact consumption: what it flushed plus, when its thread
   is the one counting now, the live counter.  Call it from the OS thread
   that runs S, or while S is idle. */
LRAF_API int64_t lraf_consumed(lraf_state *S, const lraf_account *a);
/* Flush the live counter to the current account's manager now (J-RAF2's
   cpu.consume()).  LRAF_EQUOTA when the manager says stop. */
LRAF_API lraf_status lraf_flush(lraf_state *S, lraf_error *err);
/* Re-bind an account to another manager (retained); what it consumed so
   far goes to the old one.  Same threading rule as lraf_consumed. */
LRAF_API lraf_status lraf_set_manager(lraf_state *S, lraf_account *a,
                                      lraf_manager *m, lraf_error *err);
/* Call fn for the main account, every live coroutine's account and the
   kept dead ones (keep_accounts), with its exact consumption.  "Live"
   and alive mean not yet garbage collected: a coroutine that finished
   but is still referenced is alive; alive is 0 only for the kept
   accounts of collected threads (lraf run's report: "collected"). */
LRAF_API void lraf_foreach_account(lraf_state *S,
                                   void (*fn)(lraf_account *a, int64_t consumed,
                                              int alive, void *ud),
                                   void *ud);
/* Instructions of coroutines whose accounts were dropped (without
   keep_accounts), and how many such coroutines there were. */
LRAF_API int64_t lraf_retired(const lraf_state *S, int64_t *count);
/* Everything S has run, in every thread: the main thread, every
   coroutine (live, kept or retired) and the native units charged to
   them - the "count" of lraf run's report.  lraf_consumed(S,
   lraf_main_account(S)) is the main thread's share only.  Readable
   until lraf_close, whatever became of the managers; same threading
   rule as lraf_consumed. */
LRAF_API int64_t lraf_total(lraf_state *S);

/* ---- Native work ---- */

/* With the native option, the C functions of the standard library that
   do work proportional to their input (string.rep, string.format,
   table.concat, the pattern functions, table.sort, table.unpack/insert/
   remove/move, utf8.*, tonumber, string.pack/unpack, ...) and lpeg.match
   are replaced in the state by wrappers that charge the calling
   thread's account, in instruction-equivalent units, before they run
   (the cost is computed from the arguments) and, for patterns, while
   they run.  A charge goes through the same path as the counter: when it
   fits in what the manager granted it is only added to the counter;
   otherwise it is flushed to the manager first, so a limit manager
   raises the quota error before the work is done (string.rep("x", 2^40)
   stops without allocating).  One unit is calibrated to take about as
   long as one average VM instruction (tests/bench/native.c); the ratios
   are part of the cost-model id (lraf_model gets a "/native-<hash>"
   suffix).  Charges under 256 units wait in a per-state sum that joins
   the counter with the next larger charge, flush or coroutine switch
   (lraf_consumed and lraf.count include it), so a quota may be
   overrun by up to 255 units of native work more than lraf_limit_new
   states.  A charge that a limit cannot grant is recorded only up to
   one unit past the quota (the waiting units joining it stay whole:
   they were counted already, so a count never goes down).  README.md
   lists what is charged and what is not. */

/* A host's cost for one of its own C functions: called with the
   function's arguments on L's stack (do not change the stack, do not
   raise errors), returns the units to charge before the function runs. */
typedef int64_t (*lraf_native_cost)(struct lua_State *L, void *ud);

/* Replace the function at idx of L (a thread of S) by one that charges
   per_call units plus cost(L, ud) (cost may be NULL) to the calling
   thread, then calls it with the same arguments and returns its
   results.  Works with or without the native option.  ud must outlive
   the function.  LRAF_EARG when the value is not a function. */
LRAF_API lraf_status lraf_native_wrap(lraf_state *S, struct lua_State *L,
                                      int idx, int64_t per_call,
                                      lraf_native_cost cost, void *ud,
                                      lraf_error *err);
/* Charge n units to the running thread, from a C function running in S
   (e.g. in a loop of a long host function).  When the manager stops the
   thread it raises the quota error (a Lua error: call it only where a
   Lua error may be raised and no resources would leak). */
LRAF_API void lraf_charge(struct lua_State *L, int64_t n);
/* The units of native work charged in S so far, every thread together
   (wrappers and lraf_charge, and on the lraf VM the work it charges
   inside instructions; a charge cut at a quota counts as recorded).  0
   when native charging is off and nothing was charged. */
LRAF_API int64_t lraf_native_units(const lraf_state *S);

/* ---- Memory ---- */

/* Every state allocates through its own allocator, which counts the
   bytes the state holds (in use and the peak) and, per account, the
   bytes allocated while its thread was running and the highest in-use
   figure of the state reached by one of its allocations.  With a
   memory_limit, an allocation that would take the state over the limit
   fails after Lua's emergency collection; the script then stops with
   LRAF_EMEMLIMIT.  Like the quota error, this stop cannot be swallowed:
   pcall, xpcall, coroutine.resume/wrap/close and load pass it on and
   every zero check raises it again until the outermost lraf call returns
   (the state stays usable: frees always succeed, and the host may
   collect garbage and run more code). */
LRAF_API void lraf_memory(const lraf_state *S, size_t *in_use, size_t *peak);
LRAF_API void lraf_account_memory(const lraf_account *a, int64_t *allocated,
                                  int64_t *peak);

/* The bytes the state holds now become its peak: lraf_memory's peak
   then tells the highest use since this call. */
LRAF_API void lraf_memory_reset_peak(lraf_state *S);

/* Inside a state, require "lraf" gives scripts that benchmark
   themselves (J-RAF2 Fig. 4):
     lraf.count()          the running thread's exact count so far
     lraf.measure(f, ...)  runs f(...) under a fresh child of the thread's
                           manager (so coroutines f creates are included)
                           and returns the instructions it took, then f's
                           results; errors in f propagate
     lraf.model()          the cost-model id */

/* ================================================================== */
/* Request pool and usage ledger (service/)                             */
/* ================================================================== */

/* A pool of worker OS threads that run handler functions for requests,
   each request charged to a manager of its own.

   The states.  Each worker keeps lraf states of its own, one per tenant
   it served lately (states_per_worker, least recently used closed
   first), so no Lua value is ever shared between tenants.  A handler
   chunk (the request's source) is rewritten once per worker and kept,
   keyed by the hash of its source and the cost model; a state runs the
   chunk once, charged to none of the tenants (a total of the worker's)
   but within the request's limit, and keeps the function it returns.

   The accounting of one request.  Its manager is a hierarchical child
   (lraf_hier_new) of the tenant's manager with the request's own limit,
   so the tenant's quota and rate apply to it too.  While it runs it is
   the manager of the state's main thread; coroutines the handler
   creates inherit it, and so do the functions it passes to req.defer,
   which the worker runs after the handler returned, as host-scheduled
   coroutines (lraf_resume; a rate manager pauses them instead of
   sleeping, and the worker sleeps until lraf_account_wake_time on the
   monotonic clock, the stock rate manager's), before the response is
   released.  Its count is what that
   manager was charged.

   The rule of reuse: nothing moves between requests.  Every thread of
   a state is bound to one manager that forwards to the running
   request's manager, so a coroutine that an earlier request left and a
   later one resumes is charged to the later request, within its limit.
   Incremental garbage collection is stopped while a request runs (its
   finalizers would run at moments that depend on the state's history);
   garbage is freed by emergency collections, which run no finalizer,
   each time the state holds twice what the last collection left (8 MiB
   at least), memory limit or not.  After the request the worker points
   the state at a clean-up manager, a child of the TENANT's manager with
   cleanup_limit, and collects: the finalizers of what the request left
   behind are charged to the tenant, never to a request, and stop at
   that limit (the state is then closed, its finalizers under a new
   clean-up manager).  (A handler that calls collectgarbage itself
   runs finalizers then and there, in its own request: of its own
   garbage, and of values of earlier requests it dropped.)  A request of
   a tenant whose manager already stops (a spent quota) is refused
   before it runs: 429, 0 instructions.  A request stopped by its quota
   or the memory limit (or out of memory) leaves a state in an unknown
   condition: the worker closes that state (its finalizers charged to
   the tenant, within cleanup_limit) and the tenant's next request gets
   a fresh one; the other requests and states go on.  The body of a 429
   or 507 says which limit stopped the request. */
typedef struct lraf_pool lraf_pool;

typedef struct lraf_pool_options {
  int workers;            /* OS threads; default 4 */
  int states_per_worker;  /* states a worker keeps; default 16 */
  lraf_options state;     /* options of every state; its manager is not
                             used.  Default: the sandbox */
  int plain;              /* 1: plain Lua states, nothing rewritten or
                             counted (the baseline of benchmarks) */
  int64_t cleanup_limit;  /* instructions the work a request leaves
                             behind may run at a time (finalizers after
                             it, or when its state closes); default
                             1,000,000 */
} lraf_pool_options;

LRAF_API void lraf_pool_default_options(lraf_pool_options *o);

/* One request.  query and headers are name, value pairs ending with a
   NULL name (header names in lower case); either may be NULL. */
typedef struct lraf_request {
  const char *tenant;            /* the tenant's name */
  lraf_manager *tenant_manager;  /* the tenant's manager */
  int64_t limit;                 /* the request's own quota; < 0: none */
  const char *handler;           /* the handler's name (errors, cache) */
  const char *source;            /* the handler chunk: Lua source that */
  size_t source_len;             /* returns function(req) */
  const char *method, *path;
  const char *const *query;
  const char *const *headers;
  const char *body;
  size_t body_len;
  int64_t reserve;               /* lraf_billing_run: instructions to
                                    reserve of the tenant's quota before
                                    it runs; 0: none (the pool ignores
                                    it) */
} lraf_request;

/* What became of it.  The handler returns status, body[, headers]:
   status an integer from 100 to 599, body a string or nil, headers a
   table of string names and values (no line breaks).  Otherwise, or
   when it fails, status is 500 (a Lua error or bad results, code
   LRAF_ERUN or LRAF_ESYNTAX), 429 (code LRAF_EQUOTA) or 507 (code
   LRAF_EMEMLIMIT), and body is a short reason. */
/* Why a request ended as it did: it ran (whatever status its handler
   gave), it failed (a Lua error, bad results), or a limit stopped or
   refused it: its own request limit, its tenant's quota, its tenant's
   rate, the memory limit.  lraf_outcome_name gives the ledger's word:
   "ok", "error", "request-limit", "quota", "rate", "memory" (and
   "adjustment" for LRAF_OUTCOME_ADJUSTMENT, a ledger correction). */
typedef enum lraf_outcome {
  LRAF_OUTCOME_OK,
  LRAF_OUTCOME_ERROR,
  LRAF_OUTCOME_REQUEST_LIMIT,
  LRAF_OUTCOME_QUOTA,
  LRAF_OUTCOME_RATE,
  LRAF_OUTCOME_MEMORY,
  LRAF_OUTCOME_ADJUSTMENT
} lraf_outcome;
LRAF_API const char *lraf_outcome_name(lraf_outcome o);

typedef struct lraf_response {
  lraf_status code;
  lraf_outcome outcome;
  int status;
  char *body;            /* malloc'ed (lraf_response_free) */
  size_t body_len;
  char *headers;         /* "Name: value\n" lines, or NULL */
  int64_t instructions;  /* charged to the request, native units
                            included: its bill */
  int64_t native;        /* the native units among them */
  int64_t memory_peak;   /* peak bytes above the state's use at start */
  double wall, cpu;      /* seconds (cpu: the worker thread's) */
  double started, ended; /* Unix time, seconds */
  char model[96];        /* the cost-model id */
  int worker;            /* the pool's worker that ran it, from 0 */
} lraf_response;

LRAF_API lraf_status lraf_pool_new(const lraf_pool_options *o,
                                   lraf_pool **out, lraf_error *err);
/* Run req on a free worker and wait for it; thread-safe.  res is always
   filled (free it with lraf_response_free). */
LRAF_API void lraf_pool_run(lraf_pool *p, const lraf_request *req,
                   lraf_response *res);
LRAF_API void lraf_response_free(lraf_response *res);
/* The cost-model id of the pool's states. */
LRAF_API const char *lraf_pool_model(const lraf_pool *p);
/* What the pool did so far (summed over its workers). */
typedef struct lraf_pool_counts {
  int64_t requests;  /* run (or refused) */
  int64_t states;    /* states made */
  int64_t replaced;  /* states closed: after a stop, or least recently
                        used, or at lraf_pool_close */
  int64_t rewrites;  /* handler chunks rewritten: on the stock target once
                        per worker and source (a cached offline chunk),
                        on the lraf VM at every load (in memory, as
                        lraf_load_string does) */
  int64_t loads;     /* handler chunks loaded into states */
} lraf_pool_counts;
LRAF_API void lraf_pool_stats(lraf_pool *p, lraf_pool_counts *c);
/* Wait for the running requests, close every state (finalizers are
   charged to their tenants), stop the workers. */
LRAF_API void lraf_pool_close(lraf_pool *p);

/* API keys (service/sv_keys.c): which tenant a request is from, told by
   a secret key rather than by the tenant's name.  A key is kept only as
   its hash, "sha256:" and the 64 lowercase hex digits of the SHA-256
   (FIPS 180-4) of its bytes.  A key file has one line per key, "TENANT
   sha256:HASH" (fields separated by spaces or tabs; a tenant may have
   several keys, e.g. while one replaces another); blank lines and lines
   whose first field starts with # are skipped.  Tenant names are 1-64
   of A-Z a-z 0-9 _ - . ; the same key twice is an error. */
typedef struct lraf_keys lraf_keys;
#define LRAF_KEY_HASH_SIZE 72   /* "sha256:", 64 hex digits, NUL */

/* The hash of the len bytes of key, as a key file holds it. */
LRAF_API void lraf_key_hash(const char *key, size_t len,
                            char out[LRAF_KEY_HASH_SIZE]);
/* 1 when the len bytes of key hash to hash (a string as lraf_key_hash
   makes), else 0; compares the two hashes in constant time. */
LRAF_API int lraf_key_matches(const char *key, size_t len, const char *hash);
/* Read a key file: the len bytes of text (name, e.g. its path, heads
   the errors), or the file at path.  Errors name the file and line:
   LRAF_EFORMAT for a malformed line, a key given twice or a file with
   no key; LRAF_EIO when the file cannot be read. */
LRAF_API lraf_status lraf_keys_parse(const char *text, size_t len,
                                     const char *name, lraf_keys **out,
                                     lraf_error *err);
LRAF_API lraf_status lraf_keys_load(const char *path, lraf_keys **out,
                                    lraf_error *err);
/* The tenant whose key is the len bytes of key, or NULL.  The key's
   hash is compared with every entry in constant time; the time depends
   only on the number of entries.  Thread-safe (k is not changed). */
LRAF_API const char *lraf_keys_tenant(const lraf_keys *k, const char *key,
                                      size_t len);
/* How many keys k holds. */
LRAF_API int lraf_keys_count(const lraf_keys *k);
LRAF_API void lraf_keys_free(lraf_keys *k);

/* The usage ledger: one record per request in SQLite ("sqlite:PATH")
   or PostgreSQL (a "postgresql://" or "postgres://" connection string).
   lraf_ledger_append returns once the record is durable: appends from
   many threads are written together in one transaction (a group
   commit; SQLite in WAL mode with synchronous=FULL), so a record whose
   append returned survives a kill -9 or a crash of the host (at
   LRAF_DURABLE_POWER, lraf_ledger_open's; see lraf_durability); closing
   the ledger leaves every record in the database file itself (SQLite:
   the write-ahead log is checkpointed).  A record is one row, written
   whole or not at all.  The key is the idempotency key, unique per
   tenant (two tenants may use the same key): a second record of a
   tenant with a key already stored is not stored again, so a retry
   never bills twice; lraf_ledger_record says so (*stored 0), and
   lraf_ledger_append returns LRAF_OK then too.  Records are
   append-only: a correction is a record of its own (outcome
   "adjustment", lraf ledger adjust).  Each record keeps its outcome,
   its cost-model id, its event time (the time its usage belongs to)
   and its ingest time (when the ledger stored it).  (A ledger from an
   older lraf, SQLite or PostgreSQL, is migrated when opened: keys
   unique per tenant, the outcome from the status, the event time the
   start, the ingest time the end.)  A record with a missing string, a negative count or a time
   out of its range (NaN included) is refused: LRAF_EARG, naming the
   field.  Totals that do not fit int64 are refused by
   lraf_ledger_usage (LRAF_EIO, "integer overflow"). */
typedef struct lraf_ledger lraf_ledger;

typedef struct lraf_record {
  const char *key;         /* idempotency key (not empty) */
  const char *request_id;
  const char *tenant, *handler;
  const char *model;       /* the cost-model id (lraf_model) */
  const char *outcome;     /* a word of lraf_outcome_name; NULL: "ok",
                              or for status 429 "quota", 507 "memory",
                              500 and up "error" */
  int64_t instructions, native, memory_peak;   /* >= 0 (instructions of
                              an "adjustment" may be negative) */
  int status;
  double wall, cpu;        /* seconds, 0 to 9e12 */
  double started, ended;   /* Unix time, -9e12 to 9e12 */
  int64_t reserved;        /* the request's reservation
                              (lraf_ledger_reserve under request_id),
                              settled with the record; 0: none.  At
                              least instructions */
  double event_time;       /* Unix time the usage belongs to (its
                              billing period's); 0: started */
  double ingest_time;      /* when the ledger stored it (set by the
                              ledger; ignored when appending) */
  const char *note;        /* free text, such as an adjustment's reason;
                              NULL: "" */
} lraf_record;

typedef struct lraf_usage {
  int64_t requests;        /* records, adjustments not counted */
  int64_t instructions;    /* adjustments included */
  int64_t native, errors;  /* errors: status >= 400 */
  int64_t memory_peak;     /* the largest */
  double wall, cpu;
} lraf_usage;

LRAF_API lraf_status lraf_ledger_open(const char *spec, lraf_ledger **out,
                             lraf_error *err);
/* What "durable" means when lraf_ledger_append returns. */
typedef enum lraf_durability {
  LRAF_DURABLE_POWER,   /* on the disk (each group commit is fsynced):
                           survives a power loss (lraf_ledger_open's) */
  LRAF_DURABLE_PROCESS  /* handed to the operating system (SQLite's
                           write-ahead log with synchronous=NORMAL; the
                           log is fsynced at checkpoints): survives a
                           crash or kill -9 of the process, not a power
                           loss or a crash of the host.  SQLite only */
} lraf_durability;
/* lraf_ledger_open with durability d; LRAF_EARG for a PostgreSQL
   ledger with LRAF_DURABLE_PROCESS or an unknown d. */
LRAF_API lraf_status lraf_ledger_open_durable(const char *spec,
                                              lraf_durability d,
                                              lraf_ledger **out,
                                              lraf_error *err);
LRAF_API lraf_status lraf_ledger_append(lraf_ledger *l,
                                        const lraf_record *r,
                                        lraf_error *err);
/* lraf_ledger_append, and *stored: 1 when r was stored, 0 when its
   tenant had its key already (r was not stored). */
LRAF_API lraf_status lraf_ledger_record(lraf_ledger *l,
                                        const lraf_record *r, int *stored,
                                        lraf_error *err);
/* lraf_ledger_record for a record whose key the caller made new itself
   (lraf serve's "r:" keys: a time and 80 random bits): the ledger does
   not look for it among the keys in the database, which saves a read of
   the database on each record.  Keys of records not in the database yet
   are still compared, so *stored is 0 for a key appended before that is
   still there; but a key that is in the database already is reported
   stored, and the database keeps its first record: the caller must
   make sure its keys do not repeat. */
LRAF_API lraf_status lraf_ledger_record_new(lraf_ledger *l,
                                            const lraf_record *r,
                                            int *stored, lraf_error *err);
/* Totals of tenant's records (every tenant's when tenant is NULL). */
LRAF_API lraf_status lraf_ledger_usage(lraf_ledger *l, const char *tenant,
                              lraf_usage *u, lraf_error *err);
/* Totals of the records whose event time is in [from, to) (Unix
   seconds; -HUGE_VAL, HUGE_VAL: no bound). */
LRAF_API lraf_status lraf_ledger_usage_window(lraf_ledger *l,
                                              const char *tenant,
                                              double from, double to,
                                              lraf_usage *u,
                                              lraf_error *err);
/* Call f for each record of tenant (NULL: every tenant's) whose event
   time is in [from, to), by event time, tenant and key, until f returns
   non-zero.  The record and its strings live during the call only. */
LRAF_API lraf_status lraf_ledger_each(lraf_ledger *l, const char *tenant,
                                      double from, double to,
                                      int (*f)(void *ud,
                                               const lraf_record *r),
                                      void *ud, lraf_error *err);
/* Whether tenant has a record with key (*found 1 or 0), and then its
   instructions and status (either pointer may be NULL).  A host can
   answer a retry from it without running the request again. */
LRAF_API lraf_status lraf_ledger_find(lraf_ledger *l, const char *tenant,
                                      const char *key, int *found,
                                      int64_t *instructions, int *status,
                                      lraf_error *err);
/* A manager for tenant under parent (retained) enforcing a total quota
   kept in the ledger (quota < 0: none).  SQLite: a hierarchical child
   with what the ledger's records leave of quota.  PostgreSQL: the
   quota is shared by every host: the manager leases slices of at most
   slice instructions from the database (one transaction each), runs on
   them, and gives back what it did not use when the ledger is closed.
   Hosts never hold more than what the database granted, so every host
   together overshoot the quota by at most what their running threads
   overshoot a limit (see lraf_limit_new), and the record of the
   database never exceeds it by more than hosts x slice. */
LRAF_API lraf_manager *lraf_ledger_tenant(lraf_ledger *l,
                                          const char *tenant, int64_t quota,
                                          int64_t slice, lraf_manager *parent,
                                          lraf_error *err);
/* Reservations: a request takes n instructions of tenant's quota before
   it runs, atomically in the ledger (SQLite: a BEGIN IMMEDIATE
   transaction; PostgreSQL: one conditional UPDATE of the tenant's
   lraf_quota row, shared by every host, the same column leases take
   from), under its request_id.  LRAF_OK: reserved; LRAF_EQUOTA: less
   than n is left (*available says how much; nothing reserved);
   LRAF_EARG: n < 1, or the tenant has no quota (quota < 0, or
   PostgreSQL has no row for it: *available -1).  quota is the tenant's
   as given to lraf_ledger_tenant (SQLite checks it against the
   tenant's records and reservations; PostgreSQL against its row).
   The request then runs within n, and its record, with reserved = n
   and at most n instructions, settles the reservation in the
   transaction that stores it: the reservation goes and what the
   request did not use is free again, so a crash can neither lose nor
   double the refund.  A reservation whose record cannot be stored is
   given back with lraf_ledger_release.  One left by a host that
   stopped without settling (its requests were never recorded) is
   given back whole when the ledger is opened: SQLite releases every
   reservation in the file (one server per file); PostgreSQL those of
   the hosts whose database session is gone (each host holds an
   advisory lock while it lives).  While reserved requests run, what
   they reserved is not available to others; the quota held by leases
   (lraf_ledger_tenant on PostgreSQL) is not available to reservations
   until the host gives it back. */
LRAF_API lraf_status lraf_ledger_reserve(lraf_ledger *l, const char *tenant,
                                         const char *request_id, int64_t n,
                                         int64_t quota, int64_t *available,
                                         lraf_error *err);
LRAF_API lraf_status lraf_ledger_release(lraf_ledger *l, const char *tenant,
                                         const char *request_id,
                                         lraf_error *err);
/* What the group commit did since the ledger was opened: commits
   (transactions, each made durable by one flush: SQLite's fsync of its
   write-ahead log, PostgreSQL's of its own), the records they held, how
   many commits held 1, 2, 3-4, 5-8, ... 129-256 records
   (commit_size[i]: at most 2^i, more than 2^(i-1)), and the seconds
   spent writing and flushing.  records / commits is how many requests
   one fsync covers: every append that waits when a commit starts goes
   into it (at most 256).  commit_time[i] counts the commits that took
   at most 100 us x 2^i (0.1 ms, 0.2 ms, ... 1.6384 s), more than half
   that; the last, those that took longer. */
#define LRAF_LEDGER_SIZES 9
#define LRAF_LEDGER_TIMES 16
typedef struct lraf_ledger_counts {
  int64_t commits, records;
  int64_t commit_size[LRAF_LEDGER_SIZES];
  int64_t commit_time[LRAF_LEDGER_TIMES];
  double seconds;
} lraf_ledger_counts;
LRAF_API void lraf_ledger_stats(lraf_ledger *l, lraf_ledger_counts *c);
/* Give back unused leases, finish the pending commits, close. */
LRAF_API void lraf_ledger_close(lraf_ledger *l);

/* Times and billing periods (service/sv_period.c).  Times are Unix
   seconds; periods are calendar days and months in UTC. */
typedef enum lraf_period {
  LRAF_PERIOD_NONE,    /* no period: a total over all time */
  LRAF_PERIOD_DAY,
  LRAF_PERIOD_MONTH
} lraf_period;

/* Read an ISO 8601 date (YYYY-MM-DD, its midnight UTC) or date and time
   (YYYY-MM-DDTHH:MM[:SS[.fraction]], then Z, +HH:MM, -HH:MM or nothing
   for UTC).  LRAF_EARG with a message naming the text and what is
   wrong. */
LRAF_API lraf_status lraf_time_parse(const char *text, double *t,
                                     lraf_error *err);
/* t as YYYY-MM-DDTHH:MM:SS.ffffffZ (microseconds); "out of range"
   outside the years 0000 to 9999. */
LRAF_API void lraf_time_format(double t, char buf[32]);
/* The start of the period that holds t and the start of the next
   (-HUGE_VAL and HUGE_VAL for LRAF_PERIOD_NONE). */
LRAF_API double lraf_period_start(lraf_period p, double t);
LRAF_API double lraf_period_end(lraf_period p, double t);
/* The period holding t by name: "2026-11-28" (day), "2026-11" (month),
   "total" (none). */
LRAF_API void lraf_period_name(lraf_period p, double t, char buf[16]);
/* "day", "month" or "total"; LRAF_EARG otherwise. */
LRAF_API lraf_status lraf_period_parse(const char *word, lraf_period *p,
                                       lraf_error *err);
/* A quota: N, N/day or N/month, N digits and an optional k, M or G
   (x1000, x1e6, x1e9). */
LRAF_API lraf_status lraf_quota_parse(const char *text, int64_t *n,
                                      lraf_period *p, lraf_error *err);
/* The window [from, to) of two times as lraf_time_parse reads them
   (NULL: unbounded, -HUGE_VAL or HUGE_VAL); LRAF_EARG, saying which,
   for a bad time or from not before to. */
LRAF_API lraf_status lraf_window_parse(const char *from, const char *to,
                                       double *f, double *t,
                                       lraf_error *err);

/* Billing (service/sv_billing.c, sv_tenant.c): what lraf serve does
   with each request, without its HTTP front.  A billing runs requests
   on a pool, each charged to its tenant's manager, records each in the
   ledger, and answers a retry from the ledger.

   Tenants.  A tenant is made at its first request with its terms: the
   per-request limit, the quota and the rate given for it by name, else
   those given for "*" (the last term given of a kind wins).  Its
   manager is a rate (or a total) at the root with the quota below it:
   kept in the ledger when there is one (lraf_ledger_tenant: what the
   ledger's records leave of it, so a restart goes on where the last
   run stopped, and a spent tenant is refused before it runs, billed 0),
   in memory otherwise.  At most max_tenants are kept; an idle one
   whose quota the ledger keeps (SQLite), or who has none, makes room
   for a new one, the least recently used first.

   Periods.  A quota with a period (a UTC calendar day or month) counts
   only the records whose event time falls in the current period.  The
   billing's clock gives each request its event time as it starts; the
   first request of a new period finds the tenant's quota whole again
   (less what the ledger already holds for that period).  PostgreSQL
   leases each period's quota as a quota of its own.

   Retries.  A request may carry an idempotency key, unique per tenant.
   When the tenant's ledger already holds a record with it, the request
   is not run and not billed again: LRAF_BILL_REPEAT, with the record's
   status and count.  Otherwise it runs and its record is stored under
   "k:" and the key ("r:" and its request id without a key); when a
   concurrent request with the same key was stored first, this one ran,
   so it is stored under its own id: LRAF_BILL_CLASH.  A request that
   ran but whose record could not be stored is LRAF_BILL_UNRECORDED:
   its caller must not take it as done (lraf serve answers 503).

   Reservations.  A request with reserve N > 0 (at most the tenant's
   per-request limit: the smaller is taken) runs within N.  When its
   tenant has a quota kept in the ledger, N is first reserved from it
   (lraf_ledger_reserve under the request's id): when less than N is
   left, the request is not run, LRAF_BILL_REFUSED with what is
   available.  It is billed at most N (a request stopped at N is billed
   N: the few instructions of the charge that crossed N are not), and
   its record settles the reservation in the transaction that
   stores it (released whole when the record cannot be stored).  With a
   quota leased from PostgreSQL, a reserved request runs outside the
   leases (under the tenant's rate), so together the hosts never bill a
   tenant's reserved requests past its quota.  Without a ledger, or for
   a tenant without a quota, N only limits the request. */
typedef struct lraf_billing lraf_billing;

typedef enum lraf_term_kind {
  LRAF_TERM_REQUEST_LIMIT,  /* instructions each request may run */
  LRAF_TERM_QUOTA,          /* the tenant's total */
  LRAF_TERM_RATE            /* instructions per second */
} lraf_term_kind;

typedef struct lraf_term {
  const char *tenant;     /* a tenant's name, or "*" for every other */
  lraf_term_kind kind;
  int64_t value;          /* >= 0 (a rate >= 1) */
  lraf_period period;     /* a quota's: it starts again at each period's
                             start; LRAF_PERIOD_NONE: a total */
} lraf_term;

typedef struct lraf_billing_options {
  lraf_pool *pool;        /* runs the requests (required; not owned) */
  lraf_ledger *ledger;    /* records and quotas; NULL: none, quotas in
                             memory (not owned) */
  const lraf_term *terms; /* copied by lraf_billing_open */
  int nterms;
  int max_tenants;        /* tenants kept at once; default 1000 */
  int64_t slice;          /* PostgreSQL: quota leased at a time;
                             default 1,000,000 */
  double (*clock)(void *ud);  /* Unix time: each record's event time
                             and so its period; NULL: the system's */
  void *clock_ud;
} lraf_billing_options;

LRAF_API void lraf_billing_default_options(lraf_billing_options *o);
/* LRAF_EARG for a missing pool, a bad term (a tenant name that is not
   1-64 of A-Z a-z 0-9 _ - . or "*", a negative value, a rate of 0). */
LRAF_API lraf_status lraf_billing_open(const lraf_billing_options *o,
                                       lraf_billing **out, lraf_error *err);

typedef enum lraf_bill_outcome {
  LRAF_BILL_RAN,         /* ran and recorded (or no ledger) */
  LRAF_BILL_REPEAT,      /* the key was recorded before: not run */
  LRAF_BILL_CLASH,       /* a concurrent request stored the key first:
                            this one ran, recorded under its own id */
  LRAF_BILL_BUSY,        /* max_tenants tenants, none idle: not run */
  LRAF_BILL_UNRECORDED,  /* ran, but its record was not stored */
  LRAF_BILL_REFUSED      /* its reservation could not be made: not run,
                            not recorded (status 429) */
} lraf_bill_outcome;

typedef struct lraf_bill {
  lraf_bill_outcome outcome;
  char request_id[33];     /* 32 hex digits ("" unless run): the Unix
                              time in ms (48 bits), 80 random bits */
  int status;              /* RAN, CLASH: the response's; REPEAT: the
                              record's; BUSY: 503; UNRECORDED: 503 */
  int64_t instructions;    /* billed: the response's (RAN, CLASH,
                              UNRECORDED: charged though not stored),
                              the record's (REPEAT), 0 (BUSY) */
  lraf_response response;  /* RAN, CLASH, UNRECORDED: what the handler
                              returned (lraf_bill_free frees it) */
  int64_t reserved;        /* instructions reserved (0: none); REFUSED:
                              what it asked for */
  int64_t available;       /* REFUSED: what was left of the quota */
} lraf_bill;

/* Run req (its tenant_manager and limit are the billing's to set) for
   its tenant with idempotency key (NULL: none; else 1-200 bytes).  The
   bill is always filled; free it with lraf_bill_free.  Thread-safe.
   LRAF_EARG for a bad tenant name or key, LRAF_EIO when the ledger
   cannot be read (nothing ran) or the record not stored
   (LRAF_BILL_UNRECORDED), LRAF_EMEM when the tenant cannot be set up,
   LRAF_ELIMIT when the system gives no random request id. */
LRAF_API lraf_status lraf_billing_run(lraf_billing *b,
                                      const lraf_request *req,
                                      const char *key, lraf_bill *bill,
                                      lraf_error *err);
LRAF_API void lraf_bill_free(lraf_bill *bill);

/* What the billing counted for one tenant it keeps, since it opened. */
typedef struct lraf_tenant_stats {
  const char *tenant;
  int64_t requests;        /* run or refused (repeats not) */
  int64_t instructions;    /* billed, native units included */
  int64_t native;
  int64_t by_class[6];     /* by the bill's status: [1] 1xx .. [5] 5xx */
  int64_t charged;         /* everything its manager was charged:
                              requests, finalizers, left-over work */
  int64_t quota;           /* its quota; -1: none */
  int64_t quota_left;      /* what is left of it now (below 0: overshoot);
                              INT64_MAX when unknown here (no quota, or
                              leased from PostgreSQL) */
} lraf_tenant_stats;
/* Call f for each tenant kept, under the billing's lock (f must not
   call the billing). */
LRAF_API void lraf_billing_each(lraf_billing *b,
                                void (*f)(void *ud,
                                          const lraf_tenant_stats *t),
                                void *ud);
/* Release the tenants.  Close the pool first (its states hold the
   tenants' managers); the pool and the ledger stay open. */
LRAF_API void lraf_billing_close(lraf_billing *b);

/* ================================================================== */
/* Profiles (runtime/rt_profile.c, profile/)                           */
/* ================================================================== */

/* An exact, reproducible profile of what a state ran between
   lraf_profile_start and lraf_profile_stop, in the state's cost model
   (lraf_model names it): per function (Lua functions by short source
   and line defined, named as debug.getinfo names them at their first
   call, "main chunk" for a chunk; C functions as "[C] module.name"
   when a loaded module holds them) its calls, self and inclusive
   instructions, and the calling-context tree, in which a function
   reached by two paths is two nodes and a coroutine's frames hang under
   the coroutine.create or coroutine.wrap call that made it.  Self
   counts sum to exactly what the state counted meanwhile (the native
   units of C functions, with the native option, are their self count).
   On the stock target the profile is collected by a call and return
   hook on the main thread, which coroutines created afterwards inherit
   (so profile from the start), and has no per-line counts; the hook is
   shared with the script's own (debug.sethook), whose functions run as
   frames of their own.
   On the lraf VM build (lraf_vm_builtin) the VM reports calls and
   returns itself (no hook), and the chunks the state loads while the
   profile runs also get exact per-line counts (the callgrind and JSON
   outputs show them).  Recursion counts once in a
   function's inclusive count; a thread's frames deeper than 256 hang
   under the frame at depth 256 in the tree (the counts per function
   stay exact).  Use it from the OS thread that runs S. */
typedef struct lraf_profile lraf_profile;

/* Start profiling S.  LRAF_EARG when a profile is already running or
   (stock target) the main thread has a debug hook that the host set
   with lua_sethook (a script's debug.sethook is fine). */
LRAF_API lraf_status lraf_profile_start(lraf_state *S, lraf_error *err);
/* Stop and hand over the profile (*out; free it with
   lraf_profile_free).  lraf_close frees a profile still running.  While
   it runs the profile counts against S's memory limit: LRAF_EMEMLIMIT
   (and no profile) when it would have passed it. */
LRAF_API lraf_status lraf_profile_stop(lraf_state *S, lraf_profile **out,
                                       lraf_error *err);
LRAF_API void lraf_profile_free(lraf_profile *P);

/* Write P to out in format "table" (the top functions by self count;
   top rows, 0: all), "folded" (one line "frame;frame;... N" per
   calling context with self instructions, flamegraph.pl's input),
   "callgrind" (Callgrind's format, for callgrind_annotate and
   KCachegrind), "svg" (a self-contained flame graph) or "json".  In
   folded, JSON and SVG a Lua frame is "NAME (SOURCE:LINE)" and a C
   frame "[C] NAME".  docs/profiling.md describes every format.
   LRAF_EARG for an unknown format, LRAF_EIO when writing fails. */
LRAF_API lraf_status lraf_profile_write(const lraf_profile *P,
                                        const char *format, int top,
                                        FILE *out, lraf_error *err);

/* Everything P counted (the sum of the self counts). */
LRAF_API int64_t lraf_profile_total(const lraf_profile *P);
/* One function of P: i from 0 to lraf_profile_functions(P) - 1, in the
   order of their first call.  The strings live as long as P.  Returns 0
   when i is out of range. */
typedef struct lraf_profile_func {
  const char *name;    /* "?" when debug.getinfo gives none */
  const char *source;  /* short source; "[C]" for C functions */
  int line;            /* line defined; -1 for C functions */
  int is_c;
  int64_t calls, self, inclusive;
} lraf_profile_func;
LRAF_API int lraf_profile_functions(const lraf_profile *P);
LRAF_API int lraf_profile_function(const lraf_profile *P, int i,
                                   lraf_profile_func *out);

/* Comparing two JSON profiles (lraf diff), function by function.
   Functions are matched by name and file, not by the line they are
   defined on: an edit above a function leaves it the same function
   (moved: its two lines differ).  The line only tells apart functions
   of one name in one file (anonymous functions, methods of different
   classes), paired in the order of their lines.  A file whose path
   changed is followed when its base name is unique.  Functions only
   one profile ran are added or removed rows.
   lraf_profile_diff reads both texts (a_name and b_name
   name them in errors: LRAF_EFORMAT with the byte offset and what was
   expected there) and compares their self counts.  The rows come
   sorted by absolute change, largest first, then by frame; their
   strings live as long as the diff.  The similarity is the cosine of
   the two per-function count vectors, each count weighted by
   1 + ln(2 / df), df the number of the two profiles that ran the
   function: 1 for identical profiles, near 0 for different programs. */
typedef struct lraf_profile_diff lraf_profile_diff;
typedef struct lraf_profile_change {
  const char *frame;     /* "(total)" for the totals; the second
                            profile's frame name when it has the
                            function, else the first's */
  int64_t before, after;
  int in_before, in_after;     /* the function is in the first, second
                                  profile (0, 1: added; 1, 0: removed) */
  int line_before, line_after; /* its lines defined (-1: C, totals or
                                  absent); they differ when it moved */
} lraf_profile_change;
LRAF_API lraf_status lraf_profile_diff_new(const char *a, size_t a_len,
                                           const char *a_name,
                                           const char *b, size_t b_len,
                                           const char *b_name,
                                           lraf_profile_diff **out,
                                           lraf_error *err);
LRAF_API int lraf_profile_diff_rows(const lraf_profile_diff *d);
/* Row i (0 .. rows - 1); 0 when out of range.  i = -1: the totals. */
LRAF_API int lraf_profile_diff_row(const lraf_profile_diff *d, int i,
                                   lraf_profile_change *out);
LRAF_API double lraf_profile_diff_similarity(const lraf_profile_diff *d);
/* The cost models the two profiles name. */
LRAF_API const char *lraf_profile_diff_model(const lraf_profile_diff *d,
                                             int second);
/* The change from before to after in percent, for display: 0 when
   equal, +HUGE_VAL when before is 0 (and after is not), otherwise
   100 * (after - before) / before computed in double from the counts
   converted to double, so rounded (counts above 2^53 lose their last
   digits first).  lraf diff's gate does not use it: it decides in
   integers (docs/profiling.md). */
LRAF_API double lraf_profile_change_percent(int64_t before, int64_t after);
/* The differential flame graph as SVG: the second profile's
   calling-context tree, each frame red when its self count grew since
   the first profile, blue when it shrank (deeper for a larger change),
   with the interactive SVG's zoom and search (docs/profiling.md).
   LRAF_EIO when writing fails. */
LRAF_API lraf_status lraf_profile_diff_write_svg(const lraf_profile_diff *d,
                                                 FILE *out, lraf_error *err);
LRAF_API void lraf_profile_diff_free(lraf_profile_diff *d);

#endif
