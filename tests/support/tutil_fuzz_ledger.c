/*
** tutil_fuzz_ledger.c - what fuzz_ledger does with one input: the bytes
** decoded into operations on an SQLite ledger in a file of its own
** (append records of odd strings and figures, usage, find, close and
** reopen), checked against a model of what was accepted:
**   - a record is refused (with a message) exactly when it is invalid;
**   - the first accepted record of a tenant's key is the one stored,
**     field for field (read back from the table), a duplicate is never
**     counted and is reported (lraf_ledger_record's *stored 0), and two
**     tenants' records of one key are both stored;
**   - the totals equal the sums of the accepted records (or are refused
**     with a message when a sum leaves int64);
**   - records appended from several threads at once (one group commit)
**     are answered each as alone, and of those with one new key the
**     table holds exactly one, whole;
**   - nothing is lost across a close and reopen.
*/
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lraf.h"
#include "tutil_fuzz.h"

#define MAXREC 48      /* records appended per input at most */
#define NPOOL 8        /* strings kept for reuse (duplicate keys) */

typedef struct rec {
  char *s[5];          /* key, request id, tenant, handler, model */
  int64_t n[3];        /* instructions, native, memory peak */
  int status;
  double t[4];         /* wall, cpu, started, ended */
} rec;

typedef struct fz {
  const uint8_t *p, *end;
  rec stored[MAXREC];  /* the model: first accepted record of each key */
  int nstored, appends;
  char *pool[NPOOL];   /* strings seen, for reuse */
  int npool;
  lraf_ledger *l;
  char path[600], spec[620];
  char *why;
  size_t n;
} fz;

static int broken(fz *z, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (z->why != NULL && z->n > 0) vsnprintf(z->why, z->n, fmt, ap);
  va_end(ap);
  return -1;
}

static unsigned byte(fz *z) { return z->p < z->end ? *z->p++ : 0; }

static uint64_t raw8(fz *z) {
  uint64_t v = 0;
  int i;
  for (i = 0; i < 8; i++) v = v << 8 | byte(z);
  return v;
}

/* A string (malloc'ed; NULL for "none"): from the input (up to its first
   NUL), reused from the pool, very long, or none. */
static char *take_string(fz *z) {
  unsigned b = byte(z);
  char *s;
  size_t len, i;
  if (b == 0xff) return NULL;
  if (b >= 0xf8) {
    if (z->npool == 0) return strdup("k");
    return strdup(z->pool[(b - 0xf8) % (unsigned)z->npool]);
  }
  if (b >= 0xf0) {              /* long: 1..64 KiB of one input byte */
    len = 1 + ((size_t)(b - 0xf0) << 13) + byte(z) * 31u;
    s = malloc(len + 1);
    if (s == NULL) return NULL;
    memset(s, (int)(byte(z) | 1), len);
    s[len] = '\0';
  } else {
    len = b % 40;
    s = malloc(len + 1);
    if (s == NULL) return NULL;
    for (i = 0; i < len; i++) s[i] = (char)byte(z);
    s[len] = '\0';
  }
  if (z->npool < NPOOL) z->pool[z->npool++] = strdup(s);
  else {
    free(z->pool[b % NPOOL]);
    z->pool[b % NPOOL] = strdup(s);
  }
  return s;
}

static int64_t take_count(fz *z) {
  unsigned b = byte(z);
  switch (b) {
    case 0: return 0;
    case 1: return -1;
    case 2: return INT64_MAX;
    case 3: return INT64_MIN;
    case 4: return (int64_t)1 << 53;
    case 5: return INT64_MAX / 2 + 1;
    case 6: case 7: return (int64_t)raw8(z);
    default: return (int64_t)(b * 997u);
  }
}

static double take_time(fz *z) {
  unsigned b = byte(z);
  uint64_t u;
  double d;
  switch (b) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -1.0;
    case 4: return 1e300;
    case 5: return 9.3e12;
    case 6: case 7:
      u = raw8(z);
      memcpy(&d, &u, sizeof d);
      return d;
    default: return 1.7e9 + (double)(b * 1237u) * 1e-6;
  }
}

/* What the ledger's documentation says a record must be. */
static int time_ok(double t) { return isfinite(t) && fabs(t) <= 9e12; }

static int valid(const rec *r) {
  int i;
  for (i = 0; i < 5; i++)
    if (r->s[i] == NULL) return 0;
  if (r->s[0][0] == '\0') return 0;
  for (i = 0; i < 3; i++)
    if (r->n[i] < 0) return 0;
  for (i = 0; i < 4; i++)
    if (!time_ok(r->t[i])) return 0;
  return r->t[0] >= 0 && r->t[1] >= 0;
}

static void rec_free(rec *r) {
  int i;
  for (i = 0; i < 5; i++) free(r->s[i]);
}

/* A time in microseconds, to the nearest (half away from zero, so -1 s
   is -1,000,000 us). */
static int64_t us(double s) { return (int64_t)llround(s * 1e6); }

static const rec *stored(const fz *z, const char *tenant, const char *key) {
  int i;
  for (i = 0; i < z->nstored; i++)
    if (strcmp(z->stored[i].s[0], key) == 0 &&
        strcmp(z->stored[i].s[2], tenant) == 0)
      return &z->stored[i];
  return NULL;
}

static void decode(fz *z, rec *r) {
  int i;
  memset(r, 0, sizeof *r);
  for (i = 0; i < 5; i++) r->s[i] = take_string(z);
  for (i = 0; i < 3; i++) r->n[i] = take_count(z);
  r->status = (int)(int32_t)(byte(z) < 0x80 ? 100 + byte(z) * 2u
                                            : (uint32_t)raw8(z));
  for (i = 0; i < 4; i++) r->t[i] = take_time(z);
}

static void to_record(const rec *r, lraf_record *lr) {
  memset(lr, 0, sizeof *lr);
  lr->key = r->s[0];
  lr->request_id = r->s[1];
  lr->tenant = r->s[2];
  lr->handler = r->s[3];
  lr->model = r->s[4];
  lr->instructions = r->n[0];
  lr->native = r->n[1];
  lr->memory_peak = r->n[2];
  lr->status = r->status;
  lr->wall = r->t[0];
  lr->cpu = r->t[1];
  lr->started = r->t[2];
  lr->ended = r->t[3];
}

/* Whether append's answer st fits the record: refused (with a message)
   exactly when it is invalid.  0, or -1 with why filled. */
static int answer_ok(fz *z, const rec *r, lraf_status st,
                     const lraf_error *err) {
  int ok = valid(r);
  if (st == LRAF_OK && !ok)
    return broken(z, "append #%d: an invalid record was accepted",
                  z->appends);
  if (st != LRAF_OK && ok)
    return broken(z, "append #%d: a valid record was refused: %s (%s)",
                  z->appends, lraf_status_name(st), err->message);
  if (st != LRAF_OK && err->message[0] == '\0')
    return broken(z, "append #%d: refused without a message", z->appends);
  return 0;
}

static int op_append(fz *z) {
  rec r;
  lraf_record lr;
  lraf_error err;
  lraf_status st;
  int rc, put = -1;
  decode(z, &r);
  to_record(&r, &lr);
  err.message[0] = '\0';
  st = lraf_ledger_record(z->l, &lr, &put, &err);
  z->appends++;
  rc = answer_ok(z, &r, st, &err);
  if (rc == 0 && st == LRAF_OK &&
      put != (stored(z, r.s[2], r.s[0]) == NULL))
    rc = broken(z, "append #%d: *stored is %d for a %s key", z->appends,
                put, put ? "stored" : "new");
  if (rc != 0 || st != LRAF_OK || stored(z, r.s[2], r.s[0]) != NULL) {
    rec_free(&r);   /* refused, or a retry: the first record stays */
    return rc;
  }
  z->stored[z->nstored++] = r;
  return 0;
}

/* ---- appends from several threads at once (one group commit) ---- */

typedef struct job {
  lraf_ledger *l;
  lraf_record r;
  lraf_status st;
  lraf_error err;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  j->err.message[0] = '\0';
  j->st = lraf_ledger_append(j->l, &j->r, &j->err);
  return NULL;
}

/* Whether the row at st (SELECT * FROM lraf_ledger) holds r. */
static int same_row(sqlite3_stmt *st, const rec *r) {
  int i;
  for (i = 0; i < 5; i++) {
    const unsigned char *t = sqlite3_column_text(st, i);
    if (t == NULL || strcmp((const char *)t, r->s[i]) != 0) return 0;
  }
  for (i = 0; i < 3; i++)
    if (sqlite3_column_int64(st, 5 + i) != r->n[i]) return 0;
  if (sqlite3_column_int(st, 8) != r->status) return 0;
  for (i = 0; i < 4; i++)
    if (sqlite3_column_int64(st, 9 + i) != us(r->t[i])) return 0;
  return 1;
}

/* Make the database hold every record appended: the ledger's journal
   may still hold some, and a sum waits until the database has every one
   (its own outcome, a sum past int64 refused, does not matter here). */
static void settle(fz *z) {
  lraf_usage u;
  lraf_error err;
  lraf_ledger_usage(z->l, NULL, &u, &err);
}

/* Which of the n candidates (one key) the table holds: its index, -1
   for none. */
static int which_stored(fz *z, rec *const *cand, int n) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int i, found = -1;
  settle(z);
  if (sqlite3_open_v2(z->path, &db, SQLITE_OPEN_READONLY, NULL) ==
          SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT * FROM lraf_ledger WHERE key = ?1 AND"
                         " tenant = ?2", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, cand[0]->s[0], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, cand[0]->s[2], -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      for (i = 0; i < n && found < 0; i++)
        if (same_row(st, cand[i])) found = i;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return found;
}

/* 2 to 4 records appended from as many threads at once: each answer as
   for one append; of the accepted records with one new key, exactly one
   is stored (whichever came first), and it is stored whole. */
static int op_concurrent(fz *z) {
  rec r[4];
  job j[4];
  pthread_t th[4];
  int k = 2 + (int)(byte(z) % 3), i, m, rc = 0, started[4];
  for (i = 0; i < k; i++) {
    decode(z, &r[i]);
    j[i].l = z->l;
    to_record(&r[i], &j[i].r);
  }
  for (i = 0; i < k; i++)
    started[i] = pthread_create(&th[i], NULL, run_job, &j[i]) == 0;
  for (i = 0; i < k; i++) {
    if (started[i]) pthread_join(th[i], NULL);
    else run_job(&j[i]);
  }
  for (i = 0; i < k; i++) {
    z->appends++;
    if (rc == 0) rc = answer_ok(z, &r[i], j[i].st, &j[i].err);
  }
  for (i = 0; rc == 0 && i < k; i++) {
    rec *cand[4];
    int n = 0, w;
    if (j[i].st != LRAF_OK || r[i].s[0] == NULL || r[i].s[2] == NULL ||
        stored(z, r[i].s[2], r[i].s[0]) != NULL)
      continue;
    for (m = i; m < k; m++)
      if (j[m].st == LRAF_OK && r[m].s[0] != NULL && r[m].s[2] != NULL &&
          strcmp(r[m].s[0], r[i].s[0]) == 0 &&
          strcmp(r[m].s[2], r[i].s[2]) == 0)
        cand[n++] = &r[m];
    w = n == 1 ? 0 : which_stored(z, cand, n);
    if (w < 0) {
      rc = broken(z, "%d records of one tenant's key appended at once: "
                  "the table holds none of them whole", n);
      break;
    }
    z->stored[z->nstored++] = *cand[w];
    memset(cand[w], 0, sizeof *cand[w]);   /* the model owns its strings */
  }
  for (i = 0; i < k; i++) rec_free(&r[i]);
  return rc;
}
/* The totals of tenant (every tenant when NULL) against the model. */
static int check_usage(fz *z, const char *tenant) {
  __int128 req = 0, ins = 0, nat = 0, errs = 0, wall = 0, cpu = 0;
  int64_t peak = 0;
  const __int128 lo = INT64_MIN, hi = INT64_MAX;
  lraf_usage u;
  lraf_error err;
  lraf_status st;
  int i, over;
  for (i = 0; i < z->nstored; i++) {
    const rec *r = &z->stored[i];
    if (tenant != NULL && strcmp(r->s[2], tenant) != 0) continue;
    req++;
    ins += r->n[0];
    nat += r->n[1];
    errs += r->status >= 400;
    if (r->n[2] > peak) peak = r->n[2];
    wall += us(r->t[0]);
    cpu += us(r->t[1]);
  }
  over = ins > hi || nat > hi || wall > hi || cpu > hi || ins < lo ||
         nat < lo || wall < lo || cpu < lo;
  err.message[0] = '\0';
  st = lraf_ledger_usage(z->l, tenant, &u, &err);
  if (st != LRAF_OK) {
    if (!over)
      return broken(z, "usage of %s refused: %s (%s)",
                    tenant ? "a tenant" : "all", lraf_status_name(st),
                    err.message);
    if (err.message[0] == '\0')
      return broken(z, "usage refused without a message");
    return 0;
  }
  if (over)
    return broken(z, "usage of %s: a sum beyond int64 was given as %lld",
                  tenant ? "a tenant" : "all", (long long)u.instructions);
  if (u.requests != (int64_t)req || u.instructions != (int64_t)ins ||
      u.native != (int64_t)nat || u.errors != (int64_t)errs ||
      u.memory_peak != peak || u.wall != (double)(int64_t)wall * 1e-6 ||
      u.cpu != (double)(int64_t)cpu * 1e-6)
    return broken(z, "usage of %s: %lld requests, %lld instructions, %lld "
                  "native, %lld errors; the records say %lld, %lld, %lld, "
                  "%lld", tenant ? "a tenant" : "all", (long long)u.requests,
                  (long long)u.instructions, (long long)u.native,
                  (long long)u.errors, (long long)req, (long long)ins,
                  (long long)nat, (long long)errs);
  return 0;
}

static int op_usage(fz *z) {
  unsigned b = byte(z);
  char *t;
  int rc;
  if (b % 3 == 0) return check_usage(z, NULL);
  if (b % 3 == 1 && z->nstored > 0)
    return check_usage(z, z->stored[b % (unsigned)z->nstored].s[2]);
  t = take_string(z);
  rc = t != NULL ? check_usage(z, t) : 0;
  free(t);
  return rc;
}

static int op_find(fz *z) {
  unsigned b = byte(z);
  char *key = take_string(z), *tenant;
  const rec *r;
  lraf_error err;
  lraf_status st;
  int found = -1, status = -1;
  int64_t n = -1;
  /* a stored record's tenant, or any string */
  tenant = b % 2 == 0 && z->nstored > 0
               ? strdup(z->stored[b / 2 % (unsigned)z->nstored].s[2])
               : take_string(z);
  err.message[0] = '\0';
  st = lraf_ledger_find(z->l, tenant, key, &found, &n, &status, &err);
  if (key == NULL || key[0] == '\0' || tenant == NULL) {
    free(key);
    free(tenant);
    if (st == LRAF_OK) return broken(z, "find accepted no tenant or key");
    return err.message[0] ? 0 : broken(z, "find refused without a message");
  }
  r = stored(z, tenant, key);
  free(key);
  free(tenant);
  if (st != LRAF_OK)
    return broken(z, "find failed: %s", err.message);
  if (found != (r != NULL))
    return broken(z, "find says %s a key that was %s", found ? "found" :
                  "not found", r ? "stored" : "never stored");
  if (r != NULL && (n != r->n[0] || status != r->status))
    return broken(z, "find gives %lld instructions and status %d for a "
                  "record of %lld and %d", (long long)n, status,
                  (long long)r->n[0], r->status);
  return 0;
}

static int reopen(fz *z) {
  lraf_error err;
  lraf_ledger_close(z->l);
  z->l = NULL;
  if (lraf_ledger_open(z->spec, &z->l, &err) != LRAF_OK)
    return broken(z, "reopening the ledger: %s", err.message);
  return 0;
}

static int text_is(sqlite3_stmt *st, int col, const char *want) {
  const unsigned char *t = sqlite3_column_text(st, col);
  return t != NULL && strcmp((const char *)t, want) == 0;
}

/* Every row of the table against the model, read by a connection of
   our own. */
static int check_table(fz *z) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rows = 0, rc = 0, step;
  settle(z);
  if (sqlite3_open_v2(z->path, &db, SQLITE_OPEN_READONLY, NULL) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(db, "SELECT * FROM lraf_ledger", -1, &st, NULL) !=
          SQLITE_OK) {
    rc = broken(z, "cannot read the table: %s", sqlite3_errmsg(db));
    goto done;
  }
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const unsigned char *key = sqlite3_column_text(st, 0);
    const unsigned char *tenant = sqlite3_column_text(st, 2);
    const rec *r = key != NULL && tenant != NULL
                       ? stored(z, (const char *)tenant, (const char *)key)
                       : NULL;
    int i;
    rows++;
    if (r == NULL) {
      rc = broken(z, "the table holds a record never accepted");
      goto done;
    }
    for (i = 1; i < 5; i++)
      if (!text_is(st, i, r->s[i])) {
        rc = broken(z, "column %d of a record differs", i + 1);
        goto done;
      }
    for (i = 0; i < 3; i++)
      if (sqlite3_column_int64(st, 5 + i) != r->n[i]) {
        rc = broken(z, "column %d of a record differs", i + 6);
        goto done;
      }
    if (sqlite3_column_int(st, 8) != r->status) {
      rc = broken(z, "the status of a record differs");
      goto done;
    }
    for (i = 0; i < 4; i++)
      if (sqlite3_column_int64(st, 9 + i) != us(r->t[i])) {
        rc = broken(z, "column %d (microseconds) of a record differs",
                    i + 10);
        goto done;
      }
  }
  if (step != SQLITE_DONE)
    rc = broken(z, "reading the table: %s", sqlite3_errmsg(db));
  else if (rows != z->nstored)
    rc = broken(z, "the table holds %d records, %d were accepted", rows,
                z->nstored);
done:
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}

static int run(fz *z) {
  int rc = 0;
  while (rc == 0 && z->p < z->end) {
    switch (byte(z) % 8) {
      case 0: case 1:
        if (z->appends < MAXREC) rc = op_append(z);
        break;
      case 2:
        if (z->appends + 4 <= MAXREC) rc = op_concurrent(z);
        break;
      case 3: rc = op_usage(z); break;
      case 4: case 5: rc = op_find(z); break;
      case 6: rc = reopen(z); break;
      default: rc = check_table(z); break;
    }
  }
  if (rc == 0) rc = check_usage(z, NULL);
  if (rc == 0) rc = reopen(z);
  if (rc == 0) rc = check_usage(z, NULL);
  if (rc == 0) rc = check_table(z);
  return rc;
}

static void remove_db(const char *path) {
  char p[640];
  unlink(path);
  snprintf(p, sizeof p, "%s-wal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", path);
  unlink(p);
}

int tutil_fuzz_ledger(const char *dir, const uint8_t *data, size_t size,
                      char *why, size_t n) {
  static fz z;
  lraf_error err;
  int rc, i;
  memset(&z, 0, sizeof z);
  z.p = data;
  z.end = data + size;
  z.why = why;
  z.n = n;
  snprintf(z.path, sizeof z.path, "%s/fuzz-ledger.db", dir);
  snprintf(z.spec, sizeof z.spec, "sqlite:%s", z.path);
  remove_db(z.path);
  if (lraf_ledger_open(z.spec, &z.l, &err) != LRAF_OK)
    return broken(&z, "lraf_ledger_open: %s", err.message);
  rc = run(&z);
  lraf_ledger_close(z.l);
  for (i = 0; i < z.nstored; i++) rec_free(&z.stored[i]);
  for (i = 0; i < z.npool; i++) free(z.pool[i]);
  remove_db(z.path);
  return rc;
}
