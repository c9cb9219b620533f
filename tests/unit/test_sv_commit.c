/*
** test_sv_commit.c - records queued without waiting (sv_ledger_queue)
** and the ledger's commit thread:
**   - at power durability one thread, lraf-commit, is there while the
**     ledger is open, and none at process durability or after a close;
**   - records queued from 8 threads at once are each answered once, by
**     lraf-commit and never by their queuer, only once they are stored
**     (the answer finds its key), several to a commit;
**   - of two records queued under one key, the first is stored and the
**     second answered "not stored";
**   - a close answers everything still queued, and stores it;
**   - at process durability the answer comes before sv_ledger_queue
**     returns, in the queuer's thread;
**   - an incomplete record is refused at once, and never answered;
**   - waiting appends (lraf_ledger_record) mixed with queued records
**     are answered alike, each record stored once.
*/
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lraf.h"
#include "sv.h"
#include "tutil_threads.h"

static char dir[64];

static void pause_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static void spec_of(const char *name, char *spec, size_t n) {
  snprintf(spec, n, "sqlite:%s/%s.db", dir, name);
}

static void fill(lraf_record *r, const char *key, const char *tenant,
                 int64_t n) {
  memset(r, 0, sizeof *r);
  r->key = key;
  r->request_id = key;
  r->tenant = tenant;
  r->handler = "h";
  r->model = "m";
  r->instructions = n;
  r->status = 200;
  r->wall = 0.001;
  r->started = 1700000000.0;
  r->ended = 1700000000.001;
}

/* A queued record and what its answer saw. */
typedef struct item {
  char key[32];
  lraf_record rec;
  sv_pending p;
  pthread_t queuer;
  atomic_int answers;
  int by_queuer;          /* answered in the queuer's thread */
  int found;              /* the ledger had its key then */
  lraf_ledger *l;
} item;

/* An answer that counts itself and notes where it ran. */
static void count_only(void *ud) {
  item *it = ud;
  it->by_queuer = pthread_equal(pthread_self(), it->queuer);
  atomic_fetch_add(&it->answers, 1);
}

/* count_only, and whether the ledger has the record's key by then. */
static void answer(void *ud) {
  item *it = ud;
  lraf_error err;
  lraf_ledger_find(it->l, it->rec.tenant, it->key, &it->found, NULL, NULL,
                   &err);
  count_only(ud);
}

static void queue_with(lraf_ledger *l, item *it, const char *key,
                       const char *tenant, int64_t n, void (*then)(void *)) {
  lraf_error err;
  snprintf(it->key, sizeof it->key, "%s", key);
  fill(&it->rec, it->key, tenant, n);
  it->queuer = pthread_self();
  it->l = l;
  atomic_init(&it->answers, 0);
  assert_int_equal(sv_ledger_queue(l, &it->p, &it->rec, 0, then, it, &err),
                   LRAF_OK);
}

static void queue(lraf_ledger *l, item *it, const char *key,
                  const char *tenant, int64_t n) {
  queue_with(l, it, key, tenant, n, answer);
}

/* Wait up to 10 s for n answers among items. */
static int await_answers(item *items, int n) {
  int i, waited;
  for (waited = 0; waited < 10000; waited++) {
    for (i = 0; i < n; i++)
      if (atomic_load(&items[i].answers) == 0) break;
    if (i == n) return 1;
    pause_ms(1);
  }
  return 0;
}

static void test_commit_thread(void **state) {
  char spec[128];
  lraf_ledger *l;
  lraf_error err;
  (void)state;
  spec_of("thread", spec, sizeof spec);
  assert_int_equal(tutil_threads_named("lraf-commit"), 0);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(tutil_threads_await("lraf-commit", 1, 5000), 1);
  lraf_ledger_close(l);
  assert_int_equal(tutil_threads_named("lraf-commit"), 0);
  assert_int_equal(lraf_ledger_open_durable(spec, LRAF_DURABLE_PROCESS, &l,
                                            &err), LRAF_OK);
  pause_ms(50);
  assert_int_equal(tutil_threads_named("lraf-commit"), 0);
  lraf_ledger_close(l);
}

#define QUEUERS 8
#define EACH 150

typedef struct queuer {
  lraf_ledger *l;
  int id;
  item *items;
} queuer;

static void *queue_many(void *arg) {
  queuer *q = arg;
  int i;
  for (i = 0; i < EACH; i++) {
    char key[32];
    snprintf(key, sizeof key, "q%d-%d", q->id, i);
    queue(q->l, &q->items[i], key, "t", 1 + i);
  }
  return NULL;
}

static void test_answered_once_by_the_thread(void **state) {
  char spec[128];
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  lraf_ledger_counts c;
  pthread_t th[QUEUERS];
  queuer q[QUEUERS];
  item *items = calloc(QUEUERS * EACH, sizeof *items);
  int i, stored;
  (void)state;
  assert_non_null(items);
  spec_of("many", spec, sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  for (i = 0; i < QUEUERS; i++) {
    q[i].l = l, q[i].id = i, q[i].items = items + i * EACH;
    assert_int_equal(pthread_create(&th[i], NULL, queue_many, &q[i]), 0);
  }
  for (i = 0; i < QUEUERS; i++) pthread_join(th[i], NULL);
  assert_true(await_answers(items, QUEUERS * EACH));
  pause_ms(20);   /* a second answer would come now */
  for (i = 0; i < QUEUERS * EACH; i++) {
    assert_int_equal(atomic_load(&items[i].answers), 1);
    assert_false(items[i].by_queuer);
    assert_true(items[i].found);   /* stored before it was answered */
    assert_int_equal(sv_ledger_result(&items[i].p, &stored, &err), LRAF_OK);
    assert_int_equal(stored, 1);
  }
  lraf_ledger_stats(l, &c);
  assert_int_equal(c.records, QUEUERS * EACH);
  assert_true(c.commits < c.records);   /* several to a commit */
  assert_int_equal(lraf_ledger_usage(l, "t", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, QUEUERS * EACH);
  lraf_ledger_close(l);
  free(items);
}

static void test_same_key_queued_twice(void **state) {
  char spec[128];
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  item it[2];
  int stored;
  (void)state;
  memset(it, 0, sizeof it);
  spec_of("twice", spec, sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  queue(l, &it[0], "k", "t", 10);
  queue(l, &it[1], "k", "t", 20);
  assert_true(await_answers(it, 2));
  assert_int_equal(sv_ledger_result(&it[0].p, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  assert_int_equal(sv_ledger_result(&it[1].p, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 0);
  assert_int_equal(lraf_ledger_usage(l, "t", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 1);
  assert_int_equal(u.instructions, 10);
  lraf_ledger_close(l);
}

static void test_close_answers_the_queue(void **state) {
  char spec[128], key[32];
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  item *items = calloc(600, sizeof *items);
  int i;
  (void)state;
  assert_non_null(items);
  spec_of("close", spec, sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  for (i = 0; i < 600; i++) {
    snprintf(key, sizeof key, "c%d", i);
    queue_with(l, &items[i], key, "t", 1, count_only);
  }
  lraf_ledger_close(l);
  for (i = 0; i < 600; i++)
    assert_int_equal(atomic_load(&items[i].answers), 1);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_usage(l, "t", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 600);
  lraf_ledger_close(l);
  free(items);
}

static void test_process_answers_at_once(void **state) {
  char spec[128];
  lraf_ledger *l;
  lraf_error err;
  item it;
  int stored;
  (void)state;
  memset(&it, 0, sizeof it);
  spec_of("process", spec, sizeof spec);
  assert_int_equal(lraf_ledger_open_durable(spec, LRAF_DURABLE_PROCESS, &l,
                                            &err), LRAF_OK);
  fill(&it.rec, "p", "t", 5);
  it.queuer = pthread_self();
  assert_int_equal(sv_ledger_queue(l, &it.p, &it.rec, 0, count_only, &it,
                                   &err), LRAF_OK);
  assert_int_equal(atomic_load(&it.answers), 1);
  assert_true(it.by_queuer);
  assert_int_equal(sv_ledger_result(&it.p, &stored, &err), LRAF_OK);
  assert_int_equal(stored, 1);
  lraf_ledger_close(l);
}

static void test_incomplete_refused(void **state) {
  char spec[128];
  lraf_ledger *l;
  lraf_error err;
  item it;
  (void)state;
  memset(&it, 0, sizeof it);
  spec_of("bad", spec, sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  fill(&it.rec, "b", "t", 5);
  it.rec.tenant = NULL;
  assert_int_equal(sv_ledger_queue(l, &it.p, &it.rec, 0, count_only, &it,
                                   &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "tenant"));
  lraf_ledger_close(l);
  assert_int_equal(atomic_load(&it.answers), 0);
}

typedef struct mixer {
  lraf_ledger *l;
  int id;
  int failures;
} mixer;

static void *append_many(void *arg) {
  mixer *m = arg;
  int i;
  for (i = 0; i < 100; i++) {
    char key[32];
    lraf_record r;
    lraf_error err;
    int stored = 0;
    snprintf(key, sizeof key, "m%d-%d", m->id, i);
    fill(&r, key, "t", 1);
    if (lraf_ledger_record(m->l, &r, &stored, &err) != LRAF_OK || !stored)
      m->failures++;
  }
  return NULL;
}

static void test_waiting_and_queued_mixed(void **state) {
  char spec[128];
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  pthread_t th[4];
  mixer m[4];
  queuer q[2];
  pthread_t qt[2];
  item *items = calloc(2 * EACH, sizeof *items);
  int i;
  (void)state;
  assert_non_null(items);
  spec_of("mixed", spec, sizeof spec);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  for (i = 0; i < 4; i++) {
    m[i].l = l, m[i].id = i, m[i].failures = 0;
    assert_int_equal(pthread_create(&th[i], NULL, append_many, &m[i]), 0);
  }
  for (i = 0; i < 2; i++) {
    q[i].l = l, q[i].id = 100 + i, q[i].items = items + i * EACH;
    assert_int_equal(pthread_create(&qt[i], NULL, queue_many, &q[i]), 0);
  }
  for (i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (i = 0; i < 2; i++) pthread_join(qt[i], NULL);
  assert_true(await_answers(items, 2 * EACH));
  for (i = 0; i < 4; i++) assert_int_equal(m[i].failures, 0);
  assert_int_equal(lraf_ledger_usage(l, "t", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 4 * 100 + 2 * EACH);
  lraf_ledger_close(l);
  free(items);
}

static int setup(void **state) {
  (void)state;
  strcpy(dir, "/tmp/lraf-commit-XXXXXX");
  return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state) {
  char cmd[128];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_commit_thread),
    cmocka_unit_test(test_answered_once_by_the_thread),
    cmocka_unit_test(test_same_key_queued_twice),
    cmocka_unit_test(test_close_answers_the_queue),
    cmocka_unit_test(test_process_answers_at_once),
    cmocka_unit_test(test_incomplete_refused),
    cmocka_unit_test(test_waiting_and_queued_mixed),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
