/*
** sv.h - internal interface of service/: the request pool's workers
** and states, and the usage ledger's stores.
**
** Internal to lraf (prefix sv_).  service/ sits above runtime/: it uses
** lraf through include/lraf.h and Lua through its C API only.
*/
#ifndef SV_H
#define SV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "lraf.h"

/* ---- sv_util.c ---- */
uint64_t sv_hash(const char *s, size_t len);   /* FNV-1a, 64 bits */
double sv_now(void);                           /* Unix time */
int64_t sv_us(double s);                       /* seconds to microseconds */
double sv_mono(void);                          /* monotonic seconds */
double sv_cpu(void);                           /* this thread's CPU time */
void sv_thread_name(const char *name);   /* the calling thread's, as top
                                            -H and perf show it */
char *sv_strdup(const char *s);
/* The addresses of r's string fields, in the order the journal keeps
   them: key, request id, tenant, handler, model, outcome, note. */
#define SV_TEXTS 7
void sv_record_texts(lraf_record *r, const char **f[SV_TEXTS]);
lraf_status sv_fail(lraf_error *err, lraf_status code, const char *fmt, ...);

/* ---- sv_worker.c: a worker's states and chunk cache ---- */

/* A handler a state loaded: its name, the hash of its source and a
   registry reference to the function. */
typedef struct sv_handler {
  char *name;
  uint64_t hash;
  int ref;
  struct sv_handler *next;
} sv_handler;

/* The allocator a worker puts in front of a state's own: it makes Lua
   collect (an emergency collection, which runs no finalizer and so no
   Lua code) when the bytes held pass twice what the last collection
   left, so that garbage is freed during a request with the collector
   stopped (sv_gc.c). */
typedef struct sv_gc {
  lua_Alloc f;
  void *ud;
  size_t inuse, next;  /* bytes held; collect past next */
  int refused;         /* the last growth was refused to make Lua collect */
  int on;
  int64_t collections;
} sv_gc;

/* One tenant's state in a worker.  Every account of a metered state
   (its main thread's, and so every coroutine's, which inherit it) is
   bound to fwd, a manager that forwards to whatever the worker aims it
   at: the running request's manager, the bounded clean-up after it, the
   chunk's run.  So a coroutine left by one request and resumed by
   another is charged to the one that resumes it, and nothing is ever
   rebound account by account. */
typedef struct sv_state {
  char *tenant;
  lraf_manager *tenant_mgr;  /* retained */
  lraf_state *S;             /* NULL in a plain pool */
  lua_State *L;
  lraf_manager *fwd;         /* NULL in a plain pool */
  sv_gc *gc;
  sv_handler *handlers;
  uint64_t used;             /* worker clock of the last use (LRU) */
} sv_state;

/* A rewritten chunk, kept by (source hash, source length, model); a
   worker keeps at most SV_MAX_CHUNKS (the oldest made goes first). */
#define SV_MAX_CHUNKS 256
typedef struct sv_chunk {
  uint64_t hash;
  size_t len;
  void *data;
  size_t size;
  struct sv_chunk *next;
} sv_chunk;

typedef struct sv_worker {
  const lraf_pool_options *opt;  /* the pool's (it outlives the worker) */
  const char *model;             /* the pool's cost-model id */
  pthread_t thread;
  sv_state **states;
  int nstates;
  uint64_t clock;
  sv_chunk *chunks;      /* most recently made first */
  int nchunks;
  lraf_manager *system;  /* charged for running handler chunks */
  /* what lraf_pool_stats sums (read while the worker runs) */
  atomic_llong requests, made, drops, rewrites, loads;
} sv_worker;

/* The state for tenant (created, or the least recently used one closed,
   as needed); NULL with err set on failure. */
sv_state *sv_state_for(sv_worker *w, const lraf_request *rq,
                       lraf_error *err);
/* Aim st's accounts at m (settling what they ran so far with the
   manager they were aimed at). */
void sv_state_aim(sv_state *st, lraf_manager *m);
/* A manager for work st runs outside a request (finalizers, left-over
   deferred work): a child of the tenant's with the pool's clean-up
   limit; NULL when out of memory. */
lraf_manager *sv_state_cleanup(sv_worker *w, sv_state *st);
/* Close st and take it out of the worker. */
void sv_state_drop(sv_worker *w, sv_state *st);
/* Push the handler function of rq in st (loading it once). */
lraf_status sv_handler_push(sv_worker *w, sv_state *st,
                            const lraf_request *rq, lraf_error *err);
void sv_worker_free(sv_worker *w);

/* ---- sv_gc.c: collections during requests ---- */
/* Put the collecting allocator in front of L's (NULL when out of
   memory: L keeps its own). */
sv_gc *sv_gc_install(lua_State *L);
/* A collection just ran: the next one comes when what L holds doubles. */
void sv_gc_rebase(sv_gc *g);
/* Give L its own allocator back and free g. */
void sv_gc_remove(lua_State *L, sv_gc *g);

/* ---- sv_request.c: running one request ---- */
void sv_request_run(sv_worker *w, const lraf_request *rq,
                    lraf_response *res);

/* ---- sv_ledger.c / sv_sqlite.c / sv_pg.c: the stores ---- */
typedef struct sv_store sv_store;

/* A record read back from a store: f returns non-zero to stop. */
typedef int (*sv_each_fn)(void *ud, const lraf_record *r);

/* A store: a backend of the ledger.  Times are microseconds since the
   Unix epoch; a window [from, to) is on the records' event time.
   write() stores n records in one transaction (a record whose tenant
   already has its key is skipped, stored[i] 0), with the time of the
   write as their ingest time; usage() sums a tenant's records (every
   tenant's: NULL) in a window; find() looks up a tenant's key; quota()
   sets a tenant's shared quota; lease() takes up to want instructions
   of it (the amount granted in *got); give() returns some; each()
   calls f for every record of a tenant (NULL: every one) in a window,
   by event time, tenant and key.  reserve() takes n of tenant's quota
   for one request (request_id) if that much is left (*reserved 1;
   *available: what was left before, -1 when the store has no quota for
   tenant); write() settles the reservation of every record stored with
   one (in the same transaction: the reservation goes, what the record
   did not use goes back to the quota); release() gives a reservation
   back whole (its record could not be stored). */
typedef struct sv_store_ops {
  lraf_status (*write)(sv_store *s, const lraf_record *const *r, int n,
                       int *stored, lraf_error *err);
  lraf_status (*usage)(sv_store *s, const char *tenant, int64_t from,
                       int64_t to, lraf_usage *u, lraf_error *err);
  lraf_status (*find)(sv_store *s, const char *tenant, const char *key,
                      int *found, int64_t *instructions, int *status,
                      lraf_error *err);
  lraf_status (*quota)(sv_store *s, const char *tenant, int64_t quota,
                       lraf_error *err);
  lraf_status (*lease)(sv_store *s, const char *tenant, int64_t want,
                       int64_t *got, lraf_error *err);
  lraf_status (*give)(sv_store *s, const char *tenant, int64_t n,
                      lraf_error *err);
  lraf_status (*reserve)(sv_store *s, const char *tenant,
                         const char *request_id, int64_t n, int64_t quota,
                         int *reserved, int64_t *available, lraf_error *err);
  lraf_status (*release)(sv_store *s, const char *tenant,
                         const char *request_id, lraf_error *err);
  lraf_status (*each)(sv_store *s, const char *tenant, int64_t from,
                      int64_t to, sv_each_fn f, void *ud, lraf_error *err);
  void (*close)(sv_store *s);
  /* make every write so far survive a power loss (NULL: each write
     does) */
  lraf_status (*sync)(sv_store *s, lraf_error *err);
  int shared;  /* quotas are leased (PostgreSQL) */
} sv_store_ops;

struct sv_store {
  const sv_store_ops *ops;
  int reads_apart;  /* usage(), find() and each() use a connection of
                       their own, so they may run while write() waits for
                       its fsync */
};

lraf_status sv_sqlite_open(const char *path, lraf_durability d,
                           sv_store **out, lraf_error *err);
/* A journal in front of s makes its records durable: its commits are
   fsynced by checkpoints (sync()) alone. */
void sv_sqlite_behind_journal(sv_store *s);
lraf_status sv_pg_open(const char *conninfo, sv_store **out,
                       lraf_error *err);

/* ---- sv_journal.c: the ledger's journal file ---- */
typedef struct sv_journal sv_journal;
typedef lraf_status (*sv_journal_fn)(void *ud, const lraf_record *r);

/* Open (or create) the journal at path and lock it; the records a run
   that stopped left in it go to f, in order, and the file is emptied.
   *busy 1 (and *out NULL): another process holds it. */
lraf_status sv_journal_open(const char *path, sv_journal **out, int *busy,
                            sv_journal_fn f, void *ud, lraf_error *err);
/* Write n records after the last; fdatasync when sync. */
lraf_status sv_journal_append(sv_journal *j, const lraf_record *const *r,
                              int n, int sync, lraf_error *err);
int64_t sv_journal_size(const sv_journal *j);   /* bytes appended */
/* The next append starts at the file's beginning: every record
   appended so far is in the store. */
void sv_journal_restart(sv_journal *j);
/* Close j; remove its file when the store holds every record. */
void sv_journal_close(sv_journal *j, int remove);
/* Lock out the views that read held (an append and the key checks
   before it); sv_journal_let_go ends it. */
lraf_status sv_journal_hold(sv_journal *j, lraf_error *err);
void sv_journal_let_go(sv_journal *j);

/* The journal at a path as a process that does not hold it sees it. */
typedef struct sv_journal_view sv_journal_view;
sv_journal_view *sv_journal_view_new(const char *path);   /* NULL: memory */
/* f for each record appended since the last read of v (every record,
   when the journal started over or is another file), then f(ud, NULL).
   hold: the holder appends nothing until sv_journal_view_let_go. */
lraf_status sv_journal_view_read(sv_journal_view *v, int hold,
                                 sv_journal_fn f, void *ud,
                                 lraf_error *err);
void sv_journal_view_let_go(sv_journal_view *v);
void sv_journal_view_free(sv_journal_view *v);
/* r as a record on file numbered seq, into out when it has cap bytes;
   its size either way (0: a field is over 16 MiB). */
size_t sv_journal_encode(const lraf_record *r, uint64_t seq,
                         unsigned char *out, size_t cap);
/* The record at p (n bytes): its size (0: not a whole record), its
   number and its fields, whose strings point into p. */
size_t sv_journal_decode(const unsigned char *p, size_t n, uint64_t *seq,
                         lraf_record *r);
/* f for each record of a journal's n bytes at p, up to the first that
   is not whole or not numbered above the one before; then f(ud, NULL).
   The first status other than LRAF_OK that f returns ends it. */
lraf_status sv_journal_read(const unsigned char *p, size_t n,
                            sv_journal_fn f, void *ud);

/* ---- sv_drain.c: the journal in front of a store ---- */
typedef struct sv_drain sv_drain;

/* Put the journal at path in front of s: what an earlier run left in
   it goes to s first.  store_lock guards s's writes, read_lock its
   reads; sync: each append is fdatasynced.  When another process holds
   the journal, *out follows it instead: records go to s directly, and
   before each, and before each read of s (sv_drain_flush), the records
   of that journal that s lacks go to s. */
lraf_status sv_drain_open(const char *path, sv_store *s,
                          pthread_mutex_t *store_lock,
                          pthread_mutex_t *read_lock, int sync,
                          sv_drain **out, lraf_error *err);
/* Append n records durably, a tenant's key once (stored[i] 0: taken,
   by the store or a record still in the journal).  A record whose
   new_key[i] is 1 has a key its caller made new: the store is not
   asked for it (new_key may be NULL: none is).  One caller at a time (the group
   commit's leader). */
lraf_status sv_drain_append(sv_drain *d, const lraf_record *const *r,
                            const int *new_key, int n, int *stored,
                            lraf_error *err);
/* A record of tenant under key that the store does not have yet. */
int sv_drain_find(sv_drain *d, const char *tenant, const char *key,
                  int64_t *instructions, int *status);
/* Wait until the store has every record appended (following: every
   record the other process appended so far). */
lraf_status sv_drain_flush(sv_drain *d, lraf_error *err);
/* Whether d holds its journal (else it follows another process's). */
int sv_drain_holds(const sv_drain *d);
/* Flush and stop; the journal's file goes once the store has it all. */
lraf_status sv_drain_close(sv_drain *d, lraf_error *err);

/* ---- sv_lease.c: a tenant manager running on leased slices ---- */
lraf_manager *sv_lease_new(sv_store *s, pthread_mutex_t *store_lock,
                           const char *tenant, int64_t slice,
                           lraf_manager *parent);
/* Give back what m leased and did not use. */
void sv_lease_return(lraf_manager *m);

/* ---- sv_pool.c ---- */
typedef struct sv_job sv_job;
/* lraf_pool_run, and then after(ud, j) in the worker's thread once the
   request has run: its caller is answered when after returns 1, or else
   when sv_pool_done(j) is called (from any thread). */
void sv_pool_run_then(lraf_pool *p, const lraf_request *req,
                      lraf_response *res, int (*after)(void *ud, sv_job *j),
                      void *ud);
void sv_pool_done(sv_job *j);

/* ---- sv_ledger.c ---- */
/* A record queued for a group commit, in its appender's storage until
   the commit answers it.  Its fields are sv_ledger.c's; its appender
   reads the outcome with sv_ledger_result. */
typedef struct sv_pending {
  lraf_record r;               /* the caller's, its defaults filled in */
  int new_key;                 /* its key is new (lraf_ledger_record_new) */
  int taken;                   /* in a batch (under the queue's lock) */
  int stored;                  /* the outcome, set with the batch's end */
  lraf_status code;
  char message[256];
  void (*then)(void *ud);      /* sv_ledger_queue's: called when answered */
  void *ud;
  pthread_mutex_t m;           /* done and lead (an append that waits) */
  pthread_cond_t wake;
  int done;                    /* another's batch held it, and is done */
  int lead;                    /* it writes the next batch */
  struct sv_pending *next;
} sv_pending;

/* Queue r (the strings it points to stay the caller's until then) for
   l's next group commit without waiting for it: then(ud) is called
   once p is answered, from the thread that committed it (at process
   durability, the caller's own, before this returns).  LRAF_OK, or an
   error when r is not as lraf_record says (then is not called). */
lraf_status sv_ledger_queue(lraf_ledger *l, sv_pending *p,
                            const lraf_record *r, int new_key,
                            void (*then)(void *ud), void *ud,
                            lraf_error *err);
/* p's outcome once answered: LRAF_OK with *stored (0: its key was
   taken), or the commit's error. */
lraf_status sv_ledger_result(const sv_pending *p, int *stored,
                             lraf_error *err);
/* Whether l's quotas are leased from a store shared by many hosts
   (PostgreSQL), rather than kept by this host's records. */
int sv_ledger_shared(const lraf_ledger *l);
/* lraf_ledger_tenant for the quota of the period p that holds t (a PostgreSQL
   lease named tenant@period). */
lraf_manager *sv_ledger_period_tenant(lraf_ledger *l, const char *tenant,
                                      int64_t quota, lraf_period p, double t,
                                      int64_t slice, lraf_manager *parent,
                                      lraf_error *err);
/* lraf_ledger_usage_window in microseconds (INT64_MIN, INT64_MAX: no
   bound). */
lraf_status sv_ledger_window(lraf_ledger *l, const char *tenant,
                             int64_t from, int64_t to, lraf_usage *u,
                             lraf_error *err);

/* ---- sv_tenant.c / sv_billing.c: billing ---- */
typedef struct sv_tenant {
  char name[65];
  lraf_manager *manager;   /* the tenant's budget */
  lraf_manager *root;      /* its rate (or total), above the quota */
  int64_t budget;          /* the budget of manager when it is a
                              hierarchical one with a quota (SQLite, in
                              memory), less what reserved requests
                              billed; -1: not one */
  int64_t limit;           /* each request's own quota; -1: none */
  int64_t quota, rate;     /* its terms; -1, 0: none */
  lraf_period period;      /* its quota's */
  double period_start, period_end;   /* the period its manager counts */
  int64_t requests, instructions, native;   /* since open */
  int64_t by_class[6];     /* bills by status class 1xx..5xx */
  int inflight;            /* requests holding it (sv_tenant_get) */
  int keep;                /* never evicted: its quota lives here only */
  uint64_t used;           /* b->tick at its last request */
  struct sv_tenant *next;
} sv_tenant;

typedef struct sv_term {
  char tenant[65];
  lraf_term_kind kind;
  int64_t value;
  lraf_period period;
} sv_term;

struct lraf_billing {
  lraf_pool *pool;
  lraf_ledger *ledger;
  sv_term *terms;
  int nterms;
  int max_tenants, ntenants;
  int64_t slice;
  uint64_t tick;           /* counts sv_tenant_get calls */
  double (*clock)(void *ud);
  void *clock_ud;
  pthread_mutex_t lock;    /* tenants and their counters */
  sv_tenant *tenants;
};

/* 1-max of A-Z a-z 0-9 _ - . */
int sv_valid_name(const char *s, size_t max);
/* The tenant called name (made at its first request), held until
   sv_tenant_put, and in *m its manager for a request at time now
   (retained: a new one when now is in a new period of its quota); NULL
   with err set when its manager cannot be made, or when there are
   max_tenants tenants and none can be evicted (*full is then 1). */
sv_tenant *sv_tenant_get(lraf_billing *b, const char *name, double now,
                         lraf_manager **m, int *full, lraf_error *err);
void sv_tenant_put(lraf_billing *b, sv_tenant *t);
void sv_tenant_free_all(lraf_billing *b);

#endif
