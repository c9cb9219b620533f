/*
** test_sv_tenant.c - a billing's tenants (service/sv_tenant.c), through
** sv_tenant_get and sv_tenant_put (service/sv.h) on billings opened with
** lraf_billing_open:
**   - tenant names: 1-64 of A-Z a-z 0-9 _ - . ;
**   - each term from the tenant's own, else "*"'s, the last given of a
**     kind winning; none: no limit, no quota, no rate;
**   - the managers: a quota in memory, or what the SQLite ledger's
**     records leave of it; a rate at the root; a new quota manager at
**     the first request of a new period, whole again;
**   - at most max_tenants: the least recently used idle tenant without
**     a quota of its own in memory goes; a held one or one keeping its
**     quota never does, and then the next is refused (LRAF_ELIMIT), or
**     through lraf_billing_run, LRAF_BILL_BUSY with 503.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv.h"
#include "tutil_pool.h"
#include "tutil_sh.h"

static tutil_sh sh;
static lraf_pool *pool;
static const double jan31 = 1769860800.0;   /* 2026-01-31T12:00:00Z */

static lraf_billing *open_billing(lraf_ledger *l, const lraf_term *terms,
                                  int nterms, int max_tenants) {
  lraf_billing_options o;
  lraf_billing *b;
  lraf_error err;
  lraf_billing_default_options(&o);
  o.pool = pool;
  o.ledger = l;
  o.terms = terms;
  o.nterms = nterms;
  if (max_tenants > 0) o.max_tenants = max_tenants;
  if (lraf_billing_open(&o, &b, &err) != LRAF_OK) fail_msg("%s", err.message);
  return b;
}

/* sv_tenant_get that must give a tenant; its manager in *m. */
static sv_tenant *get(lraf_billing *b, const char *name, double now,
                      lraf_manager **m) {
  lraf_error err;
  int full;
  sv_tenant *t = sv_tenant_get(b, name, now, m, &full, &err);
  if (t == NULL) fail_msg("%s: %s", name, err.message);
  assert_int_equal(full, 0);
  return t;
}

static void test_names(void **state) {
  static const struct { const char *s; int ok; } names[] = {
    {"a", 1}, {"A-z_0.9", 1}, {"", 0}, {"a b", 0}, {"a/b", 0},
    {"caf\xc3\xa9", 0}, {"*", 0}, {"a\tb", 0},
  };
  char longest[66];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (sv_valid_name(names[i].s, 64) != names[i].ok)
      fail_msg("name %zu '%s': %d", i, names[i].s, !names[i].ok);
  memset(longest, 'n', 65);
  longest[65] = '\0';
  assert_int_equal(sv_valid_name(longest, 64), 0);
  longest[64] = '\0';
  assert_int_equal(sv_valid_name(longest, 64), 1);
}

static void test_terms(void **state) {
  static const lraf_term terms[] = {
    {"*", LRAF_TERM_REQUEST_LIMIT, 1000, LRAF_PERIOD_NONE},
    {"a", LRAF_TERM_REQUEST_LIMIT, 5000, LRAF_PERIOD_NONE},
    {"*", LRAF_TERM_REQUEST_LIMIT, 2000, LRAF_PERIOD_NONE},
    {"a", LRAF_TERM_QUOTA, 100, LRAF_PERIOD_MONTH},
    {"a", LRAF_TERM_QUOTA, 300, LRAF_PERIOD_DAY},
    {"b", LRAF_TERM_RATE, 1000000, LRAF_PERIOD_NONE},
  };
  /* tenant, then its limit, quota, period and rate */
  static const struct {
    const char *tenant;
    int64_t limit, quota;
    lraf_period period;
    int64_t rate;
  } want[] = {
    {"a", 5000, 300, LRAF_PERIOD_DAY, 0},
    {"b", 2000, -1, LRAF_PERIOD_NONE, 1000000},
    {"c", 2000, -1, LRAF_PERIOD_NONE, 0},
  };
  lraf_billing *b = open_billing(NULL, terms, 6, 0), *none;
  lraf_manager *m;
  sv_tenant *t;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    t = get(b, want[i].tenant, jan31, &m);
    if (t->limit != want[i].limit || t->quota != want[i].quota ||
        t->period != want[i].period || t->rate != want[i].rate)
      fail_msg("%s: limit %lld quota %lld period %d rate %lld",
               want[i].tenant, (long long)t->limit, (long long)t->quota,
               (int)t->period, (long long)t->rate);
    lraf_manager_release(m);
    sv_tenant_put(b, t);
  }
  lraf_billing_close(b);
  none = open_billing(NULL, NULL, 0, 0);
  t = get(none, "x", jan31, &m);
  assert_int_equal(t->limit, -1);
  assert_int_equal(t->quota, -1);
  assert_int_equal(t->rate, 0);
  assert_int_equal(lraf_limit_remaining(m), INT64_MAX);
  lraf_manager_release(m);
  sv_tenant_put(none, t);
  lraf_billing_close(none);
}

static void test_memory_quota_periods(void **state) {
  static const lraf_term terms[] = {
    {"*", LRAF_TERM_QUOTA, 1000, LRAF_PERIOD_DAY},
  };
  lraf_billing *b = open_billing(NULL, terms, 1, 0);
  lraf_manager *m1, *m2, *m3;
  sv_tenant *t;
  (void)state;
  t = get(b, "p", jan31, &m1);
  assert_int_equal(lraf_limit_remaining(m1), 1000);
  assert_int_equal(lraf_manager_consume(m1, NULL, 1200, 0), LRAF_STOP);
  sv_tenant_put(b, t);
  /* the same day: the same manager, spent; charges reach the root */
  t = get(b, "p", jan31 + 3600, &m2);
  assert_ptr_equal(m2, m1);
  assert_true(lraf_limit_remaining(m2) <= 0);
  assert_int_equal(lraf_manager_total(t->root), 1200);
  sv_tenant_put(b, t);
  /* the next day: a new manager, whole again, under the same root */
  t = get(b, "p", jan31 + 86400, &m3);
  assert_ptr_not_equal(m3, m1);
  assert_int_equal(lraf_limit_remaining(m3), 1000);
  assert_true(t->period_start == jan31 + 86400 - 43200);
  assert_true(t->period_end == jan31 + 2 * 86400 - 43200);
  assert_int_equal(lraf_manager_consume(m3, NULL, 10, 0), LRAF_CONTINUE);
  assert_int_equal(lraf_manager_total(t->root), 1210);
  sv_tenant_put(b, t);
  lraf_manager_release(m1);
  lraf_manager_release(m2);
  lraf_manager_release(m3);
  lraf_billing_close(b);
}

static void append(lraf_ledger *l, const char *tenant, const char *key,
                   int64_t n, double event) {
  lraf_record r;
  lraf_error err;
  memset(&r, 0, sizeof r);
  r.key = key;
  r.request_id = key;
  r.tenant = tenant;
  r.handler = "h";
  r.model = "m";
  r.instructions = n;
  r.status = 200;
  r.started = r.ended = event;
  r.event_time = event;
  if (lraf_ledger_append(l, &r, &err) != LRAF_OK) fail_msg("%s", err.message);
}

static void test_ledger_quota(void **state) {
  static const lraf_term terms[] = {
    {"total", LRAF_TERM_QUOTA, 1000, LRAF_PERIOD_NONE},
    {"monthly", LRAF_TERM_QUOTA, 1000, LRAF_PERIOD_MONTH},
  };
  char spec[256];
  lraf_ledger *l;
  lraf_error err;
  lraf_billing *b;
  lraf_manager *m;
  sv_tenant *t;
  (void)state;
  snprintf(spec, sizeof spec, "sqlite:%s/tenant.db", sh.dir);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  append(l, "total", "k1", 300, jan31 - 40 * 86400);
  append(l, "total", "k2", 400, jan31);
  append(l, "monthly", "k1", 300, jan31 - 40 * 86400);   /* December */
  append(l, "monthly", "k2", 400, jan31);
  b = open_billing(l, terms, 2, 0);
  /* what the records leave of the quota: all of them */
  t = get(b, "total", jan31, &m);
  assert_int_equal(lraf_limit_remaining(m), 300);
  assert_int_equal(t->budget, 300);
  assert_int_equal(t->keep, 0);   /* the ledger keeps it */
  lraf_manager_release(m);
  sv_tenant_put(b, t);
  /* those of the month only */
  t = get(b, "monthly", jan31, &m);
  assert_int_equal(lraf_limit_remaining(m), 600);
  lraf_manager_release(m);
  sv_tenant_put(b, t);
  /* February: whole again */
  t = get(b, "monthly", jan31 + 86400, &m);
  assert_int_equal(lraf_limit_remaining(m), 1000);
  lraf_manager_release(m);
  sv_tenant_put(b, t);
  lraf_billing_close(b);
  lraf_ledger_close(l);
}

/* Whether b keeps a tenant called name. */
static int kept(lraf_billing *b, const char *name) {
  sv_tenant *t;
  for (t = b->tenants; t != NULL; t = t->next)
    if (strcmp(t->name, name) == 0) return 1;
  return 0;
}

/* Idle tenants go least recently used first. */
static void test_lru(void **state) {
  static const char *const turns[] = {"a", "b", "d", "a", "e", "d", "f"};
  /* after each turn, who is kept (3 at most) */
  static const char *const after[] = {"a", "ab", "abd", "abd", "ade",
                                      "ade", "def"};
  lraf_billing *b = open_billing(NULL, NULL, 0, 3);
  size_t i;
  (void)state;
  for (i = 0; i < sizeof turns / sizeof turns[0]; i++) {
    lraf_manager *m;
    sv_tenant *t = get(b, turns[i], jan31, &m);
    const char *c;
    char name[2] = "";
    lraf_manager_release(m);
    sv_tenant_put(b, t);
    assert_int_equal(b->ntenants, (int)strlen(after[i]));
    for (c = after[i]; *c; c++) {
      name[0] = *c;
      if (!kept(b, name))
        fail_msg("turn %zu: %s not kept", i, name);
    }
  }
  lraf_billing_close(b);
}

static void test_max_tenants(void **state) {
  static const lraf_term terms[] = {
    {"kept", LRAF_TERM_QUOTA, 1000, LRAF_PERIOD_NONE},
  };
  lraf_billing *b = open_billing(NULL, terms, 1, 2);
  lraf_manager *m, *mb;
  sv_tenant *t, *tb, *ta;
  lraf_error err;
  int full;
  (void)state;
  ta = get(b, "a", jan31, &m);
  lraf_manager_release(m);
  sv_tenant_put(b, ta);
  t = get(b, "kept", jan31, &m);   /* its quota lives here: never goes */
  lraf_manager_release(m);
  sv_tenant_put(b, t);
  assert_int_equal(b->ntenants, 2);
  /* b makes room by closing a, the idle one without a kept quota */
  tb = get(b, "b", jan31, &mb);
  assert_int_equal(b->ntenants, 2);
  assert_int_equal(kept(b, "a"), 0);
  /* b held, kept kept: c is refused */
  t = sv_tenant_get(b, "c", jan31, &m, &full, &err);
  assert_null(t);
  assert_null(m);
  assert_int_equal(full, 1);
  assert_int_equal(err.code, LRAF_ELIMIT);
  assert_non_null(strstr(err.message, "too many tenants: 2"));
  /* through the billing API: busy, not run */
  {
    lraf_request rq;
    lraf_bill bill;
    memset(&rq, 0, sizeof rq);
    rq.tenant = "c";
    rq.handler = "sum";
    rq.source = tutil_sum_src;
    rq.source_len = strlen(tutil_sum_src);
    assert_int_equal(lraf_billing_run(b, &rq, NULL, &bill, &err), LRAF_OK);
    assert_int_equal(bill.outcome, LRAF_BILL_BUSY);
    assert_int_equal(bill.status, 503);
    assert_int_equal(bill.instructions, 0);
    lraf_bill_free(&bill);
  }
  /* b put back: c takes its place */
  lraf_manager_release(mb);
  sv_tenant_put(b, tb);
  t = get(b, "c", jan31, &m);
  lraf_manager_release(m);
  sv_tenant_put(b, t);
  assert_int_equal(b->ntenants, 2);
  lraf_billing_close(b);
}

static int setup(void **state) {
  (void)state;
  pool = tutil_pool_new(1, 0, 0);
  if (pool == NULL) return -1;
  return tutil_sh_init(&sh, "sv-tenant");
}

static int teardown(void **state) {
  (void)state;
  lraf_pool_close(pool);
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_terms),
    cmocka_unit_test(test_memory_quota_periods),
    cmocka_unit_test(test_ledger_quota),
    cmocka_unit_test(test_lru),
    cmocka_unit_test(test_max_tenants),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
