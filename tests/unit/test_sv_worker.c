/*
** test_sv_worker.c - a worker's states and chunk cache
** (service/sv_worker.c) through the pool's API, on a pool of one
** worker:
**   - each tenant has a state of its own, kept between its requests;
**     past states_per_worker the least recently used one is closed (not
**     the oldest made);
**   - a handler chunk is rewritten once per worker, and a state that
**     replaces a stopped one loads it again without rewriting;
**   - the worker keeps its 256 most recently made chunks: a chunk made
**     before 256 others is rewritten again for a new state.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_pool.h"

static lraf_pool *pool;   /* one worker, two states */

static int setup(void **state) {
  (void)state;
  pool = tutil_pool_new(1, 2, 0);
  return pool != NULL ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  lraf_pool_close(pool);
  return 0;
}

/* The body: how many requests this state has run. */
static const char counter_src[] =
  "local n = 0\n"
  "return function(req) n = n + 1 return 200, tostring(n) end\n";

/* Tenants in turn, and what each request's state counted.  With room
   for two states, c's first request closes b (a was used since), and
   each later newcomer the one used longest ago. */
static const struct turn {
  const char *tenant, *count;
} turns[] = {
  {"a", "1"}, {"b", "1"}, {"a", "2"}, {"c", "1"}, {"a", "3"},
  {"b", "1"}, {"a", "4"}, {"c", "1"},
};

static void test_lru_states(void **state) {
  lraf_manager *t = lraf_total_new();
  lraf_pool_counts before, after;
  size_t i;
  (void)state;
  lraf_pool_stats(pool, &before);
  for (i = 0; i < sizeof turns / sizeof turns[0]; i++) {
    lraf_response r;
    tutil_pool_run(pool, t, turns[i].tenant, "counter", counter_src, -1,
                   NULL, &r);
    assert_int_equal(r.status, 200);
    if (strcmp(r.body, turns[i].count) != 0)
      fail_msg("turn %zu (tenant %s): count %s, want %s", i,
               turns[i].tenant, r.body, turns[i].count);
    assert_int_equal(r.worker, 0);
    lraf_response_free(&r);
  }
  lraf_pool_stats(pool, &after);
  assert_int_equal(after.states - before.states, 5);
  assert_int_equal(after.replaced - before.replaced, 3);
  assert_int_equal(after.requests - before.requests, 8);
  lraf_manager_release(t);
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
  lraf_pool_stats(pool, &a);
  for (i = 0; i < 20; i++) {
    tutil_pool_run(pool, t, "cache", "cached", src, 100000, "ok", &r);
    assert_int_equal(r.status, 200);
    lraf_response_free(&r);
  }
  lraf_pool_stats(pool, &b);
  assert_int_equal(b.requests - a.requests, 20);
  assert_int_equal(b.rewrites - a.rewrites, 1);
  assert_int_equal(b.loads - a.loads, 1);
  assert_int_equal(b.states - a.states, 1);
  tutil_pool_run(pool, t, "cache", "cached", src, 100000, "spin", &r);
  assert_int_equal(r.status, 429);
  lraf_response_free(&r);
  for (i = 0; i < 5; i++) {
    tutil_pool_run(pool, t, "cache", "cached", src, 100000, "ok", &r);
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
  lraf_manager_release(t);
}

/* 257 handlers made after handler 0: a new state rewrites it again (on
   the stock target; the lraf VM rewrites at every load anyway), and
   loads the last one made from the cache. */
static void test_chunk_cache_bound(void **state) {
  lraf_manager *t = lraf_total_new();
  lraf_pool_counts a, b, c;
  char src[128], name[16];
  lraf_response r;
  int i;
  (void)state;
  lraf_pool_stats(pool, &a);
  for (i = 0; i <= 256; i++) {
    snprintf(src, sizeof src, "-- %d\nreturn function() return 200 end\n",
             i);
    snprintf(name, sizeof name, "h%d", i);
    tutil_pool_run(pool, t, "many", name, src, -1, NULL, &r);
    assert_int_equal(r.status, 200);
    lraf_response_free(&r);
  }
  lraf_pool_stats(pool, &b);
  assert_int_equal(b.rewrites - a.rewrites, 257);
  assert_int_equal(b.loads - a.loads, 257);
  /* a new tenant, so a new state: the last made comes from the cache */
  tutil_pool_run(pool, t, "fresh", "h256",
                 "-- 256\nreturn function() return 200 end\n", -1, NULL, &r);
  assert_int_equal(r.status, 200);
  lraf_response_free(&r);
  lraf_pool_stats(pool, &c);
  assert_int_equal(c.rewrites - b.rewrites, lraf_vm_builtin() ? 1 : 0);
  /* the first made is gone from it: rewritten again */
  tutil_pool_run(pool, t, "fresh", "h0",
                 "-- 0\nreturn function() return 200 end\n", -1, NULL, &r);
  assert_int_equal(r.status, 200);
  lraf_response_free(&r);
  lraf_pool_stats(pool, &b);
  assert_int_equal(b.rewrites - c.rewrites, 1);
  assert_int_equal(b.loads - c.loads, 1);
  lraf_manager_release(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lru_states),
    cmocka_unit_test(test_chunk_cache),
    cmocka_unit_test(test_chunk_cache_bound),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
