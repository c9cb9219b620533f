/*
** test_sv_ledger.c - the usage ledger's SQLite store through the public
** API: records from 8 threads at once all stored (group commits), and
** from 300 threads let go at once (more than one commit takes: 256),
** each stored once, a commit never over 256, a duplicate key stored once, totals per tenant, a tenant quota kept
** across a reopen, process durability (lraf_ledger_open_durable), clear
** errors for bad specs, unopenable files and incomplete records, and
** generated records of odd bytes.
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
#include <unistd.h>

#include "lraf.h"

static char dir[64], spec[128];

static void fill(lraf_record *r, const char *key, const char *tenant,
                 int64_t n, int status) {
  memset(r, 0, sizeof *r);
  r->key = key;
  r->request_id = key;
  r->tenant = tenant;
  r->handler = "h";
  r->model = "m";
  r->instructions = n;
  r->native = n / 10;
  r->memory_peak = 100;
  r->status = status;
  r->wall = 0.001;
  r->cpu = 0.0005;
  r->started = 1700000000.0;
  r->ended = 1700000000.001;
}

typedef struct writer {
  lraf_ledger *l;
  int id;
  int failures;
} writer;

static void *write_many(void *arg) {
  writer *w = arg;
  int i;
  for (i = 0; i < 200; i++) {
    char key[32];
    lraf_record r;
    lraf_error err;
    snprintf(key, sizeof key, "w%d-%d", w->id, i);
    fill(&r, key, w->id % 2 ? "odd" : "even", i, i % 5 ? 200 : 500);
    if (lraf_ledger_append(w->l, &r, &err) != LRAF_OK) w->failures++;
  }
  return NULL;
}

static void test_concurrent_and_duplicates(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u, odd, even;
  writer w[8];
  pthread_t th[8];
  lraf_record r;
  int i;
  (void)state;
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  for (i = 0; i < 8; i++) {
    w[i].l = l;
    w[i].id = i;
    w[i].failures = 0;
    assert_int_equal(pthread_create(&th[i], NULL, write_many, &w[i]), 0);
  }
  for (i = 0; i < 8; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(w[i].failures, 0);
  }
  /* a retry of a stored key bills nothing more */
  fill(&r, "w0-5", "even", 1000000, 200);
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
  {
    int found, status;
    int64_t n;
    int stored = -1;
    assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
    assert_int_equal(stored, 0);   /* reported, not stored */
    assert_int_equal(lraf_ledger_find(l, "even", "w0-5", &found, &n, &status,
                                      &err), LRAF_OK);
    assert_true(found && n == 5 && status == 500);
    assert_int_equal(lraf_ledger_find(l, "even", "w0-999", &found, NULL,
                                      NULL, &err), LRAF_OK);
    assert_false(found);
    /* keys are a tenant's own */
    assert_int_equal(lraf_ledger_find(l, "odd", "w0-5", &found, NULL, NULL,
                                      &err), LRAF_OK);
    assert_false(found);
  }
  assert_int_equal(lraf_ledger_usage(l, NULL, &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 1600);
  assert_int_equal(u.instructions, 8 * (199 * 200 / 2));
  assert_int_equal(u.errors, 8 * 40);
  assert_int_equal(lraf_ledger_usage(l, "odd", &odd, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_usage(l, "even", &even, &err), LRAF_OK);
  assert_int_equal(odd.requests + even.requests, u.requests);
  assert_int_equal(odd.instructions, u.instructions / 2);
  assert_int_equal(lraf_ledger_usage(l, "nobody", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 0);
  lraf_ledger_close(l);
}

#define MANY 300

typedef struct one_writer {
  lraf_ledger *l;
  pthread_barrier_t *go;
  int id, stored;
  lraf_status st;
} one_writer;

static void *write_one(void *arg) {
  one_writer *w = arg;
  char key[32];
  lraf_record r;
  lraf_error err;
  snprintf(key, sizeof key, "m%d", w->id);
  fill(&r, key, "many", w->id, 200);
  pthread_barrier_wait(w->go);
  w->st = lraf_ledger_record_new(w->l, &r, &w->stored, &err);
  return NULL;
}

/* More appends waiting at once than one commit takes: each is answered
   once, stored, and no commit holds more than 256 records. */
static void test_many_waiting(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  lraf_ledger_counts c;
  pthread_barrier_t go;
  pthread_attr_t attr;
  static one_writer w[MANY];
  static pthread_t th[MANY];
  int i, round;
  (void)state;
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  for (round = 0; round < 3; round++) {
    pthread_barrier_init(&go, NULL, MANY);
    for (i = 0; i < MANY; i++) {
      w[i].l = l, w[i].go = &go, w[i].id = round * MANY + i;
      w[i].stored = 0, w[i].st = LRAF_EIO;
      assert_int_equal(pthread_create(&th[i], &attr, write_one, &w[i]), 0);
    }
    for (i = 0; i < MANY; i++) {
      pthread_join(th[i], NULL);
      assert_int_equal(w[i].st, LRAF_OK);
      assert_int_equal(w[i].stored, 1);
    }
    pthread_barrier_destroy(&go);
  }
  pthread_attr_destroy(&attr);
  lraf_ledger_stats(l, &c);
  assert_int_equal(c.records, 3 * MANY);
  assert_true(c.commits >= 6);   /* 300 waiting need two at least */
  assert_int_equal(lraf_ledger_usage(l, "many", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 3 * MANY);
  assert_int_equal(u.instructions, (int64_t)(3 * MANY) * (3 * MANY - 1) / 2);
  lraf_ledger_close(l);
}

static void test_quota_across_reopen(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_manager *root = lraf_total_new(), *m;
  lraf_record r;
  (void)state;
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  fill(&r, "q1", "quota", 800, 200);
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
  lraf_ledger_close(l);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  m = lraf_ledger_tenant(l, "quota", 1000, 0, root, &err);
  assert_non_null(m);
  assert_int_equal(lraf_limit_remaining(m), 200);
  lraf_manager_release(m);
  m = lraf_ledger_tenant(l, "quota", 500, 0, root, &err);
  assert_non_null(m);
  /* spent: it stops at once (a request is refused before it runs), and
     what it is charged still reaches its parent */
  assert_int_equal(lraf_manager_consume(m, NULL, 0, 0), LRAF_STOP);
  assert_int_equal(lraf_manager_granularity(m, NULL, 10000), 0);
  {
    int64_t before = lraf_manager_total(root);
    lraf_manager_consume(m, NULL, 7, 0);
    assert_int_equal(lraf_manager_total(root), before + 7);
  }
  lraf_manager_release(m);
  m = lraf_ledger_tenant(l, "quota", -1, 0, root, &err);
  assert_int_equal(lraf_limit_remaining(m), INT64_MAX);
  lraf_manager_release(m);
  lraf_ledger_close(l);
  lraf_manager_release(root);
}

/* Reservations: taken while enough is left, settled with the record
   (the unused part free again), released whole, and released at the
   next open when a process left them. */
static void test_reservations(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  int64_t avail;
  (void)state;
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "res", "a", 600, 1000, &avail,
                                       &err), LRAF_OK);
  assert_int_equal(avail, 1000);
  assert_int_equal(lraf_ledger_reserve(l, "res", "b", 500, 1000, &avail,
                                       &err), LRAF_EQUOTA);
  assert_int_equal(avail, 400);
  assert_non_null(strstr(err.message, "400 available"));
  /* a's record settles it: 1000 - 100 left */
  fill(&r, "a", "res", 100, 200);
  r.reserved = 600;
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "res", "c", 900, 1000, &avail,
                                       &err), LRAF_OK);
  assert_int_equal(avail, 900);
  assert_int_equal(lraf_ledger_release(l, "res", "c", &err), LRAF_OK);
  /* a record may not bill past its reservation */
  fill(&r, "d", "res", 700, 200);
  r.reserved = 600;
  assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "reserved"));
  assert_int_equal(lraf_ledger_reserve(l, "res", "e", 0, 1000, &avail,
                                       &err), LRAF_EARG);
  assert_int_equal(lraf_ledger_reserve(l, "res", "e", 5, -1, &avail, &err),
                   LRAF_EARG);
  assert_int_equal(avail, -1);
  /* left by a process that stopped: released when the file opens */
  assert_int_equal(lraf_ledger_reserve(l, "res", "f", 900, 1000, &avail,
                                       &err), LRAF_OK);
  lraf_ledger_close(l);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_reserve(l, "res", "g", 900, 1000, &avail,
                                       &err), LRAF_OK);
  lraf_ledger_close(l);
}

/* Process durability: the same records, totals and duplicates as power
   (only the fsync differs, which test_sv_sqlite_crash's kill -9 covers); a
   closed ledger leaves no log; refused for PostgreSQL and for an
   unknown durability. */
static void test_durability(void **state) {
  char pspec[160], wal[160];
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  lraf_record r;
  writer w[4];
  pthread_t th[4];
  int i, stored = -1;
  (void)state;
  snprintf(pspec, sizeof pspec, "sqlite:%s/process.db", dir);
  snprintf(wal, sizeof wal, "%s/process.db-wal", dir);
  assert_int_equal(lraf_ledger_open_durable(pspec, LRAF_DURABLE_PROCESS, &l,
                                            &err), LRAF_OK);
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
  fill(&r, "w1-7", "odd", 7, 200);
  assert_int_equal(lraf_ledger_record(l, &r, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  lraf_ledger_close(l);
  assert_int_not_equal(access(wal, F_OK), 0);
  assert_int_equal(lraf_ledger_open(pspec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_usage(l, NULL, &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 800);
  assert_int_equal(u.instructions, 4 * (199 * 200 / 2));
  lraf_ledger_close(l);
  assert_int_equal(lraf_ledger_open_durable("postgresql:///x?host=/none",
                                            LRAF_DURABLE_PROCESS, &l, &err),
                   LRAF_EARG);
  assert_non_null(strstr(err.message, "SQLite ledgers only"));
  assert_int_equal(lraf_ledger_open_durable(pspec, (lraf_durability)7, &l,
                                            &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "unknown durability"));
}

/* Specs that do not open, and what their errors say. */
static const struct bad_spec {
  const char *spec;
  lraf_status code;
  const char *says;
} bad_specs[] = {
  {"mysql://x", LRAF_EARG, "sqlite:PATH"},
  {"sqlite:", LRAF_EARG, ""},
  {"sqlite:/nonexistent/dir/x.db", LRAF_EIO, "/nonexistent/dir/x.db"},
  {"postgresql:///nosuchdb?host=/nonexistent", LRAF_EIO, "cannot connect"},
};

/* Records refused: one field spoiled, and what the error says.  (A NaN
   time was undefined behaviour in the conversion to microseconds:
   fuzz_ledger.) */
enum spoil { NO_TENANT, NO_KEY, NEGATIVE, NAN_WALL, HUGE_END, NEGATIVE_CPU };
static const struct bad_record {
  enum spoil spoil;
  const char *says;
} bad_records[] = {
  {NO_TENANT, "tenant"}, {NO_KEY, "key"},
  {NEGATIVE, "instructions is negative"}, {NAN_WALL, "wall is nan"},
  {HUGE_END, "ended is 1e+300"}, {NEGATIVE_CPU, "cpu"},
};

static void spoil(lraf_record *r, enum spoil s) {
  switch (s) {
    case NO_TENANT: r->tenant = NULL; break;
    case NO_KEY: r->key = ""; break;
    case NEGATIVE: r->instructions = -1; break;
    case NAN_WALL: r->wall = NAN; break;
    case HUGE_END: r->ended = 1e300; break;
    case NEGATIVE_CPU: r->cpu = -0.5; break;
  }
}

static void test_errors(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_record r;
  size_t i;
  int found;
  (void)state;
  for (i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(lraf_ledger_open(bad_specs[i].spec, &l, &err),
                     bad_specs[i].code);
    if (strstr(err.message, bad_specs[i].says) == NULL)
      fail_msg("%s: '%s'", bad_specs[i].spec, err.message);
  }
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  for (i = 0; i < sizeof bad_records / sizeof bad_records[0]; i++) {
    fill(&r, "x", "t", 1, 200);
    spoil(&r, bad_records[i].spoil);
    memset(&err, 0, sizeof err);
    assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_EARG);
    if (strstr(err.message, bad_records[i].says) == NULL)
      fail_msg("record %zu: '%s'", i, err.message);
  }
  assert_int_equal(lraf_ledger_find(l, "t", "x", &found, NULL, NULL, &err),
                   LRAF_OK);
  assert_false(found);   /* none of them was stored */
  lraf_ledger_close(l);
}

/* Generated records: keys, tenants, handlers and models of random
   bytes (quotes, backslashes, SQL, high bytes) and random figures; the
   totals per tenant come back as written, a tenant's duplicates once. */
static void test_generated_records(void **state) {
  static const char alphabet[] = "ab'\"\\;-% _\x01\x7f\xc3\xa9\xff()*=";
  static const char *const tenants[] = {"a'b", "x\"; DROP TABLE lraf_ledger;"
                                        " --", "\xc3\xa9t\xc3\xa9", "%_"};
  char keys[400][24], handler[32], model[32];
  int tenant_of[400];
  int64_t sum[4] = {0}, count[4] = {0};
  uint64_t seed = 12345;
  lraf_ledger *l;
  lraf_error err;
  char gspec[160];
  int i, t;
  (void)state;
  snprintf(gspec, sizeof gspec, "%s-gen", spec);
  assert_int_equal(lraf_ledger_open(gspec, &l, &err), LRAF_OK);
  for (i = 0; i < 400; i++) {
    lraf_record r;
    size_t k, n;
    int dup;
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    n = 1 + (seed >> 60);   /* 1..16 */
    for (k = 0; k < n; k++)
      keys[i][k] = alphabet[(seed >> (k * 3 % 50)) % (sizeof alphabet - 1)];
    keys[i][n] = '\0';
    t = (int)((seed >> 20) % 4);
    tenant_of[i] = t;
    dup = 0;   /* keys are unique per tenant */
    for (k = 0; k < (size_t)i; k++)
      dup |= strcmp(keys[k], keys[i]) == 0 && tenant_of[k] == t;
    snprintf(handler, sizeof handler, "h'%d\\", i % 7);
    snprintf(model, sizeof model, "m\"%d", i % 3);
    fill(&r, keys[i], tenants[t], (int64_t)((seed >> 8) % 1000000), 200);
    r.handler = handler;
    r.model = model;
    assert_int_equal(lraf_ledger_append(l, &r, &err), LRAF_OK);
    if (!dup) {
      sum[t] += r.instructions;
      count[t]++;
    }
  }
  for (t = 0; t < 4; t++) {
    lraf_usage u;
    assert_int_equal(lraf_ledger_usage(l, tenants[t], &u, &err), LRAF_OK);
    assert_int_equal(u.requests, count[t]);
    assert_int_equal(u.instructions, sum[t]);
  }
  lraf_ledger_close(l);
}

static int setup(void **state) {
  (void)state;
  strcpy(dir, "/tmp/lraf-ledger-XXXXXX");
  if (mkdtemp(dir) == NULL) return -1;
  snprintf(spec, sizeof spec, "sqlite:%s/l.db", dir);
  return 0;
}

static int teardown(void **state) {
  char cmd[128];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_concurrent_and_duplicates),
    cmocka_unit_test(test_many_waiting),
    cmocka_unit_test(test_quota_across_reopen),
    cmocka_unit_test(test_reservations),
    cmocka_unit_test(test_durability),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_generated_records),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
