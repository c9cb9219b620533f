/*
** sv_pg.c - the ledger in PostgreSQL, shared by many hosts: one
** transaction per group commit with ON CONFLICT DO NOTHING on the
** idempotency key of a tenant (a skipped record is reported: RETURNING
** gives no row; a table whose keys were unique over all tenants gets
** the per-tenant key when opened; a table without the outcome, event
** time, ingest time and note gets them, filled from the status, the
** start and the end), and tenant quotas in a table of their own from
** which hosts lease slices (lraf_quota: quota, and granted = what hosts
** took and did not give back).
**
** Reservations take a request's amount from the same granted column
** in one statement (a conditional UPDATE of the tenant's row, which
** PostgreSQL locks, with the insert of a lraf_reservation row), so two
** hosts can never both take the last of a quota.  The insert of a
** record and its settlement (the reservation row deleted, the unused
** part given back) are one transaction.  Each connection holds an
** advisory lock named by a random holder id of its own while it lives;
** a host that opens the ledger releases the reservations of every
** holder whose lock it can take, hosts that died with requests
** reserved and not recorded.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <libpq-fe.h>

#include "sv.h"
#include "sv_dl.h"

typedef struct sv_pg {
  sv_store base;
  PGconn *c;
  char holder[33];     /* this connection's reservations */
} sv_pg;

/* The advisory locks' first key ("lraf"); the second is the holder's
   hashtext. */
#define SV_LOCK_CLASS "1819435366"


static const char schema[] =
  "CREATE TABLE IF NOT EXISTS lraf_ledger ("
  " key TEXT NOT NULL,"
  " request_id TEXT NOT NULL,"
  " tenant TEXT NOT NULL,"
  " handler TEXT NOT NULL,"
  " model TEXT NOT NULL,"
  " instructions BIGINT NOT NULL,"
  " native BIGINT NOT NULL,"
  " memory_peak BIGINT NOT NULL,"
  " status INTEGER NOT NULL,"
  " wall_us BIGINT NOT NULL,"
  " cpu_us BIGINT NOT NULL,"
  " started_us BIGINT NOT NULL,"
  " ended_us BIGINT NOT NULL,"
  " outcome TEXT NOT NULL,"
  " event_us BIGINT NOT NULL,"
  " ingest_us BIGINT NOT NULL,"
  " note TEXT NOT NULL,"
  " PRIMARY KEY (tenant, key));"
  "CREATE INDEX IF NOT EXISTS lraf_ledger_tenant ON lraf_ledger(tenant);"
  "DO $$ BEGIN"
  " IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid ="
  "  'lraf_ledger'::regclass AND contype = 'p' AND"
  "  array_length(conkey, 1) = 1) THEN"
  "  ALTER TABLE lraf_ledger DROP CONSTRAINT lraf_ledger_pkey,"
  "   ADD PRIMARY KEY (tenant, key);"
  " END IF; END $$;"
  "DO $$ BEGIN"
  " IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE"
  "  table_name = 'lraf_ledger' AND column_name = 'event_us' AND"
  "  table_schema = current_schema()) THEN"
  "  ALTER TABLE lraf_ledger ADD COLUMN outcome TEXT, ADD COLUMN event_us"
  "   BIGINT, ADD COLUMN ingest_us BIGINT, ADD COLUMN note TEXT;"
  "  UPDATE lraf_ledger SET outcome = CASE WHEN status = 429 THEN 'quota'"
  "   WHEN status = 507 THEN 'memory' WHEN status >= 500 THEN 'error'"
  "   ELSE 'ok' END, event_us = started_us, ingest_us = ended_us,"
  "   note = '';"
  "  ALTER TABLE lraf_ledger ALTER outcome SET NOT NULL, ALTER event_us"
  "   SET NOT NULL, ALTER ingest_us SET NOT NULL, ALTER note SET NOT NULL;"
  " END IF; END $$;"
  "CREATE INDEX IF NOT EXISTS lraf_ledger_event ON"
  " lraf_ledger(tenant, event_us);"
  "CREATE TABLE IF NOT EXISTS lraf_quota ("
  " tenant TEXT PRIMARY KEY NOT NULL,"
  " quota BIGINT NOT NULL,"
  " granted BIGINT NOT NULL DEFAULT 0);"
  "CREATE TABLE IF NOT EXISTS lraf_reservation ("
  " tenant TEXT NOT NULL,"
  " request_id TEXT NOT NULL,"
  " amount BIGINT NOT NULL,"
  " holder TEXT NOT NULL,"
  " created_us BIGINT NOT NULL,"
  " PRIMARY KEY (tenant, request_id));";

/* Run sql with params; 1 when it returned what expect says. */
static PGresult *run(sv_pg *p, const char *sql, int n,
                     const char *const *params) {
  return sv_pq.execParams(p->c, sql, n, NULL, params, NULL, NULL, 0);
}

/* libpq's last message without its final line break. */
static const char *message(PGconn *c, char *buf, size_t size) {
  size_t n;
  snprintf(buf, size, "%s",
           c != NULL ? sv_pq.errorMessage(c) : "out of memory");
  n = strlen(buf);
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = '\0';
  return buf;
}

static lraf_status pg_fail(sv_pg *p, PGresult *res, lraf_error *err,
                           const char *what) {
  char m[400];
  lraf_status code = sv_fail(err, LRAF_EIO, "ledger: %.60s: %s", what,
                             message(p->c, m, sizeof m));
  sv_pq.clear(res);
  return code;
}

static int ok(PGresult *res) {
  ExecStatusType s = sv_pq.resultStatus(res);
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

static lraf_status exec_simple(sv_pg *p, const char *sql, lraf_error *err) {
  PGresult *res = sv_pq.exec(p->c, sql);
  if (!ok(res)) return pg_fail(p, res, err, sql);
  sv_pq.clear(res);
  return LRAF_OK;
}

/* Take the holder's advisory lock (again after a reconnection). */
static lraf_status hold(sv_pg *p, lraf_error *err) {
  const char *v[1] = {p->holder};
  PGresult *res = run(p, "SELECT pg_advisory_lock(" SV_LOCK_CLASS ","
                      " hashtext($1))", 1, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot take the host's lock");
  sv_pq.clear(res);
  return LRAF_OK;
}

static void reconnect(sv_pg *p) {
  if (sv_pq.status(p->c) == CONNECTION_OK) return;
  sv_pq.reset(p->c);
  if (sv_pq.status(p->c) == CONNECTION_OK) hold(p, NULL);
}

/* Whether res failed because the connection is gone: libpq's own
   error (no SQLSTATE), a connection exception (class 08) or the server
   shutting down (57P). */
static int dropped(PGresult *res) {
  const char *state = res != NULL ?
    sv_pq.resultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  return state == NULL || strncmp(state, "08", 2) == 0 ||
         strncmp(state, "57P", 3) == 0;
}

/* Run one statement that stands alone, and once more on a new connection
   when the first try found the old one dropped: a connection the server
   dropped (it restarted) may still look open until a command finds it
   closed.  The statements run so are safe to run twice: a reservation
   made twice fails on its key, and a release deletes before it gives
   back. */
static PGresult *run_again(sv_pg *p, const char *sql, int n,
                           const char *const *params) {
  PGresult *res = run(p, sql, n, params);
  if (ok(res) || !dropped(res)) return res;
  sv_pq.clear(res);
  sv_pq.reset(p->c);
  if (sv_pq.status(p->c) == CONNECTION_OK) hold(p, NULL);
  return run(p, sql, n, params);
}

/* Open a write's transaction.  A connection the server dropped (it
   restarted) may still look open until a command finds it closed: then
   once more, on a new connection. */
static lraf_status begin(sv_pg *p, lraf_error *err) {
  reconnect(p);
  if (exec_simple(p, "BEGIN", err) == LRAF_OK) return LRAF_OK;
  sv_pq.reset(p->c);
  if (sv_pq.status(p->c) != CONNECTION_OK || hold(p, NULL) != LRAF_OK)
    return LRAF_EIO;
  return exec_simple(p, "BEGIN", err);
}

/* The reservation of r goes, and the quota gets back what r did not use
   (all of r's count is charged when the reservation was released
   meanwhile). */
static lraf_status settle(sv_pg *p, const lraf_record *r, lraf_error *err) {
  char n[24];
  const char *v[3] = {r->tenant, r->request_id, n};
  PGresult *res;
  int rows;
  snprintf(n, sizeof n, "%" PRId64, r->instructions);
  res = run(p, "WITH d AS (DELETE FROM lraf_reservation WHERE tenant = $1"
            " AND request_id = $2 RETURNING amount)"
            " UPDATE lraf_quota q SET granted = q.granted - d.amount +"
            " $3::bigint FROM d WHERE q.tenant = $1 RETURNING 1", 3, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot settle a reservation");
  rows = sv_pq.ntuples(res);
  sv_pq.clear(res);
  if (rows == 1) return LRAF_OK;
  res = run(p, "UPDATE lraf_quota SET granted = granted + $3::bigint"
            " WHERE tenant = $1 AND $2::text IS NOT NULL", 3, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot settle a reservation");
  sv_pq.clear(res);
  return LRAF_OK;
}

static int by_tenant(const void *a, const void *b) {
  const lraf_record *x = *(const lraf_record *const *)a;
  const lraf_record *y = *(const lraf_record *const *)b;
  return strcmp(x->tenant, y->tenant);
}

/* Settle the reservations of the records stored, tenant by tenant (so
   that two hosts' commits lock the quota rows in one order). */
static lraf_status settle_all(sv_pg *p, const lraf_record *const *r, int n,
                              const int *stored, lraf_error *err) {
  const lraf_record *todo[256];
  int i, k = 0;
  for (i = 0; i < n && k < 256; i++)
    if (stored[i] && r[i]->reserved > 0) todo[k++] = r[i];
  qsort(todo, (size_t)k, sizeof todo[0], by_tenant);
  for (i = 0; i < k; i++)
    if (settle(p, todo[i], err) != LRAF_OK) return LRAF_EIO;
  return LRAF_OK;
}

static lraf_status pg_write(sv_store *s, const lraf_record *const *r, int n,
                            int *stored, lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  int64_t ingest = sv_us(sv_now());
  int i;
  if (n > 256) return sv_fail(err, LRAF_EARG, "ledger: over 256 records");
  if (begin(p, err) != LRAF_OK) return LRAF_EIO;
  for (i = 0; i < n; i++) {
    char num[10][24];
    const char *v[17];
    PGresult *res;
    int k;
    snprintf(num[0], 24, "%" PRId64, r[i]->instructions);
    snprintf(num[1], 24, "%" PRId64, r[i]->native);
    snprintf(num[2], 24, "%" PRId64, r[i]->memory_peak);
    snprintf(num[3], 24, "%d", r[i]->status);
    snprintf(num[4], 24, "%" PRId64, (int64_t)(r[i]->wall * 1e6 + 0.5));
    snprintf(num[5], 24, "%" PRId64, (int64_t)(r[i]->cpu * 1e6 + 0.5));
    snprintf(num[6], 24, "%" PRId64, (int64_t)(r[i]->started * 1e6 + 0.5));
    snprintf(num[7], 24, "%" PRId64, (int64_t)(r[i]->ended * 1e6 + 0.5));
    snprintf(num[8], 24, "%" PRId64, sv_us(r[i]->event_time));
    snprintf(num[9], 24, "%" PRId64, ingest);
    v[0] = r[i]->key;
    v[1] = r[i]->request_id;
    v[2] = r[i]->tenant;
    v[3] = r[i]->handler;
    v[4] = r[i]->model;
    for (k = 0; k < 8; k++) v[5 + k] = num[k];
    v[13] = r[i]->outcome;
    v[14] = num[8];
    v[15] = num[9];
    v[16] = r[i]->note;
    res = run(p, "INSERT INTO lraf_ledger (key, request_id, tenant, handler,"
              " model, instructions, native, memory_peak, status, wall_us,"
              " cpu_us, started_us, ended_us, outcome, event_us, ingest_us,"
              " note) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
              " $12, $13, $14, $15, $16, $17) ON CONFLICT (tenant, key)"
              " DO NOTHING RETURNING 1", 17, v);
    if (!ok(res)) {
      lraf_status code = pg_fail(p, res, err, "cannot insert a record");
      sv_pq.clear(sv_pq.exec(p->c, "ROLLBACK"));
      return code;
    }
    stored[i] = sv_pq.ntuples(res) == 1;
    sv_pq.clear(res);
  }
  if (settle_all(p, r, n, stored, err) != LRAF_OK) {
    sv_pq.clear(sv_pq.exec(p->c, "ROLLBACK"));
    for (i = 0; i < n; i++) stored[i] = 0;
    return LRAF_EIO;
  }
  return exec_simple(p, "COMMIT", err);
}

static lraf_status pg_usage(sv_store *s, const char *tenant, int64_t from,
                            int64_t to, lraf_usage *u, lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  char f[24], t[24];
  const char *v[3] = {tenant, f, t};
  PGresult *res;
  snprintf(f, sizeof f, "%" PRId64, from);
  snprintf(t, sizeof t, "%" PRId64, to);
  res = run(p,
    "SELECT count(*) FILTER (WHERE outcome <> 'adjustment'),"
    " coalesce(sum(instructions), 0),"
    " coalesce(sum(native), 0), count(*) FILTER (WHERE status >= 400),"
    " coalesce(max(memory_peak), 0), coalesce(sum(wall_us), 0),"
    " coalesce(sum(cpu_us), 0) FROM lraf_ledger"
    " WHERE ($1::text IS NULL OR tenant = $1) AND event_us >= $2::bigint"
    " AND event_us < $3::bigint", 3, v);
  if (!ok(res) || sv_pq.ntuples(res) != 1)
    return pg_fail(p, res, err, "cannot read the totals");
  u->requests = strtoll(sv_pq.getvalue(res, 0, 0), NULL, 10);
  u->instructions = strtoll(sv_pq.getvalue(res, 0, 1), NULL, 10);
  u->native = strtoll(sv_pq.getvalue(res, 0, 2), NULL, 10);
  u->errors = strtoll(sv_pq.getvalue(res, 0, 3), NULL, 10);
  u->memory_peak = strtoll(sv_pq.getvalue(res, 0, 4), NULL, 10);
  u->wall = (double)strtoll(sv_pq.getvalue(res, 0, 5), NULL, 10) * 1e-6;
  u->cpu = (double)strtoll(sv_pq.getvalue(res, 0, 6), NULL, 10) * 1e-6;
  sv_pq.clear(res);
  return LRAF_OK;
}

static lraf_status pg_find(sv_store *s, const char *tenant, const char *key,
                           int *found, int64_t *instructions, int *status,
                           lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  const char *v[2] = {tenant, key};
  PGresult *res = run(p, "SELECT instructions, status FROM lraf_ledger"
                      " WHERE tenant = $1 AND key = $2", 2, v);
  *found = 0;
  if (!ok(res)) return pg_fail(p, res, err, "cannot look up a key");
  if (sv_pq.ntuples(res) == 1) {
    *found = 1;
    *instructions = strtoll(sv_pq.getvalue(res, 0, 0), NULL, 10);
    *status = atoi(sv_pq.getvalue(res, 0, 1));
  }
  sv_pq.clear(res);
  return LRAF_OK;
}

/* Run sql, whose parameters are the tenant ($1) and n ($2), for its
   effect; what names it in the error. */
static lraf_status tenant_exec(sv_pg *p, const char *sql, const char *tenant,
                               int64_t n, const char *what,
                               lraf_error *err) {
  char w[24];
  const char *v[2] = {tenant, w};
  PGresult *res;
  snprintf(w, sizeof w, "%" PRId64, n);
  res = run(p, sql, 2, v);
  if (!ok(res)) return pg_fail(p, res, err, what);
  sv_pq.clear(res);
  return LRAF_OK;
}

static lraf_status pg_quota(sv_store *s, const char *tenant, int64_t quota,
                            lraf_error *err) {
  return tenant_exec((sv_pg *)s,
                     "INSERT INTO lraf_quota (tenant, quota) VALUES ($1, $2)"
                     " ON CONFLICT (tenant) DO UPDATE SET quota ="
                     " EXCLUDED.quota", tenant, quota, "cannot set a quota",
                     err);
}

/* One statement, so one transaction: take up to want of what is left. */
static lraf_status pg_lease(sv_store *s, const char *tenant, int64_t want,
                            int64_t *got, lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  char w[24];
  const char *v[2] = {tenant, w};
  PGresult *res;
  *got = 0;
  snprintf(w, sizeof w, "%" PRId64, want);
  res = run(p,
    "WITH o AS (SELECT quota, granted FROM lraf_quota WHERE tenant = $1"
    "           FOR UPDATE)"
    " UPDATE lraf_quota q SET granted = o.granted +"
    "   LEAST($2::bigint, GREATEST(o.quota - o.granted, 0))"
    " FROM o WHERE q.tenant = $1"
    " RETURNING LEAST($2::bigint, GREATEST(o.quota - o.granted, 0))", 2, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot lease a slice");
  if (sv_pq.ntuples(res) == 1)
    *got = strtoll(sv_pq.getvalue(res, 0, 0), NULL, 10);
  sv_pq.clear(res);
  return LRAF_OK;
}

static lraf_status pg_give(sv_store *s, const char *tenant, int64_t n,
                           lraf_error *err) {
  return tenant_exec((sv_pg *)s, "UPDATE lraf_quota SET granted = granted -"
                     " $2::bigint WHERE tenant = $1", tenant, n,
                     "cannot give back a slice", err);
}

/* One statement: the tenant's row is locked by the conditional UPDATE,
   so the check and the taking are atomic across hosts. */
static lraf_status pg_reserve(sv_store *s, const char *tenant,
                              const char *request_id, int64_t n,
                              int64_t quota, int *reserved,
                              int64_t *available, lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  char w[24], t[24];
  const char *v[5] = {tenant, request_id, w, p->holder, t};
  PGresult *res;
  *reserved = 0;
  *available = -1;
  if (quota < 0) return LRAF_OK;
  reconnect(p);
  snprintf(w, sizeof w, "%" PRId64, n);
  snprintf(t, sizeof t, "%" PRId64, (int64_t)(sv_now() * 1e6));
  res = run_again(p,
    "WITH g AS (UPDATE lraf_quota SET granted = granted + $3::bigint"
    "           WHERE tenant = $1 AND quota - granted >= $3::bigint"
    "           RETURNING quota - granted + $3::bigint AS avail),"
    " i AS (INSERT INTO lraf_reservation (tenant, request_id, amount,"
    "       holder, created_us) SELECT $1, $2, $3::bigint, $4, $5::bigint"
    "       FROM g RETURNING 1)"
    " SELECT (SELECT count(*) FROM i), (SELECT avail FROM g)", 5, v);
  if (!ok(res) || sv_pq.ntuples(res) != 1)
    return pg_fail(p, res, err, "cannot reserve");
  *reserved = atoi(sv_pq.getvalue(res, 0, 0)) == 1;
  if (*reserved) *available = strtoll(sv_pq.getvalue(res, 0, 1), NULL, 10);
  sv_pq.clear(res);
  if (*reserved) return LRAF_OK;
  res = run(p, "SELECT GREATEST(quota - granted, 0) FROM lraf_quota"
            " WHERE tenant = $1", 1, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot read a quota");
  if (sv_pq.ntuples(res) == 1)
    *available = strtoll(sv_pq.getvalue(res, 0, 0), NULL, 10);
  sv_pq.clear(res);
  return LRAF_OK;
}

static lraf_status pg_release(sv_store *s, const char *tenant,
                              const char *request_id, lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  const char *v[2] = {tenant, request_id};
  PGresult *res;
  reconnect(p);
  res = run_again(p, "WITH d AS (DELETE FROM lraf_reservation WHERE tenant = $1"
            " AND request_id = $2 RETURNING amount)"
            " UPDATE lraf_quota q SET granted = q.granted - d.amount"
            " FROM d WHERE q.tenant = $1", 2, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot release a reservation");
  sv_pq.clear(res);
  return LRAF_OK;
}

/* Release the reservations of every holder that is gone: its advisory
   lock is free (PostgreSQL drops a session's locks when it ends). */
static lraf_status recover(sv_pg *p, lraf_error *err) {
  const char *v[1] = {p->holder};
  PGresult *res = run(p, "SELECT DISTINCT holder FROM lraf_reservation"
                      " WHERE holder <> $1", 1, v);
  int i, n;
  if (!ok(res)) return pg_fail(p, res, err, "cannot read the reservations");
  n = sv_pq.ntuples(res);
  for (i = 0; i < n; i++) {
    const char *h[1] = {sv_pq.getvalue(res, i, 0)};
    PGresult *r2 = run(p, "SELECT pg_try_advisory_lock(" SV_LOCK_CLASS ","
                       " hashtext($1))", 1, h);
    int gone = ok(r2) && sv_pq.ntuples(r2) == 1 &&
               strcmp(sv_pq.getvalue(r2, 0, 0), "t") == 0;
    sv_pq.clear(r2);
    if (!gone) continue;
    r2 = run(p, "WITH d AS (DELETE FROM lraf_reservation WHERE holder = $1"
             " RETURNING tenant, amount),"
             " s AS (SELECT tenant, sum(amount) AS a FROM d GROUP BY tenant)"
             " UPDATE lraf_quota q SET granted = q.granted - s.a FROM s"
             " WHERE q.tenant = s.tenant", 1, h);
    if (!ok(r2)) {
      sv_pq.clear(res);
      return pg_fail(p, r2, err, "cannot release a host's reservations");
    }
    sv_pq.clear(r2);
    sv_pq.clear(run(p, "SELECT pg_advisory_unlock(" SV_LOCK_CLASS ","
                    " hashtext($1))", 1, h));
  }
  sv_pq.clear(res);
  return LRAF_OK;
}

static lraf_status pg_each(sv_store *s, const char *tenant, int64_t from,
                           int64_t to, sv_each_fn f, void *ud,
                           lraf_error *err) {
  sv_pg *p = (sv_pg *)s;
  char a[24], b[24];
  const char *v[3] = {tenant, a, b};
  PGresult *res;
  lraf_record r;
  int i, n;
  snprintf(a, sizeof a, "%" PRId64, from);
  snprintf(b, sizeof b, "%" PRId64, to);
  res = run(p,
    "SELECT key, request_id, tenant, handler, model, instructions, native,"
    " memory_peak, status, wall_us, cpu_us, started_us, ended_us, outcome,"
    " event_us, ingest_us, note FROM lraf_ledger"
    " WHERE ($1::text IS NULL OR tenant = $1) AND event_us >= $2::bigint"
    " AND event_us < $3::bigint ORDER BY event_us, tenant, key", 3, v);
  if (!ok(res)) return pg_fail(p, res, err, "cannot read the records");
  n = sv_pq.ntuples(res);
  for (i = 0; i < n; i++) {
#define S(k) sv_pq.getvalue(res, i, k)
#define I(k) strtoll(S(k), NULL, 10)
    r.key = S(0);
    r.request_id = S(1);
    r.tenant = S(2);
    r.handler = S(3);
    r.model = S(4);
    r.instructions = I(5);
    r.native = I(6);
    r.memory_peak = I(7);
    r.status = (int)I(8);
    r.wall = (double)I(9) * 1e-6;
    r.cpu = (double)I(10) * 1e-6;
    r.started = (double)I(11) * 1e-6;
    r.ended = (double)I(12) * 1e-6;
    r.outcome = S(13);
    r.event_time = (double)I(14) * 1e-6;
    r.ingest_time = (double)I(15) * 1e-6;
    r.note = S(16);
#undef S
#undef I
    if (f(ud, &r) != 0) break;
  }
  sv_pq.clear(res);
  return LRAF_OK;
}

static void pg_close(sv_store *s) {
  sv_pg *p = (sv_pg *)s;
  sv_pq.finish(p->c);
  free(p);
}

static const sv_store_ops pg_ops = {pg_write, pg_usage, pg_find, pg_quota,
                                    pg_lease, pg_give, pg_reserve,
                                    pg_release, pg_each, pg_close, NULL,
                                    1};

lraf_status sv_pg_open(const char *conninfo, sv_store **out,
                       lraf_error *err) {
  sv_pg *p;
  const char *why;
  int tries;
  if (!sv_dl_pg_load(&why)) return sv_fail(err, LRAF_EIO, "ledger: %s", why);
  p = calloc(1, sizeof *p);
  if (p == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
  p->base.ops = &pg_ops;
  p->c = sv_pq.connectdb(conninfo);
  if (p->c == NULL || sv_pq.status(p->c) != CONNECTION_OK) {
    char m[400];
    sv_fail(err, LRAF_EIO, "cannot connect to the ledger database: %s",
            message(p->c, m, sizeof m));
    pg_close(&p->base);
    return LRAF_EIO;
  }
  sv_pq.clear(sv_pq.exec(p->c, "SET client_min_messages = warning"));
  /* hosts starting together may race on CREATE ... IF NOT EXISTS */
  for (tries = 0; tries < 5; tries++)
    if (exec_simple(p, schema, err) == LRAF_OK) break;
  if (tries == 5) {
    pg_close(&p->base);
    return LRAF_EIO;
  }
  {
    unsigned char b[16];
    int i;
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
      pg_close(&p->base);
      return sv_fail(err, LRAF_EIO, "ledger: no random holder id");
    }
    for (i = 0; i < 16; i++) snprintf(p->holder + 2 * i, 3, "%02x", b[i]);
  }
  if (hold(p, err) != LRAF_OK || recover(p, err) != LRAF_OK) {
    pg_close(&p->base);
    return LRAF_EIO;
  }
  *out = &p->base;
  return LRAF_OK;
}
