/*
** test_sv_drain.c - the journal in front of the SQLite ledger
** (service/sv_drain.c, service/sv_journal.c, as sv_ledger.c wires
** them), through the public API, on files in a temporary directory.
** A test holds SQLite's write lock from a connection of its own to keep
** records in the journal (the thread that moves them waits for it).
**   - a process killed (SIGKILL) after its appends, without closing,
**     leaves them in PATH-lraf-journal; the next open moves them into
**     SQLite (usage, every key, each instruction count, the journal's
**     ingest time), and its clean close removes the journal; for both
**     durabilities, the store locked all along or not;
**   - a record the store has is skipped by that replay (the store's row
**     stays as it is), and one the store lacks is added;
**   - a key is taken once: while held in the journal, once in the
**     store, and from 8 threads appending the same 50 keys at once,
**     also when half of them write through a second open that follows
**     the first's journal;
**   - a key its caller made new (lraf_ledger_record_new) is not looked
**     for in the store: one still held is taken, one stored already is
**     reported stored and the store keeps its first record; and its
**     append does not wait for a follower that holds the journal, as
**     another key's does;
**   - the thread that moves records is named lraf-ledger;
**   - a held record is found by key, with its instructions and status;
**   - usage, each and reservations wait until the store has every
**     record appended before them, also while other threads append;
**   - a second process on the same ledger writes to SQLite directly,
**     and leaves the first one's journal alone; it sees (sums, finds,
**     lists) the records the first holds in its journal and has not
**     moved, since it copies them into SQLite first, and cannot take
**     their keys;
**   - past the journal's size limit it starts over at its beginning,
**     and what a stopped run wrote after that is replayed whole;
**   - the same records give the same totals and the same records from
**     lraf_ledger_each, closed cleanly or killed.
*/
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lraf.h"
#include "sv.h"
#include "tutil_sqlite.h"
#include "tutil_threads.h"

static char dir[64];

/* The ledger named name in dir: its file, spec and journal. */
typedef struct ledger_files {
  char db[128], spec[160], journal[160];
} ledger_files;

static void files_of(const char *name, ledger_files *f) {
  snprintf(f->db, sizeof f->db, "%s/%s.db", dir, name);
  snprintf(f->spec, sizeof f->spec, "sqlite:%s", f->db);
  snprintf(f->journal, sizeof f->journal, "%s-lraf-journal", f->db);
}

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* The i-th record's figures: distinct, and known from i alone. */
static int64_t instructions_of(int i) { return 1000 + 37 * (int64_t)i; }
static int status_of(int i) { return i % 7 == 3 ? 500 : 200; }

/* Record i of tenant, its key in key (room for 32). */
static void fill(lraf_record *r, char *key, const char *tenant, int i) {
  static const char *const notes[] = {NULL, "", "a note", "\xc3\xbc'\"\n"};
  snprintf(key, 32, "k%06d", i);
  memset(r, 0, sizeof *r);
  r->key = key;
  r->request_id = key;
  r->tenant = tenant;
  r->handler = "h";
  r->model = "m1";
  r->instructions = instructions_of(i);
  r->native = i % 5;
  r->memory_peak = 4096 + i;
  r->status = status_of(i);
  r->wall = 0.001 * (i % 9);
  r->cpu = 0.0005 * (i % 9);
  r->started = 1700000000.0 + i;
  r->ended = 1700000000.5 + i;
  r->event_time = i % 3 == 0 ? 0 : 1700100000.25 + i;
  r->note = notes[i % 4];
}

/* Append records [from, to) of tenant; how many were stored, or -1. */
static int append_range(lraf_ledger *l, const char *tenant, int from,
                        int to) {
  int i, n = 0;
  for (i = from; i < to; i++) {
    char key[32];
    lraf_record r;
    lraf_error err;
    int stored = 0;
    fill(&r, key, tenant, i);
    if (lraf_ledger_record(l, &r, &stored, &err) != LRAF_OK) {
      fprintf(stderr, "append %s: %s\n", key, err.message);
      return -1;
    }
    n += stored;
  }
  return n;
}

static int64_t sum_range(int from, int to) {
  int64_t s = 0;
  int i;
  for (i = from; i < to; i++) s += instructions_of(i);
  return s;
}

/* Fails unless tenant's usage is that of records [from, to). */
static void expect_usage(lraf_ledger *l, const char *tenant, int from,
                         int to) {
  lraf_usage u;
  lraf_error err;
  assert_int_equal(lraf_ledger_usage(l, tenant, &u, &err), LRAF_OK);
  assert_int_equal(u.requests, to - from);
  assert_int_equal(u.instructions, sum_range(from, to));
}

/* How many keys of [from, to) of tenant are found with their figures
   (-1: a look-up failed). */
static int count_found(lraf_ledger *l, const char *tenant, int from,
                       int to) {
  int i, n = 0;
  for (i = from; i < to; i++) {
    char key[32];
    lraf_record r;
    lraf_error err;
    int found = 0, status = 0;
    int64_t k = 0;
    fill(&r, key, tenant, i);
    if (lraf_ledger_find(l, tenant, key, &found, &k, &status, &err) !=
        LRAF_OK)
      return -1;
    n += found && k == instructions_of(i) && status == status_of(i);
  }
  return n;
}

static void expect_found(lraf_ledger *l, const char *tenant, int from,
                         int to) {
  assert_int_equal(count_found(l, tenant, from, to), to - from);
}

/* An int from the SQLite file itself (printf-formatted query). */
static int64_t db_int(const ledger_files *f, const char *fmt, ...) {
  char sql[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sql, sizeof sql, fmt, ap);
  va_end(ap);
  return tutil_sqlite_int(f->db, sql);
}

/* Rows of tenant in the file whose key is k%06d of i in [from, to) and
   whose instructions and status are record i's. */
static int64_t db_right_rows(const ledger_files *f, const char *tenant,
                             int from, int to) {
  return db_int(f, "SELECT count(*) FROM lraf_ledger WHERE tenant = '%s'"
                " AND key = printf('k%%06d', CAST(substr(key, 2) AS INTEGER))"
                " AND CAST(substr(key, 2) AS INTEGER) BETWEEN %d AND %d"
                " AND instructions = 1000 + 37 * CAST(substr(key, 2) AS"
                " INTEGER) AND status = CASE WHEN CAST(substr(key, 2) AS"
                " INTEGER) %% 7 = 3 THEN 500 ELSE 200 END",
                tenant, from, to - 1);
}

/* ---- SQLite's write lock, held by a connection of the test ---- */

static sqlite3 *lock_store(const ledger_files *f) {
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READWRITE, NULL) !=
          SQLITE_OK ||
      sqlite3_busy_timeout(db, 10000) != SQLITE_OK ||
      sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

static void unlock_store(sqlite3 *db) {
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(db);
}

/* Unlock after a while, from a thread of its own. */
static void *unlock_later(void *ud) {
  struct timespec t = {0, 30 * 1000000L};
  nanosleep(&t, NULL);
  unlock_store(ud);
  return NULL;
}

/* ---- a child process that appends and stops without closing ---- */

/* What a child does: open f with durability d, append records [0, n)
   of tenant "t", the store locked (they stay in the journal) from
   locked_from on, then stop without closing (or close when clean).
   0 when all went as asked. */
typedef struct child_run {
  const ledger_files *f;
  lraf_durability d;
  int n, locked_from;
  int clean;   /* close the ledger, and exit */
} child_run;

static int child_main(const child_run *c) {
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  sqlite3 *db = NULL;
  if (lraf_ledger_open_durable(c->f->spec, c->d, &l, &err) != LRAF_OK) {
    fprintf(stderr, "child: %s\n", err.message);
    return 2;
  }
  if (append_range(l, "t", 0, c->locked_from) != c->locked_from) return 3;
  if (c->locked_from < c->n) {
    /* every record so far in the store, then the store locked */
    if (lraf_ledger_usage(l, NULL, &u, &err) != LRAF_OK) return 4;
    if ((db = lock_store(c->f)) == NULL) return 5;
    if (append_range(l, "t", c->locked_from, c->n) !=
        c->n - c->locked_from)
      return 6;
  }
  if (!exists(c->f->journal)) return 7;
  if (c->clean) {
    if (db != NULL) unlock_store(db);
    lraf_ledger_close(l);
  }
  return 0;
}

/* A child that did what it was asked stops as kill -9 stops it (not
   closing anything, nor running valgrind's leak check); one that
   failed exits with its code. */
static void stop_child(int code) {
  if (code == 0) raise(SIGKILL);
  _exit(code);
}

/* Whether a child stopped by stop_child did what it was asked. */
static void expect_stopped(pid_t pid, const char *what) {
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
    fail_msg("%s failed (status 0x%x)", what, status);
}

/* Run c in a child process; fails the test unless it did as asked. */
static void run_child(const child_run *c) {
  int status = 0;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int code = child_main(c);
    if (c->clean) _exit(code);
    stop_child(code);
  }
  if (!c->clean) {
    expect_stopped(pid, "the child that appends");
    return;
  }
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("the child that appends failed (status 0x%x)", status);
}

/* ---- the cases ---- */

/* A stopped process's records, with durability d; locked: the store
   was locked all along (the journal alone has them). */
typedef struct kill_case {
  const char *name;
  lraf_durability d;
  int locked;
} kill_case;

static const kill_case kill_cases[] = {
  {"kill-power-held", LRAF_DURABLE_POWER, 1},
  {"kill-process-held", LRAF_DURABLE_PROCESS, 1},
  {"kill-power", LRAF_DURABLE_POWER, 0},
  {"kill-process", LRAF_DURABLE_PROCESS, 0},
};

/* Records a stopped process left in its journal are moved into the
   store by the next open, whole, with the journal's ingest time. */
static void test_replay_after_kill(void **state) {
  const kill_case *e = *state;
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  child_run c;
  double before, after;
  struct stat sb;
  enum { N = 300 };
  files_of(e->name, &f);
  c.f = &f, c.d = e->d, c.n = N, c.locked_from = e->locked ? 0 : N;
  c.clean = 0;
  before = sv_now();
  run_child(&c);
  after = sv_now();
  assert_int_equal(stat(f.journal, &sb), 0);
  assert_true(sb.st_size > 0);
  if (e->locked)
    assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 0);
  else
    assert_in_range(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 0, N);

  assert_int_equal(lraf_ledger_open_durable(f.spec, e->d, &l, &err),
                   LRAF_OK);
  expect_usage(l, "t", 0, N);
  expect_usage(l, NULL, 0, N);
  expect_found(l, "t", 0, N);
  /* record N - 1 again (not stored), then record N */
  assert_int_equal(append_range(l, "t", N - 1, N + 1), 1);
  assert_true(exists(f.journal));   /* emptied, held while open */
  lraf_ledger_close(l);
  if (exists(f.journal))
    fail_msg("%s is there after a clean close", f.journal);

  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), N + 1);
  assert_int_equal(db_right_rows(&f, "t", 0, N + 1), N + 1);
  /* ingested when the child appended them, not when they were replayed */
  assert_true(db_int(&f, "SELECT min(ingest_us) FROM lraf_ledger") >=
              sv_us(before) - 1);
  assert_true(db_int(&f, "SELECT max(ingest_us) FROM lraf_ledger WHERE"
                     " key < 'k%06d'", N) <= sv_us(after) + 1);
}

/* The records of a stopped process: some in the store already (which
   keeps its rows as they are), the rest in its journal alone. */
static void test_replay_skips_stored(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  child_run c;
  enum { N1 = 40, N = 100 };
  (void)state;
  files_of("skip", &f);
  c.f = &f, c.d = LRAF_DURABLE_PROCESS, c.n = N, c.locked_from = N1;
  c.clean = 0;
  run_child(&c);
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), N1);
  assert_int_equal(db_right_rows(&f, "t", 0, N1), N1);
  /* marks the store's row of a key the journal has too: a replay that
     wrote it again would lose the mark */
  {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f.db, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE lraf_ledger SET note ="
                                  " 'the store''s' WHERE key = 'k000007'",
                                  NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
  }
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  expect_usage(l, "t", 0, N);
  lraf_ledger_close(l);
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), N);
  assert_int_equal(db_right_rows(&f, "t", 0, N), N);
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger WHERE"
                          " note = 'the store''s'"), 1);
  assert_false(exists(f.journal));
}

/* A key is taken once: held in the journal, then in the store; keys are
   a tenant's own. */
static void test_duplicate_key(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  char key[32];
  sqlite3 *db;
  int stored, found, status;
  int64_t n;
  (void)state;
  files_of("dup", &f);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  assert_non_null(db = lock_store(&f));
  fill(&r, key, "t", 1);
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  /* held: the store cannot have it yet */
  r.instructions = 5;
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  fill(&r, key, "u", 1);   /* the same key, another tenant */
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  unlock_store(db);
  expect_usage(l, "t", 1, 2);   /* every record in the store */
  fill(&r, key, "t", 1);
  r.instructions = 6;
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  assert_int_equal(lraf_ledger_find(l, "t", key, &found, &n, &status, &err),
                   LRAF_OK);
  assert_true(found);
  assert_int_equal(n, instructions_of(1));
  lraf_ledger_close(l);
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 2);
}

typedef struct dup_writer {
  lraf_ledger *l;
  int id;
  int stored[50];   /* per key */
  int failures;
} dup_writer;

/* The 50 keys, each thread from a place of its own. */
static void *write_same_keys(void *ud) {
  dup_writer *w = ud;
  int j;
  for (j = 0; j < 50; j++) {
    int i = (j + 7 * w->id) % 50, stored = 0;
    char key[32];
    lraf_record r;
    lraf_error err;
    fill(&r, key, "t", i);
    if (lraf_ledger_record(w->l, &r, &stored, &err) != LRAF_OK)
      w->failures++;
    w->stored[i] += stored;
  }
  return NULL;
}

/* 8 threads on one ledger; with a follower, every other thread writes
   through a second open of it (which follows the first's journal). */
static void test_duplicate_key_threads(void **state) {
  int two = *(const int *)*state;
  ledger_files f;
  lraf_ledger *l, *l2 = NULL;
  lraf_error err;
  dup_writer w[8];
  pthread_t th[8];
  int i, k, total = 0;
  files_of(two ? "dup-follower" : "dup-threads", &f);
  assert_int_equal(lraf_ledger_open_durable(f.spec, LRAF_DURABLE_PROCESS,
                                            &l, &err), LRAF_OK);
  if (two)
    assert_int_equal(lraf_ledger_open_durable(f.spec, LRAF_DURABLE_PROCESS,
                                              &l2, &err), LRAF_OK);
  for (i = 0; i < 8; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].l = two && i % 2 == 1 ? l2 : l, w[i].id = i;
    assert_int_equal(pthread_create(&th[i], NULL, write_same_keys, &w[i]),
                     0);
  }
  for (i = 0; i < 8; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].failures, 0);
  }
  for (k = 0; k < 50; k++) {
    int n = 0;
    for (i = 0; i < 8; i++) n += w[i].stored[k];
    if (n != 1) fail_msg("key %d stored %d times", k, n);
    total += n;
  }
  assert_int_equal(total, 50);
  expect_usage(l, "t", 0, 50);
  if (two) {
    expect_usage(l2, "t", 0, 50);
    lraf_ledger_close(l2);
  }
  lraf_ledger_close(l);
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 50);
  assert_int_equal(db_right_rows(&f, "t", 0, 50), 50);
}

/* A key made new is not looked for in the store, but is still
   compared with the keys held in the journal. */
static void test_new_key(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  char key[32];
  sqlite3 *db;
  int stored;
  (void)state;
  files_of("new-key", &f);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  fill(&r, key, "t", 1);
  assert_int_equal(lraf_ledger_record_new(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  expect_usage(l, "t", 1, 2);   /* in the store now */
  /* the store is not asked: reported stored, and the store's row stays */
  r.instructions = 5;
  assert_int_equal(lraf_ledger_record_new(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  expect_usage(l, "t", 1, 2);
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  /* held: compared all the same */
  assert_non_null(db = lock_store(&f));
  fill(&r, key, "t", 2);
  assert_int_equal(lraf_ledger_record_new(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  r.instructions = 5;
  assert_int_equal(lraf_ledger_record_new(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  unlock_store(db);
  expect_usage(l, "t", 1, 3);
  lraf_ledger_close(l);
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 2);
  assert_int_equal(db_right_rows(&f, "t", 1, 3), 2);
}

typedef struct new_key_writer {
  lraf_ledger *l;
  int i, new_key;
  atomic_int done;
} new_key_writer;

static void *write_one(void *ud) {
  new_key_writer *w = ud;
  lraf_record r;
  lraf_error err;
  char key[32];
  int stored = 0;
  fill(&r, key, "t", w->i);
  if ((w->new_key ? lraf_ledger_record_new(w->l, &r, &stored, &err)
                  : lraf_ledger_record(w->l, &r, &stored, &err)) == LRAF_OK &&
      stored)
    atomic_store(&w->done, 1);
  else
    atomic_store(&w->done, -1);
  return NULL;
}

/* Whether w's append is done within ms milliseconds (-1: it failed). */
static int done_within(new_key_writer *w, int ms) {
  struct timespec ts = {0, 1000000};
  while (ms-- > 0 && atomic_load(&w->done) == 0) nanosleep(&ts, NULL);
  return atomic_load(&w->done);
}

/* A view's callback: count the records (r NULL: the end). */
static lraf_status count_held(void *ud, const lraf_record *r) {
  if (r != NULL) ++*(int *)ud;
  return LRAF_OK;
}

/* While a follower holds the journal (its shared lock, as before its own
   write), a key made new is appended; another key waits for it. */
static void test_new_key_passes_hold(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  sv_journal_view *v;
  new_key_writer a = {0}, b = {0};
  pthread_t ta, tb;
  int n = 0;
  (void)state;
  files_of("new-key-hold", &f);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  assert_int_equal(append_range(l, "t", 0, 1), 1);
  assert_non_null(v = sv_journal_view_new(f.journal));
  assert_int_equal(sv_journal_view_read(v, 1, count_held, &n, &err),
                   LRAF_OK);
  assert_int_equal(n, 1);
  a.l = b.l = l;
  a.i = 1, a.new_key = 1;
  b.i = 2, b.new_key = 0;
  atomic_init(&a.done, 0);
  atomic_init(&b.done, 0);
  assert_int_equal(pthread_create(&ta, NULL, write_one, &a), 0);
  assert_int_equal(done_within(&a, 5000), 1);
  assert_int_equal(pthread_create(&tb, NULL, write_one, &b), 0);
  assert_int_equal(done_within(&b, 100), 0);
  sv_journal_view_let_go(v);
  assert_int_equal(done_within(&b, 5000), 1);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  sv_journal_view_free(v);
  expect_usage(l, "t", 0, 3);
  lraf_ledger_close(l);
  assert_int_equal(db_right_rows(&f, "t", 0, 3), 3);
}

/* The thread that moves records is named, and ends with the ledger; a
   second open, which follows the first's journal, has none. */
static void test_thread_name(void **state) {
  ledger_files f;
  lraf_ledger *l, *l2;
  lraf_error err;
  (void)state;
  files_of("thread-name", &f);
  assert_int_equal(tutil_threads_named("lraf-ledger"), 0);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  assert_int_equal(tutil_threads_await("lraf-ledger", 1, 5000), 1);
  assert_int_equal(lraf_ledger_open(f.spec, &l2, &err), LRAF_OK);
  assert_int_equal(tutil_threads_await("lraf-ledger", 2, 200), 1);
  lraf_ledger_close(l2);
  lraf_ledger_close(l);
  assert_int_equal(tutil_threads_named("lraf-ledger"), 0);
}

/* A record in the journal alone is found by its key. */
static void test_find_held(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  sqlite3 *db;
  int found;
  (void)state;
  files_of("find", &f);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  assert_non_null(db = lock_store(&f));
  assert_int_equal(append_range(l, "t", 0, 10), 10);
  expect_found(l, "t", 0, 10);
  assert_int_equal(lraf_ledger_find(l, "u", "k000001", &found, NULL, NULL,
                                    &err), LRAF_OK);
  assert_false(found);
  assert_int_equal(lraf_ledger_find(l, "t", "k000010", &found, NULL, NULL,
                                    &err), LRAF_OK);
  assert_false(found);
  unlock_store(db);
  expect_usage(l, "t", 0, 10);
  expect_found(l, "t", 0, 10);   /* now from the store */
  lraf_ledger_close(l);
}

static int count_record(void *ud, const lraf_record *r) {
  (void)r;
  ++*(int *)ud;
  return 0;
}

/* usage and each wait for the store to have every record appended
   (held back until the store's lock goes, 30 ms later). */
static void test_reads_wait(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  pthread_t th;
  sqlite3 *db;
  int n = 0;
  (void)state;
  files_of("reads", &f);
  assert_int_equal(lraf_ledger_open_durable(f.spec, LRAF_DURABLE_PROCESS,
                                            &l, &err), LRAF_OK);
  assert_int_equal(append_range(l, "t", 0, 20), 20);
  assert_non_null(db = lock_store(&f));
  assert_int_equal(append_range(l, "t", 20, 700), 680);
  assert_int_equal(append_range(l, "u", 0, 30), 30);
  assert_int_equal(pthread_create(&th, NULL, unlock_later, db), 0);
  expect_usage(l, "t", 0, 700);
  pthread_join(th, NULL);
  expect_usage(l, "u", 0, 30);
  assert_non_null(db = lock_store(&f));
  assert_int_equal(append_range(l, "u", 30, 40), 10);
  assert_int_equal(pthread_create(&th, NULL, unlock_later, db), 0);
  assert_int_equal(lraf_ledger_each(l, NULL, -HUGE_VAL, HUGE_VAL,
                                    count_record, &n, &err), LRAF_OK);
  pthread_join(th, NULL);
  assert_int_equal(n, 740);
  lraf_ledger_close(l);
}

/* While 4 threads append, each look-up sees every record whose append
   returned before it began: usage counts it, find finds it. */
typedef struct live {
  lraf_ledger *l;
  pthread_mutex_t lock;
  int appended[4];   /* records of tenant t0..t3 whose append returned */
  int failures, writing;
} live;

typedef struct live_writer {
  live *v;
  int id;
} live_writer;

static const char *const live_tenants[] = {"t0", "t1", "t2", "t3"};

static void *live_write(void *ud) {
  live_writer *w = ud;
  live *v = w->v;
  int i;
  for (i = 0; i < 300; i++) {
    if (append_range(v->l, live_tenants[w->id], i, i + 1) != 1) {
      pthread_mutex_lock(&v->lock);
      v->failures++;
      pthread_mutex_unlock(&v->lock);
    }
    pthread_mutex_lock(&v->lock);
    v->appended[w->id] = i + 1;
    pthread_mutex_unlock(&v->lock);
  }
  pthread_mutex_lock(&v->lock);
  v->writing--;
  pthread_mutex_unlock(&v->lock);
  return NULL;
}

/* One look: 0 when usage and find saw every record appended before. */
static int live_look(live *v) {
  int seen[4], t, total = 0, writing;
  lraf_usage u;
  lraf_error err;
  pthread_mutex_lock(&v->lock);
  memcpy(seen, v->appended, sizeof seen);
  writing = v->writing;
  pthread_mutex_unlock(&v->lock);
  for (t = 0; t < 4; t++) {
    total += seen[t];
    if (seen[t] > 0 &&
        count_found(v->l, live_tenants[t], seen[t] - 1, seen[t]) != 1)
      return -1;
  }
  if (lraf_ledger_usage(v->l, NULL, &u, &err) != LRAF_OK ||
      u.requests < total)
    return -1;
  return writing > 0 ? 0 : 1;
}

static void test_reads_during_appends(void **state) {
  ledger_files f;
  lraf_error err;
  live v;
  live_writer w[4];
  pthread_t th[4];
  int i, looks = 0, r;
  (void)state;
  files_of("live", &f);
  memset(&v, 0, sizeof v);
  pthread_mutex_init(&v.lock, NULL);
  v.writing = 4;
  assert_int_equal(lraf_ledger_open_durable(f.spec, LRAF_DURABLE_PROCESS,
                                            &v.l, &err), LRAF_OK);
  for (i = 0; i < 4; i++) {
    w[i].v = &v, w[i].id = i;
    assert_int_equal(pthread_create(&th[i], NULL, live_write, &w[i]), 0);
  }
  while ((r = live_look(&v)) == 0) looks++;
  for (i = 0; i < 4; i++) pthread_join(th[i], NULL);
  assert_int_equal(r, 1);   /* no look missed a record */
  assert_int_equal(v.failures, 0);
  assert_true(looks > 0);
  for (i = 0; i < 4; i++) expect_usage(v.l, live_tenants[i], 0, 300);
  lraf_ledger_close(v.l);
  pthread_mutex_destroy(&v.lock);
}

/* A reservation sees what the tenant's records used, settled: the
   record's reservation gone, what it did not use free again. */
static void test_reserve_settled(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  char key[32];
  int64_t avail = 0, used = 0;
  const int64_t quota = 100000;
  int i;
  (void)state;
  files_of("reserve", &f);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  for (i = 0; i < 5; i++) {
    assert_int_equal(lraf_ledger_reserve(l, "t", "rq", 20000, quota, &avail,
                                         &err), LRAF_OK);
    assert_int_equal(avail, quota - used);
    fill(&r, key, "t", i);
    r.request_id = "rq";
    r.reserved = 20000;
    assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
    used += r.instructions;
  }
  assert_int_equal(lraf_ledger_reserve(l, "t", "last", 1, quota, &avail,
                                       &err), LRAF_OK);
  assert_int_equal(avail, quota - used);
  assert_int_equal(lraf_ledger_reserve(l, "t", "more", quota, quota, &avail,
                                       &err), LRAF_EQUOTA);
  assert_int_equal(avail, quota - used - 1);
  lraf_ledger_close(l);
}

/* The first process of test_second_process: 10 records in the store,
   then 5 more once the parent says so (or has gone). */
static int first_main(const ledger_files *f, int in, int out) {
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  char byte;
  int code = 0;
  if (lraf_ledger_open(f->spec, &l, &err) != LRAF_OK) return 2;
  if (append_range(l, "c", 0, 10) != 10) code = 3;
  if (lraf_ledger_usage(l, NULL, &u, &err) != LRAF_OK) code = 4;
  if (write(out, "o", 1) != 1 || read(in, &byte, 1) != 1) code = 5;
  if (append_range(l, "c", 10, 15) != 5) code = 6;
  lraf_ledger_close(l);
  return code;
}

/* What the second process saw (checked once the first has ended). */
typedef struct second_seen {
  int journal_before, opened, stored, found_own, found_first;
  int stored_again, journal_after;
  lraf_usage u;
} second_seen;

static void second_main(const ledger_files *f, second_seen *s) {
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  char key[32];
  memset(s, 0, sizeof *s);
  s->stored_again = -1;
  s->journal_before = exists(f->journal);
  if (lraf_ledger_open(f->spec, &l, &err) != LRAF_OK) return;
  s->opened = 1;
  s->stored = append_range(l, "p", 0, 20);
  if (lraf_ledger_usage(l, "p", &s->u, &err) != LRAF_OK) s->u.requests = -1;
  s->found_own = count_found(l, "p", 0, 20);
  s->found_first = count_found(l, "c", 0, 10);
  fill(&r, key, "c", 3);   /* a key the first stored */
  if (lraf_ledger_record(l, &r, &s->stored_again, &err) != LRAF_OK)
    s->stored_again = -1;
  lraf_ledger_close(l);
  s->journal_after = exists(f->journal);
}

/* A second process on the ledger: its records go to SQLite directly,
   and its close leaves the first process's journal. */
static void test_second_process(void **state) {
  ledger_files f;
  second_seen s;
  char byte = 0;
  int to_first[2], to_second[2], status;
  pid_t pid;
  (void)state;
  files_of("second", &f);
  assert_int_equal(pipe(to_first), 0);
  assert_int_equal(pipe(to_second), 0);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(to_first[1]), close(to_second[0]);
    _exit(first_main(&f, to_first[0], to_second[1]));
  }
  close(to_first[0]), close(to_second[1]);
  if (read(to_second[0], &byte, 1) == 1) second_main(&f, &s);
  else memset(&s, 0, sizeof s);
  status = write(to_first[1], "g", 1);
  close(to_first[1]), close(to_second[0]);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("the first process failed (status 0x%x)", status);
  assert_true(s.journal_before && s.opened);
  assert_int_equal(s.stored, 20);
  assert_int_equal(s.u.requests, 20);
  assert_int_equal(s.u.instructions, sum_range(0, 20));
  assert_int_equal(s.found_own, 20);
  assert_int_equal(s.found_first, 10);
  assert_int_equal(s.stored_again, 0);
  if (!s.journal_after)
    fail_msg("the second process's close removed the first's journal");
  assert_false(exists(f.journal));
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 35);
  assert_int_equal(db_right_rows(&f, "c", 0, 15), 15);
  assert_int_equal(db_right_rows(&f, "p", 0, 20), 20);
}

/* ---- the same records, closed or stopped ---- */

typedef struct text {
  char *s;
  size_t n, cap;
} text;

/* Each record as a line, every field but the ingest time (which is when
   it was appended); the ingest time must be set. */
static int add_line(void *ud, const lraf_record *r) {
  text *t = ud;
  char line[1400];
  int k = snprintf(line, sizeof line, "%s|%s|%s|%s|%s|%s|%lld|%lld|%lld|"
                   "%d|%.6f|%.6f|%.6f|%.6f|%.6f|%s|%d\n", r->key,
                   r->request_id, r->tenant, r->handler, r->model,
                   r->outcome, (long long)r->instructions,
                   (long long)r->native, (long long)r->memory_peak,
                   r->status, r->wall, r->cpu, r->started, r->ended,
                   r->event_time, r->note, r->ingest_time > 1e9);
  if (t->n + (size_t)k + 1 > t->cap) {
    char *g = realloc(t->s, t->cap = 2 * (t->n + (size_t)k + 1));
    if (g == NULL) return 1;
    t->s = g;
  }
  memcpy(t->s + t->n, line, (size_t)k + 1);
  t->n += (size_t)k;
  return 0;
}

/* What the ledger at f holds: its totals and each record's line. */
static void read_back(const ledger_files *f, lraf_usage *u, text *t) {
  lraf_ledger *l;
  lraf_error err;
  memset(t, 0, sizeof *t);
  assert_int_equal(lraf_ledger_open(f->spec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_usage(l, NULL, u, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_each(l, NULL, -HUGE_VAL, HUGE_VAL, add_line,
                                    t, &err), LRAF_OK);
  lraf_ledger_close(l);
  assert_non_null(t->s);
}

/* The holder of test_follow_stopped_holder: it opens the ledger and
   stops (SIGSTOP) while the parent locks the store; then records [0, 30)
   of "c" into its journal alone, and it stops again until the parent
   lets it go on: 10 more, and a clean close.  0 when all went as
   asked. */
static int holder_main(const ledger_files *f) {
  lraf_ledger *l;
  lraf_error err;
  int code = 0;
  prctl(PR_SET_PDEATHSIG, SIGKILL);   /* a failed test leaves it stopped */
  if (lraf_ledger_open(f->spec, &l, &err) != LRAF_OK) return 2;
  raise(SIGSTOP);
  if (append_range(l, "c", 0, 30) != 30) code = 3;
  raise(SIGSTOP);
  if (append_range(l, "c", 30, 40) != 10) code = 4;
  lraf_ledger_close(l);
  return code;
}

static int count_one(void *ud, const lraf_record *r) {
  (void)r;
  ++*(int *)ud;
  return 0;
}

/* Reads and writes of a ledger whose journal another process holds, and
   whose records that process has not moved into the store (it is
   stopped): the store gets them first. */
static void test_follow_stopped_holder(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  char key[32];
  sqlite3 *db;
  int status = 0, stored = -1, records = 0;
  pid_t pid;
  (void)state;
  files_of("follow", &f);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(holder_main(&f));
  assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
  if (!WIFSTOPPED(status)) fail_msg("the holder failed (0x%x)", status);
  db = lock_store(&f);
  assert_non_null(db);
  assert_int_equal(kill(pid, SIGCONT), 0);
  assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
  if (!WIFSTOPPED(status)) fail_msg("the holder failed (0x%x)", status);
  unlock_store(db);
  assert_true(exists(f.journal));
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 0);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  expect_usage(l, "c", 0, 30);
  expect_found(l, "c", 0, 30);
  assert_int_equal(lraf_ledger_each(l, "c", -HUGE_VAL, HUGE_VAL, count_one,
                                    &records, &err), LRAF_OK);
  assert_int_equal(records, 30);
  fill(&r, key, "c", 7);   /* a key the holder took */
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  assert_int_equal(append_range(l, "p", 0, 10), 10);
  lraf_ledger_close(l);
  assert_true(exists(f.journal));   /* the holder's */
  assert_int_equal(kill(pid, SIGCONT), 0);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fail_msg("the holder failed (status 0x%x)", status);
  assert_false(exists(f.journal));
  assert_int_equal(db_int(&f, "SELECT count(*) FROM lraf_ledger"), 50);
  assert_int_equal(db_right_rows(&f, "c", 0, 40), 40);
  assert_int_equal(db_right_rows(&f, "p", 0, 10), 10);
}

static void test_same_closed_or_stopped(void **state) {
  ledger_files clean, stopped;
  child_run c;
  lraf_usage uc, us;
  text tc, ts;
  enum { N = 200 };
  (void)state;
  files_of("det-clean", &clean);
  files_of("det-stopped", &stopped);
  c.d = LRAF_DURABLE_PROCESS, c.n = N, c.locked_from = N / 2;
  c.f = &clean, c.clean = 1;
  run_child(&c);
  assert_false(exists(clean.journal));
  c.f = &stopped, c.clean = 0;
  run_child(&c);
  assert_true(exists(stopped.journal));
  read_back(&clean, &uc, &tc);
  read_back(&stopped, &us, &ts);
  assert_int_equal(uc.requests, N);
  assert_int_equal(uc.instructions, sum_range(0, N));
  assert_int_equal(us.requests, uc.requests);
  assert_int_equal(us.instructions, uc.instructions);
  assert_int_equal(us.native, uc.native);
  assert_int_equal(us.errors, uc.errors);
  assert_int_equal(us.memory_peak, uc.memory_peak);
  assert_true(us.wall == uc.wall && us.cpu == uc.cpu);
  assert_string_equal(ts.s, tc.s);
  free(tc.s);
  free(ts.s);
}

/* ---- past the journal's size ---- */

#define JOURNAL_LIMIT ((int64_t)16 << 20)   /* sv_drain.c's DR_FILE_MAX */

static char big_note[1001];

/* Append records [0, n) with 1000-byte notes (0: done). */
static int child_big(const ledger_files *f, int n) {
  lraf_ledger *l;
  lraf_error err;
  int i;
  if (lraf_ledger_open_durable(f->spec, LRAF_DURABLE_PROCESS, &l, &err) !=
      LRAF_OK)
    return 2;
  for (i = 0; i < n; i++) {
    char key[32];
    lraf_record r;
    fill(&r, key, "t", i);
    r.note = big_note;
    if (lraf_ledger_append(l, &r, &err) != LRAF_OK) {
      fprintf(stderr, "child: %s\n", err.message);
      return 3;
    }
  }
  return 0;
}

typedef struct journal_keys {
  int count, first, last, ordered;
} journal_keys;

static lraf_status note_key(void *ud, const lraf_record *r) {
  journal_keys *k = ud;
  int i;
  if (r == NULL) return LRAF_OK;
  i = atoi(r->key + 1);
  if (k->count++ == 0) k->first = i;
  else if (i != k->last + 1) k->ordered = 0;
  k->last = i;
  return LRAF_OK;
}

/* The keys of the records a journal file holds. */
static journal_keys keys_in(const char *path) {
  journal_keys k = {0, -1, -1, 1};
  FILE *fp = fopen(path, "rb");
  unsigned char *data;
  long n;
  assert_non_null(fp);
  assert_int_equal(fseek(fp, 0, SEEK_END), 0);
  n = ftell(fp);
  rewind(fp);
  assert_non_null(data = malloc((size_t)n + 1));
  assert_int_equal(fread(data, 1, (size_t)n, fp), (size_t)n);
  fclose(fp);
  assert_int_equal(sv_journal_read(data, (size_t)n, note_key, &k), LRAF_OK);
  free(data);
  return k;
}

static void test_journal_starts_over(void **state) {
  ledger_files f;
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  char key[32];
  journal_keys k;
  int n;
  size_t size;
  pid_t pid;
  (void)state;
  files_of("over", &f);
  memset(big_note, 'x', 1000);
  fill(&r, key, "t", 0);
  r.note = big_note;
  size = sv_journal_encode(&r, 1, NULL, 0);
  n = (int)(JOURNAL_LIMIT / (int64_t)size) + 300;
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) stop_child(child_big(&f, n));
  expect_stopped(pid, "the child that appends");
  /* the journal holds the last records only, written at its start */
  k = keys_in(f.journal);
  assert_true(k.count > 0 && k.count < n);
  assert_true(k.ordered);
  assert_int_equal(k.last, n - 1);
  assert_int_equal(lraf_ledger_open(f.spec, &l, &err), LRAF_OK);
  expect_usage(l, "t", 0, n);
  lraf_ledger_close(l);
  assert_int_equal(db_right_rows(&f, "t", 0, n), n);
}

static int setup(void **state) {
  (void)state;
  strcpy(dir, "/tmp/lraf-drain-XXXXXX");
  return mkdtemp(dir) != NULL ? 0 : -1;
}

static int teardown(void **state) {
  char cmd[128];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

#define KILL_CASE(i) \
  cmocka_unit_test_prestate(test_replay_after_kill, (void *)&kill_cases[i])

static const int one = 0, two = 1;

int main(void) {
  const struct CMUnitTest tests[] = {
    KILL_CASE(0), KILL_CASE(1), KILL_CASE(2), KILL_CASE(3),
    cmocka_unit_test(test_replay_skips_stored),
    cmocka_unit_test(test_duplicate_key),
    cmocka_unit_test_prestate(test_duplicate_key_threads, (void *)&one),
    cmocka_unit_test_prestate(test_duplicate_key_threads, (void *)&two),
    cmocka_unit_test(test_thread_name),
    cmocka_unit_test(test_new_key),
    cmocka_unit_test(test_new_key_passes_hold),
    cmocka_unit_test(test_find_held),
    cmocka_unit_test(test_reads_wait),
    cmocka_unit_test(test_reads_during_appends),
    cmocka_unit_test(test_reserve_settled),
    cmocka_unit_test(test_second_process),
    cmocka_unit_test(test_follow_stopped_holder),
    cmocka_unit_test(test_same_closed_or_stopped),
    cmocka_unit_test(test_journal_starts_over),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
