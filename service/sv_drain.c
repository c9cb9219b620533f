/*
** sv_drain.c - the journal in front of the SQLite store: a group commit
** is durable once its records are in the journal's file (one write, one
** fdatasync), and a thread of its own moves them into the store in
** large transactions, off every request's path.
**
** Until the store has a record, it is held here, by tenant and key, so
** that a key is taken once (sv_drain_append asks the store only for
** keys it does not hold, and not for keys their caller made new) and a
** retry finds it (sv_drain_find).  Reads
** that sum records, and reservations, wait for the store to have every
** record appended before them (sv_drain_flush).  The store commits
** without fsync (the journal has the records); past DR_FILE_MAX bytes,
** an append waits until the store has every record and a checkpoint
** has put them on the disk, and the journal starts over (restart).
**
** A process that finds the journal held by another follows it: before
** each read of the store, it copies into the store the records of that
** journal that the store lacks (the same records: the store skips a
** key it has), so that a sum or an export there counts every record
** the holder appended before.  Before each write, it does the same
** with the journal's lock held shared, until its own transaction is
** in: the holder's key checks and appends wait (those of keys their
** callers made new need not), so a key is still taken once across the
** two.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sv.h"

#define DR_BATCH 2048        /* records per store transaction at most */
#define DR_ENOUGH 512        /* a pass starts at once with this many */
#define DR_WAIT_NS 50000000L /* else it waits this long for more */
#define DR_FILE_MAX ((int64_t)16 << 20)
#define DR_SYNC_EVERY 8192   /* records moved between two checkpoints */

typedef struct sv_held {
  lraf_record r;          /* its strings are in text */
  int durable;            /* in the journal's file */
  uint64_t hash;
  struct sv_held *next;   /* the next durable record, in order */
  struct sv_held *chain;  /* the next in its bucket of the map */
  char text[];
} sv_held;

struct sv_drain {
  sv_store *store;
  pthread_mutex_t *store_lock, *read_lock;
  sv_journal *journal;     /* held; or NULL, and following: */
  sv_journal_view *view;   /* another process's */
  int sync;
  pthread_mutex_t lock;
  pthread_cond_t wake;      /* records to move, or stop */
  pthread_cond_t moved;     /* a pass ended */
  sv_held *head, *tail;     /* durable, not in the store yet */
  int queued;
  sv_held **map;            /* every record held, by tenant and key */
  size_t buckets, count;
  int stop, urgent;         /* urgent: someone waits for a pass */
  int64_t restart_at;       /* the journal's size that starts it over */
  int unsynced;             /* records moved since the last checkpoint
                               (the thread's own) */
  lraf_status failed;       /* the last pass's outcome */
  char message[256];
  pthread_t thread;
};

static uint64_t key_hash(const char *tenant, const char *key) {
  return sv_hash(tenant, strlen(tenant)) * 1099511628211u ^
         sv_hash(key, strlen(key));
}

static sv_held *map_get(sv_drain *d, const char *tenant, const char *key) {
  uint64_t h = key_hash(tenant, key);
  sv_held *e = d->map[h & (d->buckets - 1)];
  for (; e != NULL; e = e->chain)
    if (e->hash == h && strcmp(e->r.key, key) == 0 &&
        strcmp(e->r.tenant, tenant) == 0)
      return e;
  return NULL;
}

static int map_put(sv_drain *d, sv_held *e) {
  size_t i;
  if (d->count >= d->buckets) {   /* twice the buckets */
    size_t n = d->buckets * 2;
    sv_held **m = calloc(n, sizeof *m);
    if (m == NULL) return -1;
    for (i = 0; i < d->buckets; i++)
      while (d->map[i] != NULL) {
        sv_held *x = d->map[i];
        d->map[i] = x->chain;
        x->chain = m[x->hash & (n - 1)];
        m[x->hash & (n - 1)] = x;
      }
    free(d->map);
    d->map = m, d->buckets = n;
  }
  i = e->hash & (d->buckets - 1);
  e->chain = d->map[i];
  d->map[i] = e;
  d->count++;
  return 0;
}

static void map_remove(sv_drain *d, sv_held *e) {
  sv_held **p = &d->map[e->hash & (d->buckets - 1)];
  while (*p != e) p = &(*p)->chain;
  *p = e->chain;
  d->count--;
}

/* A copy of r that owns its strings (a NULL note becomes ""). */
static sv_held *held_new(const lraf_record *r) {
  lraf_record c = *r;
  const char **f[SV_TEXTS];
  size_t len[SV_TEXTS], total = 0;
  sv_held *e;
  char *at;
  int i;
  sv_record_texts(&c, f);
  if (c.note == NULL) c.note = "";
  for (i = 0; i < SV_TEXTS; i++) total += (len[i] = strlen(*f[i])) + 1;
  e = malloc(sizeof *e + total);
  if (e == NULL) return NULL;
  e->r = c;
  sv_record_texts(&e->r, f);
  at = e->text;
  for (i = 0; i < SV_TEXTS; i++) {
    memcpy(at, *f[i], len[i] + 1);
    *f[i] = at;
    at += len[i] + 1;
  }
  e->durable = 0;
  e->hash = key_hash(e->r.tenant, e->r.key);
  e->next = e->chain = NULL;
  return e;
}

/* Make what the store has survive a power loss (a checkpoint). */
static lraf_status store_sync(sv_drain *d, lraf_error *err) {
  lraf_status st;
  pthread_mutex_lock(d->store_lock);
  st = d->store->ops->sync(d->store, err);
  pthread_mutex_unlock(d->store_lock);
  return st;
}

/* One pass: up to DR_BATCH records from the head into the store.  The
   lock is held on entry and on return, and dropped while the store
   writes. */
static void move_batch(sv_drain *d) {
  const lraf_record *batch[DR_BATCH];
  int stored[DR_BATCH];
  sv_held *e = d->head;
  lraf_error err;
  lraf_status st;
  int n = 0, i;
  for (; e != NULL && n < DR_BATCH; e = e->next) batch[n++] = &e->r;
  pthread_mutex_unlock(&d->lock);
  err.message[0] = '\0';
  pthread_mutex_lock(d->store_lock);
  st = d->store->ops->write(d->store, batch, n, stored, &err);
  pthread_mutex_unlock(d->store_lock);
  pthread_mutex_lock(&d->lock);
  d->failed = st;
  if (st != LRAF_OK) {
    snprintf(d->message, sizeof d->message, "%.250s", err.message);
    return;
  }
  /* a key the store has already is this very record, copied there by
     a process that follows the journal */
  for (i = 0; i < n; i++) {
    e = d->head;
    d->head = e->next;
    map_remove(d, e);
    free(e);
  }
  if (d->head == NULL) d->tail = NULL;
  d->queued -= n;
  d->unsynced += n;
  if (d->unsynced >= DR_SYNC_EVERY) {
    /* a checkpoint now and then, so that the one before the journal
       starts over has little left to copy */
    pthread_mutex_unlock(&d->lock);
    if (store_sync(d, &err) == LRAF_OK) d->unsynced = 0;
    pthread_mutex_lock(&d->lock);
  }
}

/* Wait for the thread's wake-up at most ns nanoseconds (the lock held). */
static void wait_wake(sv_drain *d, long ns) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  t.tv_nsec += ns;
  if (t.tv_nsec >= 1000000000L) t.tv_sec++, t.tv_nsec -= 1000000000L;
  pthread_cond_timedwait(&d->wake, &d->lock, &t);
}

static void *drain_main(void *ud) {
  sv_drain *d = ud;
  sv_thread_name("lraf-ledger");
  pthread_mutex_lock(&d->lock);
  for (;;) {
    while (!d->stop && d->head == NULL) pthread_cond_wait(&d->wake, &d->lock);
    if (d->head == NULL) break;   /* stopped, nothing left */
    if (!d->stop && !d->urgent && d->queued < DR_ENOUGH)
      wait_wake(d, DR_WAIT_NS);   /* a larger transaction costs less */
    move_batch(d);
    pthread_cond_broadcast(&d->moved);
    if (d->failed != LRAF_OK) {
      if (d->stop) break;   /* left in the journal for the next run */
      wait_wake(d, 100000000L);   /* the store failed: again, later */
    }
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

/* Records an earlier run left in the journal, into the store in
   batches (their keys were taken then: a record the store has already
   is skipped). */
typedef struct replay {
  sv_drain *d;
  lraf_record r[256];
  const lraf_record *p[256];
  int n;
  lraf_error *err;
} replay;

static lraf_status replay_flush(replay *rp) {
  int stored[256];
  lraf_status st;
  if (rp->n == 0) return LRAF_OK;
  pthread_mutex_lock(rp->d->store_lock);
  st = rp->d->store->ops->write(rp->d->store, rp->p, rp->n, stored, rp->err);
  pthread_mutex_unlock(rp->d->store_lock);
  rp->n = 0;
  return st;
}

static lraf_status replay_one(void *ud, const lraf_record *r) {
  replay *rp = ud;
  if (r == NULL) return replay_flush(rp);
  rp->r[rp->n] = *r;
  rp->p[rp->n] = &rp->r[rp->n];
  if (++rp->n == 256) return replay_flush(rp);
  return LRAF_OK;
}

lraf_status sv_drain_open(const char *path, sv_store *s,
                          pthread_mutex_t *store_lock,
                          pthread_mutex_t *read_lock, int sync,
                          sv_drain **out, lraf_error *err) {
  sv_drain *d;
  replay *rp;
  lraf_status st;
  int busy;
  *out = NULL;
  d = calloc(1, sizeof *d);
  rp = malloc(sizeof *rp);
  if (d == NULL || rp == NULL ||
      (d->map = calloc(d->buckets = 1024, sizeof *d->map)) == NULL) {
    if (d != NULL) free(d->map);
    free(d), free(rp);
    return sv_fail(err, LRAF_EMEM, "out of memory");
  }
  d->store = s, d->store_lock = store_lock, d->read_lock = read_lock;
  d->sync = sync;
  d->restart_at = DR_FILE_MAX;
  rp->d = d, rp->n = 0, rp->err = err;
  st = sv_journal_open(path, &d->journal, &busy, replay_one, rp, err);
  free(rp);
  if (st == LRAF_OK && busy && (d->view = sv_journal_view_new(path)) == NULL)
    st = sv_fail(err, LRAF_EMEM, "out of memory");
  if (st != LRAF_OK) {
    free(d->map);
    free(d);
    return st;
  }
  pthread_mutex_init(&d->lock, NULL);
  pthread_cond_init(&d->wake, NULL);
  pthread_cond_init(&d->moved, NULL);
  if (d->view == NULL &&
      pthread_create(&d->thread, NULL, drain_main, d) != 0) {
    sv_journal_close(d->journal, 1);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->wake);
    pthread_cond_destroy(&d->moved);
    free(d->map);
    free(d);
    return sv_fail(err, LRAF_EMEM, "ledger journal: cannot start its "
                   "thread");
  }
  *out = d;
  return LRAF_OK;
}

int sv_drain_holds(const sv_drain *d) { return d->view == NULL; }

/* Following: copy the records of the other process's journal that the
   store lacks; hold: keep the journal's lock (sv_journal_view_let_go
   ends it).  d->lock is held. */
static lraf_status follow(sv_drain *d, int hold, lraf_error *err) {
  replay *rp = malloc(sizeof *rp);
  lraf_status st;
  if (rp == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
  rp->d = d, rp->n = 0, rp->err = err;
  st = sv_journal_view_read(d->view, hold, replay_one, rp, err);
  free(rp);
  return st;
}

/* Following: the holder's records first (most without its lock, the
   last with it), then r, before the holder appends again. */
static lraf_status follow_append(sv_drain *d, const lraf_record *const *r,
                                 int n, int *stored, lraf_error *err) {
  lraf_status st;
  int i;
  for (i = 0; i < n; i++) stored[i] = 0;
  pthread_mutex_lock(&d->lock);
  st = follow(d, 0, err);
  if (st == LRAF_OK) st = follow(d, 1, err);
  if (st == LRAF_OK) {
    pthread_mutex_lock(d->store_lock);
    st = d->store->ops->write(d->store, r, n, stored, err);
    pthread_mutex_unlock(d->store_lock);
  }
  sv_journal_view_let_go(d->view);
  pthread_mutex_unlock(&d->lock);
  return st;
}

/* Whether the store has tenant's key (LRAF_OK), asked under its read
   lock. */
static lraf_status store_has(sv_drain *d, const lraf_record *r, int *found,
                             lraf_error *err) {
  int64_t n;
  int status;
  lraf_status st;
  pthread_mutex_lock(d->read_lock);
  st = d->store->ops->find(d->store, r->tenant, r->key, found, &n, &status,
                           err);
  pthread_mutex_unlock(d->read_lock);
  return st;
}

/* Wait (the lock held) until the store has every durable record; the
   failure of a pass ends the wait. */
static lraf_status wait_moved(sv_drain *d, lraf_error *err) {
  d->urgent++;
  pthread_cond_signal(&d->wake);
  while (d->head != NULL && d->failed == LRAF_OK)
    pthread_cond_wait(&d->moved, &d->lock);
  d->urgent--;
  if (d->head != NULL)
    return sv_fail(err, d->failed, "ledger: the journal's records cannot "
                   "go into the store: %s", d->message);
  return LRAF_OK;
}

/* The journal is long: once the store has its records on the disk, it
   starts over.  When the store cannot (it fails, or a reader holds
   back the checkpoint), the journal grows on, and the next try is a
   quarter of DR_FILE_MAX later; appends go on either way. */
static void restart(sv_drain *d) {
  lraf_error err;
  lraf_status st = wait_moved(d, &err);
  if (st == LRAF_OK) {
    /* nothing is held: look-ups need not wait for the checkpoint */
    pthread_mutex_unlock(&d->lock);
    st = store_sync(d, &err);
    pthread_mutex_lock(&d->lock);
  }
  if (st == LRAF_OK) {
    sv_journal_restart(d->journal);
    d->restart_at = DR_FILE_MAX;
  } else {
    d->restart_at = sv_journal_size(d->journal) + DR_FILE_MAX / 4;
  }
}

/* Take the held records of e[0..n) back out (their append failed). */
static void drop(sv_drain *d, sv_held **e, int n) {
  int i;
  for (i = 0; i < n; i++) {
    map_remove(d, e[i]);
    free(e[i]);
  }
}

lraf_status sv_drain_append(sv_drain *d, const lraf_record *const *r,
                            const int *new_key, int n, int *stored,
                            lraf_error *err) {
  sv_held *fresh[256];
  const lraf_record *rec[256];
  double now = sv_now();
  lraf_status st = LRAF_OK;
  int i, k = 0, found, hold = 0;
  if (n > 256) return sv_fail(err, LRAF_EARG, "ledger: %d records in one "
                              "append (256 at most)", n);
  if (d->view != NULL) return follow_append(d, r, n, stored, err);
  /* no follower copies or writes between the key checks and the append;
     a key its caller made new is in no follower's way, nor in ours */
  for (i = 0; i < n && !hold; i++) hold = new_key == NULL || !new_key[i];
  if (hold && (st = sv_journal_hold(d->journal, err)) != LRAF_OK) return st;
  pthread_mutex_lock(&d->lock);
  for (i = 0; i < n && st == LRAF_OK; i++) {
    stored[i] = 0;
    if (map_get(d, r[i]->tenant, r[i]->key) != NULL) continue;
    if ((new_key == NULL || !new_key[i]) &&
        ((st = store_has(d, r[i], &found, err)) != LRAF_OK || found))
      continue;
    if ((fresh[k] = held_new(r[i])) == NULL || map_put(d, fresh[k]) != 0) {
      free(fresh[k]);
      st = sv_fail(err, LRAF_EMEM, "out of memory");
      break;
    }
    fresh[k]->r.ingest_time = now;
    rec[k] = &fresh[k]->r;
    stored[i] = 1;
    k++;
  }
  if (st == LRAF_OK && sv_journal_size(d->journal) > d->restart_at)
    restart(d);
  if (st != LRAF_OK) {
    drop(d, fresh, k);
    pthread_mutex_unlock(&d->lock);
    if (hold) sv_journal_let_go(d->journal);
    for (i = 0; i < n; i++) stored[i] = 0;
    return st;
  }
  pthread_mutex_unlock(&d->lock);
  /* only this caller appends: the file needs no lock of ours */
  if (k > 0) st = sv_journal_append(d->journal, rec, k, d->sync, err);
  if (hold) sv_journal_let_go(d->journal);
  pthread_mutex_lock(&d->lock);
  if (st != LRAF_OK) {
    drop(d, fresh, k);
    for (i = 0; i < n; i++) stored[i] = 0;
  } else {
    for (i = 0; i < k; i++) {
      fresh[i]->durable = 1;
      if (d->tail != NULL) d->tail->next = fresh[i];
      else d->head = fresh[i];
      d->tail = fresh[i];
    }
    /* the thread waits for a first record, or for DR_ENOUGH of them */
    if (k > 0 && (d->queued == 0 || (d->queued < DR_ENOUGH &&
                                     d->queued + k >= DR_ENOUGH)))
      pthread_cond_signal(&d->wake);
    d->queued += k;
  }
  pthread_mutex_unlock(&d->lock);
  return st;
}

int sv_drain_find(sv_drain *d, const char *tenant, const char *key,
                  int64_t *instructions, int *status) {
  sv_held *e;
  int found = 0;
  pthread_mutex_lock(&d->lock);
  e = map_get(d, tenant, key);
  if (e != NULL && e->durable) {
    *instructions = e->r.instructions;
    *status = e->r.status;
    found = 1;
  }
  pthread_mutex_unlock(&d->lock);
  return found;
}

lraf_status sv_drain_flush(sv_drain *d, lraf_error *err) {
  lraf_status st;
  pthread_mutex_lock(&d->lock);
  if (d->view != NULL) st = follow(d, 0, err);
  else st = d->head != NULL ? wait_moved(d, err) : LRAF_OK;
  pthread_mutex_unlock(&d->lock);
  return st;
}

/* The holder's end: the journal's file goes once the store has every
   record on the disk. */
static lraf_status close_journal(sv_drain *d, lraf_error *err) {
  lraf_status st;
  if (d->head != NULL)
    st = sv_fail(err, d->failed, "ledger: records left in the journal (the "
                 "next open stores them): %s", d->message);
  else
    st = store_sync(d, err);   /* on the disk before the journal goes */
  sv_journal_close(d->journal, st == LRAF_OK);
  return st;
}

lraf_status sv_drain_close(sv_drain *d, lraf_error *err) {
  lraf_status st = LRAF_OK;
  size_t i;
  if (d == NULL) return LRAF_OK;
  pthread_mutex_lock(&d->lock);
  d->stop = 1;
  pthread_cond_signal(&d->wake);
  pthread_mutex_unlock(&d->lock);
  if (d->view != NULL) {   /* following: nothing of its own */
    sv_journal_view_free(d->view);
  } else {
    pthread_join(d->thread, NULL);
    st = close_journal(d, err);
  }
  for (i = 0; i < d->buckets; i++)
    while (d->map[i] != NULL) {
      sv_held *e = d->map[i];
      d->map[i] = e->chain;
      free(e);
    }
  free(d->map);
  pthread_mutex_destroy(&d->lock);
  pthread_cond_destroy(&d->wake);
  pthread_cond_destroy(&d->moved);
  free(d);
  return st;
}
