/*
** test_sv_sqlite.c - the SQLite store of the ledger
** (service/sv_sqlite.c) through the public API, on files in a
** temporary directory:
**   - files of schema 0 (keys unique over all tenants) and 2 (no
**     outcome, event or ingest time) are migrated to 3 when opened,
**     their records kept, the outcome from the status, the event time
**     the start, the ingest time the end; a file of a newer schema, or
**     one that is not a database, is refused naming it and why;
**   - closing checkpoints the write-ahead log: a copy of the database
**     file alone holds every record;
**   - a reservation left in the file by a store that stopped without
**     settling it is released when the file is opened again;
**   - each record is read back whole, with its ingest time set by the
**     store.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "lraf.h"
#include "tutil_serve.h"
#include "tutil_sh.h"
#include "tutil_sqlite.h"

static tutil_sh sh;

/* The columns of schemas 0 and 2 (2: the key unique per tenant). */
#define OLD_COLUMNS \
  " request_id TEXT NOT NULL, tenant TEXT NOT NULL, handler TEXT NOT NULL," \
  " model TEXT NOT NULL, instructions INTEGER NOT NULL," \
  " native INTEGER NOT NULL, memory_peak INTEGER NOT NULL," \
  " status INTEGER NOT NULL, wall_us INTEGER NOT NULL," \
  " cpu_us INTEGER NOT NULL, started_us INTEGER NOT NULL," \
  " ended_us INTEGER NOT NULL"

static const struct old_file {
  const char *name, *sql;
} old_files[] = {
  {"v0.db",
   "CREATE TABLE lraf_ledger (key TEXT PRIMARY KEY NOT NULL," OLD_COLUMNS
   ");"
   "CREATE INDEX lraf_ledger_tenant ON lraf_ledger(tenant);"},
  {"v2.db",
   "CREATE TABLE lraf_ledger (key TEXT NOT NULL," OLD_COLUMNS
   ", PRIMARY KEY (tenant, key));"
   "PRAGMA user_version = 2;"},
};

/* Three records of tenant a: statuses 200, 429, 500. */
#define OLD_ROWS \
  "INSERT INTO lraf_ledger VALUES ('k1', 'r1', 'a', 'h', 'm'," \
  " 10, 0, 0, 200, 1, 1, 5, 6);" \
  "INSERT INTO lraf_ledger VALUES ('k2', 'r2', 'a', 'h', 'm'," \
  " 20, 0, 0, 429, 1, 1, 7, 8);" \
  "INSERT INTO lraf_ledger VALUES ('k3', 'r3', 'a', 'h', 'm'," \
  " 30, 0, 0, 500, 1, 1, 9, 10);"

/* A file made with sql, at path; "sqlite:PATH" in spec. */
static void make_file(const char *name, const char *sql, char *path,
                      size_t psize, char *spec, size_t ssize) {
  sqlite3 *db;
  tutil_ledger_fresh(sh.dir, name, path, psize, spec, ssize);
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
    fail_msg("%s: %s", name, sqlite3_errmsg(db));
  sqlite3_close(db);
}

static void record(lraf_record *r, const char *key, const char *tenant,
                   int64_t n) {
  memset(r, 0, sizeof *r);
  r->key = key;
  r->request_id = key;
  r->tenant = tenant;
  r->handler = "h";
  r->model = "m";
  r->instructions = n;
  r->status = 200;
  r->started = 1700000000.0;
  r->ended = 1700000000.5;
  r->event_time = 1700000000.25;
}

static void test_migrations(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof old_files / sizeof old_files[0]; i++) {
    char path[256], spec[280], sql[2048];
    lraf_ledger *l;
    lraf_error err;
    lraf_usage u;
    lraf_record r;
    int stored;
    snprintf(sql, sizeof sql, "%s" OLD_ROWS, old_files[i].sql);
    make_file(old_files[i].name, sql, path, sizeof path, spec, sizeof spec);
    if (lraf_ledger_open(spec, &l, &err) != LRAF_OK)
      fail_msg("%s: %s", old_files[i].name, err.message);
    assert_int_equal(lraf_ledger_usage(l, "a", &u, &err), LRAF_OK);
    assert_int_equal(u.requests, 3);
    assert_int_equal(u.instructions, 60);
    /* keys are per tenant now */
    record(&r, "k1", "b", 5);
    assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
    assert_int_equal(stored, 1);
    lraf_ledger_close(l);
    assert_int_equal(tutil_sqlite_int(path, "PRAGMA user_version"), 3);
    if (tutil_sqlite_int(path, "SELECT count(*) FROM lraf_ledger WHERE"
                         " tenant = 'a' AND ((key = 'k1' AND outcome = 'ok'"
                         " AND event_us = 5 AND ingest_us = 6) OR"
                         " (key = 'k2' AND outcome = 'quota') OR"
                         " (key = 'k3' AND outcome = 'error'))") != 3)
      fail_msg("%s: the migrated records are not as they were",
               old_files[i].name);
  }
}

static void test_refused_files(void **state) {
  static const struct {
    const char *name, *sql, *says;
  } bad[] = {
    {"v9.db", "PRAGMA user_version = 9;", "schema version 9 is newer"},
    {"text.db", NULL, "file is not a database"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char path[256], spec[280];
    lraf_ledger *l = NULL;
    lraf_error err;
    if (bad[i].sql != NULL) {
      make_file(bad[i].name, bad[i].sql, path, sizeof path, spec,
                sizeof spec);
    } else {
      assert_int_equal(tutil_sh_write(&sh, bad[i].name,
                                      "not a database, a text file\n"), 0);
      snprintf(path, sizeof path, "%s/%s", sh.dir, bad[i].name);
      snprintf(spec, sizeof spec, "sqlite:%s", path);
    }
    memset(&err, 0, sizeof err);
    assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_EIO);
    assert_null(l);
    if (strstr(err.message, bad[i].says) == NULL ||
        strstr(err.message, bad[i].name) == NULL)
      fail_msg("%s: '%s'", bad[i].name, err.message);
  }
}

static void test_close_checkpoints(void **state) {
  char path[256], spec[280], copy[300];
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  int i;
  (void)state;
  tutil_ledger_fresh(sh.dir, "wal.db", path, sizeof path, spec, sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  for (i = 0; i < 20; i++) {
    char key[16];
    snprintf(key, sizeof key, "w%d", i);
    record(&r, key, "t", i + 1);
    assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
  }
  lraf_ledger_close(l);
  /* the file alone, without its -wal */
  snprintf(copy, sizeof copy, "%s/copy.db", sh.dir);
  assert_int_equal(tutil_sh_run(&sh, "cp '%s' '%s'", path, copy), 0);
  assert_int_equal(tutil_sqlite_int(copy, "SELECT count(*) FROM lraf_ledger"),
                   20);
  assert_int_equal(tutil_sqlite_int(copy, "SELECT sum(instructions) FROM"
                                    " lraf_ledger"), 210);
}

static void test_reservation_left(void **state) {
  char path[256], spec[280];
  lraf_ledger *l;
  lraf_error err;
  int64_t avail;
  (void)state;
  tutil_ledger_fresh(sh.dir, "left.db", path, sizeof path, spec,
                     sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "t", "r1", 700, 1000, &avail,
                                       &err), LRAF_OK);
  assert_int_equal(avail, 1000);
  assert_int_equal(lraf_ledger_reserve(l, "t", "r2", 400, 1000, &avail,
                                       &err), LRAF_EQUOTA);
  assert_int_equal(avail, 300);
  /* closed without settling r1 (its request never recorded) */
  lraf_ledger_close(l);
  assert_int_equal(tutil_sqlite_int(path, "SELECT sum(amount) FROM"
                                    " lraf_reservation"), 700);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(tutil_sqlite_int(path, "SELECT count(*) FROM"
                                    " lraf_reservation"), 0);
  assert_int_equal(lraf_ledger_reserve(l, "t", "r2", 1000, 1000, &avail,
                                       &err), LRAF_OK);
  lraf_ledger_close(l);
}

/* The record read back, field for field. */
static int check_record(void *ud, const lraf_record *r) {
  int *n = ud;
  (*n)++;
  assert_string_equal(r->key, "whole");
  assert_string_equal(r->request_id, "rid");
  assert_string_equal(r->tenant, "t");
  assert_string_equal(r->handler, "handler");
  assert_string_equal(r->model, "model-1");
  assert_string_equal(r->outcome, "memory");
  assert_string_equal(r->note, "a note");
  assert_int_equal(r->instructions, 1234);
  assert_int_equal(r->native, 34);
  assert_int_equal(r->memory_peak, 5678);
  assert_int_equal(r->status, 507);
  assert_true(fabs(r->wall - 0.25) < 1e-6 && fabs(r->cpu - 0.125) < 1e-6);
  assert_true(fabs(r->started - 1700000000.5) < 1e-6);
  assert_true(fabs(r->ended - 1700000001.0) < 1e-6);
  assert_true(fabs(r->event_time - 1700000000.75) < 1e-6);
  assert_true(r->ingest_time > 1700000000.0);
  return 0;
}

static void test_record_whole(void **state) {
  char path[256], spec[280];
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  int n = 0;
  (void)state;
  tutil_ledger_fresh(sh.dir, "whole.db", path, sizeof path, spec,
                     sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  memset(&r, 0, sizeof r);
  r.key = "whole";
  r.request_id = "rid";
  r.tenant = "t";
  r.handler = "handler";
  r.model = "model-1";
  r.outcome = "memory";
  r.note = "a note";
  r.instructions = 1234;
  r.native = 34;
  r.memory_peak = 5678;
  r.status = 507;
  r.wall = 0.25;
  r.cpu = 0.125;
  r.started = 1700000000.5;
  r.ended = 1700000001.0;
  r.event_time = 1700000000.75;
  r.ingest_time = 5;   /* the store's to set */
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_each(l, "t", -HUGE_VAL, HUGE_VAL,
                                    check_record, &n, &err), LRAF_OK);
  assert_int_equal(n, 1);
  lraf_ledger_close(l);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "sv-sqlite");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_migrations),
    cmocka_unit_test(test_refused_files),
    cmocka_unit_test(test_close_checkpoints),
    cmocka_unit_test(test_reservation_left),
    cmocka_unit_test(test_record_whole),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
