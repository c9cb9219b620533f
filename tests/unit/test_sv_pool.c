/*
** test_sv_pool.c - the request pool (service/) through the public API:
**   - a request's count is the same on a fresh and on a reused state,
**     and from 16 OS threads at once;
**   - coroutines and deferred functions are charged to the request;
**   - the rule of reuse: finalizers and work that a later request makes
**     a left-over coroutine do go to the tenant, never to a request;
**   - a request over its limit or the memory limit fails alone (429,
**     507) and its state is replaced; tenants never share a state;
**   - handler chunks are rewritten once per worker, not again when a
**     state is replaced;
**   - handlers that return bad results fail with a 500 and a reason.
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

/* pool: the one requests go to; three workers, or one where a test
   needs every request of a tenant on the same state */
static lraf_pool *pool, *pool3, *pool1;

static int setup(void **state) {
  lraf_pool_options o;
  lraf_error err;
  (void)state;
  lraf_pool_default_options(&o);
  o.workers = 3;
  o.state.memory_limit = 2000000;
  if (lraf_pool_new(&o, &pool3, &err) != LRAF_OK) return -1;
  o.workers = 1;
  if (lraf_pool_new(&o, &pool1, &err) != LRAF_OK) return -1;
  pool = pool3;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  lraf_pool_close(pool3);
  lraf_pool_close(pool1);
  return 0;
}

/* Run src as handler name for tenant (manager m) with query n=N. */
static void run(lraf_manager *m, const char *tenant, const char *name,
                const char *src, int64_t limit, const char *n,
                lraf_response *res) {
  const char *query[] = {"n", n, NULL};
  lraf_request rq;
  memset(&rq, 0, sizeof rq);
  rq.tenant = tenant;
  rq.tenant_manager = m;
  rq.limit = limit;
  rq.handler = name;
  rq.source = src;
  rq.source_len = strlen(src);
  rq.method = "GET";
  rq.path = "/x";
  rq.query = n ? query : NULL;
  lraf_pool_run(pool, &rq, res);
}

static const char sum_src[] =
  "return function(req)\n"
  "  local s = 0\n"
  "  for i = 1, tonumber(req.query.n) do s = s + i end\n"
  "  return 200, tostring(s)\n"
  "end\n";

static void test_same_count(void **state) {
  lraf_manager *t = lraf_total_new();
  lraf_response r;
  int64_t first = 0, sum = 0;
  int i;
  (void)state;
  for (i = 0; i < 20; i++) {
    run(t, "a", "sum", sum_src, -1, "100", &r);
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
} job;

static void *thread(void *arg) {
  job *j = arg;
  int i;
  for (i = 0; i < 50; i++) {
    lraf_response r;
    run(j->t, i % 2 ? "a" : "b", "sum", sum_src, -1, "300", &r);
    j->counts[i] = r.status == 200 ? r.instructions : -1;
    lraf_response_free(&r);
  }
  return NULL;
}

static void test_threads(void **state) {
  lraf_manager *t = lraf_total_new();
  job jobs[16];
  pthread_t th[16];
  lraf_response r;
  int64_t alone, sum = 0;
  int i, k;
  (void)state;
  run(t, "a", "sum", sum_src, -1, "300", &r);
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
    }
  }
  assert_int_equal(lraf_manager_total(t), sum);
  lraf_manager_release(t);
}

static void test_coroutines_and_defer(void **state) {
  static const char plain[] =
    "return function(req) return 200, 'x' end\n";
  static const char busy[] =
    "return function(req)\n"
    "  local co = coroutine.wrap(function()\n"
    "    for i = 1, 500 do coroutine.yield(i) end end)\n"
    "  for i = 1, 500 do co() end\n"
    "  req.defer(function()\n"
    "    local s = 0 for i = 1, 1000 do s = s + i end end)\n"
    "  return 200, 'x'\n"
    "end\n";
  lraf_manager *t = lraf_total_new();
  lraf_response a, b;
  (void)state;
  run(t, "a", "plain", plain, -1, NULL, &a);
  run(t, "a", "busy", busy, -1, NULL, &b);
  assert_int_equal(b.status, 200);
  /* 500 resumes and yields (>= 4 instructions each) and a loop of 1000
     (>= 2 each) are in the request's count */
  assert_true(b.instructions - a.instructions > 500 * 4 + 1000 * 2);
  assert_int_equal(lraf_manager_total(t), a.instructions + b.instructions);
  lraf_response_free(&a);
  lraf_response_free(&b);
  lraf_manager_release(t);
}

static void test_finalizers_to_tenant(void **state) {
  /* each request leaves an object whose finalizer loops 1000 times */
  static const char src[] =
    "return function(req)\n"
    "  setmetatable({}, {__gc = function()\n"
    "    local s = 0 for i = 1, 1000 do s = s + i end end})\n"
    "  return 200, 'x'\n"
    "end\n";
  lraf_manager *t = lraf_total_new();
  lraf_response r;
  int64_t first = 0, sum = 0;
  int i;
  (void)state;
  for (i = 0; i < 10; i++) {
    run(t, "fin", "fin", src, -1, NULL, &r);
    if (i == 0) first = r.instructions;
    assert_int_equal(r.instructions, first);  /* never a finalizer */
    sum += r.instructions;
    lraf_response_free(&r);
  }
  assert_true(first < 100);
  /* the tenant paid for the 10 finalizers (collected after each
     request) */
  assert_true(lraf_manager_total(t) - sum >= 10 * 1000 * 2);
  lraf_manager_release(t);
}

static void test_leftover_coroutine(void **state) {
  /* request k resumes the coroutine request k-1 left behind: that work
     (a loop of 1000) is request k's, within its limit */
  static const char src[] =
    "local saved\n"
    "return function(req)\n"
    "  if saved then coroutine.resume(saved) end\n"
    "  saved = coroutine.create(function()\n"
    "    while true do\n"
    "      local s = 0 for i = 1, 1000 do s = s + i end\n"
    "      coroutine.yield()\n"
    "    end\n"
    "  end)\n"
    "  coroutine.resume(saved)\n"
    "  return 200, 'x'\n"
    "end\n";
  lraf_manager *t = lraf_total_new();
  lraf_response r[3];
  int i;
  (void)state;
  pool = pool1;  /* every request finds the state of the last */
  for (i = 0; i < 3; i++) run(t, "left", "left", src, -1, NULL, &r[i]);
  pool = pool3;
  /* the 2nd and 3rd requests cost the same, a loop more than the 1st
     (the resumed coroutine's), and the tenant paid nothing else */
  assert_int_equal(r[1].instructions, r[2].instructions);
  assert_true(r[1].instructions - r[0].instructions >= 1000 * 2);
  assert_int_equal(lraf_manager_total(t), r[0].instructions +
                   r[1].instructions + r[2].instructions);
  for (i = 0; i < 3; i++) lraf_response_free(&r[i]);
  lraf_manager_release(t);
}

static void test_fail_alone(void **state) {
  /* a counter kept in the state: a stop replaces the state, so the next
     request of the tenant counts from 1 again */
  static const char src[] =
    "local n = 0\n"
    "return function(req)\n"
    "  n = n + 1\n"
    "  if req.query.n == 'spin' then while true do end end\n"
    "  if req.query.n == 'eat' then\n"
    "    local t = {} while true do t[#t + 1] = {} end end\n"
    "  return 200, tostring(n)\n"
    "end\n";
  lraf_manager *ta = lraf_total_new(), *tb = lraf_total_new();
  lraf_response r;
  int i;
  (void)state;
  pool = pool1;  /* one state per tenant */
  for (i = 0; i < 3; i++) {
    run(ta, "A", "count", src, 100000, "ok", &r);
    lraf_response_free(&r);
  }
  /* B has a state of its own */
  run(tb, "B", "count", src, 100000, "ok", &r);
  assert_string_equal(r.body, "1");
  lraf_response_free(&r);
  run(ta, "A", "count", src, 100000, "spin", &r);
  assert_int_equal(r.status, 429);
  assert_int_equal(r.code, LRAF_EQUOTA);
  assert_int_equal(r.instructions, 100001);
  lraf_response_free(&r);
  run(ta, "A", "count", src, 100000000, "eat", &r);
  assert_int_equal(r.status, 507);
  assert_int_equal(r.code, LRAF_EMEMLIMIT);
  assert_true(r.memory_peak > 1000000);
  lraf_response_free(&r);
  run(tb, "B", "count", src, 100000, "ok", &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "2");   /* B's state went on */
  lraf_response_free(&r);
  run(ta, "A", "count", src, 100000, "ok", &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "1");   /* A's was replaced */
  lraf_response_free(&r);
  pool = pool3;
  lraf_manager_release(ta);
  lraf_manager_release(tb);
}

/* A handler chunk is rewritten once per worker: a state that replaces
   a stopped one loads it again without rewriting. */
static void test_chunk_cache(void **state) {
  static const char src[] =
    "return function(req)\n"
    "  if req.query.n == 'spin' then while true do end end\n"
    "  return 200, 'x'\n"
    "end\n";
  lraf_manager *t = lraf_total_new();
  lraf_pool_counts a, b, c;
  lraf_response r;
  int i;
  (void)state;
  pool = pool1;
  lraf_pool_stats(pool, &a);
  for (i = 0; i < 20; i++) {
    run(t, "cache", "cached", src, 100000, "ok", &r);
    assert_int_equal(r.status, 200);
    lraf_response_free(&r);
  }
  lraf_pool_stats(pool, &b);
  assert_int_equal(b.requests - a.requests, 20);
  assert_int_equal(b.rewrites - a.rewrites, 1);
  assert_int_equal(b.loads - a.loads, 1);
  assert_int_equal(b.states - a.states, 1);
  run(t, "cache", "cached", src, 100000, "spin", &r);
  assert_int_equal(r.status, 429);
  lraf_response_free(&r);
  for (i = 0; i < 5; i++) {
    run(t, "cache", "cached", src, 100000, "ok", &r);
    assert_int_equal(r.status, 200);
    lraf_response_free(&r);
  }
  lraf_pool_stats(pool, &c);
  assert_int_equal(c.replaced - b.replaced, 1);
  assert_int_equal(c.states - b.states, 1);
  /* the lraf VM's states rewrite the source in memory at every load;
     stock ones load the worker's cached chunk */
  assert_int_equal(c.rewrites - b.rewrites, lraf_vm_builtin() ? 1 : 0);
  assert_int_equal(c.loads - b.loads, 1);
  pool = pool3;
  lraf_manager_release(t);
}

static void test_quota_spent(void **state) {
  lraf_manager *root = lraf_total_new(), *t = lraf_hier_new(root, 1000);
  lraf_response r;
  (void)state;
  run(t, "q", "sum", sum_src, -1, "10000", &r);
  assert_int_equal(r.status, 429);
  lraf_response_free(&r);
  run(t, "q", "sum", sum_src, -1, "1", &r);   /* refused before running */
  assert_int_equal(r.status, 429);
  assert_int_equal(r.instructions, 0);
  lraf_response_free(&r);
  lraf_manager_release(t);
  lraf_manager_release(root);
}

static void test_bad_results(void **state) {
  static const struct {
    const char *src, *reason;
  } cases[] = {
    {"return function() return 'x' end", "no status"},
    {"return function() return 99 end", "no status"},
    {"return function() return 200, {} end", "body that is not a string"},
    {"return function() return 200, 'x', 5 end", "not a table"},
    {"return function() return 200, 'x', {['a b'] = 'c'} end", "malformed"},
    {"return function() return 200, 'x', {a = 'c\\r\\nX: y'} end",
     "malformed"},
    {"return function() return 200, 'x', {[1] = 'c'} end", "not a string"},
    {"return function() error({}) end", "error object"},
    {"return 42", "no handler function"},
    {"return function( end", "expected"},
  };
  lraf_manager *t = lraf_total_new();
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_response r;
    char name[16];
    snprintf(name, sizeof name, "bad%zu", i);
    run(t, "bad", name, cases[i].src, -1, NULL, &r);
    assert_int_equal(r.status, 500);
    if (strstr(r.body, cases[i].reason) == NULL)
      fail_msg("case %zu: '%s' lacks '%s'", i, r.body, cases[i].reason);
    lraf_response_free(&r);
  }
  {
    lraf_response r;
    run(t, "bad", "ok", "return function() return 204, nil, {['X-A'] = "
        "'1'} end", -1, NULL, &r);
    assert_int_equal(r.status, 204);
    assert_string_equal(r.body, "");
    assert_string_equal(r.headers, "X-A: 1\n");
    lraf_response_free(&r);
  }
  lraf_manager_release(t);
}

/* A chunk that runs away at its top level stops at the request's limit
   (a 500: the handler could not be loaded), charged to no tenant. */
static void test_runaway_chunk(void **state) {
  lraf_manager *t = lraf_total_new();
  lraf_response r;
  (void)state;
  run(t, "top", "top", "while true do end return function() end", 100000,
      NULL, &r);
  assert_int_equal(r.status, 500);
  assert_non_null(strstr(r.body, "quota"));
  assert_int_equal(r.instructions, 0);
  lraf_response_free(&r);
  assert_int_equal(lraf_manager_total(t), 0);
  run(t, "top", "sum", sum_src, 100000, "10", &r);
  assert_int_equal(r.status, 200);
  lraf_response_free(&r);
  lraf_manager_release(t);
}

static void test_bad_options(void **state) {
  lraf_pool_options o;
  lraf_pool *p;
  lraf_error err;
  (void)state;
  lraf_pool_default_options(&o);
  o.workers = 0;
  assert_int_equal(lraf_pool_new(&o, &p, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "workers"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_same_count),
    cmocka_unit_test(test_threads),
    cmocka_unit_test(test_coroutines_and_defer),
    cmocka_unit_test(test_finalizers_to_tenant),
    cmocka_unit_test(test_leftover_coroutine),
    cmocka_unit_test(test_fail_alone),
    cmocka_unit_test(test_chunk_cache),
    cmocka_unit_test(test_quota_spent),
    cmocka_unit_test(test_bad_results),
    cmocka_unit_test(test_runaway_chunk),
    cmocka_unit_test(test_bad_options),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
