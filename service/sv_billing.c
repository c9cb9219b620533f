/*
** sv_billing.c - what lraf serve does with a request, for any host:
** answer a retry from the ledger, run the request for its tenant on
** the pool, store its record (under "k:" and the client's key, or "r:"
** and its random request id), and count it for the tenant.  A request
** with a reservation takes it from the tenant's quota in the ledger
** before it runs, runs within it, and settles it with its record.
** The worker that ran a request queues its record, and the request's
** thread waits once: for the record's commit, not for the worker and
** then for the commit.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "sv.h"

void lraf_billing_default_options(lraf_billing_options *o) {
  memset(o, 0, sizeof *o);
  o->max_tenants = 1000;
  o->slice = 1000000;
}

static lraf_status check_term(const lraf_term *t, int i, lraf_error *err) {
  if (t->tenant == NULL ||
      (strcmp(t->tenant, "*") != 0 && !sv_valid_name(t->tenant, 64)))
    return sv_fail(err, LRAF_EARG, "billing term %d: the tenant is not "
                   "1-64 of A-Z a-z 0-9 _ - . nor *", i);
  if (t->kind != LRAF_TERM_REQUEST_LIMIT && t->kind != LRAF_TERM_QUOTA &&
      t->kind != LRAF_TERM_RATE)
    return sv_fail(err, LRAF_EARG, "billing term %d: unknown kind %d", i,
                   (int)t->kind);
  if (t->period != LRAF_PERIOD_NONE &&
      (t->kind != LRAF_TERM_QUOTA || (t->period != LRAF_PERIOD_DAY &&
                                      t->period != LRAF_PERIOD_MONTH)))
    return sv_fail(err, LRAF_EARG, "billing term %d: only a quota has a "
                   "period (day or month)", i);
  if (t->value < (t->kind == LRAF_TERM_RATE ? 1 : 0))
    return sv_fail(err, LRAF_EARG, "billing term %d (tenant %s): value %"
                   PRId64 " is below %d", i, t->tenant, t->value,
                   t->kind == LRAF_TERM_RATE ? 1 : 0);
  return LRAF_OK;
}

lraf_status lraf_billing_open(const lraf_billing_options *o,
                              lraf_billing **out, lraf_error *err) {
  lraf_billing *b;
  int i;
  *out = NULL;
  if (o == NULL || o->pool == NULL)
    return sv_fail(err, LRAF_EARG, "lraf_billing_open: no pool");
  if (o->nterms < 0 || (o->nterms > 0 && o->terms == NULL))
    return sv_fail(err, LRAF_EARG, "lraf_billing_open: no terms");
  for (i = 0; i < o->nterms; i++)
    if (check_term(&o->terms[i], i, err) != LRAF_OK) return err->code;
  b = calloc(1, sizeof *b);
  if (b == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
  b->terms = calloc((size_t)o->nterms + 1, sizeof *b->terms);
  if (b->terms == NULL) {
    free(b);
    return sv_fail(err, LRAF_EMEM, "out of memory");
  }
  for (i = 0; i < o->nterms; i++) {
    snprintf(b->terms[i].tenant, sizeof b->terms[i].tenant, "%s",
             o->terms[i].tenant);
    b->terms[i].kind = o->terms[i].kind;
    b->terms[i].value = o->terms[i].value;
    b->terms[i].period = o->terms[i].period;
  }
  b->nterms = o->nterms;
  b->pool = o->pool;
  b->ledger = o->ledger;
  b->max_tenants = o->max_tenants > 0 ? o->max_tenants : 1000;
  b->slice = o->slice > 0 ? o->slice : 1000000;
  b->clock = o->clock;
  b->clock_ud = o->clock_ud;
  pthread_mutex_init(&b->lock, NULL);
  *out = b;
  return LRAF_OK;
}

/* A request id in 32 hex digits: the Unix time in milliseconds (48
   bits), then 80 random bits; 0 when the system has no randomness.
   Ids, and the keys made of them, then sort by time, so the ledger
   adds each batch's records at the end of its index on keys, not at
   random places all over it. */
static int new_id(char id[33]) {
  static const char hex[] = "0123456789abcdef";
  unsigned char b[16];
  uint64_t ms = (uint64_t)(sv_now() * 1e3);
  int i;
  if (getrandom(b + 6, 10, 0) != 10) return 0;
  for (i = 0; i < 6; i++) b[i] = (unsigned char)(ms >> (40 - 8 * i));
  for (i = 0; i < 16; i++) {
    id[2 * i] = hex[b[i] >> 4];
    id[2 * i + 1] = hex[b[i] & 15];
  }
  id[32] = '\0';
  return 1;
}

/* The body of a request stopped at its reservation. */
static void say_reserved(lraf_response *res, int64_t n) {
  char msg[120];
  char *p;
  int len = snprintf(msg, sizeof msg, "reservation exhausted: %" PRId64
                     " instructions reserved (X-Lraf-Max-Instructions or "
                     "the handler's contract)\n", n);
  if ((p = malloc((size_t)len + 1)) == NULL) return;
  memcpy(p, msg, (size_t)len + 1);
  free(res->body);
  res->body = p;
  res->body_len = (size_t)len;
}

/* A request's run and its record: its caller's, shared with the worker
   that runs it and queues the record (sv_pool_run_then). */
typedef struct bill_run {
  lraf_billing *b;
  const lraf_request *req;     /* as asked */
  sv_tenant *t;
  const char *key;             /* "k:" and the client's key, or NULL */
  double now;
  int64_t limit;               /* the request's, as it ran */
  lraf_bill *bill;
  char rkey[40];               /* "r:" and the request id */
  lraf_record rec;
  sv_pending pending;
  lraf_status queued;          /* LRAF_OK: pending was queued */
  lraf_error *err;             /* the caller's */
  sv_job *job;
} bill_run;

/* The bill of r's request once it ran (in its worker's thread). */
static void settle(bill_run *r) {
  lraf_bill *bill = r->bill;
  bill->outcome = LRAF_BILL_RAN;
  if (r->req->reserve > 0 && bill->response.instructions > r->limit &&
      bill->response.code == LRAF_EQUOTA) {
    /* stopped at its reservation: billed what it reserved */
    bill->response.instructions = r->limit;
    if (r->limit == r->req->reserve) say_reserved(&bill->response, r->limit);
  }
  bill->status = bill->response.status;
  bill->instructions = bill->response.instructions;
}

/* r's record, under r->key, else under its request id. */
static void fill_record(bill_run *r) {
  const lraf_response *res = &r->bill->response;
  lraf_record *rec = &r->rec;
  snprintf(r->rkey, sizeof r->rkey, "r:%s", r->bill->request_id);
  memset(rec, 0, sizeof *rec);
  rec->key = r->key != NULL ? r->key : r->rkey;
  rec->request_id = r->bill->request_id;
  rec->tenant = r->t->name;
  rec->handler = r->req->handler != NULL ? r->req->handler : "";
  rec->model = res->model;
  rec->outcome = lraf_outcome_name(res->outcome);
  if (res->outcome == LRAF_OUTCOME_QUOTA && r->t->quota < 0 &&
      r->t->rate > 0)
    rec->outcome = lraf_outcome_name(LRAF_OUTCOME_RATE);
  rec->instructions = res->instructions;
  rec->native = res->native;
  rec->memory_peak = res->memory_peak;
  rec->status = res->status;
  rec->wall = res->wall;
  rec->cpu = res->cpu;
  rec->started = res->started;
  rec->event_time = r->now;
  rec->ended = res->ended;
  rec->reserved = r->bill->reserved;
}

/* The commit answered r's record: its caller may go on. */
static void answered(void *ud) {
  bill_run *r = ud;
  sv_pool_done(r->job);
}

/* After r's request ran, in its worker: settle the bill and queue its
   record.  1 when its caller may go on now, 0 when the commit will
   say so. */
static int ran(void *ud, sv_job *j) {
  bill_run *r = ud;
  lraf_status st;
  r->job = j;
  settle(r);
  if (r->b->ledger == NULL) return 1;
  fill_record(r);
  /* a key of the request's own id is new: the ledger need not look */
  st = sv_ledger_queue(r->b->ledger, &r->pending, &r->rec, r->key == NULL,
                       answered, r, r->err);
  if (st == LRAF_OK) return 0;   /* r may be gone already */
  r->queued = st;
  return 1;
}

/* Once r's record is answered, in its caller's thread: when its key was
   taken (a concurrent request stored the key first), store it under its
   own id instead (LRAF_BILL_CLASH). */
static lraf_status recorded(bill_run *r) {
  lraf_error *err = r->err;
  lraf_billing *b = r->b;
  lraf_bill *bill = r->bill;
  char why[sizeof err->message];
  lraf_status st = r->queued;
  int stored = 0;
  if (st == LRAF_OK) st = sv_ledger_result(&r->pending, &stored, err);
  if (st == LRAF_OK && !stored && r->key != NULL) {
    r->rec.key = r->rkey;
    st = lraf_ledger_record_new(b->ledger, &r->rec, &stored, err);
    if (st == LRAF_OK && stored) {
      bill->outcome = LRAF_BILL_CLASH;
      bill->status = 409;
      return LRAF_OK;
    }
  }
  if (st == LRAF_OK && stored) return LRAF_OK;
  if (st == LRAF_OK)
    sv_fail(err, LRAF_EIO, "request id %s taken", bill->request_id);
  snprintf(why, sizeof why, "%s", err->message);
  if (bill->reserved > 0)   /* not billed: the reservation goes back */
    lraf_ledger_release(b->ledger, r->t->name, bill->request_id, NULL);
  bill->outcome = LRAF_BILL_UNRECORDED;
  bill->status = 503;
  return sv_fail(err, LRAF_EIO, "the request ran but was not recorded: %s",
                 why);
}

/* Whether t has a record under key: the bill of the retry then. */
static lraf_status repeat(lraf_billing *b, const char *tenant,
                          const char *key, lraf_bill *bill, int *found,
                          lraf_error *err) {
  int64_t n;
  int status;
  char why[sizeof err->message];
  if (lraf_ledger_find(b->ledger, tenant, key, found, &n, &status, err) !=
      LRAF_OK) {
    snprintf(why, sizeof why, "%s", err->message);
    return sv_fail(err, LRAF_EIO, "ledger unavailable: %s", why);
  }
  if (*found) {
    bill->outcome = LRAF_BILL_REPEAT;
    bill->status = status;
    bill->instructions = n;
  }
  return LRAF_OK;
}

static void count(lraf_billing *b, sv_tenant *t, const lraf_bill *bill) {
  int cls = bill->status / 100;
  pthread_mutex_lock(&b->lock);
  t->requests++;
  t->instructions += bill->instructions;
  t->native += bill->response.native;
  if (cls >= 1 && cls <= 5) t->by_class[cls]++;
  pthread_mutex_unlock(&b->lock);
}

/* Reserve n of t's quota for bill's request; LRAF_OK with
   bill->reserved set (0 when t's quota is not in the ledger), or the
   refusal in bill (LRAF_OK too), or LRAF_EIO. */
static lraf_status reserve(lraf_billing *b, sv_tenant *t, int64_t n,
                           lraf_bill *bill, lraf_error *err) {
  char why[sizeof err->message];
  int64_t avail;
  lraf_status st;
  if (b->ledger == NULL || t->quota < 0) return LRAF_OK;
  st = lraf_ledger_reserve(b->ledger, t->name, bill->request_id, n,
                           t->quota, &avail, err);
  if (st == LRAF_OK) {
    bill->reserved = n;
  } else if (st == LRAF_EQUOTA || st == LRAF_EARG) {
    /* EARG: a shared quota without its row: nothing to reserve from */
    bill->outcome = LRAF_BILL_REFUSED;
    bill->status = 429;
    bill->reserved = n;
    bill->available = avail > 0 ? avail : 0;
  } else {
    snprintf(why, sizeof why, "%s", err->message);
    return sv_fail(err, LRAF_EIO, "ledger unavailable: %s", why);
  }
  return LRAF_OK;
}

lraf_status lraf_billing_run(lraf_billing *b, const lraf_request *req,
                             const char *key, lraf_bill *bill,
                             lraf_error *err) {
  char kkey[208];
  lraf_request rq;
  bill_run run;
  sv_tenant *t;
  lraf_status st = LRAF_OK;
  lraf_manager *m;
  double now;
  int full, found = 0;
  memset(bill, 0, sizeof *bill);
  err->message[0] = '\0';
  if (req == NULL || req->tenant == NULL || !sv_valid_name(req->tenant, 64))
    return sv_fail(err, LRAF_EARG, "bad tenant name (1-64 of A-Z a-z 0-9 "
                   "_ - .)");
  if (key != NULL && (key[0] == '\0' || strlen(key) > 200))
    return sv_fail(err, LRAF_EARG, "bad idempotency key (1-200 bytes)");
  if (key != NULL) snprintf(kkey, sizeof kkey, "k:%s", key);
  if (key != NULL && b->ledger != NULL) {
    if (repeat(b, req->tenant, kkey, bill, &found, err) != LRAF_OK)
      return err->code;
    if (found) return LRAF_OK;   /* answered from the ledger, not run */
  }
  if (!new_id(bill->request_id))
    return sv_fail(err, LRAF_ELIMIT, "no random request id: the system "
                   "has no entropy");
  now = b->clock != NULL ? b->clock(b->clock_ud) : sv_now();
  t = sv_tenant_get(b, req->tenant, now, &m, &full, err);
  if (t == NULL) {
    if (!full) return err->code;
    bill->outcome = LRAF_BILL_BUSY;
    bill->status = 503;
    bill->request_id[0] = '\0';
    return LRAF_OK;
  }
  rq = *req;
  rq.tenant = t->name;
  rq.tenant_manager = m;
  rq.limit = t->limit;
  if (req->reserve > 0) {
    if (rq.limit < 0 || req->reserve < rq.limit) rq.limit = req->reserve;
    if (reserve(b, t, rq.limit, bill, err) != LRAF_OK) {
      lraf_manager_release(m);
      sv_tenant_put(b, t);
      return err->code;
    }
    if (bill->outcome == LRAF_BILL_REFUSED) {
      lraf_manager_release(m);
      count(b, t, bill);
      sv_tenant_put(b, t);
      return LRAF_OK;
    }
    /* the reservation is this request's share of the quota: it runs
       outside the quota's manager (a lease, or the budget of the
       tenant's requests in this process, which its bill is taken from
       once recorded) */
    if (bill->reserved > 0) rq.tenant_manager = t->root;
  }
  memset(&run, 0, sizeof run);
  run.b = b;
  run.req = req;
  run.t = t;
  run.key = key != NULL ? kkey : NULL;
  run.now = now;
  run.limit = rq.limit;
  run.bill = bill;
  run.err = err;
  sv_pool_run_then(b->pool, &rq, &bill->response, ran, &run);
  lraf_manager_release(m);
  if (b->ledger != NULL) st = recorded(&run);
  if (bill->reserved > 0 && bill->outcome != LRAF_BILL_UNRECORDED &&
      t->budget >= 0) {
    pthread_mutex_lock(&b->lock);
    t->budget -= bill->instructions;
    lraf_limit_set(t->manager, t->budget > 0 ? t->budget : 0);
    pthread_mutex_unlock(&b->lock);
  }
  count(b, t, bill);
  sv_tenant_put(b, t);
  return st;
}

void lraf_bill_free(lraf_bill *bill) {
  if (bill == NULL) return;
  lraf_response_free(&bill->response);
}

void lraf_billing_each(lraf_billing *b,
                       void (*f)(void *ud, const lraf_tenant_stats *t),
                       void *ud) {
  sv_tenant *t;
  lraf_tenant_stats s;
  pthread_mutex_lock(&b->lock);
  for (t = b->tenants; t != NULL; t = t->next) {
    memset(&s, 0, sizeof s);
    s.tenant = t->name;
    s.requests = t->requests;
    s.instructions = t->instructions;
    s.native = t->native;
    memcpy(s.by_class, t->by_class, sizeof s.by_class);
    s.charged = lraf_manager_total(t->manager);
    s.quota = t->quota;
    s.quota_left = t->quota >= 0 ? lraf_limit_remaining(t->manager)
                                 : INT64_MAX;
    f(ud, &s);
  }
  pthread_mutex_unlock(&b->lock);
}

void lraf_billing_close(lraf_billing *b) {
  if (b == NULL) return;
  sv_tenant_free_all(b);
  pthread_mutex_destroy(&b->lock);
  free(b->terms);
  free(b);
}
