/*
** test_sv_lease_hosts.c - leases (service/sv_lease.c) of one tenant
** quota shared by two hosts on the PostgreSQL ledger.  The test starts
** a throwaway PostgreSQL server (initdb and pg_ctl of Debian's
** postgresql package) in a temporary directory,
** listening on a Unix socket there only, as the user nobody when run
** as root; when that cannot be done it says why and is skipped.  Two
** `lraf serve` hosts share the server and the tenant's quota Q, leasing
** slices of S; 8 clients send requests to both until the quota is
** spent.
**   - the records' total is at most Q + 2 x S (the documented bound),
**     and at least Q - 2 x S (hosts give back what they did not use);
**   - what the hosts kept of the quota (after giving back) is at most
**     Q and at most the records' total, which equals the responses'
**     X-Lraf-Instructions;
**   - every response has its record, and no other record exists;
**   - a table of an older lraf (keys unique over all tenants) gets the
**     per-tenant primary key when the hosts open it, its rows kept;
**   - a restarted host refuses the spent tenant before its request runs;
**   - with reservations (X-Lraf-Max-Instructions on every request, a
**     runaway handler among them), the same two hosts and clients end
**     with the tenant's records at most its quota, exactly, and every
**     reservation settled: what the hosts took equals the records;
**     the overshoot of both ways is printed side by side;
**   - a host killed while a reserved request runs leaves its
**     reservation; the next host to open the ledger releases it (its
**     advisory lock is free);
**   - when the database goes away under a running host, its requests
**     get 503 ("not recorded") and the host still stops cleanly.
** Traffic goes to 127.0.0.1 only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "tutil_pg.h"
#include "tutil_serve.h"

#define HANDLERS "tests/system/serve"
#define QUOTA 2000000
#define SLICE 100000
#define CLIENTS 8
#define MAX_PER_CLIENT 600

static tutil_pg pg;          /* the PostgreSQL server */
static int ports[2];
static int64_t sent_count[CLIENTS], responses[CLIENTS];
static const char *tenant = "shared";
static int reserving;        /* clients send X-Lraf-Max-Instructions */

static void *client(void *arg) {
  int id = (int)(intptr_t)arg, i, refused = 0;
  int fd[2];
  fd[0] = tutil_http_connect(ports[0]);
  fd[1] = tutil_http_connect(ports[1]);
  for (i = 0; i < MAX_PER_CLIENT && refused < 10; i++) {
    char extra[128], v[32];
    tutil_http r;
    int h = (i + id) & 1;
    if (fd[h] < 0) break;
    int spin = reserving && i % 5 == 4;
    snprintf(extra, sizeof extra, "X-Tenant: %s\r\nIdempotency-Key: "
             "p%d-%d\r\n%s", tenant, id, i,
             !reserving ? "" : spin ? "X-Lraf-Max-Instructions: 7777\r\n"
                                   : "X-Lraf-Max-Instructions: 20000\r\n");
    if (tutil_http_do(fd[h], "GET", spin ? "/spin" : "/hello?n=1000", extra,
                      NULL, &r) != 0) {
      tutil_http_free(&r);
      break;
    }
    responses[id]++;
    refused = r.status == 429 ? refused + 1 : 0;
    if (tutil_http_header(&r, "X-Lraf-Instructions", v, sizeof v))
      sent_count[id] += strtoll(v, NULL, 10);
    tutil_http_free(&r);
  }
  if (fd[0] >= 0) close(fd[0]);
  if (fd[1] >= 0) close(fd[1]);
  return NULL;
}

static int64_t pg_int(PGconn *c, const char *sql) {
  PGresult *res = PQexec(c, sql);
  int64_t v = -1;
  if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
    v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
  PQclear(res);
  return v;
}

static void test_shared_quota(void **state) {
  const char *why;
  char log[2][128], quota[64], slice[32];
  const char *args[] = {"--port", "0", "--workers", "2", "--ledger",
                        pg.conninfo, "--quota", quota, "--slice", slice,
                        HANDLERS, NULL};
  pid_t pid[2];
  pthread_t th[CLIENTS];
  int64_t sent = 0, nresp = 0, used, granted, rows, lease_over;
  int i, st;
  PGconn *c;
  (void)state;
  why = tutil_pg_start(&pg);
  if (why != NULL) {
    printf("   PostgreSQL test SKIPPED: %s\n", why);
    skip();
  }
  snprintf(quota, sizeof quota, "shared=%d", QUOTA);
  snprintf(slice, sizeof slice, "%d", SLICE);
  /* a ledger of an older lraf: its key unique over all tenants */
  c = PQconnectdb(pg.conninfo);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  {
    PGresult *res = PQexec(c,
      "CREATE TABLE lraf_ledger (key TEXT PRIMARY KEY NOT NULL,"
      " request_id TEXT NOT NULL, tenant TEXT NOT NULL,"
      " handler TEXT NOT NULL, model TEXT NOT NULL,"
      " instructions BIGINT NOT NULL, native BIGINT NOT NULL,"
      " memory_peak BIGINT NOT NULL, status INTEGER NOT NULL,"
      " wall_us BIGINT NOT NULL, cpu_us BIGINT NOT NULL,"
      " started_us BIGINT NOT NULL, ended_us BIGINT NOT NULL);"
      "INSERT INTO lraf_ledger VALUES ('old-1', 'old-1', 'legacy', 'h',"
      " 'm', 77, 0, 0, 200, 1, 1, 1, 2)");
    assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
    PQclear(res);
  }
  PQfinish(c);
  for (i = 0; i < 2; i++) {
    snprintf(log[i], sizeof log[i], "%s/serve%d.log", pg.dir, i);
    pid[i] = tutil_serve_start(args, log[i], &ports[i]);
    assert_true(pid[i] > 0);
  }
  for (i = 0; i < CLIENTS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, client,
                                    (void *)(intptr_t)i), 0);
  for (i = 0; i < CLIENTS; i++) pthread_join(th[i], NULL);
  for (i = 0; i < 2; i++) {
    st = tutil_serve_stop(pid[i], SIGTERM);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  for (i = 0; i < CLIENTS; i++) {
    sent += sent_count[i];
    nresp += responses[i];
  }
  c = PQconnectdb(pg.conninfo);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  used = pg_int(c, "SELECT coalesce(sum(instructions), 0) FROM lraf_ledger"
                   " WHERE tenant = 'shared'");
  rows = pg_int(c, "SELECT count(*) FROM lraf_ledger WHERE tenant <> "
                   "'legacy'");
  assert_int_equal(pg_int(c, "SELECT instructions FROM lraf_ledger WHERE "
                             "tenant = 'legacy'"), 77);
  /* migrated: the outcome from the status, event and ingest times from
     the start and the end; new records carry their own */
  assert_int_equal(pg_int(c, "SELECT count(*) FROM lraf_ledger WHERE "
                             "tenant = 'legacy' AND outcome = 'ok' AND "
                             "event_us = 1 AND ingest_us = 2"), 1);
  assert_int_equal(pg_int(c, "SELECT count(*) FROM lraf_ledger WHERE "
                             "tenant <> 'legacy' AND (model = '' OR "
                             "outcome NOT IN ('ok', 'quota') OR "
                             "abs(event_us - started_us) > 1000000 OR "
                             "ingest_us < ended_us)"), 0);
  assert_int_equal(pg_int(c, "SELECT array_length(conkey, 1) FROM "
                             "pg_constraint WHERE conrelid = "
                             "'lraf_ledger'::regclass AND contype = 'p'"),
                   2);
  granted = pg_int(c, "SELECT granted FROM lraf_quota WHERE tenant = "
                      "'shared'");
  PQfinish(c);
  printf("   quota %d, slice %d, 2 hosts: %" PRId64 " used in %" PRId64
         " records, %" PRId64 " granted after the hosts gave back\n",
         QUOTA, SLICE, used, rows, granted);
  assert_int_equal(rows, nresp);
  assert_int_equal(used, sent);
  /* hosts give back what they did not use; what they ran past their
     grant (the overshoot of a limit: a few instructions per stopped
     request) is the only difference */
  assert_true(granted <= QUOTA && granted <= used);
  assert_true(used <= QUOTA + 2 * SLICE);
  assert_true(used >= QUOTA - 2 * SLICE);
  lease_over = used - QUOTA;

  /* with reservations: at most the quota, exactly */
  snprintf(quota, sizeof quota, "reserved=%d", QUOTA);
  tenant = "reserved";
  reserving = 1;
  for (i = 0; i < CLIENTS; i++) sent_count[i] = responses[i] = 0;
  for (i = 0; i < 2; i++) {
    pid[i] = tutil_serve_start(args, log[i], &ports[i]);
    assert_true(pid[i] > 0);
  }
  for (i = 0; i < CLIENTS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, client,
                                    (void *)(intptr_t)i), 0);
  for (i = 0; i < CLIENTS; i++) pthread_join(th[i], NULL);
  for (i = 0; i < 2; i++) {
    st = tutil_serve_stop(pid[i], SIGTERM);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  sent = nresp = 0;
  for (i = 0; i < CLIENTS; i++) {
    sent += sent_count[i];
    nresp += responses[i];
  }
  c = PQconnectdb(pg.conninfo);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  used = pg_int(c, "SELECT coalesce(sum(instructions), 0) FROM lraf_ledger"
                   " WHERE tenant = 'reserved'");
  granted = pg_int(c, "SELECT granted FROM lraf_quota WHERE tenant = "
                      "'reserved'");
  assert_int_equal(pg_int(c, "SELECT count(*) FROM lraf_reservation"), 0);
  PQfinish(c);
  printf("   with reservations: %" PRId64 " used of %d (overshoot %" PRId64
         "), %" PRId64 " taken from the quota; leases alone: overshoot %"
         PRId64 " (bound hosts x slice = %d)\n", used, QUOTA,
         used > QUOTA ? used - QUOTA : 0, granted,
         lease_over > 0 ? lease_over : 0, 2 * SLICE);
  assert_int_equal(used, sent);
  assert_true(used <= QUOTA);
  assert_int_equal(granted, used);
  /* spent, but for less than one reservation */
  assert_true(used > QUOTA - 20000);
  tenant = "shared";
  reserving = 0;
  snprintf(quota, sizeof quota, "shared=%d", QUOTA);

  /* the database goes away under a running host: its requests get 503,
     nothing claims to be recorded, and the host still stops cleanly */
  pid[0] = tutil_serve_start(args, log[0], &ports[0]);
  assert_true(pid[0] > 0);
  {
    tutil_http r;
    char v[32];
    /* the spent tenant, after a restart: refused before it runs */
    assert_int_equal(tutil_http_once(ports[0], "GET", "/hello?n=10",
                                     "X-Tenant: shared\r\n", NULL, &r), 0);
    assert_int_equal(r.status, 429);
    assert_non_null(tutil_http_header(&r, "X-Lraf-Instructions", v,
                                      sizeof v));
    assert_string_equal(v, "0");
    tutil_http_free(&r);
    assert_int_equal(tutil_http_once(ports[0], "GET", "/hello?n=10",
                                     "X-Tenant: other\r\n", NULL, &r), 0);
    assert_int_equal(r.status, 200);
    tutil_http_free(&r);
    assert_int_equal(tutil_pg_stop(&pg, "immediate"), 0);
    assert_int_equal(tutil_http_once(ports[0], "GET", "/hello?n=10",
                                     "X-Tenant: other\r\n", NULL, &r), 0);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(r.body, "not recorded"));
    tutil_http_free(&r);
  }
  st = tutil_serve_stop(pid[0], SIGTERM);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static int crash_port;
static void *slow_request(void *arg) {
  tutil_http r;
  (void)arg;
  if (tutil_http_once(crash_port, "GET", "/spin", "X-Tenant: crash\r\n"
                      "X-Lraf-Max-Instructions: 600000\r\n", NULL, &r) == 0)
    tutil_http_free(&r);
  return NULL;
}

/* A host killed with a reservation in flight: the next host releases
   it when it opens the ledger. */
static void test_crash_releases(void **state) {
  char db[200];
  const char *args[] = {"--port", "0", "--workers", "2", "--ledger",
                        db, "--quota", "crash=1000000", "--rate",
                        "crash=100000", HANDLERS, NULL};
  char log[128];
  const char *why;
  pthread_t th;
  PGconn *c;
  pid_t pid;
  int i;
  (void)state;
  why = tutil_pg_start(&pg);
  if (why != NULL) {
    printf("   PostgreSQL test SKIPPED: %s\n", why);
    skip();
  }
  /* a database of its own, so that the next test starts empty */
  c = PQconnectdb(pg.conninfo);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  PQclear(PQexec(c, "CREATE DATABASE crash"));
  PQfinish(c);
  snprintf(db, sizeof db, "postgresql://lraf@/crash?host=%s", pg.dir);
  snprintf(log, sizeof log, "%s/crash.log", pg.dir);
  pid = tutil_serve_start(args, log, &crash_port);
  assert_true(pid > 0);
  assert_int_equal(pthread_create(&th, NULL, slow_request, NULL), 0);
  c = PQconnectdb(db);
  assert_int_equal(PQstatus(c), CONNECTION_OK);
  for (i = 0; i < 100; i++) {
    if (pg_int(c, "SELECT count(*) FROM lraf_reservation") == 1) break;
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  assert_int_equal(pg_int(c, "SELECT granted FROM lraf_quota WHERE tenant"
                             " = 'crash'"), 600000);
  tutil_serve_stop(pid, SIGKILL);
  pthread_join(th, NULL);
  /* the dead host's session (and its lock) goes with its socket */
  for (i = 0; i < 100; i++) {
    if (pg_int(c, "SELECT count(*) FROM pg_stat_activity WHERE"
                  " application_name = '' AND backend_type = 'client "
                  "backend'") <= 1) break;
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  assert_int_equal(pg_int(c, "SELECT count(*) FROM lraf_reservation"), 1);
  pid = tutil_serve_start(args, log, &crash_port);
  assert_true(pid > 0);
  assert_int_equal(pg_int(c, "SELECT count(*) FROM lraf_reservation"), 0);
  assert_int_equal(pg_int(c, "SELECT granted FROM lraf_quota WHERE tenant"
                             " = 'crash'"), 0);
  assert_int_equal(pg_int(c, "SELECT count(*) FROM lraf_ledger WHERE tenant"
                             " = 'crash'"), 0);
  PQfinish(c);
  assert_int_equal(tutil_serve_stop(pid, SIGTERM) >> 8, 0);
}

static int setup(void **state) {
  (void)state;
  return tutil_pg_init(&pg);
}

static int teardown(void **state) {
  (void)state;
  return tutil_pg_cleanup(&pg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_crash_releases),
    cmocka_unit_test(test_shared_quota),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
