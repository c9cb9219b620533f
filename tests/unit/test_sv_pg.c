/*
** test_sv_pg.c - the PostgreSQL store of the ledger (service/sv_pg.c)
** through the public API, on a throwaway PostgreSQL server the test
** starts in a temporary directory (tests/support/tutil_pg.c; when it
** cannot, the test says why and is skipped):
**   - records from 4 threads at once all stored (group commits), a
**     key stored once per tenant (another tenant may use it), totals,
**     look-ups, and the records read back by event time, tenant and key,
**     in a window too;
**   - reservations: none without the tenant's quota row; one that fits
**     is taken, one that does not is refused with what is available;
**     released, or settled by its record (what it did not use back);
**     the slices a tenant's manager leases are not available to them;
**   - the records are there after a reopen;
**   - when the server goes away an append fails with a clear error,
**     and the same ledger's first append, reservation and release
**     after it is back each succeed (on a new connection).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_pg.h"

static tutil_pg pg;
static const char *why_not;   /* why PostgreSQL does not run, or NULL */

static void need_pg(void) {
  if (why_not != NULL) {
    printf("   PostgreSQL test SKIPPED: %s\n", why_not);
    skip();
  }
}

static lraf_ledger *open_pg(void) {
  lraf_ledger *l;
  lraf_error err;
  if (lraf_ledger_open(pg.conninfo, &l, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  return l;
}

static void fill(lraf_record *r, const char *key, const char *tenant,
                 int64_t n, double event) {
  memset(r, 0, sizeof *r);
  r->key = key;
  r->request_id = key;
  r->tenant = tenant;
  r->handler = "h";
  r->model = "m";
  r->instructions = n;
  r->status = n % 7 ? 200 : 500;
  r->started = r->ended = event;
  r->event_time = event;
}

typedef struct writer {
  lraf_ledger *l;
  int id, failures;
} writer;

static void *write_many(void *arg) {
  writer *w = arg;
  int i;
  for (i = 0; i < 50; i++) {
    char key[32];
    lraf_record r;
    lraf_error err;
    snprintf(key, sizeof key, "w%d-%02d", w->id, i);
    fill(&r, key, w->id % 2 ? "odd" : "even", 100 + i, 1700000000.0 + i);
    if (lraf_ledger_append(w->l, &r, &err) != LRAF_OK) w->failures++;
  }
  return NULL;
}

/* What lraf_ledger_each gave: the keys in order, and their sum. */
typedef struct seen {
  char keys[512];
  int n;
  int64_t sum;
} seen;

static int see(void *ud, const lraf_record *r) {
  seen *s = ud;
  size_t len = strlen(s->keys);
  snprintf(s->keys + len, sizeof s->keys - len, "%s%s/%s", s->n ? " " : "",
           r->tenant, r->key);
  s->n++;
  s->sum += r->instructions;
  return 0;
}

static void test_records(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  lraf_record r;
  lraf_ledger_counts c;
  writer w[4];
  pthread_t th[4];
  seen s;
  int i, stored, found, status;
  int64_t n;
  (void)state;
  need_pg();
  l = open_pg();
  for (i = 0; i < 4; i++) {
    w[i].l = l;
    w[i].id = i;
    w[i].failures = 0;
    assert_int_equal(pthread_create(&th[i], NULL, write_many, &w[i]), 0);
  }
  for (i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].failures, 0);
  }
  /* each tenant: 2 writers x (100 + ... + 149) */
  assert_int_equal(lraf_ledger_usage(l, "odd", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 100);
  assert_int_equal(u.instructions, 2 * (50 * 100 + 49 * 50 / 2));
  assert_int_equal(lraf_ledger_usage(l, NULL, &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 200);
  lraf_ledger_stats(l, &c);
  assert_int_equal(c.records, 200);
  assert_true(c.commits >= 1 && c.commits <= 200);
  /* a key once per tenant */
  fill(&r, "w1-00", "odd", 999, 1700000000.0);
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  fill(&r, "w1-00", "third", 5, 1700000100.0);
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  assert_int_equal(lraf_ledger_find(l, "odd", "w1-00", &found, &n, &status,
                                    &err), LRAF_OK);
  assert_int_equal(found, 1);
  assert_int_equal(n, 100);
  assert_int_equal(lraf_ledger_find(l, "odd", "nope", &found, NULL, NULL,
                                    &err), LRAF_OK);
  assert_int_equal(found, 0);
  /* by event time, tenant and key; the window [from, to) */
  memset(&s, 0, sizeof s);
  assert_int_equal(lraf_ledger_each(l, NULL, 1700000001.0, 1700000002.0,
                                    see, &s, &err), LRAF_OK);
  assert_string_equal(s.keys, "even/w0-01 even/w2-01 odd/w1-01 odd/w3-01");
  assert_int_equal(s.sum, 4 * 101);
  assert_int_equal(lraf_ledger_usage_window(l, "even", 1700000048.0,
                                            HUGE_VAL, &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 4);
  assert_int_equal(u.instructions, 2 * (148 + 149));
  lraf_ledger_close(l);
  /* reopened: all there */
  l = open_pg();
  assert_int_equal(lraf_ledger_usage(l, NULL, &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 201);
  lraf_ledger_close(l);
}

static void test_reservations(void **state) {
  lraf_manager *root, *m;
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  int64_t avail = 0;
  (void)state;
  need_pg();
  l = open_pg();
  /* no quota row: nothing to reserve from */
  assert_int_equal(lraf_ledger_reserve(l, "none", "x", 10, 1000, &avail,
                                       &err), LRAF_EARG);
  assert_int_equal(avail, -1);
  root = lraf_total_new();
  m = lraf_ledger_tenant(l, "q", 10000, 1000, root, &err);
  if (m == NULL) fail_msg("%s", err.message);
  assert_int_equal(lraf_ledger_reserve(l, "q", "r1", 6000, 10000, &avail,
                                       &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "q", "r2", 5000, 10000, &avail,
                                       &err), LRAF_EQUOTA);
  assert_int_equal(avail, 4000);
  assert_int_equal(lraf_ledger_release(l, "q", "r1", &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "q", "r2", 5000, 10000, &avail,
                                       &err), LRAF_OK);
  /* the record settles it: what it did not use is free again */
  fill(&r, "k:r2", "q", 1200, 1700000000.0);
  r.request_id = "r2";
  r.reserved = 5000;
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "q", "r3", 8801, 10000, &avail,
                                       &err), LRAF_EQUOTA);
  assert_int_equal(avail, 8800);
  /* a slice the manager leases is not available either */
  assert_int_equal(lraf_manager_consume(m, NULL, 300, 0), LRAF_CONTINUE);
  assert_int_equal(lraf_ledger_reserve(l, "q", "r3", 8800, 10000, &avail,
                                       &err), LRAF_EQUOTA);
  assert_int_equal(avail, 7800);
  lraf_manager_release(m);
  lraf_manager_release(root);
  lraf_ledger_close(l);
}

/* Last: the server goes away under an open ledger, and comes back. */
static void test_server_gone(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  lraf_usage u;
  (void)state;
  need_pg();
  l = open_pg();
  assert_int_equal(tutil_pg_stop(&pg, "immediate"), 0);
  fill(&r, "gone-1", "gone", 10, 1700000000.0);
  memset(&err, 0, sizeof err);
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_EIO);
  assert_true(strlen(err.message) > 0);
  assert_null(tutil_pg_start(&pg));
  /* the first append after the restart finds the old connection
     dropped, and makes a new one */
  fill(&r, "gone-2", "gone", 20, 1700000000.0);
  if (lraf_ledger_append(l, &r, &err) != LRAF_OK)
    fail_msg("after the restart: %s", err.message);
  assert_int_equal(lraf_ledger_usage(l, "gone", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 1);
  assert_int_equal(u.instructions, 20);
  lraf_ledger_close(l);
}

/* Restart the server under an open ledger. */
static void restart(void) {
  assert_int_equal(tutil_pg_stop(&pg, "immediate"), 0);
  assert_null(tutil_pg_start(&pg));
}

/* Last too: a reservation and a release, each the first call after a
   restart, succeed on a new connection. */
static void test_reserve_after_restart(void **state) {
  lraf_manager *root, *m;
  lraf_ledger *l;
  lraf_error err;
  int64_t avail = 0;
  (void)state;
  need_pg();
  l = open_pg();
  root = lraf_total_new();
  m = lraf_ledger_tenant(l, "back", 10000, 1000, root, &err);
  if (m == NULL) fail_msg("%s", err.message);
  restart();
  if (lraf_ledger_reserve(l, "back", "b1", 9000, 10000, &avail, &err)
      != LRAF_OK)
    fail_msg("reserve after the restart: %s", err.message);
  assert_int_equal(avail, 10000);
  restart();
  if (lraf_ledger_release(l, "back", "b1", &err) != LRAF_OK)
    fail_msg("release after the restart: %s", err.message);
  /* released: the same reservation can be made again */
  assert_int_equal(lraf_ledger_reserve(l, "back", "b1", 9000, 10000,
                                       &avail, &err), LRAF_OK);
  lraf_manager_release(m);
  lraf_manager_release(root);
  lraf_ledger_close(l);
}

static int setup(void **state) {
  (void)state;
  if (tutil_pg_init(&pg) != 0) return -1;
  why_not = tutil_pg_start(&pg);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_pg_cleanup(&pg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_records),
    cmocka_unit_test(test_reservations),
    cmocka_unit_test(test_server_gone),
    cmocka_unit_test(test_reserve_after_restart),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
