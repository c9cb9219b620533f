/*
** test_acct_budget_threads.c - managers shared across OS threads: 8 pthreads,
** each with its own lua_State, charge one hierarchical limit drawn from
** one total.  The total equals the sum of the per-thread counts exactly,
** and the limit stops every thread, each within its granularity.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lraf.h"

#define NTHREADS 8
#define GRANULARITY 5000

typedef struct worker {
  lraf_manager *m;
  const char *src;
  lraf_status st;
  int64_t count;
  char msg[512];
} worker;

static void add(lraf_account *a, int64_t n, int alive, void *ud) {
  (void)a;
  (void)alive;
  *(int64_t *)ud += n;
}

static void *work(void *arg) {
  worker *w = arg;
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_default_options(&opt);
  opt.manager = w->m;
  opt.granularity = GRANULARITY;
  if (lraf_new(&opt, &S, &err) != LRAF_OK) {
    w->st = err.code;
    snprintf(w->msg, sizeof w->msg, "%s", err.message);
    return NULL;
  }
  w->st = lraf_run_string(S, w->src, "=worker", &err);
  if (w->st != LRAF_OK)
    snprintf(w->msg, sizeof w->msg, "%s", err.message);
  w->count = lraf_retired(S, NULL);
  lraf_foreach_account(S, add, &w->count);
  lraf_close(S);
  return NULL;
}

static void run_all(lraf_manager *m, const char *const *src, worker *w) {
  pthread_t th[NTHREADS];
  int i;
  for (i = 0; i < NTHREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].m = m;
    w[i].src = src[i % 2];
    assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  for (i = 0; i < NTHREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
}

static void test_shared_total_and_limit(void **state) {
  static const char *const finite[] = {
    "local s = 0 for i = 1, 200000 do s = s + i % 7 end",
    "local t = {} for i = 1, 30000 do t[#t + 1] = tostring(i) end"
    " local co = coroutine.wrap(function() for i = 1, 1000 do coroutine.yield(i) end end)"
    " for i = 1, 1000 do co() end",
  };
  static const char *const runaway[] = {
    "while true do end",
    "local function f(n) return f(n + 1) end f(1)",
  };
  lraf_manager *total = lraf_total_new();
  lraf_manager *limit = lraf_hier_new(total, 100000000);
  worker w[NTHREADS];
  int64_t sum = 0, before, quota;
  int i;
  (void)state;
  run_all(limit, finite, w);
  for (i = 0; i < NTHREADS; i++) {
    if (w[i].st != LRAF_OK) fail_msg("worker %d: %s", i, w[i].msg);
    sum += w[i].count;
  }
  printf("  %d threads: total %lld = sum of per-thread counts %lld\n",
         NTHREADS, (long long)lraf_manager_total(total), (long long)sum);
  assert_int_equal(lraf_manager_total(total), sum);
  assert_int_equal(lraf_manager_total(limit), sum);
  /* every runaway thread stops on the shared quota */
  before = lraf_manager_total(limit);
  quota = before + 2000000;
  lraf_limit_set(limit, quota);
  run_all(limit, runaway, w);
  sum = 0;
  for (i = 0; i < NTHREADS; i++) {
    if (w[i].st != LRAF_EQUOTA)
      fail_msg("worker %d: %s (%s)", i, lraf_status_name(w[i].st), w[i].msg);
    sum += w[i].count;
  }
  assert_int_equal(lraf_manager_total(limit) - before, sum);
  assert_int_equal(lraf_manager_total(total), lraf_manager_total(limit));
  printf("  limit %lld: all %d stopped, overshoot %lld (at most %d)\n",
         (long long)(quota - before), NTHREADS,
         (long long)(lraf_manager_total(limit) - quota),
         NTHREADS * (GRANULARITY + 10));
  assert_true(lraf_manager_total(limit) > quota);
  assert_true(lraf_manager_total(limit) - quota <=
              NTHREADS * (GRANULARITY + 10));
  lraf_manager_release(limit);
  lraf_manager_release(total);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_shared_total_and_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
