/*
** test_sv_sqlite_crash.c - the SQLite ledger (service/sv_sqlite.c)
** across a kill -9 and a SIGTERM of lraf serve: 16 clients keep
** sending requests with keys of their own.  kill -9: the server is
** killed with SIGKILL under that load and started again on the same
** ledger, with each --ledger-durability (power: the journal fsynced
** before each response; process: the journal written before each
** response, not fsynced).
**   - every request that got a response is in the ledger, once, whole
**     (every column as the response said), and the database is intact,
**     read once lraf ledger has opened the file after the kill (which
**     moves the journal's records into it and removes the journal),
**     and again after the restart;
**   - records of requests whose response was lost may be there (their
**     commit came first), but nothing else;
**   - retrying answered requests with their keys gets 409 from the
**     ledger: nothing runs or is billed twice.
** SIGTERM: the server stops cleanly under that load; a copy of the
** database file alone (no write-ahead log, no journal) holds every
** answered request, once, whole.
** Runs the command named by $LRAF; traffic goes to 127.0.0.1 only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tutil_serve.h"
#include "tutil_sh.h"

#define HANDLERS "tests/system/serve"
#define CLIENTS 16
#define PER_CLIENT 5000   /* an upper bound: the kill ends the run */

static tutil_sh sh;  /* its dir holds the ledger and the server's files */
static int port;
static atomic_int answered_total;
/* answered[c][i]: 0 no response; else the count it carried + 1 */
static int64_t answered[CLIENTS][PER_CLIENT];

static void *client(void *arg) {
  int id = (int)(intptr_t)arg, i, fd = tutil_http_connect(port);
  for (i = 0; i < PER_CLIENT && fd >= 0; i++) {
    char extra[128], v[32];
    tutil_http r;
    snprintf(extra, sizeof extra, "X-Tenant: crash\r\nIdempotency-Key: "
             "c%d-%d\r\n", id, i);
    if (tutil_http_do(fd, "GET", "/hello?n=50", extra, NULL, &r) != 0 ||
        r.status != 200 ||
        !tutil_http_header(&r, "X-Lraf-Instructions", v, sizeof v)) {
      tutil_http_free(&r);
      break;
    }
    answered[id][i] = strtoll(v, NULL, 10) + 1;
    atomic_fetch_add(&answered_total, 1);
    tutil_http_free(&r);
  }
  if (fd >= 0) close(fd);
  return NULL;
}

static int64_t scalar(sqlite3 *db, const char *sql) {
  sqlite3_stmt *q;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return -2;
  if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return v;
}

/* Every answered request is in the ledger at path, once and whole;
   nothing else is there but at most one unanswered request per
   client. */
static void check_ledger(const char *path) {
  int i, c, rows = 0;
  int64_t lost = 0;
  sqlite3 *db;
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
                   SQLITE_OK);
  {
    sqlite3_stmt *ic;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1,
                                        &ic, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(ic), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(ic, 0), "ok");
    sqlite3_finalize(ic);
  }
  /* whole records only: every column set and consistent */
  assert_int_equal(scalar(db, "SELECT count(*) FROM lraf_ledger WHERE "
                   "tenant <> 'crash' OR handler <> 'hello' OR status <> 200"
                   " OR instructions <= 0 OR model = '' OR request_id = ''"
                   " OR ended_us < started_us OR wall_us < 0"), 0);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT key, instructions FROM "
                                      "lraf_ledger", -1, &q, NULL),
                   SQLITE_OK);
  {
    static char seen[CLIENTS][PER_CLIENT];
    memset(seen, 0, sizeof seen);
    while (sqlite3_step(q) == SQLITE_ROW) {
      const char *key = (const char *)sqlite3_column_text(q, 0);
      int k = -1;
      rows++;
      assert_int_equal(sscanf(key, "k:c%d-%d", &c, &k), 2);  /* client's */
      assert_true(c >= 0 && c < CLIENTS && k >= 0 && k < PER_CLIENT);
      assert_false(seen[c][k]);
      seen[c][k] = 1;
      if (answered[c][k] != 0)
        assert_int_equal(sqlite3_column_int64(q, 1), answered[c][k] - 1);
      else
        lost++;   /* committed, but the kill took the response */
    }
    for (c = 0; c < CLIENTS; c++)
      for (i = 0; i < PER_CLIENT; i++)
        if (answered[c][i] != 0 && !seen[c][i])
          fail_msg("answered request c%d-%d is not in the ledger", c, i);
  }
  printf("   ledger: %d records, %" PRId64 " of them unanswered\n", rows,
         lost);
  assert_true(lost <= CLIENTS);   /* at most one in flight per client */
  sqlite3_finalize(q);
  sqlite3_close(db);
}

/* Start the server on ledger, with durability d, and the clients; wait
   until want requests were answered, then stop it with sig and wait for
   the clients. */
static void load_and_stop(const char *ledger, const char *d, int want,
                          int sig) {
  char spec[160], log[128];
  const char *args[] = {"--port", "0", "--workers", "4", "--ledger", spec,
                        "--ledger-durability", d, HANDLERS, NULL};
  pthread_t th[CLIENTS];
  int i, st;
  pid_t pid;
  memset(answered, 0, sizeof answered);
  atomic_store(&answered_total, 0);
  snprintf(spec, sizeof spec, "sqlite:%s", ledger);
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  pid = tutil_serve_start(args, log, &port);
  assert_true(pid > 0);
  for (i = 0; i < CLIENTS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, client,
                                    (void *)(intptr_t)i), 0);
  /* stop it while the clients are at full speed */
  for (i = 0; i < 600 && atomic_load(&answered_total) < want; i++) {
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
  st = tutil_serve_stop(pid, sig);
  if (sig == SIGKILL)
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  else
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  for (i = 0; i < CLIENTS; i++) pthread_join(th[i], NULL);
  printf("   stopped by signal %d after %d answered requests\n", sig,
         atomic_load(&answered_total));
  assert_true(atomic_load(&answered_total) >= want);
}

/* kill -9 with durability *state ("power" or "process"). */
static void test_kill9(void **state) {
  const char *d = *state;
  char spec[160], log[128], ledger[128], cmd[600];
  struct stat sb;
  const char *args[] = {"--port", "0", "--workers", "4", "--ledger", spec,
                        "--ledger-durability", d, HANDLERS, NULL};
  int i, c, st;
  pid_t pid;
  snprintf(ledger, sizeof ledger, "%s/%s.db", sh.dir, d);
  snprintf(spec, sizeof spec, "sqlite:%s", ledger);
  snprintf(log, sizeof log, "%s/serve.log", sh.dir);
  load_and_stop(ledger, d, getenv("LRAF_QUICK") ? 300 : 2000, SIGKILL);
  /* as the kill left it, once lraf has opened it: the records only the
     journal had go into the file when the ledger is opened (here by
     lraf ledger export, which needs no server) */
  snprintf(cmd, sizeof cmd, "%s-lraf-journal", ledger);
  assert_int_equal(stat(cmd, &sb), 0);
  snprintf(cmd, sizeof cmd, "'%s' ledger --ledger '%s' -o /dev/null export",
           getenv("LRAF"), spec);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s-lraf-journal", ledger);
  if (stat(cmd, &sb) == 0)
    fail_msg("%s is still there after the ledger was opened and closed",
             cmd);
  check_ledger(ledger);

  /* a restart recovers the ledger; then retry every answered request */
  pid = tutil_serve_start(args, log, &port);
  assert_true(pid > 0);
  for (c = 0; c < CLIENTS; c++) {
    int fd = tutil_http_connect(port);
    assert_true(fd >= 0);
    for (i = 0; i < PER_CLIENT && answered[c][i] != 0; i += 7) {
      char extra[128];
      tutil_http r;
      snprintf(extra, sizeof extra, "X-Tenant: crash\r\nIdempotency-Key: "
               "c%d-%d\r\n", c, i);
      assert_int_equal(tutil_http_do(fd, "GET", "/hello?n=50", extra, NULL,
                                     &r), 0);
      /* answered from the ledger: recorded once, not run again */
      assert_int_equal(r.status, 409);
      assert_non_null(strstr(r.body, "already recorded: status 200"));
      tutil_http_free(&r);
    }
    close(fd);
  }
  st = tutil_serve_stop(pid, SIGTERM);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);

  check_ledger(ledger);
}

/* SIGTERM under load: the server stops cleanly, and the database file
   alone holds every answered request (the write-ahead log was
   checkpointed into it and removed). */
static void test_sigterm(void **state) {
  char ledger[128], copy[160], cmd[400];
  struct stat sb;
  (void)state;
  snprintf(ledger, sizeof ledger, "%s/term.db", sh.dir);
  load_and_stop(ledger, "power", getenv("LRAF_QUICK") ? 300 : 2000,
                SIGTERM);
  snprintf(copy, sizeof copy, "%s-wal", ledger);
  if (stat(copy, &sb) == 0 && sb.st_size > 0)
    fail_msg("after SIGTERM %s holds %lld bytes", copy,
             (long long)sb.st_size);
  snprintf(copy, sizeof copy, "%s-lraf-journal", ledger);
  if (stat(copy, &sb) == 0)
    fail_msg("after SIGTERM %s is still there", copy);
  snprintf(copy, sizeof copy, "%s/term-copy.db", sh.dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", ledger, copy);
  assert_int_equal(system(cmd), 0);
  check_ledger(copy);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "crash");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static char power[] = "power", process[] = "process";

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_prestate(test_kill9, power),
    cmocka_unit_test_prestate(test_kill9, process),
    cmocka_unit_test(test_sigterm),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
