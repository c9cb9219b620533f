/*
** metered_api.c - example: a host that bills requests of its own
** through lraf's billing API, with no HTTP in sight.
**
** The host runs a tiny "API" of two Lua handlers for three customers.
** A pool of worker threads runs them; a billing (lraf_billing_open)
** gives each customer its terms (acme has a quota of 9,000
** instructions a month, every request at most 5,000), runs each call for its
** customer, stores its record in an SQLite ledger, and answers a
** retried call (the same idempotency key) from the ledger without
** running it again.  At the end the host prints each call's bill and
** each customer's total from the ledger:
**
**   call  customer  handler  key  outcome  status  instructions
**   total customer requests instructions
**
**   usage: metered_api LEDGER.db
*/
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lraf.h"

/* The handlers: Lua chunks that return function(req). */
static const char sum_src[] =
    "return function(req)\n"
    "  local n, s = tonumber(req.query.n) or 10, 0\n"
    "  for i = 1, n do s = s + i end\n"
    "  return 200, tostring(s)\n"
    "end\n";
static const char echo_src[] =
    "return function(req)\n"
    "  return 200, string.upper(req.body or '')\n"
    "end\n";

/* The calls of the day: customer, handler, n, body, idempotency key. */
static const struct call {
  const char *customer, *handler, *n, *body, *key;
} calls[] = {
  {"acme", "sum", "100", NULL, "order-1"},
  {"acme", "sum", "100", NULL, "order-1"},   /* a retry: not billed */
  {"globex", "echo", NULL, "hello", NULL},
  {"acme", "sum", "5000", NULL, NULL},        /* past the request limit */
  {"initech", "sum", "1000", NULL, "batch-7"},
  {"acme", "sum", "1000", NULL, NULL},
  {"acme", "sum", "1000", NULL, NULL},
  {"acme", "sum", "1000", NULL, NULL},        /* refused: acme spent */
};
#define NCALLS (int)(sizeof calls / sizeof calls[0])

static const char *const outcome[] = {"ran", "repeat", "clash", "busy",
                                      "unrecorded"};

static int fail(const char *what, const lraf_error *err) {
  fprintf(stderr, "metered_api: %s: %s\n", what, err->message);
  return 1;
}

static void bill_call(lraf_billing *b, int i) {
  const struct call *c = &calls[i];
  const char *query[] = {"n", c->n, NULL};
  lraf_request rq;
  lraf_bill bill;
  lraf_error err;
  memset(&rq, 0, sizeof rq);
  rq.tenant = c->customer;
  rq.handler = c->handler;
  rq.source = strcmp(c->handler, "sum") == 0 ? sum_src : echo_src;
  rq.source_len = strlen(rq.source);
  rq.method = "POST";
  rq.path = c->handler;
  rq.query = c->n != NULL ? query : NULL;
  rq.body = c->body;
  rq.body_len = c->body != NULL ? strlen(c->body) : 0;
  if (lraf_billing_run(b, &rq, c->key, &bill, &err) != LRAF_OK)
    printf("call %d  %s: %s\n", i + 1, c->customer, err.message);
  else
    printf("call %d  %-8s %-5s %-8s %-6s %d %" PRId64 "\n", i + 1,
           c->customer, c->handler, c->key != NULL ? c->key : "-",
           outcome[bill.outcome], bill.status, bill.instructions);
  lraf_bill_free(&bill);
}

int main(int argc, char **argv) {
  static const char *const customers[] = {"acme", "globex", "initech"};
  const lraf_term terms[] = {
    {"*", LRAF_TERM_REQUEST_LIMIT, 5000, LRAF_PERIOD_NONE},
    {"acme", LRAF_TERM_QUOTA, 9000, LRAF_PERIOD_MONTH},
  };
  char spec[4200];
  lraf_pool_options po;
  lraf_billing_options bo;
  lraf_pool *pool;
  lraf_ledger *ledger;
  lraf_billing *billing;
  lraf_error err;
  int i;
  if (argc != 2) {
    fprintf(stderr, "usage: metered_api LEDGER.db\n");
    return 2;
  }
  snprintf(spec, sizeof spec, "sqlite:%s", argv[1]);
  lraf_pool_default_options(&po);
  po.workers = 2;
  if (lraf_pool_new(&po, &pool, &err) != LRAF_OK) return fail("pool", &err);
  if (lraf_ledger_open(spec, &ledger, &err) != LRAF_OK) {
    lraf_pool_close(pool);
    return fail("ledger", &err);
  }
  lraf_billing_default_options(&bo);
  bo.pool = pool;
  bo.ledger = ledger;
  bo.terms = terms;
  bo.nterms = 2;
  if (lraf_billing_open(&bo, &billing, &err) != LRAF_OK) {
    lraf_pool_close(pool);
    lraf_ledger_close(ledger);
    return fail("billing", &err);
  }
  for (i = 0; i < NCALLS; i++) bill_call(billing, i);
  lraf_pool_close(pool);
  lraf_billing_close(billing);
  for (i = 0; i < 3; i++) {
    lraf_usage u;
    if (lraf_ledger_usage(ledger, customers[i], &u, &err) != LRAF_OK) {
      lraf_ledger_close(ledger);
      return fail("usage", &err);
    }
    printf("total %-8s %" PRId64 " %" PRId64 "\n", customers[i], u.requests,
           u.instructions);
  }
  lraf_ledger_close(ledger);
  return 0;
}
