/*
** test_sv_billing.c - billing (service/sv_billing.c) through
** lraf_billing_*, with no HTTP, on a pool and an SQLite ledger in a
** temporary directory:
**   - bad options and terms are refused, saying which;
**   - a retry (the same idempotency key, per tenant) is answered from
**     the ledger: not run, billed what the record holds; records are
**     stored under "k:" and the key, or "r:" and the random request id;
**   - every record has its outcome (ok, error, request-limit, quota,
**     memory), status, count and the billing clock's event time, equal
**     to the bill;
**   - a tenant whose quota is spent is refused before its request runs
**     and billed 0, and so again after the billing and the ledger are
**     opened anew;
**   - a reservation larger than what is left is refused (not run, not
**     recorded), one that fits bills at most what it reserved;
**   - without a ledger keys are not checked and quotas live in memory;
**   - lraf_billing_each counts what was billed.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lraf.h"
#include "tutil_pool.h"
#include "tutil_sh.h"

static tutil_sh sh;
static lraf_pool *pool;
static double now = 1767225600.0;   /* 2026-01-01T00:00:00Z */

static double fake_clock(void *ud) {
  return *(double *)ud;
}

/* A fresh SQLite ledger named name in the temporary directory. */
static lraf_ledger *new_ledger(const char *name) {
  char spec[256];
  lraf_ledger *l;
  lraf_error err;
  snprintf(spec, sizeof spec, "sqlite:%s/%s.db", sh.dir, name);
  if (lraf_ledger_open(spec, &l, &err) != LRAF_OK) fail_msg("%s", err.message);
  return l;
}

static lraf_billing *new_billing(lraf_ledger *l, const lraf_term *terms,
                                 int nterms) {
  lraf_billing_options o;
  lraf_billing *b;
  lraf_error err;
  lraf_billing_default_options(&o);
  o.pool = pool;
  o.ledger = l;
  o.terms = terms;
  o.nterms = nterms;
  o.clock = fake_clock;
  o.clock_ud = &now;
  if (lraf_billing_open(&o, &b, &err) != LRAF_OK) fail_msg("%s", err.message);
  return b;
}

static const char handler_src[] =
  "return function(req)\n"
  "  local n = req.query.n\n"
  "  if n == 'fail' then error('boom') end\n"
  "  if n == 'spin' then while true do end end\n"
  "  if n == 'eat' then local t = {} while true do t[#t + 1] = {} end end\n"
  "  local s = 0\n"
  "  for i = 1, tonumber(n) do s = s + i end\n"
  "  return 200, tostring(s)\n"
  "end\n";

/* Bill one request of tenant (query n, reservation reserve) under key;
   the status of lraf_billing_run. */
static lraf_status bill_one(lraf_billing *b, const char *tenant,
                            const char *n, int64_t reserve, const char *key,
                            lraf_bill *bill, lraf_error *err) {
  const char *query[] = {"n", n, NULL};
  lraf_request rq;
  memset(&rq, 0, sizeof rq);
  rq.tenant = tenant;
  rq.handler = "h";
  rq.source = handler_src;
  rq.source_len = strlen(handler_src);
  rq.method = "GET";
  rq.path = "/h";
  rq.query = query;
  rq.reserve = reserve;
  return lraf_billing_run(b, &rq, key, bill, err);
}

/* bill_one that must succeed. */
static void bill_ok(lraf_billing *b, const char *tenant, const char *n,
                    int64_t reserve, const char *key, lraf_bill *bill) {
  lraf_error err;
  if (bill_one(b, tenant, n, reserve, key, bill, &err) != LRAF_OK)
    fail_msg("%s: %s", tenant, err.message);
}

static void test_open_refusals(void **state) {
  static const struct {
    lraf_term term;
    const char *says;
  } bad[] = {
    {{"a b", LRAF_TERM_QUOTA, 1, LRAF_PERIOD_NONE}, "term 0: the tenant"},
    {{"", LRAF_TERM_QUOTA, 1, LRAF_PERIOD_NONE}, "term 0: the tenant"},
    {{NULL, LRAF_TERM_QUOTA, 1, LRAF_PERIOD_NONE}, "term 0: the tenant"},
    {{"a", LRAF_TERM_QUOTA, -1, LRAF_PERIOD_NONE}, "value -1 is below 0"},
    {{"a", LRAF_TERM_RATE, 0, LRAF_PERIOD_NONE}, "value 0 is below 1"},
    {{"a", (lraf_term_kind)9, 1, LRAF_PERIOD_NONE}, "unknown kind 9"},
    {{"a", LRAF_TERM_REQUEST_LIMIT, 1, LRAF_PERIOD_DAY}, "only a quota"},
    {{"a", LRAF_TERM_QUOTA, 1, (lraf_period)7}, "only a quota"},
  };
  lraf_billing_options o;
  lraf_billing *b;
  lraf_error err;
  size_t i;
  (void)state;
  lraf_billing_default_options(&o);
  assert_int_equal(lraf_billing_open(&o, &b, &err), LRAF_EARG);
  assert_null(b);
  assert_non_null(strstr(err.message, "no pool"));
  o.pool = pool;
  o.nterms = 1;
  assert_int_equal(lraf_billing_open(&o, &b, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "no terms"));
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o.terms = &bad[i].term;
    assert_int_equal(lraf_billing_open(&o, &b, &err), LRAF_EARG);
    assert_null(b);
    if (strstr(err.message, bad[i].says) == NULL)
      fail_msg("term %zu: '%s' lacks '%s'", i, err.message, bad[i].says);
  }
}

static int is_hex_id(const char *id) {
  size_t i;
  for (i = 0; id[i]; i++)
    if (!strchr("0123456789abcdef", id[i])) return 0;
  return i == 32;
}

static void test_retry_from_ledger(void **state) {
  lraf_ledger *l = new_ledger("retry");
  lraf_billing *b = new_billing(l, NULL, 0);
  lraf_bill first, again, other, plain;
  lraf_error err;
  lraf_usage u;
  char rkey[40];
  int found;
  int64_t n;
  (void)state;
  bill_ok(b, "t1", "100", 0, "order-1", &first);
  assert_int_equal(first.outcome, LRAF_BILL_RAN);
  assert_int_equal(first.status, 200);
  assert_string_equal(first.response.body, "5050");
  assert_true(is_hex_id(first.request_id));
  assert_true(first.instructions > 0);
  /* the retry: not run, billed what the record says */
  bill_ok(b, "t1", "999", 0, "order-1", &again);
  assert_int_equal(again.outcome, LRAF_BILL_REPEAT);
  assert_int_equal(again.status, 200);
  assert_int_equal(again.instructions, first.instructions);
  assert_string_equal(again.request_id, "");
  assert_null(again.response.body);
  /* keys are a tenant's own */
  bill_ok(b, "t2", "100", 0, "order-1", &other);
  assert_int_equal(other.outcome, LRAF_BILL_RAN);
  /* without a key: stored under its request id */
  bill_ok(b, "t1", "10", 0, NULL, &plain);
  assert_int_equal(plain.outcome, LRAF_BILL_RAN);
  assert_string_not_equal(plain.request_id, first.request_id);
  snprintf(rkey, sizeof rkey, "r:%s", plain.request_id);
  assert_int_equal(lraf_ledger_find(l, "t1", rkey, &found, &n, NULL, &err),
                   LRAF_OK);
  assert_int_equal(found, 1);
  assert_int_equal(n, plain.instructions);
  assert_int_equal(lraf_ledger_find(l, "t1", "k:order-1", &found, &n, NULL,
                                    &err), LRAF_OK);
  assert_int_equal(found, 1);
  assert_int_equal(n, first.instructions);
  assert_int_equal(lraf_ledger_usage(l, "t1", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 2);
  assert_int_equal(u.instructions, first.instructions + plain.instructions);
  lraf_bill_free(&first);
  lraf_bill_free(&again);
  lraf_bill_free(&other);
  lraf_bill_free(&plain);
  lraf_billing_close(b);
  lraf_ledger_close(l);
}

static void test_bad_requests(void **state) {
  static const struct {
    const char *tenant, *key, *says;
  } bad[] = {
    {"a/b", NULL, "bad tenant name"},
    {"", NULL, "bad tenant name"},
    {NULL, NULL, "bad tenant name"},
    {"ok", "", "bad idempotency key"},
    {"ok", "long", "bad idempotency key"},
  };
  lraf_billing *b = new_billing(NULL, NULL, 0);
  char long_key[202];
  size_t i;
  (void)state;
  memset(long_key, 'k', 201);
  long_key[201] = '\0';
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *key = bad[i].key != NULL && strcmp(bad[i].key, "long") == 0
                          ? long_key : bad[i].key;
    lraf_bill bill;
    lraf_error err;
    assert_int_equal(bill_one(b, bad[i].tenant, "1", 0, key, &bill, &err),
                     LRAF_EARG);
    if (strstr(err.message, bad[i].says) == NULL)
      fail_msg("case %zu: '%s'", i, err.message);
    assert_int_equal(bill.instructions, 0);
    lraf_bill_free(&bill);
  }
  lraf_billing_close(b);
}

/* The ledger's record for one key. */
typedef struct found_rec {
  const char *key;
  int found, status;
  int64_t instructions;
  double event_time;
  char outcome[32];
} found_rec;

static int find_rec(void *ud, const lraf_record *r) {
  found_rec *f = ud;
  if (strcmp(r->key, f->key) != 0) return 0;
  f->found = 1;
  f->status = r->status;
  f->instructions = r->instructions;
  f->event_time = r->event_time;
  snprintf(f->outcome, sizeof f->outcome, "%s", r->outcome);
  return 1;
}

static void test_outcomes_recorded(void **state) {
  static const struct {
    const char *tenant, *n;
    int status;
    const char *outcome;
  } cases[] = {
    {"o", "10", 200, "ok"},
    {"o", "fail", 500, "error"},
    {"o", "spin", 429, "request-limit"},
    {"e", "eat", 507, "memory"},
    {"q", "spin", 429, "quota"},
  };
  static const lraf_term terms[] = {
    {"o", LRAF_TERM_REQUEST_LIMIT, 100000, LRAF_PERIOD_NONE},
    {"q", LRAF_TERM_QUOTA, 50000, LRAF_PERIOD_NONE},
  };
  lraf_ledger *l = new_ledger("outcomes");
  lraf_billing *b = new_billing(l, terms, 2);
  lraf_error err;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_bill bill;
    found_rec f;
    char key[16], kkey[24];
    snprintf(key, sizeof key, "case-%zu", i);
    snprintf(kkey, sizeof kkey, "k:%s", key);
    now += 60;
    bill_ok(b, cases[i].tenant, cases[i].n, 0, key, &bill);
    assert_int_equal(bill.outcome, LRAF_BILL_RAN);
    memset(&f, 0, sizeof f);
    snprintf(f.outcome, sizeof f.outcome, "?");
    f.key = kkey;
    assert_int_equal(lraf_ledger_each(l, cases[i].tenant, -HUGE_VAL,
                                      HUGE_VAL, find_rec, &f, &err), LRAF_OK);
    if (!f.found || bill.status != cases[i].status ||
        f.status != cases[i].status ||
        strcmp(f.outcome, cases[i].outcome) != 0 ||
        f.instructions != bill.instructions || f.event_time != now)
      fail_msg("case %zu: bill %d, record %d %s %lld (bill %lld) at %.0f",
               i, bill.status, f.status, f.outcome,
               (long long)f.instructions, (long long)bill.instructions,
               f.event_time);
    lraf_bill_free(&bill);
  }
  lraf_billing_close(b);
  lraf_ledger_close(l);
}

/* Bill tenant until it is refused; the sum billed. */
static int64_t spend(lraf_billing *b, const char *tenant) {
  int64_t sum = 0;
  int i;
  for (i = 0; i < 100; i++) {
    lraf_bill bill;
    int status;
    bill_ok(b, tenant, "2000", 0, NULL, &bill);
    sum += bill.instructions;
    status = bill.status;
    lraf_bill_free(&bill);
    if (status == 429) return sum;
  }
  fail_msg("%s never refused", tenant);
  return sum;
}

/* A spent tenant's request: refused before it runs, billed 0. */
static void expect_refused(lraf_billing *b, const char *tenant) {
  lraf_bill bill;
  bill_ok(b, tenant, "1", 0, NULL, &bill);
  assert_int_equal(bill.status, 429);
  assert_int_equal(bill.instructions, 0);
  assert_int_equal(bill.response.outcome, LRAF_OUTCOME_QUOTA);
  assert_non_null(strstr(bill.response.body, "tenant quota spent"));
  lraf_bill_free(&bill);
}

static void test_spent_refused(void **state) {
  static const lraf_term terms[] = {
    {"*", LRAF_TERM_QUOTA, 30000, LRAF_PERIOD_NONE},
  };
  lraf_ledger *l = new_ledger("spent");
  lraf_billing *b = new_billing(l, terms, 1);
  lraf_error err;
  lraf_usage u;
  int64_t sum;
  char spec[256];
  (void)state;
  sum = spend(b, "s");
  expect_refused(b, "s");
  assert_int_equal(lraf_ledger_usage(l, "s", &u, &err), LRAF_OK);
  assert_int_equal(u.instructions, sum);
  /* opened anew: the ledger's records say it is spent */
  lraf_billing_close(b);
  lraf_ledger_close(l);
  snprintf(spec, sizeof spec, "sqlite:%s/spent.db", sh.dir);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  b = new_billing(l, terms, 1);
  expect_refused(b, "s");
  assert_int_equal(lraf_ledger_usage(l, "s", &u, &err), LRAF_OK);
  assert_int_equal(u.instructions, sum);
  lraf_billing_close(b);
  lraf_ledger_close(l);
}

static void test_reservations(void **state) {
  static const lraf_term terms[] = {
    {"r", LRAF_TERM_QUOTA, 10000, LRAF_PERIOD_NONE},
  };
  lraf_ledger *l = new_ledger("reserve");
  lraf_billing *b = new_billing(l, terms, 1);
  lraf_bill bill;
  lraf_error err;
  lraf_usage u;
  int64_t billed;
  (void)state;
  /* more than the quota: refused, not run, not recorded */
  bill_ok(b, "r", "10", 20000, NULL, &bill);
  assert_int_equal(bill.outcome, LRAF_BILL_REFUSED);
  assert_int_equal(bill.status, 429);
  assert_int_equal(bill.reserved, 20000);
  assert_int_equal(bill.available, 10000);
  assert_int_equal(bill.instructions, 0);
  assert_null(bill.response.body);
  lraf_bill_free(&bill);
  assert_int_equal(lraf_ledger_usage(l, "r", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 0);
  /* fits: runs, billed its count */
  bill_ok(b, "r", "10", 5000, NULL, &bill);
  assert_int_equal(bill.outcome, LRAF_BILL_RAN);
  assert_int_equal(bill.reserved, 5000);
  assert_true(bill.instructions > 0 && bill.instructions <= 5000);
  billed = bill.instructions;
  lraf_bill_free(&bill);
  /* what it did not use is free again */
  bill_ok(b, "r", "10", 10000 - billed + 1, NULL, &bill);
  assert_int_equal(bill.outcome, LRAF_BILL_REFUSED);
  assert_int_equal(bill.available, 10000 - billed);
  lraf_bill_free(&bill);
  /* stopped at its reservation: billed exactly that */
  bill_ok(b, "r", "spin", 3000, NULL, &bill);
  assert_int_equal(bill.outcome, LRAF_BILL_RAN);
  assert_int_equal(bill.status, 429);
  assert_int_equal(bill.instructions, 3000);
  assert_non_null(strstr(bill.response.body, "reservation exhausted: 3000"));
  lraf_bill_free(&bill);
  assert_int_equal(lraf_ledger_usage(l, "r", &u, &err), LRAF_OK);
  assert_int_equal(u.instructions, billed + 3000);
  lraf_billing_close(b);
  lraf_ledger_close(l);
}

typedef struct seen {
  const char *tenant;
  lraf_tenant_stats s;
  int found;
} seen;

static void see(void *ud, const lraf_tenant_stats *t) {
  seen *w = ud;
  if (strcmp(t->tenant, w->tenant) != 0) return;
  w->s = *t;
  w->found = 1;
}

static void test_no_ledger(void **state) {
  static const lraf_term terms[] = {
    {"m", LRAF_TERM_QUOTA, 30000, LRAF_PERIOD_NONE},
  };
  lraf_billing *b = new_billing(NULL, terms, 1);
  lraf_bill one, two;
  seen w = {"m", {0}, 0};
  int64_t sum;
  (void)state;
  /* no ledger: a key is not looked up, the request runs again */
  bill_ok(b, "m", "10", 0, "same", &one);
  bill_ok(b, "m", "10", 0, "same", &two);
  assert_int_equal(one.outcome, LRAF_BILL_RAN);
  assert_int_equal(two.outcome, LRAF_BILL_RAN);
  assert_int_equal(one.instructions, two.instructions);
  sum = one.instructions + two.instructions;
  lraf_bill_free(&one);
  lraf_bill_free(&two);
  lraf_billing_each(b, see, &w);
  assert_int_equal(w.found, 1);
  assert_int_equal(w.s.requests, 2);
  assert_int_equal(w.s.instructions, sum);
  assert_int_equal(w.s.by_class[2], 2);
  assert_int_equal(w.s.quota, 30000);
  assert_int_equal(w.s.quota_left, 30000 - sum);
  /* the quota in memory: spent, then refused billed 0 */
  sum += spend(b, "m");
  expect_refused(b, "m");
  w.found = 0;
  lraf_billing_each(b, see, &w);
  assert_int_equal(w.s.instructions, sum);
  assert_int_equal(w.s.by_class[4], 2);
  assert_true(w.s.quota_left <= 0);
  lraf_billing_close(b);
}

static int setup(void **state) {
  (void)state;
  pool = tutil_pool_new(2, 0, 2000000);
  if (pool == NULL) return -1;
  return tutil_sh_init(&sh, "sv-billing");
}

static int teardown(void **state) {
  (void)state;
  lraf_pool_close(pool);
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_open_refusals),
    cmocka_unit_test(test_retry_from_ledger),
    cmocka_unit_test(test_bad_requests),
    cmocka_unit_test(test_outcomes_recorded),
    cmocka_unit_test(test_spent_refused),
    cmocka_unit_test(test_reservations),
    cmocka_unit_test(test_no_ledger),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
