/*
** test_sv_pool.c - the request pool (service/sv_pool.c) through its
** API:
**   - a request's count is the same on a fresh and on a reused state,
**     and from 16 OS threads at once, on whichever worker runs it;
**     the workers share the queue (more than one runs requests);
**   - lraf_pool_stats sums what every worker did;
**   - each worker's thread is named lraf-worker (top -H, perf, gdb);
**   - a plain pool runs handlers without counting;
**   - bad options are refused naming the option.
** (What a request does: test_sv_request; a worker's states and chunks:
** test_sv_worker.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_pool.h"
#include "tutil_threads.h"

static lraf_pool *pool;   /* three workers */

static int setup(void **state) {
  (void)state;
  pool = tutil_pool_new(3, 0, 2000000);
  return pool != NULL ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  lraf_pool_close(pool);
  return 0;
}

static void test_same_count(void **state) {
  lraf_manager *t = lraf_total_new();
  lraf_response r;
  int64_t first = 0, sum = 0;
  int i;
  (void)state;
  for (i = 0; i < 20; i++) {
    tutil_pool_run(pool, t, "a", "sum", tutil_sum_src, -1, "100", &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "5050");
    if (i == 0) first = r.instructions;
    assert_int_equal(r.instructions, first);
    assert_string_equal(r.model, lraf_pool_model(pool));
    sum += r.instructions;
    lraf_response_free(&r);
  }
  assert_true(first > 200);
  assert_int_equal(lraf_manager_total(t), sum);
  lraf_manager_release(t);
}

typedef struct job {
  lraf_manager *t;
  int64_t counts[50];
  int workers[50];
} job;

static void *thread(void *arg) {
  job *j = arg;
  int i;
  for (i = 0; i < 50; i++) {
    lraf_response r;
    tutil_pool_run(pool, j->t, i % 2 ? "a" : "b", "sum", tutil_sum_src, -1, "300", &r);
    j->counts[i] = r.status == 200 ? r.instructions : -1;
    j->workers[i] = r.worker;
    lraf_response_free(&r);
  }
  return NULL;
}

static void test_threads(void **state) {
  lraf_manager *t = lraf_total_new();
  job jobs[16];
  pthread_t th[16];
  lraf_response r;
  lraf_pool_counts before, after;
  int64_t alone, sum = 0;
  int i, k, ran[3] = {0, 0, 0}, used = 0;
  (void)state;
  lraf_pool_stats(pool, &before);
  tutil_pool_run(pool, t, "a", "sum", tutil_sum_src, -1, "300", &r);
  alone = r.instructions;
  sum += alone;
  lraf_response_free(&r);
  for (i = 0; i < 16; i++) {
    jobs[i].t = t;
    assert_int_equal(pthread_create(&th[i], NULL, thread, &jobs[i]), 0);
  }
  for (i = 0; i < 16; i++) {
    pthread_join(th[i], NULL);
    for (k = 0; k < 50; k++) {
      assert_int_equal(jobs[i].counts[k], alone);
      sum += jobs[i].counts[k];
      assert_in_range(jobs[i].workers[k], 0, 2);
      ran[jobs[i].workers[k]]++;
    }
  }
  for (i = 0; i < 3; i++) used += ran[i] > 0;
  assert_true(used >= 2);
  lraf_pool_stats(pool, &after);
  assert_int_equal(after.requests - before.requests, 1 + 16 * 50);
  assert_int_equal(lraf_manager_total(t), sum);
  lraf_manager_release(t);
}

static void test_thread_names(void **state) {
  (void)state;
  assert_int_equal(tutil_threads_await("lraf-worker", 3, 5000), 3);
}

/* A plain pool: Lua states with nothing rewritten or counted. */
static void test_plain(void **state) {
  lraf_pool_options o;
  lraf_pool *p;
  lraf_error err;
  lraf_manager *t = lraf_total_new();
  lraf_pool_counts c;
  lraf_response r;
  (void)state;
  lraf_pool_default_options(&o);
  o.workers = 1;
  o.plain = 1;
  assert_int_equal(lraf_pool_new(&o, &p, &err), LRAF_OK);
  tutil_pool_run(p, t, "a", "sum", tutil_sum_src, -1, "100", &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "5050");
  assert_int_equal(r.instructions, 0);
  lraf_response_free(&r);
  lraf_pool_stats(p, &c);
  assert_int_equal(c.requests, 1);
  assert_int_equal(c.rewrites, 0);
  lraf_pool_close(p);
  assert_int_equal(lraf_manager_total(t), 0);
  lraf_manager_release(t);
}

/* Each bad option is refused (a NULL options too). */
static void test_bad_options(void **state) {
  static const struct { int workers, states; int64_t cleanup; } bad[] = {
    {0, 16, 0}, {1025, 16, 0}, {-1, 16, 0}, {1, 0, 0}, {1, 16, -1},
  };
  lraf_pool_options o;
  lraf_pool *p;
  lraf_error err;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    lraf_pool_default_options(&o);
    o.workers = bad[i].workers;
    o.states_per_worker = bad[i].states;
    o.cleanup_limit = bad[i].cleanup;
    p = (lraf_pool *)&o;
    assert_int_equal(lraf_pool_new(&o, &p, &err), LRAF_EARG);
    assert_null(p);
    assert_non_null(strstr(err.message, "workers must be 1..1024"));
  }
  assert_int_equal(lraf_pool_new(NULL, &p, &err), LRAF_EARG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_count),
    cmocka_unit_test(test_threads),
    cmocka_unit_test(test_thread_names),
    cmocka_unit_test(test_plain),
    cmocka_unit_test(test_bad_options),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
