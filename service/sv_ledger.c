/*
** sv_ledger.c - the usage ledger: the store named by a spec, the group
** commit, and tenant managers whose quota is kept in the ledger.
**
** Group commit.  An append queues its record, and one commit writes
** everything queued at that moment in one transaction (one fsync).
** At power durability a thread of the ledger's own, lraf-commit,
** writes every batch: it commits back to back while records are
** queued, and answers each record of a batch when the batch is
** durable, by waking the append that waits for it or by calling the
** function its queuer left (sv_ledger_queue).  So a request's thread
** waits once, for its answer, and the thread that ran it need not wait
** for the disk at all.  At process durability a commit does not wait
** for the disk, and the append that finds no commit running writes
** the batch itself; the others wait for that commit, after which the
** first append still waiting writes the next.  Each append waits on a
** lock and condition of its own, so a commit wakes only the appends it
** answers.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv.h"

#define SV_BATCH 256   /* records per transaction at most */

struct lraf_ledger {
  sv_store *store;
  pthread_mutex_t store_lock;  /* one user of the store at a time */
  pthread_mutex_t read_lock;   /* its reader, when it has its own */
  pthread_mutex_t lock;        /* the queue */
  sv_pending *head, *tail;
  int committing;              /* an append is writing a batch */
  int committer;               /* lraf-commit writes every batch */
  int stop;                    /* lraf-commit: leave once the queue is
                                  empty */
  pthread_cond_t queued;       /* lraf-commit: a record was queued */
  pthread_t commit_thread;
  lraf_manager **leases;       /* tenant managers on leases (retained) */
  int nleases;
  lraf_ledger_counts counts;   /* under lock */
  sv_drain *drain;             /* the journal in front of the store, or
                                  another process's that it follows
                                  (SQLite alone; NULL: PostgreSQL) */
};

/* Count a commit of n records that took seconds. */
static void count_commit(lraf_ledger *l, int n, double seconds) {
  int i = 0;
  while (i < LRAF_LEDGER_SIZES - 1 && n > (1 << i)) i++;
  l->counts.commits++;
  l->counts.records += n;
  l->counts.commit_size[i]++;
  for (i = 0; i < LRAF_LEDGER_TIMES - 1 && seconds > 1e-4 * (1 << i); i++) {}
  l->counts.commit_time[i]++;
  l->counts.seconds += seconds;
}

/* Tell p that its batch is done (done), or that it leads the next. */
static void tell(sv_pending *p, int done) {
  pthread_mutex_lock(&p->m);
  if (done) p->done = 1;
  else p->lead = 1;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->m);
}

/* Wait until p is told: 1 when its batch is done, 0 when it leads. */
static int await_word(sv_pending *p) {
  int done;
  pthread_mutex_lock(&p->m);
  while (!p->done && !p->lead) pthread_cond_wait(&p->wake, &p->m);
  done = p->done;
  p->lead = 0;
  pthread_mutex_unlock(&p->m);
  return done;
}

/* Commit everything queued (up to SV_BATCH records) as the leader, self
   (NULL: lraf-commit): the queue's lock is held on entry and on return,
   and dropped while the store writes and while the batch's other
   appends are answered.  1 when self was in the batch. */
static int commit_queued(lraf_ledger *l, sv_pending *self) {
  const lraf_record *batch[SV_BATCH];
  sv_pending *taken[SV_BATCH];
  int new_key[SV_BATCH], stored[SV_BATCH];
  int n = 0, i, mine = 0;
  lraf_error err;
  lraf_status code;
  double t0;
  while (l->head != NULL && n < SV_BATCH) {
    taken[n] = l->head;
    taken[n]->taken = 1;
    batch[n] = &l->head->r;
    new_key[n] = l->head->new_key;
    stored[n] = 0;
    l->head = l->head->next;
    n++;
  }
  if (l->head == NULL) l->tail = NULL;
  l->committing = 1;
  pthread_mutex_unlock(&l->lock);
  err.message[0] = '\0';
  t0 = sv_mono();
  if (l->drain != NULL) {
    code = sv_drain_append(l->drain, batch, new_key, n, stored, &err);
  } else {
    pthread_mutex_lock(&l->store_lock);
    code = l->store->ops->write(l->store, batch, n, stored, &err);
    pthread_mutex_unlock(&l->store_lock);
  }
  t0 = sv_mono() - t0;
  pthread_mutex_lock(&l->lock);
  if (code == LRAF_OK) count_commit(l, n, t0);
  for (i = 0; i < n; i++) {
    taken[i]->code = code;
    taken[i]->stored = stored[i];
    if (code != LRAF_OK)
      snprintf(taken[i]->message, sizeof taken[i]->message, "%.250s",
               err.message);
  }
  l->committing = 0;
  /* without lraf-commit, the first still queued writes the next batch;
     told now, while it cannot be taken and leave */
  if (!l->committer && l->head != NULL) tell(l->head, 0);
  pthread_mutex_unlock(&l->lock);
  /* each of the others waits for this word before it leaves, or leaves
     it to then; after either, p may be gone */
  for (i = 0; i < n; i++)
    if (taken[i] == self) mine = 1;
    else if (taken[i]->then != NULL) taken[i]->then(taken[i]->ud);
    else tell(taken[i], 1);
  pthread_mutex_lock(&l->lock);
  return mine;
}

/* lraf-commit: write what is queued, batch after batch, until the
   ledger closes. */
static void *commit_loop(void *arg) {
  lraf_ledger *l = arg;
  sv_thread_name("lraf-commit");
  pthread_mutex_lock(&l->lock);
  for (;;) {
    while (l->head == NULL && !l->stop) pthread_cond_wait(&l->queued, &l->lock);
    if (l->head == NULL) break;
    commit_queued(l, NULL);
  }
  pthread_mutex_unlock(&l->lock);
  return NULL;
}

lraf_status lraf_ledger_open(const char *spec, lraf_ledger **out,
                             lraf_error *err) {
  return lraf_ledger_open_durable(spec, LRAF_DURABLE_POWER, out, err);
}

lraf_status lraf_ledger_open_durable(const char *spec, lraf_durability d,
                                     lraf_ledger **out, lraf_error *err) {
  lraf_ledger *l;
  lraf_status st;
  sv_store *s = NULL;
  *out = NULL;
  if (spec == NULL) return sv_fail(err, LRAF_EARG, "no ledger given");
  if (d != LRAF_DURABLE_POWER && d != LRAF_DURABLE_PROCESS)
    return sv_fail(err, LRAF_EARG, "ledger '%s': unknown durability %d",
                   spec, (int)d);
  if (strncmp(spec, "sqlite:", 7) == 0) {
    if (spec[7] == '\0')
      return sv_fail(err, LRAF_EARG, "ledger '%s': no file after sqlite:",
                     spec);
    st = sv_sqlite_open(spec + 7, d, &s, err);
  } else if (strncmp(spec, "postgresql://", 13) == 0 ||
             strncmp(spec, "postgres://", 11) == 0) {
    if (d != LRAF_DURABLE_POWER)
      return sv_fail(err, LRAF_EARG, "ledger '%s': process durability is "
                     "for SQLite ledgers only (PostgreSQL commits to the "
                     "server's disk)", spec);
    st = sv_pg_open(spec, &s, err);
  } else {
    return sv_fail(err, LRAF_EARG,
                   "ledger '%s': expected sqlite:PATH or postgresql://...",
                   spec);
  }
  if (st != LRAF_OK) return st;
  l = calloc(1, sizeof *l);
  if (l == NULL) {
    s->ops->close(s);
    return sv_fail(err, LRAF_EMEM, "out of memory");
  }
  l->store = s;
  pthread_mutex_init(&l->store_lock, NULL);
  pthread_mutex_init(&l->read_lock, NULL);
  pthread_mutex_init(&l->lock, NULL);
  pthread_cond_init(&l->queued, NULL);
  if (strncmp(spec, "sqlite:", 7) == 0) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s-lraf-journal", spec + 7) >=
        sizeof path) {
      lraf_ledger_close(l);
      return sv_fail(err, LRAF_EARG, "ledger '%.200s...': path too long "
                     "for its journal", spec);
    }
    st = sv_drain_open(path, s, &l->store_lock, &l->read_lock,
                       d == LRAF_DURABLE_POWER, &l->drain, err);
    if (st != LRAF_OK) {
      lraf_ledger_close(l);
      return st;
    }
    if (sv_drain_holds(l->drain)) sv_sqlite_behind_journal(s);
  }
  if (d == LRAF_DURABLE_POWER) {
    if (pthread_create(&l->commit_thread, NULL, commit_loop, l) != 0) {
      lraf_ledger_close(l);
      return sv_fail(err, LRAF_EMEM, "ledger '%s': cannot start its "
                     "commit thread", spec);
    }
    l->committer = 1;
  }
  *out = l;
  return LRAF_OK;
}

/* A time the stores can hold in int64 microseconds. */
#define SV_MAX_SECONDS 9e12

/* The outcome r names, or -1 when it names none. */
static int outcome_of(const char *word) {
  int o;
  for (o = LRAF_OUTCOME_OK; o <= LRAF_OUTCOME_ADJUSTMENT; o++)
    if (strcmp(word, lraf_outcome_name((lraf_outcome)o)) == 0) return o;
  return -1;
}

/* The outcome of a record that names none. */
static const char *default_outcome(int status) {
  return lraf_outcome_name(status == 429   ? LRAF_OUTCOME_QUOTA
                           : status == 507 ? LRAF_OUTCOME_MEMORY
                           : status >= 500 ? LRAF_OUTCOME_ERROR
                                           : LRAF_OUTCOME_OK);
}

/* LRAF_OK, or LRAF_EARG naming the first field that is not as
   lraf_record says. */
static lraf_status check(const lraf_record *r, lraf_error *err) {
  static const char *const cname[] = {"instructions", "native",
                                      "memory_peak"};
  static const char *const tname[] = {"wall", "cpu", "started", "ended",
                                      "event_time"};
  int64_t n[3];
  double t[5];
  int i, adjust;
  if (r == NULL || r->key == NULL || r->key[0] == '\0' ||
      r->request_id == NULL || r->tenant == NULL || r->handler == NULL ||
      r->model == NULL)
    return sv_fail(err, LRAF_EARG, "ledger record without key, request id, "
                   "tenant, handler or model");
  if (r->reserved < 0 || (r->reserved > 0 && r->instructions > r->reserved))
    return sv_fail(err, LRAF_EARG, "ledger record: reserved is %" PRId64
                   " (0: none; else at least its instructions, %" PRId64
                   ")", r->reserved, r->instructions);
  if (r->outcome != NULL && outcome_of(r->outcome) < 0)
    return sv_fail(err, LRAF_EARG, "ledger record: outcome '%.40s' is not "
                   "ok, error, request-limit, quota, rate, memory or "
                   "adjustment", r->outcome);
  if (r->note != NULL && strlen(r->note) > 1000)
    return sv_fail(err, LRAF_EARG, "ledger record: note over 1000 bytes");
  adjust = r->outcome != NULL &&
           outcome_of(r->outcome) == LRAF_OUTCOME_ADJUSTMENT;
  n[0] = r->instructions, n[1] = r->native, n[2] = r->memory_peak;
  for (i = adjust ? 1 : 0; i < 3; i++)
    if (n[i] < 0)
      return sv_fail(err, LRAF_EARG, "ledger record: %s is negative "
                     "(%" PRId64 ")", cname[i], n[i]);
  if (adjust && r->instructions == INT64_MIN)
    return sv_fail(err, LRAF_EARG, "ledger record: instructions out of "
                   "range");
  t[0] = r->wall, t[1] = r->cpu, t[2] = r->started, t[3] = r->ended;
  t[4] = r->event_time;
  for (i = 0; i < 5; i++)
    if (!isfinite(t[i]) || fabs(t[i]) > SV_MAX_SECONDS || (i < 2 && t[i] < 0))
      return sv_fail(err, LRAF_EARG, "ledger record: %s is %g seconds "
                     "(wall and cpu: 0 to 9e12; started, ended and "
                     "event_time: -9e12 to 9e12)", tname[i], t[i]);
  return LRAF_OK;
}

/* Fill p with r, its defaults filled in, for a queue. */
static lraf_status pending_of(sv_pending *p, const lraf_record *r,
                              int new_key, lraf_error *err) {
  lraf_status st = check(r, err);
  if (st != LRAF_OK) return st;
  memset(p, 0, sizeof *p);
  p->r = *r;
  p->new_key = new_key;
  if (p->r.outcome == NULL) p->r.outcome = default_outcome(r->status);
  if (p->r.event_time == 0) p->r.event_time = r->started;
  if (p->r.note == NULL) p->r.note = "";
  p->r.ingest_time = 0;   /* the store's, or the journal's, time */
  return LRAF_OK;
}

/* Put p at the end of the queue (its lock held); lraf-commit is woken
   when the queue was empty, since otherwise it is writing and will
   look again before it waits. */
static void enqueue(lraf_ledger *l, sv_pending *p) {
  if (l->tail) l->tail->next = p;
  else l->head = p;
  l->tail = p;
  if (l->committer && l->head == p) pthread_cond_signal(&l->queued);
}

/* Queue p and wait until it is answered. */
static void commit_waiting(lraf_ledger *l, sv_pending *p) {
  pthread_mutex_init(&p->m, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_mutex_lock(&l->lock);
  enqueue(l, p);
  /* lraf-commit answers it; else the first to find no commit running
     writes what is queued, the others wait for that commit, and then
     the first of them leads the next */
  for (;;) {
    if (p->taken || l->committer) {   /* another's batch: wait for word */
      pthread_mutex_unlock(&l->lock);
      while (!await_word(p)) {}
      break;
    }
    if (!l->committing) {
      if (commit_queued(l, p)) {   /* its own batch: written */
        pthread_mutex_unlock(&l->lock);
        break;
      }
      continue;   /* a batch was full before it */
    }
    pthread_mutex_unlock(&l->lock);
    if (await_word(p)) break;
    pthread_mutex_lock(&l->lock);
  }
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->m);
}

lraf_status sv_ledger_result(const sv_pending *p, int *stored,
                             lraf_error *err) {
  if (stored != NULL) *stored = 0;
  if (p->code != LRAF_OK) return sv_fail(err, p->code, "%s", p->message);
  if (stored != NULL) *stored = p->stored;
  return LRAF_OK;
}

/* Queue r for the next group commit and wait for it; new_key: its key
   is new. */
static lraf_status append(lraf_ledger *l, const lraf_record *r, int new_key,
                          int *stored, lraf_error *err) {
  sv_pending p;
  lraf_status st = pending_of(&p, r, new_key, err);
  if (stored != NULL) *stored = 0;
  if (st != LRAF_OK) return st;
  commit_waiting(l, &p);
  return sv_ledger_result(&p, stored, err);
}

lraf_status sv_ledger_queue(lraf_ledger *l, sv_pending *p,
                            const lraf_record *r, int new_key,
                            void (*then)(void *ud), void *ud,
                            lraf_error *err) {
  lraf_status st = pending_of(p, r, new_key, err);
  if (st != LRAF_OK) return st;
  if (!l->committer) {   /* process durability: no wait for the disk */
    commit_waiting(l, p);
    then(ud);
    return LRAF_OK;
  }
  p->then = then;
  p->ud = ud;
  pthread_mutex_lock(&l->lock);
  enqueue(l, p);
  pthread_mutex_unlock(&l->lock);
  return LRAF_OK;
}

lraf_status lraf_ledger_record(lraf_ledger *l, const lraf_record *r,
                               int *stored, lraf_error *err) {
  return append(l, r, 0, stored, err);
}

lraf_status lraf_ledger_record_new(lraf_ledger *l, const lraf_record *r,
                                   int *stored, lraf_error *err) {
  return append(l, r, 1, stored, err);
}

lraf_status lraf_ledger_append(lraf_ledger *l, const lraf_record *r,
                               lraf_error *err) {
  return append(l, r, 0, NULL, err);
}

/* The lock of the store's reads: its own when its reader is apart from
   its writer, so that a look-up does not wait for a commit's fsync. */
static pthread_mutex_t *reader_lock(lraf_ledger *l) {
  return l->store->reads_apart ? &l->read_lock : &l->store_lock;
}

lraf_status lraf_ledger_usage(lraf_ledger *l, const char *tenant,
                              lraf_usage *u, lraf_error *err) {
  return sv_ledger_window(l, tenant, INT64_MIN, INT64_MAX, u, err);
}

/* A time in seconds as the stores' microseconds, clamped. */
static int64_t bound_us(double t) {
  if (t != t || t <= -SV_MAX_SECONDS) return INT64_MIN;
  if (t >= SV_MAX_SECONDS) return INT64_MAX;
  return sv_us(t);
}

lraf_status lraf_ledger_usage_window(lraf_ledger *l, const char *tenant,
                                     double from, double to, lraf_usage *u,
                                     lraf_error *err) {
  return sv_ledger_window(l, tenant, bound_us(from), bound_us(to), u, err);
}

lraf_status sv_ledger_window(lraf_ledger *l, const char *tenant,
                             int64_t from, int64_t to, lraf_usage *u,
                             lraf_error *err) {
  lraf_status st;
  memset(u, 0, sizeof *u);
  if (l->drain != NULL && (st = sv_drain_flush(l->drain, err)) != LRAF_OK)
    return st;
  pthread_mutex_lock(reader_lock(l));
  st = l->store->ops->usage(l->store, tenant, from, to, u, err);
  pthread_mutex_unlock(reader_lock(l));
  return st;
}

lraf_status lraf_ledger_each(lraf_ledger *l, const char *tenant, double from,
                             double to,
                             int (*f)(void *ud, const lraf_record *r),
                             void *ud, lraf_error *err) {
  lraf_status st;
  if (l->drain != NULL && (st = sv_drain_flush(l->drain, err)) != LRAF_OK)
    return st;
  pthread_mutex_lock(reader_lock(l));
  st = l->store->ops->each(l->store, tenant, bound_us(from), bound_us(to), f,
                           ud, err);
  pthread_mutex_unlock(reader_lock(l));
  return st;
}

lraf_status lraf_ledger_find(lraf_ledger *l, const char *tenant,
                             const char *key, int *found,
                             int64_t *instructions, int *status,
                             lraf_error *err) {
  lraf_status st;
  int64_t n = 0;
  int s = 0;
  *found = 0;
  if (tenant == NULL || key == NULL || key[0] == '\0')
    return sv_fail(err, LRAF_EARG, "lraf_ledger_find: no tenant or key");
  if (l->drain != NULL && sv_drain_find(l->drain, tenant, key, &n, &s)) {
    *found = 1;
    st = LRAF_OK;
  } else if (l->drain != NULL && !sv_drain_holds(l->drain) &&
             (st = sv_drain_flush(l->drain, err)) != LRAF_OK) {
    return st;   /* following: the holder's records first */
  } else {
    pthread_mutex_lock(reader_lock(l));
    st = l->store->ops->find(l->store, tenant, key, found, &n, &s, err);
    pthread_mutex_unlock(reader_lock(l));
  }
  if (instructions != NULL) *instructions = n;
  if (status != NULL) *status = s;
  return st;
}

static int64_t bound_us(double t);

/* A tenant whose quota the ledger shows spent: what it is charged goes
   to the parent, and it stops at once, as a spent limit does. */
static lraf_verdict spent_consume(void *ud, lraf_account *a, int64_t n,
                                  int can_pause) {
  lraf_manager_consume(ud, a, n, can_pause);
  return LRAF_STOP;
}

static int64_t spent_granularity(void *ud, lraf_account *a, int64_t dflt) {
  (void)ud, (void)a, (void)dflt;
  return 0;
}

static void spent_release(void *ud) { lraf_manager_release(ud); }

static const lraf_manager_ops spent_ops = {spent_consume, spent_granularity,
                                           spent_release};

static lraf_manager *spent_new(lraf_manager *parent) {
  lraf_manager *m = lraf_manager_new(&spent_ops,
                                     lraf_manager_retain(parent));
  if (m == NULL) lraf_manager_release(parent);
  return m;
}

/* A manager for tenant's quota over the records in [from, to) (leased
   from PostgreSQL under the name lease). */
static lraf_manager *quota_manager(lraf_ledger *l, const char *tenant,
                                   const char *lease, int64_t quota,
                                   int64_t from, int64_t to, int64_t slice,
                                   lraf_manager *parent, lraf_error *err) {
  lraf_manager *m, **grown;
  lraf_status st;
  if (quota < 0) {
    m = lraf_hier_new(parent, -1);
    if (m == NULL) sv_fail(err, LRAF_EMEM, "out of memory");
    return m;
  }
  if (!l->store->ops->shared) {
    lraf_usage u;
    if (sv_ledger_window(l, tenant, from, to, &u, err) != LRAF_OK)
      return NULL;
    /* spent: refused before it runs, as after a stop in this process */
    m = quota > u.instructions ? lraf_hier_new(parent, quota - u.instructions)
                               : spent_new(parent);
    if (m == NULL) sv_fail(err, LRAF_EMEM, "out of memory");
    return m;
  }
  if (slice <= 0)
    return sv_fail(err, LRAF_EARG, "lease slice must be positive"), NULL;
  pthread_mutex_lock(&l->store_lock);
  st = l->store->ops->quota(l->store, lease, quota, err);
  pthread_mutex_unlock(&l->store_lock);
  if (st != LRAF_OK) return NULL;
  grown = realloc(l->leases, (size_t)(l->nleases + 1) * sizeof *grown);
  if (grown == NULL) return sv_fail(err, LRAF_EMEM, "out of memory"), NULL;
  l->leases = grown;
  m = sv_lease_new(l->store, &l->store_lock, lease, slice, parent);
  if (m == NULL) return sv_fail(err, LRAF_EMEM, "out of memory"), NULL;
  l->leases[l->nleases++] = lraf_manager_retain(m);
  return m;
}

lraf_manager *lraf_ledger_tenant(lraf_ledger *l, const char *tenant,
                                 int64_t quota, int64_t slice,
                                 lraf_manager *parent, lraf_error *err) {
  return quota_manager(l, tenant, tenant, quota, INT64_MIN, INT64_MAX, slice,
                       parent, err);
}

lraf_manager *sv_ledger_period_tenant(lraf_ledger *l, const char *tenant,
                                      int64_t quota, lraf_period p, double t,
                                      int64_t slice, lraf_manager *parent,
                                      lraf_error *err) {
  char lease[96], name[16];
  if (p == LRAF_PERIOD_NONE)
    return lraf_ledger_tenant(l, tenant, quota, slice, parent, err);
  lraf_period_name(p, t, name);
  snprintf(lease, sizeof lease, "%s@%s", tenant, name);
  return quota_manager(l, tenant, lease, quota,
                       bound_us(lraf_period_start(p, t)),
                       bound_us(lraf_period_end(p, t)), slice, parent, err);
}

lraf_status lraf_ledger_reserve(lraf_ledger *l, const char *tenant,
                                const char *request_id, int64_t n,
                                int64_t quota, int64_t *available,
                                lraf_error *err) {
  lraf_status st;
  int reserved = 0;
  int64_t left = -1;
  if (available != NULL) *available = -1;
  if (tenant == NULL || tenant[0] == '\0' || request_id == NULL ||
      request_id[0] == '\0')
    return sv_fail(err, LRAF_EARG, "lraf_ledger_reserve: no tenant or "
                   "request id");
  if (n <= 0)
    return sv_fail(err, LRAF_EARG, "lraf_ledger_reserve: %" PRId64
                   " instructions (at least 1)", n);
  /* what the tenant's records used, settled: every record in the store */
  if (l->drain != NULL && (st = sv_drain_flush(l->drain, err)) != LRAF_OK)
    return st;
  pthread_mutex_lock(&l->store_lock);
  st = l->store->ops->reserve(l->store, tenant, request_id, n, quota,
                              &reserved, &left, err);
  pthread_mutex_unlock(&l->store_lock);
  if (st != LRAF_OK) return st;
  if (available != NULL) *available = left;
  if (left < 0)
    return sv_fail(err, LRAF_EARG, "tenant %s has no quota to reserve from",
                   tenant);
  if (!reserved)
    return sv_fail(err, LRAF_EQUOTA, "cannot reserve %" PRId64 " "
                   "instructions of tenant %s's quota: %" PRId64
                   " available", n, tenant, left);
  return LRAF_OK;
}

lraf_status lraf_ledger_release(lraf_ledger *l, const char *tenant,
                                const char *request_id, lraf_error *err) {
  lraf_status st;
  if (tenant == NULL || request_id == NULL)
    return sv_fail(err, LRAF_EARG, "lraf_ledger_release: no tenant or "
                   "request id");
  pthread_mutex_lock(&l->store_lock);
  st = l->store->ops->release(l->store, tenant, request_id, err);
  pthread_mutex_unlock(&l->store_lock);
  return st;
}

void lraf_ledger_stats(lraf_ledger *l, lraf_ledger_counts *c) {
  pthread_mutex_lock(&l->lock);
  *c = l->counts;
  pthread_mutex_unlock(&l->lock);
}

int sv_ledger_shared(const lraf_ledger *l) {
  return l->store->ops->shared;
}

void lraf_ledger_close(lraf_ledger *l) {
  int i;
  if (l == NULL) return;
  for (i = 0; i < l->nleases; i++) {
    sv_lease_return(l->leases[i]);
    lraf_manager_release(l->leases[i]);
  }
  free(l->leases);
  if (l->committer) {   /* it answers what is queued, then leaves */
    pthread_mutex_lock(&l->lock);
    l->stop = 1;
    pthread_cond_signal(&l->queued);
    pthread_mutex_unlock(&l->lock);
    pthread_join(l->commit_thread, NULL);
  }
  /* records the store cannot take stay in the journal, for the next open */
  sv_drain_close(l->drain, NULL);
  l->store->ops->close(l->store);
  pthread_mutex_destroy(&l->store_lock);
  pthread_mutex_destroy(&l->read_lock);
  pthread_mutex_destroy(&l->lock);
  pthread_cond_destroy(&l->queued);
  free(l);
}
