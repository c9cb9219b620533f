/*
** sv_sqlite.c - the ledger in SQLite: WAL mode, synchronous=FULL (or
** NORMAL, where a commit is written to the log but not fsynced, which
** checkpoints do: for process durability, and behind the ledger's
** journal, sv_drain.c, which then makes the records durable), one
** transaction per batch of records, INSERT OR IGNORE on the idempotency
** key of a tenant (a skipped record is reported, never silent).  A
** record keeps the ingest time it brings (the journal's), else gets the
** time of the write.  Two indexes: the key's and the event time's, both
** led by the tenant (an older file's index on the tenant alone is
** dropped at open).  The reader maps the file (mmap_size).  A
** second connection reads the totals, so reads never wait for a
** commit's fsync.  The schema's version is the file's user_version (3:
** keys unique per tenant, and each record's outcome, event time, ingest
** time and note); a file of version 0 (keys unique over all tenants) or
** 2 is migrated when opened (outcomes from the statuses, the event time
** the start, the ingest time the end), a newer one refused.  Closing
** checkpoints the write-ahead log into the file.
**
** Reservations (lraf_ledger_reserve) are rows of lraf_reservation,
** taken in a BEGIN IMMEDIATE transaction (so no other connection, of
** this process or another, writes between the check and the insert)
** when the tenant's quota less its records and its reservations leaves
** enough.  One server uses a file: opening it releases every
** reservation left by a server that stopped without settling them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sv.h"
#include "sv_dl.h"

typedef struct sv_sqlite {
  sv_store base;
  sqlite3 *w, *r;            /* writer, reader */
  sqlite3_stmt *insert, *sum, *find, *each;
  sqlite3_stmt *left, *hold, *settle;   /* reservations (writer) */
} sv_sqlite;

#define SV_SCHEMA_VERSION 3

#define SV_COLUMNS \
  " key TEXT NOT NULL," \
  " request_id TEXT NOT NULL," \
  " tenant TEXT NOT NULL," \
  " handler TEXT NOT NULL," \
  " model TEXT NOT NULL," \
  " instructions INTEGER NOT NULL," \
  " native INTEGER NOT NULL," \
  " memory_peak INTEGER NOT NULL," \
  " status INTEGER NOT NULL," \
  " wall_us INTEGER NOT NULL," \
  " cpu_us INTEGER NOT NULL," \
  " started_us INTEGER NOT NULL," \
  " ended_us INTEGER NOT NULL," \
  " outcome TEXT NOT NULL," \
  " event_us INTEGER NOT NULL," \
  " ingest_us INTEGER NOT NULL," \
  " note TEXT NOT NULL," \
  " PRIMARY KEY (tenant, key))"

static const char schema[] =
  "CREATE TABLE IF NOT EXISTS lraf_ledger (" SV_COLUMNS ";"
  /* the key's and the event time's indexes start with the tenant: one
     on the tenant alone (older files have it) only slows inserts */
  "DROP INDEX IF EXISTS lraf_ledger_tenant;"
  "CREATE INDEX IF NOT EXISTS lraf_ledger_event ON"
  " lraf_ledger(tenant, event_us);"
  "CREATE TABLE IF NOT EXISTS lraf_reservation ("
  " tenant TEXT NOT NULL, request_id TEXT NOT NULL,"
  " amount INTEGER NOT NULL, created_us INTEGER NOT NULL,"
  " PRIMARY KEY (tenant, request_id));"
  "PRAGMA user_version = 3;";

/* Versions 0 (keys unique over all tenants) and 2 to 3: the key unique
   per tenant, the new columns from what the old ones say. */
static const char migrate_sql[] =
  "BEGIN IMMEDIATE;"
  "CREATE TABLE lraf_ledger_v3 (" SV_COLUMNS ";"
  "INSERT INTO lraf_ledger_v3 SELECT key, request_id, tenant, handler,"
  " model, instructions, native, memory_peak, status, wall_us, cpu_us,"
  " started_us, ended_us, CASE WHEN status = 429 THEN 'quota'"
  " WHEN status = 507 THEN 'memory' WHEN status >= 500 THEN 'error'"
  " ELSE 'ok' END, started_us, ended_us, '' FROM lraf_ledger;"
  "DROP TABLE lraf_ledger;"
  "ALTER TABLE lraf_ledger_v3 RENAME TO lraf_ledger;"
  "CREATE INDEX lraf_ledger_tenant ON lraf_ledger(tenant);"
  "CREATE INDEX lraf_ledger_event ON lraf_ledger(tenant, event_us);"
  "PRAGMA user_version = 3;"
  "COMMIT;";

static const char insert_sql[] =
  "INSERT OR IGNORE INTO lraf_ledger VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
  " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

static const char sum_sql[] =
  "SELECT coalesce(sum(outcome <> 'adjustment'), 0),"
  " coalesce(sum(instructions), 0), coalesce(sum(native), 0),"
  " coalesce(sum(status >= 400), 0), coalesce(max(memory_peak), 0),"
  " coalesce(sum(wall_us), 0), coalesce(sum(cpu_us), 0)"
  " FROM lraf_ledger WHERE (?1 IS NULL OR tenant = ?1)"
  " AND event_us >= ?2 AND event_us < ?3";

static const char each_sql[] =
  "SELECT key, request_id, tenant, handler, model, instructions, native,"
  " memory_peak, status, wall_us, cpu_us, started_us, ended_us, outcome,"
  " event_us, ingest_us, note FROM lraf_ledger"
  " WHERE (?1 IS NULL OR tenant = ?1) AND event_us >= ?2 AND event_us < ?3"
  " ORDER BY event_us, tenant, key";

static const char find_sql[] =
  "SELECT instructions, status FROM lraf_ledger WHERE tenant = ?1 AND"
  " key = ?2";

/* What tenant's quota ?2 leaves: less its records and reservations. */
static const char left_sql[] =
  "SELECT ?2 - (SELECT coalesce(sum(instructions), 0) FROM lraf_ledger"
  " WHERE tenant = ?1) - (SELECT coalesce(sum(amount), 0) FROM"
  " lraf_reservation WHERE tenant = ?1)";

static const char hold_sql[] =
  "INSERT INTO lraf_reservation VALUES (?1, ?2, ?3, ?4)";

static const char settle_sql[] =
  "DELETE FROM lraf_reservation WHERE tenant = ?1 AND request_id = ?2";

static int64_t us(double s) { return sv_us(s); }

static lraf_status db_fail(sqlite3 *db, lraf_error *err, const char *what) {
  return sv_fail(err, LRAF_EIO, "ledger: %s: %s", what,
                 db ? sv_sq.errmsg(db) : "out of memory");
}

static lraf_status sq_write(sv_store *s, const lraf_record *const *r, int n,
                            int *stored, lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  int64_t ingest = us(sv_now());
  int i;
  if (sv_sq.exec(q->w, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    return db_fail(q->w, err, "cannot begin a transaction");
  for (i = 0; i < n; i++) {
    sqlite3_stmt *st = q->insert;
    sv_sq.bind_text(st, 1, r[i]->key, -1, SQLITE_STATIC);
    sv_sq.bind_text(st, 2, r[i]->request_id, -1, SQLITE_STATIC);
    sv_sq.bind_text(st, 3, r[i]->tenant, -1, SQLITE_STATIC);
    sv_sq.bind_text(st, 4, r[i]->handler, -1, SQLITE_STATIC);
    sv_sq.bind_text(st, 5, r[i]->model, -1, SQLITE_STATIC);
    sv_sq.bind_int64(st, 6, r[i]->instructions);
    sv_sq.bind_int64(st, 7, r[i]->native);
    sv_sq.bind_int64(st, 8, r[i]->memory_peak);
    sv_sq.bind_int(st, 9, r[i]->status);
    sv_sq.bind_int64(st, 10, us(r[i]->wall));
    sv_sq.bind_int64(st, 11, us(r[i]->cpu));
    sv_sq.bind_int64(st, 12, us(r[i]->started));
    sv_sq.bind_int64(st, 13, us(r[i]->ended));
    sv_sq.bind_text(st, 14, r[i]->outcome, -1, SQLITE_STATIC);
    sv_sq.bind_int64(st, 15, us(r[i]->event_time));
    sv_sq.bind_int64(st, 16, r[i]->ingest_time > 0 ? us(r[i]->ingest_time)
                                                   : ingest);
    sv_sq.bind_text(st, 17, r[i]->note, -1, SQLITE_STATIC);
    if (sv_sq.step(st) != SQLITE_DONE) {
      lraf_status code = db_fail(q->w, err, "cannot insert a record");
      sv_sq.reset(st);
      sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
      return code;
    }
    stored[i] = sv_sq.changes(q->w) == 1;
    sv_sq.reset(st);
    if (stored[i] && r[i]->reserved > 0) {
      /* settled with its record: what it did not use is free again */
      sv_sq.bind_text(q->settle, 1, r[i]->tenant, -1, SQLITE_STATIC);
      sv_sq.bind_text(q->settle, 2, r[i]->request_id, -1, SQLITE_STATIC);
      if (sv_sq.step(q->settle) != SQLITE_DONE) {
        lraf_status code = db_fail(q->w, err, "cannot settle a reservation");
        sv_sq.reset(q->settle);
        sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
        return code;
      }
      sv_sq.reset(q->settle);
    }
  }
  if (sv_sq.exec(q->w, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    lraf_status code = db_fail(q->w, err, "cannot commit");
    sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
    return code;
  }
  return LRAF_OK;
}

/* Bind the tenant (NULL: every one) and the window [from, to). */
static void bind_window(sqlite3_stmt *st, const char *tenant, int64_t from,
                        int64_t to) {
  if (tenant != NULL) sv_sq.bind_text(st, 1, tenant, -1, SQLITE_TRANSIENT);
  else sv_sq.bind_null(st, 1);
  sv_sq.bind_int64(st, 2, from);
  sv_sq.bind_int64(st, 3, to);
}

static lraf_status sq_usage(sv_store *s, const char *tenant, int64_t from,
                            int64_t to, lraf_usage *u, lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  sqlite3_stmt *st = q->sum;
  lraf_status code = LRAF_OK;
  bind_window(st, tenant, from, to);
  if (sv_sq.step(st) == SQLITE_ROW) {
    u->requests = sv_sq.column_int64(st, 0);
    u->instructions = sv_sq.column_int64(st, 1);
    u->native = sv_sq.column_int64(st, 2);
    u->errors = sv_sq.column_int64(st, 3);
    u->memory_peak = sv_sq.column_int64(st, 4);
    u->wall = (double)sv_sq.column_int64(st, 5) * 1e-6;
    u->cpu = (double)sv_sq.column_int64(st, 6) * 1e-6;
  } else {
    code = db_fail(q->r, err, "cannot read the totals");
  }
  sv_sq.reset(st);
  return code;
}

static lraf_status sq_find(sv_store *s, const char *tenant, const char *key,
                           int *found, int64_t *instructions, int *status,
                           lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  sqlite3_stmt *st = q->find;
  int rc;
  *found = 0;
  sv_sq.bind_text(st, 1, tenant, -1, SQLITE_TRANSIENT);
  sv_sq.bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
  rc = sv_sq.step(st);
  if (rc == SQLITE_ROW) {
    *found = 1;
    *instructions = sv_sq.column_int64(st, 0);
    *status = sv_sq.column_int(st, 1);
  }
  sv_sq.reset(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return db_fail(q->r, err, "cannot look up a key");
  return LRAF_OK;
}

static const char *text(sqlite3_stmt *st, int i) {
  const unsigned char *t = sv_sq.column_text(st, i);
  return t != NULL ? (const char *)t : "";
}

static lraf_status sq_each(sv_store *s, const char *tenant, int64_t from,
                           int64_t to, sv_each_fn f, void *ud,
                           lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  sqlite3_stmt *st = q->each;
  lraf_record r;
  int rc;
  bind_window(st, tenant, from, to);
  while ((rc = sv_sq.step(st)) == SQLITE_ROW) {
    r.key = text(st, 0);
    r.request_id = text(st, 1);
    r.tenant = text(st, 2);
    r.handler = text(st, 3);
    r.model = text(st, 4);
    r.instructions = sv_sq.column_int64(st, 5);
    r.native = sv_sq.column_int64(st, 6);
    r.memory_peak = sv_sq.column_int64(st, 7);
    r.status = sv_sq.column_int(st, 8);
    r.wall = (double)sv_sq.column_int64(st, 9) * 1e-6;
    r.cpu = (double)sv_sq.column_int64(st, 10) * 1e-6;
    r.started = (double)sv_sq.column_int64(st, 11) * 1e-6;
    r.ended = (double)sv_sq.column_int64(st, 12) * 1e-6;
    r.outcome = text(st, 13);
    r.event_time = (double)sv_sq.column_int64(st, 14) * 1e-6;
    r.ingest_time = (double)sv_sq.column_int64(st, 15) * 1e-6;
    r.note = text(st, 16);
    if (f(ud, &r) != 0) break;
  }
  sv_sq.reset(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return db_fail(q->r, err, "cannot read the records");
  return LRAF_OK;
}

static lraf_status sq_none(sv_store *s, const char *tenant, int64_t n,
                           lraf_error *err) {
  (void)s, (void)tenant, (void)n;
  return sv_fail(err, LRAF_EARG, "ledger: SQLite quotas are not leased");
}

static lraf_status sq_lease(sv_store *s, const char *tenant, int64_t want,
                            int64_t *got, lraf_error *err) {
  *got = 0;
  return sq_none(s, tenant, want, err);
}

static lraf_status sq_reserve(sv_store *s, const char *tenant,
                              const char *request_id, int64_t n,
                              int64_t quota, int *reserved,
                              int64_t *available, lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  int rc;
  *reserved = 0;
  *available = -1;
  if (quota < 0) return LRAF_OK;
  if (sv_sq.exec(q->w, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    return db_fail(q->w, err, "cannot begin a transaction");
  sv_sq.bind_text(q->left, 1, tenant, -1, SQLITE_STATIC);
  sv_sq.bind_int64(q->left, 2, quota);
  rc = sv_sq.step(q->left);
  if (rc == SQLITE_ROW) *available = sv_sq.column_int64(q->left, 0);
  sv_sq.reset(q->left);
  if (rc != SQLITE_ROW) goto fail;
  if (*available < 0) *available = 0;
  if (*available >= n) {
    sv_sq.bind_text(q->hold, 1, tenant, -1, SQLITE_STATIC);
    sv_sq.bind_text(q->hold, 2, request_id, -1, SQLITE_STATIC);
    sv_sq.bind_int64(q->hold, 3, n);
    sv_sq.bind_int64(q->hold, 4, us(sv_now()));
    rc = sv_sq.step(q->hold);
    sv_sq.reset(q->hold);
    if (rc != SQLITE_DONE) goto fail;
    *reserved = 1;
  }
  if (sv_sq.exec(q->w, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
    return LRAF_OK;
  *reserved = 0;
fail: {
    lraf_status code = db_fail(q->w, err, "cannot reserve");
    sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
    return code;
  }
}

static lraf_status sq_release(sv_store *s, const char *tenant,
                              const char *request_id, lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  int rc;
  sv_sq.bind_text(q->settle, 1, tenant, -1, SQLITE_STATIC);
  sv_sq.bind_text(q->settle, 2, request_id, -1, SQLITE_STATIC);
  rc = sv_sq.step(q->settle);
  sv_sq.reset(q->settle);
  if (rc != SQLITE_DONE)
    return db_fail(q->w, err, "cannot release a reservation");
  return LRAF_OK;
}

static void sq_close(sv_store *s) {
  sv_sqlite *q = (sv_sqlite *)s;
  sv_sq.finalize(q->left);
  sv_sq.finalize(q->hold);
  sv_sq.finalize(q->settle);
  sv_sq.finalize(q->insert);
  sv_sq.finalize(q->sum);
  sv_sq.finalize(q->find);
  sv_sq.finalize(q->each);
  /* the reader first: the writer, last, moves every record from the
     write-ahead log into the file itself */
  sv_sq.close(q->r);
  if (q->w != NULL)
    sv_sq.wal_checkpoint_v2(q->w, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
                            NULL);
  sv_sq.close(q->w);
  free(q);
}

static int one_int(void *ud, int n, char **v, char **names) {
  (void)names;
  if (n > 0 && v[0] != NULL) *(int *)ud = atoi(v[0]);
  return 0;
}

/* Create the schema, or bring an older file's to SV_SCHEMA_VERSION. */
static lraf_status set_up(sv_sqlite *q, const char *path, lraf_error *err) {
  int version = -1, tables = -1;
  if (sv_sq.exec(q->w, "PRAGMA user_version", one_int, &version, NULL) !=
          SQLITE_OK ||
      sv_sq.exec(q->w, "SELECT count(*) FROM sqlite_master WHERE type ="
                 " 'table' AND name = 'lraf_ledger'", one_int, &tables,
                 NULL) != SQLITE_OK)
    return db_fail(q->w, err, "cannot read the schema's version");
  if (version > SV_SCHEMA_VERSION)
    return sv_fail(err, LRAF_EIO, "ledger %s: schema version %d is newer "
                   "than this lraf's (%d)", path, version,
                   SV_SCHEMA_VERSION);
  if (tables == 1 && version < SV_SCHEMA_VERSION &&
      sv_sq.exec(q->w, migrate_sql, NULL, NULL, NULL) != SQLITE_OK) {
    lraf_status code = sv_fail(err, LRAF_EIO, "ledger %s: cannot migrate "
                               "its schema to version %d: %s", path,
                               SV_SCHEMA_VERSION, sv_sq.errmsg(q->w));
    sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
    return code;
  }
  if (sv_sq.exec(q->w, schema, NULL, NULL, NULL) != SQLITE_OK)
    return db_fail(q->w, err, "cannot create the schema");
  /* a server that stopped between reserving and settling: its requests
     were never recorded (record and settlement are one transaction),
     so their reservations go back whole */
  if (sv_sq.exec(q->w, "DELETE FROM lraf_reservation", NULL, NULL, NULL) !=
      SQLITE_OK)
    return db_fail(q->w, err, "cannot release the reservations left");
  return LRAF_OK;
}

/* A whole checkpoint: every commit so far copied into the database
   file and fsynced there.  PASSIVE: it waits for no reader; a reader on
   an older snapshot leaves it partial, which is a failure here. */
static lraf_status sq_sync(sv_store *s, lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  int log = 0, done = 0;
  if (sv_sq.wal_checkpoint_v2(q->w, NULL, SQLITE_CHECKPOINT_PASSIVE, &log,
                              &done) != SQLITE_OK)
    return db_fail(q->w, err, "cannot checkpoint");
  if (done < log)
    return sv_fail(err, LRAF_EIO, "ledger: a checkpoint copied %d of %d "
                   "pages", done, log);
  return LRAF_OK;
}

void sv_sqlite_behind_journal(sv_store *s) {
  sv_sqlite *q = (sv_sqlite *)s;
  /* checkpoints only when the journal starts over (sync()) and at
     close: one flush of the disk every few MiB of records, instead of
     one every thousand pages that a journal fsync would wait behind */
  sv_sq.exec(q->w, "PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0",
             NULL, NULL, NULL);
}

static const sv_store_ops sqlite_ops = {sq_write, sq_usage, sq_find, sq_none,
                                        sq_lease, sq_none, sq_reserve,
                                        sq_release, sq_each, sq_close,
                                        sq_sync, 0};

lraf_status sv_sqlite_open(const char *path, lraf_durability d,
                           sv_store **out, lraf_error *err) {
  sv_sqlite *q;
  char what[600];
  const char *why;
  if (!sv_dl_sqlite_load(&why))
    return sv_fail(err, LRAF_EIO, "ledger: %s", why);
  q = calloc(1, sizeof *q);
  if (q == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
  q->base.ops = &sqlite_ops;
  snprintf(what, sizeof what, "cannot open %s", path);
  if (sv_sq.open_v2(path, &q->w, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      NULL) != SQLITE_OK)
    goto fail;
  sv_sq.busy_timeout(q->w, 10000);
  snprintf(what, sizeof what, "cannot set up %s", path);
  if (sv_sq.exec(q->w, d == LRAF_DURABLE_PROCESS ?
                   "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;" :
                   "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
                   NULL, NULL, NULL) != SQLITE_OK)
    goto fail;
  {
    lraf_status code = set_up(q, path, err);
    if (code != LRAF_OK) {
      sq_close(&q->base);
      return code;
    }
  }
  if (sv_sq.prepare_v2(q->w, insert_sql, -1, &q->insert, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->w, left_sql, -1, &q->left, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->w, hold_sql, -1, &q->hold, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->w, settle_sql, -1, &q->settle, NULL) != SQLITE_OK)
    goto fail;
  if (sv_sq.open_v2(path, &q->r, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->r, sum_sql, -1, &q->sum, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->r, find_sql, -1, &q->find, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->r, each_sql, -1, &q->each, NULL) != SQLITE_OK) {
    lraf_status code = db_fail(q->r, err, what);
    sq_close(&q->base);
    return code;
  }
  sv_sq.busy_timeout(q->r, 10000);
  /* look-ups read pages from a mapping, not a read() each */
  sv_sq.exec(q->r, "PRAGMA mmap_size=268435456", NULL, NULL, NULL);
  q->base.reads_apart = 1;
  *out = &q->base;
  return LRAF_OK;
fail: {
    lraf_status code = db_fail(q->w, err, what);
    sq_close(&q->base);
    return code;
  }
}
