/*
** sv_sqlite.c - the ledger in SQLite: WAL mode, synchronous=FULL, one
** transaction per group commit, INSERT OR IGNORE on the idempotency
** key of a tenant (a skipped record is reported, never silent).  A
** second connection reads the totals, so reads never wait for a
** commit's fsync.  The schema's version is the file's user_version (2:
** keys unique per tenant); a file of version 0 (keys unique over all
** tenants) is migrated when opened, a newer one refused.  Closing
** checkpoints the write-ahead log into the file.
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
  sqlite3_stmt *insert, *sum, *find;
} sv_sqlite;

#define SV_SCHEMA_VERSION 2

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
  " PRIMARY KEY (tenant, key))"

static const char schema[] =
  "CREATE TABLE IF NOT EXISTS lraf_ledger (" SV_COLUMNS ";"
  "CREATE INDEX IF NOT EXISTS lraf_ledger_tenant ON lraf_ledger(tenant);"
  "PRAGMA user_version = 2;";

/* Version 0 to 2: the same columns, the key unique per tenant. */
static const char migrate_sql[] =
  "BEGIN IMMEDIATE;"
  "CREATE TABLE lraf_ledger_v2 (" SV_COLUMNS ";"
  "INSERT INTO lraf_ledger_v2 SELECT key, request_id, tenant, handler,"
  " model, instructions, native, memory_peak, status, wall_us, cpu_us,"
  " started_us, ended_us FROM lraf_ledger;"
  "DROP TABLE lraf_ledger;"
  "ALTER TABLE lraf_ledger_v2 RENAME TO lraf_ledger;"
  "CREATE INDEX lraf_ledger_tenant ON lraf_ledger(tenant);"
  "PRAGMA user_version = 2;"
  "COMMIT;";

static const char insert_sql[] =
  "INSERT OR IGNORE INTO lraf_ledger VALUES "
  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

static const char sum_sql[] =
  "SELECT count(*), coalesce(sum(instructions), 0), coalesce(sum(native), 0),"
  " coalesce(sum(status >= 400), 0), coalesce(max(memory_peak), 0),"
  " coalesce(sum(wall_us), 0), coalesce(sum(cpu_us), 0)"
  " FROM lraf_ledger WHERE ?1 IS NULL OR tenant = ?1";

static const char find_sql[] =
  "SELECT instructions, status FROM lraf_ledger WHERE tenant = ?1 AND"
  " key = ?2";

static int64_t us(double s) { return (int64_t)(s * 1e6 + 0.5); }

static lraf_status db_fail(sqlite3 *db, lraf_error *err, const char *what) {
  return sv_fail(err, LRAF_EIO, "ledger: %s: %s", what,
                 db ? sv_sq.errmsg(db) : "out of memory");
}

static lraf_status sq_write(sv_store *s, const lraf_record *const *r, int n,
                            int *stored, lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
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
    if (sv_sq.step(st) != SQLITE_DONE) {
      lraf_status code = db_fail(q->w, err, "cannot insert a record");
      sv_sq.reset(st);
      sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
      return code;
    }
    stored[i] = sv_sq.changes(q->w) == 1;
    sv_sq.reset(st);
  }
  if (sv_sq.exec(q->w, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    lraf_status code = db_fail(q->w, err, "cannot commit");
    sv_sq.exec(q->w, "ROLLBACK", NULL, NULL, NULL);
    return code;
  }
  return LRAF_OK;
}

static lraf_status sq_usage(sv_store *s, const char *tenant, lraf_usage *u,
                            lraf_error *err) {
  sv_sqlite *q = (sv_sqlite *)s;
  sqlite3_stmt *st = q->sum;
  lraf_status code = LRAF_OK;
  if (tenant != NULL) sv_sq.bind_text(st, 1, tenant, -1, SQLITE_TRANSIENT);
  else sv_sq.bind_null(st, 1);
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

static void sq_close(sv_store *s) {
  sv_sqlite *q = (sv_sqlite *)s;
  sv_sq.finalize(q->insert);
  sv_sq.finalize(q->sum);
  sv_sq.finalize(q->find);
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
  return LRAF_OK;
}

static const sv_store_ops sqlite_ops = {sq_write, sq_usage, sq_find, sq_none,
                                        sq_lease, sq_none, sq_close, 0};

lraf_status sv_sqlite_open(const char *path, sv_store **out,
                           lraf_error *err) {
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
  if (sv_sq.exec(q->w, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
                   NULL, NULL, NULL) != SQLITE_OK)
    goto fail;
  {
    lraf_status code = set_up(q, path, err);
    if (code != LRAF_OK) {
      sq_close(&q->base);
      return code;
    }
  }
  if (sv_sq.prepare_v2(q->w, insert_sql, -1, &q->insert, NULL) != SQLITE_OK)
    goto fail;
  if (sv_sq.open_v2(path, &q->r, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->r, sum_sql, -1, &q->sum, NULL) != SQLITE_OK ||
      sv_sq.prepare_v2(q->r, find_sql, -1, &q->find, NULL) != SQLITE_OK) {
    lraf_status code = db_fail(q->r, err, what);
    sq_close(&q->base);
    return code;
  }
  sv_sq.busy_timeout(q->r, 10000);
  q->base.reads_apart = 1;
  *out = &q->base;
  return LRAF_OK;
fail: {
    lraf_status code = db_fail(q->w, err, what);
    sq_close(&q->base);
    return code;
  }
}
