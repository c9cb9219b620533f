/*
** cli_serve_metrics.c - lraf serve's /metrics: OpenMetrics text of the
** tenants' counters and quotas (lraf_billing_each), the requests in
** flight and refused, the request latency histogram, the ledger's
** group commits, and the build.  Label values are escaped (\\, \", \n)
** whatever they hold.
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_serve.h"
#include "cli_serve_metrics.h"

/* The buckets' upper bounds, seconds. */
static const double bounds[SRV_HIST_BUCKETS] = {
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
  0.25, 0.5, 1, 2.5, 10
};

void srv_metrics_init(srv_metrics *m) {
  memset(m, 0, sizeof *m);
  pthread_mutex_init(&m->request.lock, NULL);
  atomic_init(&m->inflight, 0);
  atomic_init(&m->unauthorized, 0);
  atomic_init(&m->ledger_errors, 0);
}

void srv_metrics_free(srv_metrics *m) {
  pthread_mutex_destroy(&m->request.lock);
}

void srv_hist_add(srv_hist *h, double seconds) {
  int i = 0;
  while (i < SRV_HIST_BUCKETS && seconds > bounds[i]) i++;
  pthread_mutex_lock(&h->lock);
  h->count[i]++;
  h->n++;
  h->sum += seconds;
  pthread_mutex_unlock(&h->lock);
}

void srv_text_add(srv_text *t, const char *fmt, ...) {
  va_list ap;
  int n;
  if (t->failed) return;
  for (;;) {
    va_start(ap, fmt);
    n = t->b != NULL ? vsnprintf(t->b + t->len, t->cap - t->len, fmt, ap) : 0;
    va_end(ap);
    if (n < 0) {
      t->failed = 1;
      return;
    }
    if (t->b != NULL && (size_t)n < t->cap - t->len) break;
    {
      size_t cap = t->cap * 2 + (size_t)n + 4096;
      char *p = realloc(t->b, cap);
      if (p == NULL) {
        t->failed = 1;
        return;
      }
      t->b = p;
      t->cap = cap;
    }
  }
  t->len += (size_t)n;
}

void srv_text_label(srv_text *t, const char *value) {
  const char *p;
  for (p = value; *p; p++) {
    if (*p == '\\') srv_text_add(t, "\\\\");
    else if (*p == '"') srv_text_add(t, "\\\"");
    else if (*p == '\n') srv_text_add(t, "\\n");
    else srv_text_add(t, "%c", *p);
  }
}

/* ---- the tenants ---- */

static const char *const families[SRV_TENANT_FAMILIES][3] = {
  {"lraf_requests", "counter", "Requests run, by tenant and status class."},
  {"lraf_instructions", "counter",
   "Instructions charged to requests (native units included)."},
  {"lraf_native_units", "counter", "Native units among the instructions."},
  {"lraf_tenant_charged", "counter", "Everything the tenant's manager was "
   "charged: requests, finalizers, left-over coroutines."},
  {"lraf_quota_remaining_instructions", "gauge", "What is left of the "
   "tenant's quota (below 0: overshoot); tenants with a quota."},
};

void srv_text_family(srv_text *t, int f) {
  srv_text_add(t, "# TYPE %s %s\n# HELP %s %s\n", families[f][0],
               families[f][1], families[f][0], families[f][2]);
}

/* name{tenant="T"[,extra]} value */
static void tenant_line(srv_text *t, const char *name, const char *tenant,
                        const char *extra, int64_t v) {
  srv_text_add(t, "%s{tenant=\"", name);
  srv_text_label(t, tenant);
  srv_text_add(t, "\"%s} %" PRId64 "\n", extra, v);
}

void srv_text_tenant(srv_text *t, int f, const lraf_tenant_stats *s) {
  char extra[24];
  int k;
  switch (f) {
    case 0:
      for (k = 1; k <= 5; k++) {
        snprintf(extra, sizeof extra, ",class=\"%dxx\"", k);
        tenant_line(t, "lraf_requests_total", s->tenant, extra,
                    s->by_class[k]);
      }
      break;
    case 1:
      tenant_line(t, "lraf_instructions_total", s->tenant, "",
                  s->instructions);
      break;
    case 2:
      tenant_line(t, "lraf_native_units_total", s->tenant, "", s->native);
      break;
    case 3:
      tenant_line(t, "lraf_tenant_charged_total", s->tenant, "", s->charged);
      break;
    default:
      if (s->quota >= 0 && s->quota_left != INT64_MAX)
        tenant_line(t, "lraf_quota_remaining_instructions", s->tenant, "",
                    s->quota_left);
  }
}

typedef struct pass {
  srv_text *t;
  int f;
} pass;

static void each_tenant(void *ud, const lraf_tenant_stats *s) {
  pass *p = ud;
  srv_text_tenant(p->t, p->f, s);
}

/* ---- the rest ---- */

static void histogram(srv_text *t, const char *name, const char *help,
                      srv_hist *h) {
  int64_t count[SRV_HIST_BUCKETS + 1], n, below = 0;
  double sum;
  int i;
  pthread_mutex_lock(&h->lock);
  memcpy(count, h->count, sizeof count);
  n = h->n;
  sum = h->sum;
  pthread_mutex_unlock(&h->lock);
  srv_text_add(t, "# TYPE %s histogram\n# HELP %s %s\n# UNIT %s seconds\n",
               name, name, help, name);
  for (i = 0; i < SRV_HIST_BUCKETS; i++) {
    below += count[i];
    srv_text_add(t, "%s_bucket{le=\"%g\"} %" PRId64 "\n", name, bounds[i],
                 below);
  }
  srv_text_add(t, "%s_bucket{le=\"+Inf\"} %" PRId64 "\n%s_count %" PRId64
               "\n%s_sum %.9g\n", name, n, name, n, name, sum);
}

/* The group commit: how many records each commit (one fsync) held. */
static void ledger_commits(srv_text *t, lraf_ledger *l) {
  lraf_ledger_counts n;
  int64_t below = 0;
  int i;
  lraf_ledger_stats(l, &n);
  srv_text_add(t, "# TYPE lraf_ledger_commit_records histogram\n"
               "# HELP lraf_ledger_commit_records Records per ledger commit "
               "(each commit is made durable by one fsync).\n");
  for (i = 0; i < LRAF_LEDGER_SIZES; i++) {
    below += n.commit_size[i];
    if (i < LRAF_LEDGER_SIZES - 1)
      srv_text_add(t, "lraf_ledger_commit_records_bucket{le=\"%d\"} %"
                   PRId64 "\n", 1 << i, below);
  }
  srv_text_add(t, "lraf_ledger_commit_records_bucket{le=\"+Inf\"} %" PRId64
               "\nlraf_ledger_commit_records_count %" PRId64
               "\nlraf_ledger_commit_records_sum %" PRId64 "\n", below,
               n.commits, n.records);
  srv_text_add(t, "# TYPE lraf_ledger_commit_duration_seconds histogram\n"
               "# HELP lraf_ledger_commit_duration_seconds Ledger commits "
               "by the time they took to write and flush.\n"
               "# UNIT lraf_ledger_commit_duration_seconds seconds\n");
  for (below = 0, i = 0; i < LRAF_LEDGER_TIMES; i++) {
    below += n.commit_time[i];
    if (i < LRAF_LEDGER_TIMES - 1)
      srv_text_add(t, "lraf_ledger_commit_duration_seconds_bucket{le=\"%g\"}"
                   " %" PRId64 "\n", 1e-4 * (1 << i), below);
  }
  srv_text_add(t, "lraf_ledger_commit_duration_seconds_bucket{le=\"+Inf\"} %"
               PRId64 "\nlraf_ledger_commit_duration_seconds_count %" PRId64
               "\nlraf_ledger_commit_duration_seconds_sum %.9g\n", below,
               n.commits, n.seconds);
}

/* The tenants' delivered rate and share (cli_serve_timeline.c), one
   family at a time. */
typedef struct share_pass {
  srv_text *t;
  int f;
} share_pass;

static void share_line(void *ud, const srv_share *s) {
  share_pass *p = ud;
  switch (p->f) {
    case 0:
      tenant_line(p->t, "lraf_tenant_delivered_rate", s->tenant, "",
                  (int64_t)(s->rate + 0.5));
      break;
    case 1:
      srv_text_add(p->t, "lraf_tenant_delivered_share{tenant=\"");
      srv_text_label(p->t, s->tenant);
      srv_text_add(p->t, "\",figure=\"count\"} %.4f\n"
                   "lraf_tenant_delivered_share{tenant=\"", s->share);
      srv_text_label(p->t, s->tenant);
      srv_text_add(p->t, "\",figure=\"cpu\"} %.4f\n", s->cpu_share);
      break;
    default:
      tenant_line(p->t, "lraf_tenant_short_windows_total", s->tenant, "",
                  s->short_windows);
  }
}

static void delivered(srv_text *t, srv_timeline *tl) {
  share_pass p;
  p.t = t;
  srv_text_add(t, "# TYPE lraf_tenant_delivered_rate gauge\n"
               "# HELP lraf_tenant_delivered_rate Instructions per second "
               "of running time of the tenant's requests over its last "
               "window of a second.\n");
  p.f = 0;
  srv_timeline_each(tl, share_line, &p);
  srv_text_add(t, "# TYPE lraf_tenant_delivered_share gauge\n"
               "# HELP lraf_tenant_delivered_share The share of a CPU the "
               "tenant's requests got while running over that window: from "
               "the count against their handlers' solo rates, and from CPU "
               "time.\n");
  p.f = 1;
  if (srv_timeline_each(tl, share_line, &p) > 0) {
    srv_text_add(t, "# TYPE lraf_tenant_short_windows counter\n"
                 "# HELP lraf_tenant_short_windows Windows in which the "
                 "tenant got less than --expect-share.\n");
    p.f = 2;
    srv_timeline_each(tl, share_line, &p);
  }
}

static void build_info(srv_text *t, srv *s) {
  srv_text_add(t, "# TYPE lraf_build info\n# HELP lraf_build The lraf "
               "serving: its version, VM and cost model.\n"
               "lraf_build_info{version=\"");
  srv_text_label(t, LRAF_VERSION);
  srv_text_add(t, "\",vm=\"");
  srv_text_label(t, lraf_vm_builtin() ? "lraf" : "stock");
  srv_text_add(t, "\",cost_model=\"");
  srv_text_label(t, s->metering ? lraf_pool_model(s->pool) : "none");
  srv_text_add(t, "\"} 1\n");
}

void srv_metrics_render(srv *s, srv_text *t) {
  pass p;
  p.t = t;
  for (p.f = 0; p.f < SRV_TENANT_FAMILIES; p.f++) {
    srv_text_family(t, p.f);
    lraf_billing_each(s->billing, each_tenant, &p);
  }
  srv_text_add(t, "# TYPE lraf_requests_in_flight gauge\n"
               "# HELP lraf_requests_in_flight Handler requests being "
               "served now.\nlraf_requests_in_flight %" PRId64 "\n",
               (int64_t)atomic_load(&s->metrics.inflight));
  srv_text_add(t, "# TYPE lraf_unauthorized counter\n"
               "# HELP lraf_unauthorized Requests refused 401: no or a "
               "wrong API key or admin token.\nlraf_unauthorized_total %"
               PRId64 "\n", (int64_t)atomic_load(&s->metrics.unauthorized));
  histogram(t, "lraf_request_duration_seconds", "Handler requests from "
            "their headers to their response (run, recorded, committed).",
            &s->metrics.request);
  srv_text_add(t, "# TYPE lraf_ledger_errors counter\n"
               "# HELP lraf_ledger_errors Requests the ledger failed: it "
               "could not be read, or their record not stored (503).\n"
               "lraf_ledger_errors_total %" PRId64 "\n",
               (int64_t)atomic_load(&s->metrics.ledger_errors));
  if (s->ledger != NULL) ledger_commits(t, s->ledger);
  if (s->timeline != NULL) delivered(t, s->timeline);
  build_info(t, s);
  srv_text_add(t, "# EOF\n");
}
