/*
** test_sv_request.c - running one request (service/sv_request.c)
** through the pool's API:
**   - the handler sees the request (method, path, query, headers,
**     body), and its status, body and headers come back;
**   - each ending has its status, code, outcome and a body naming the
**     limit: ok, a Lua error, a syntax error, the request's limit, the
**     tenant's quota (refused before running when already spent: billed
**     0), the memory limit;
**   - coroutines and deferred functions are charged to the request;
**   - the rule of reuse: finalizers and work that a later request makes
**     a left-over coroutine do go to the tenant, never to a request;
**   - a request over its limit or the memory limit fails alone (429,
**     507) and its state is replaced; tenants never share a state;
**   - handlers that return bad results fail with a 500 and a reason; a
**     chunk that runs away at its top level is charged to no tenant.
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

/* pool: the one requests go to; three workers, or one where a test
   needs every request of a tenant on the same state */
static lraf_pool *pool, *pool3, *pool1;

static int setup(void **state) {
  (void)state;
  pool3 = tutil_pool_new(3, 0, 2000000);
  pool1 = tutil_pool_new(1, 0, 2000000);
  pool = pool3;
  return pool3 != NULL && pool1 != NULL ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  lraf_pool_close(pool3);
  lraf_pool_close(pool1);
  return 0;
}

static void test_request_fields(void **state) {
  static const char src[] =
    "return function(req)\n"
    "  return 201, table.concat({req.method, req.path, req.query.a,\n"
    "    req.query.b, req.headers['x-thing'], req.body}, '|'),\n"
    "    {['X-Got'] = req.query.a}\n"
    "end\n";
  const char *query[] = {"a", "1", "b", "two", NULL};
  const char *headers[] = {"x-thing", "val", NULL};
  lraf_manager *t = lraf_total_new();
  lraf_request rq;
  lraf_response r;
  (void)state;
  memset(&rq, 0, sizeof rq);
  rq.tenant = "f";
  rq.tenant_manager = t;
  rq.limit = -1;
  rq.handler = "fields";
  rq.source = src;
  rq.source_len = strlen(src);
  rq.method = "POST";
  rq.path = "/p/q";
  rq.query = query;
  rq.headers = headers;
  rq.body = "a\0b";
  rq.body_len = 3;
  lraf_pool_run(pool, &rq, &r);
  assert_int_equal(r.code, LRAF_OK);
  assert_int_equal(r.outcome, LRAF_OUTCOME_OK);
  assert_int_equal(r.status, 201);
  assert_int_equal(r.body_len, 23);
  assert_memory_equal(r.body, "POST|/p/q|1|two|val|a\0b", 23);
  assert_string_equal(r.headers, "X-Got: 1\n");
  assert_true(r.instructions > 0);
  assert_int_equal(lraf_manager_total(t), r.instructions);
  assert_true(r.ended >= r.started && r.wall >= 0 && r.cpu >= 0);
  lraf_response_free(&r);
  /* a request without its tenant's manager runs nothing */
  rq.tenant_manager = NULL;
  lraf_pool_run(pool, &rq, &r);
  assert_int_equal(r.code, LRAF_EARG);
  assert_int_equal(r.status, 500);
  assert_int_equal(r.instructions, 0);
  lraf_response_free(&r);
  lraf_manager_release(t);
}

/* Each ending: a handler (query n), the request's limit, the tenant's
   quota (< 0: none), and what comes back. */
static const char endings_src[] =
  "return function(req)\n"
  "  local n = req.query.n\n"
  "  if n == 'fail' then error('boom') end\n"
  "  if n == 'spin' then while true do end end\n"
  "  if n == 'eat' then local t = {} while true do t[#t + 1] = {} end end\n"
  "  return 200, 'fine'\n"
  "end\n";

static const struct ending {
  const char *src, *n;
  int64_t limit, quota;
  int status;
  lraf_status code;
  lraf_outcome outcome;
  const char *body;
} endings[] = {
  {endings_src, "ok", -1, -1, 200, LRAF_OK, LRAF_OUTCOME_OK, "fine"},
  {endings_src, "fail", -1, -1, 500, LRAF_ERUN, LRAF_OUTCOME_ERROR,
   "handler failed: "},
  {"return function( end", "ok", -1, -1, 500, LRAF_ESYNTAX,
   LRAF_OUTCOME_ERROR, "handler failed: "},
  {endings_src, "spin", 50000, -1, 429, LRAF_EQUOTA,
   LRAF_OUTCOME_REQUEST_LIMIT,
   "request limit exceeded: 50000 instructions per request"},
  {endings_src, "spin", 1000000, 50000, 429, LRAF_EQUOTA,
   LRAF_OUTCOME_QUOTA, "tenant quota exceeded"},
  {endings_src, "eat", -1, -1, 507, LRAF_EMEMLIMIT, LRAF_OUTCOME_MEMORY,
   "memory limit exceeded: a state may hold 2000000 bytes"},
};

static void test_endings(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof endings / sizeof endings[0]; i++) {
    const struct ending *e = &endings[i];
    lraf_manager *root = lraf_total_new();
    lraf_manager *t = e->quota >= 0 ? lraf_hier_new(root, e->quota)
                                    : lraf_manager_retain(root);
    lraf_response r;
    char name[16];
    snprintf(name, sizeof name, "end%zu", i);
    tutil_pool_run(pool, t, name, name, e->src, e->limit, e->n, &r);
    if (r.status != e->status || r.code != e->code ||
        r.outcome != e->outcome || strstr(r.body, e->body) == NULL)
      fail_msg("ending %zu: %d %d %s '%s'", i, r.status, (int)r.code,
               lraf_outcome_name(r.outcome), r.body);
    assert_int_equal(lraf_manager_total(t), r.instructions);
    lraf_response_free(&r);
    if (e->quota >= 0) {
      /* spent: the next request is refused before it runs */
      tutil_pool_run(pool, t, name, name, e->src, e->limit, "ok", &r);
      assert_int_equal(r.status, 429);
      assert_int_equal(r.outcome, LRAF_OUTCOME_QUOTA);
      assert_int_equal(r.instructions, 0);
      assert_non_null(strstr(r.body, "tenant quota spent"));
      lraf_response_free(&r);
    }
    lraf_manager_release(t);
    lraf_manager_release(root);
  }
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
  tutil_pool_run(pool, t, "a", "plain", plain, -1, NULL, &a);
  tutil_pool_run(pool, t, "a", "busy", busy, -1, NULL, &b);
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
    tutil_pool_run(pool, t, "fin", "fin", src, -1, NULL, &r);
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
  for (i = 0; i < 3; i++) tutil_pool_run(pool, t, "left", "left", src, -1, NULL, &r[i]);
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
    tutil_pool_run(pool, ta, "A", "count", src, 100000, "ok", &r);
    lraf_response_free(&r);
  }
  /* B has a state of its own */
  tutil_pool_run(pool, tb, "B", "count", src, 100000, "ok", &r);
  assert_string_equal(r.body, "1");
  lraf_response_free(&r);
  tutil_pool_run(pool, ta, "A", "count", src, 100000, "spin", &r);
  assert_int_equal(r.status, 429);
  assert_int_equal(r.code, LRAF_EQUOTA);
  assert_int_equal(r.instructions, 100001);
  lraf_response_free(&r);
  tutil_pool_run(pool, ta, "A", "count", src, 100000000, "eat", &r);
  assert_int_equal(r.status, 507);
  assert_int_equal(r.code, LRAF_EMEMLIMIT);
  assert_true(r.memory_peak > 1000000);
  lraf_response_free(&r);
  tutil_pool_run(pool, tb, "B", "count", src, 100000, "ok", &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "2");   /* B's state went on */
  lraf_response_free(&r);
  tutil_pool_run(pool, ta, "A", "count", src, 100000, "ok", &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "1");   /* A's was replaced */
  lraf_response_free(&r);
  pool = pool3;
  lraf_manager_release(ta);
  lraf_manager_release(tb);
}

static void test_quota_spent(void **state) {
  lraf_manager *root = lraf_total_new(), *t = lraf_hier_new(root, 1000);
  lraf_response r;
  (void)state;
  tutil_pool_run(pool, t, "q", "sum", tutil_sum_src, -1, "10000", &r);
  assert_int_equal(r.status, 429);
  lraf_response_free(&r);
  tutil_pool_run(pool, t, "q", "sum", tutil_sum_src, -1, "1", &r);   /* refused before running */
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
    tutil_pool_run(pool, t, "bad", name, cases[i].src, -1, NULL, &r);
    assert_int_equal(r.status, 500);
    if (strstr(r.body, cases[i].reason) == NULL)
      fail_msg("case %zu: '%s' lacks '%s'", i, r.body, cases[i].reason);
    lraf_response_free(&r);
  }
  {
    lraf_response r;
    tutil_pool_run(pool, t, "bad", "ok", "return function() return 204, nil, {['X-A'] = "
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
  tutil_pool_run(pool, t, "top", "top", "while true do end return function() end", 100000,
      NULL, &r);
  assert_int_equal(r.status, 500);
  assert_non_null(strstr(r.body, "quota"));
  assert_int_equal(r.instructions, 0);
  lraf_response_free(&r);
  assert_int_equal(lraf_manager_total(t), 0);
  tutil_pool_run(pool, t, "top", "sum", tutil_sum_src, 100000, "10", &r);
  assert_int_equal(r.status, 200);
  lraf_response_free(&r);
  lraf_manager_release(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_request_fields),
    cmocka_unit_test(test_endings),
    cmocka_unit_test(test_coroutines_and_defer),
    cmocka_unit_test(test_finalizers_to_tenant),
    cmocka_unit_test(test_leftover_coroutine),
    cmocka_unit_test(test_fail_alone),
    cmocka_unit_test(test_quota_spent),
    cmocka_unit_test(test_bad_results),
    cmocka_unit_test(test_runaway_chunk),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
