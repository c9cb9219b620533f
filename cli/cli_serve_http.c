/*
** cli_serve_http.c - the HTTP front of lraf serve over libmicrohttpd:
** one thread per connection reads a request, runs its handler through
** the pool, waits for the ledger's group commit, and only then sends
** the response.  What is billed and what a retry gets are the
** billing's (lraf_billing_run); this file maps its bills to HTTP.
** /usage and /metrics read the ledger and the billing's counters.
** A request whose framing is ambiguous (two Content-Lengths, one with
** Transfer-Encoding, a transfer coding other than chunked) or whose
** request line is malformed (a target that is not a path, a version
** other than HTTP/1.0 and 1.1) is refused with 400 before anything
** runs, and its connection closed, whatever libmicrohttpd would make
** of it.
*/
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <time.h>

#include <microhttpd.h>

#include "cli.h"
#include "cli_dl_mhd.h"
#include "cli_serve.h"
#include "cli_serve_metrics.h"

#define MAX_BODY (1 << 20)
#define MAX_PAIRS 64

/* A connection's request while its body arrives. */
typedef struct conn {
  char *body;
  size_t len, cap;
  int too_big;
  int refused;     /* answered 400 at its headers (framing, request
                      line) */
} conn;

/* A reply under construction. */
typedef struct reply {
  int status;
  char *body;
  size_t len;
  const char *type;
  const char *headers;     /* "Name: value\n" lines, or NULL */
  int64_t instructions;
  const char *request_id;
  int close;               /* close the connection after it */
  const srv_req_times *times;  /* a request that ran, or NULL */
} reply;

/* Headers a handler may not set: the server's own, and those that frame
   the HTTP message or the connection. */
static int reserved(const char *name) {
  static const char *const names[] = {
    "X-Lraf-Instructions", "X-Request-Id", "X-Lraf-Queued",
    "X-Lraf-Running", "X-Lraf-Ledger", "X-Lraf-Rate", "Content-Length",
    "Transfer-Encoding", "Connection", "Keep-Alive", "Upgrade", "Trailer",
    "TE", "Date", NULL
  };
  int i;
  for (i = 0; names[i] != NULL; i++)
    if (strcasecmp(name, names[i]) == 0) return 1;
  return 0;
}

/* A request's phases, seconds, and its instructions per second of
   running. */
static void add_times(struct MHD_Response *resp, const srv_req_times *t) {
  char v[40];
  double run = t->end - t->start;
  snprintf(v, sizeof v, "%.6f", t->start - t->submit);
  cli_mhd.add_response_header(resp, "X-Lraf-Queued", v);
  snprintf(v, sizeof v, "%.6f", run);
  cli_mhd.add_response_header(resp, "X-Lraf-Running", v);
  snprintf(v, sizeof v, "%.6f", t->done - t->end);
  cli_mhd.add_response_header(resp, "X-Lraf-Ledger", v);
  snprintf(v, sizeof v, "%.0f", run > 0 ? (double)t->instructions / run : 0);
  cli_mhd.add_response_header(resp, "X-Lraf-Rate", v);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, const reply *r) {
  struct MHD_Response *resp;
  enum MHD_Result ret;
  char n[24];
  resp = cli_mhd.create_response_from_buffer(r->len, r->body,
                                             MHD_RESPMEM_MUST_COPY);
  if (resp == NULL) return MHD_NO;
  if (r->headers != NULL) {
    const char *p = r->headers;
    while (*p) {
      const char *colon = strchr(p, ':'), *eol = strchr(p, '\n');
      char name[256], value[2048];
      size_t nl, vl;
      if (colon == NULL || eol == NULL || colon > eol) break;
      nl = (size_t)(colon - p);
      vl = (size_t)(eol - colon - 2);
      if (nl < sizeof name && vl < sizeof value) {
        memcpy(name, p, nl);
        name[nl] = '\0';
        memcpy(value, colon + 2, vl);
        value[vl] = '\0';
        if (!reserved(name)) cli_mhd.add_response_header(resp, name, value);
      }
      p = eol + 1;
    }
  }
  if (r->type != NULL)
    cli_mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type);
  snprintf(n, sizeof n, "%" PRId64, r->instructions);
  cli_mhd.add_response_header(resp, "X-Lraf-Instructions", n);
  if (r->request_id != NULL)
    cli_mhd.add_response_header(resp, "X-Request-Id", r->request_id);
  if (r->times != NULL) add_times(resp, r->times);
  if (r->close)
    cli_mhd.add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
  ret = cli_mhd.queue_response(c, (unsigned)r->status, resp);
  cli_mhd.destroy_response(resp);
  return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, int status,
                            const char *msg) {
  reply r;
  memset(&r, 0, sizeof r);
  r.status = status;
  r.body = (char *)msg;
  r.len = strlen(msg);
  r.type = "text/plain; charset=utf-8";
  return send_reply(c, &r);
}

static int valid_name(const char *s, size_t max) {
  size_t n = 0;
  for (; *s; s++, n++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.'))
      return 0;
  return n > 0 && n <= max;
}

/* ---- /usage and /metrics ---- */

static enum MHD_Result unauthorized(srv *s, struct MHD_Connection *c,
                                    const char *msg) {
  reply r;
  atomic_fetch_add(&s->metrics.unauthorized, 1);
  memset(&r, 0, sizeof r);
  r.status = 401;
  r.body = (char *)msg;
  r.len = strlen(msg);
  r.type = "text/plain; charset=utf-8";
  r.headers = SRV_AUTH_CHALLENGE;
  return send_reply(c, &r);
}

/* Whether the request may read /usage and /metrics. */
static int admin(srv *s, struct MHD_Connection *c) {
  return srv_auth_admin(&s->auth, cli_mhd.lookup_connection_value(
                        c, MHD_HEADER_KIND, "Authorization"));
}

/* Append printf output to a growing buffer (ignores failures: the
   buffer then ends early). */
static void addf(char **b, size_t *len, size_t *cap, const char *fmt, ...) {
  va_list ap;
  int n;
  if (*b == NULL) return;
  for (;;) {
    va_start(ap, fmt);
    n = vsnprintf(*b + *len, *cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < *cap - *len) break;
    {
      char *p = realloc(*b, *cap * 2 + (size_t)n);
      if (p == NULL) return;
      *b = p;
      *cap = *cap * 2 + (size_t)n;
    }
  }
  *len += (size_t)n;
}

/* Per-period totals of the records read in order (lraf_ledger_each). */
typedef struct periods {
  lraf_period period;
  char name[16];
  int64_t requests, instructions, n;
  char *b;
  size_t len, cap;
} periods;

static void period_flush(periods *p) {
  if (p->n == 0) return;
  addf(&p->b, &p->len, &p->cap, "%s{\"period\": \"%s\", \"requests\": %"
       PRId64 ", \"instructions\": %" PRId64 "}",
       p->len > 0 ? ", " : "", p->name, p->requests, p->instructions);
  p->n = p->requests = p->instructions = 0;
}

static int period_add(void *ud, const lraf_record *r) {
  periods *p = ud;
  char name[16];
  lraf_period_name(p->period, r->event_time, name);
  if (p->n > 0 && strcmp(name, p->name) != 0) period_flush(p);
  memcpy(p->name, name, sizeof name);
  p->n++;
  p->requests += strcmp(r->outcome, "adjustment") != 0;
  p->instructions += r->instructions;
  return 0;
}

static enum MHD_Result usage(srv *s, struct MHD_Connection *c) {
  const char *tenant =
      cli_mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "tenant");
  const char *from =
      cli_mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "from");
  const char *to =
      cli_mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "to");
  const char *per =
      cli_mhd.lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "period");
  lraf_usage u;
  lraf_error err;
  periods p;
  double f, t;
  char buf[1024], fs[32], ts[32];
  reply r;
  int window = from != NULL || to != NULL || per != NULL;
  enum MHD_Result ret;
  if (s->ledger == NULL) return text(c, 404, "no ledger\n");
  if (tenant != NULL && tenant[0] == '\0') tenant = NULL;
  if (tenant != NULL && !valid_name(tenant, 64))
    return text(c, 400, "bad tenant name\n");
  memset(&p, 0, sizeof p);
  p.period = LRAF_PERIOD_MONTH;
  if (lraf_window_parse(from, to, &f, &t, &err) != LRAF_OK ||
      (per != NULL && lraf_period_parse(per, &p.period, &err) != LRAF_OK)) {
    snprintf(buf, sizeof buf, "bad /usage query: %s\n", err.message);
    return text(c, 400, buf);
  }
  if (lraf_ledger_usage_window(s->ledger, tenant, f, t, &u, &err) !=
      LRAF_OK) {
    snprintf(buf, sizeof buf, "ledger unavailable: %s\n", err.message);
    return text(c, 503, buf);
  }
  snprintf(buf, sizeof buf,
           "{\"tenant\": %s%s%s, \"requests\": %" PRId64
           ", \"instructions\": %" PRId64 ", \"native\": %" PRId64
           ", \"errors\": %" PRId64 ", \"memory_peak_max\": %" PRId64
           ", \"wall_seconds\": %.6f, \"cpu_seconds\": %.6f",
           tenant ? "\"" : "", tenant ? tenant : "null", tenant ? "\"" : "",
           u.requests, u.instructions, u.native, u.errors, u.memory_peak,
           u.wall, u.cpu);
  if (!window) {
    strcat(buf, "}\n");
    memset(&r, 0, sizeof r);
    r.status = 200;
    r.body = buf;
    r.len = strlen(buf);
    r.type = "application/json";
    return send_reply(c, &r);
  }
  p.cap = 1024;
  p.b = malloc(p.cap);
  if (p.b == NULL) return MHD_NO;
  p.b[0] = '\0';
  if (lraf_ledger_each(s->ledger, tenant, f, t, period_add, &p, &err) !=
      LRAF_OK) {
    free(p.b);
    snprintf(buf, sizeof buf, "ledger unavailable: %s\n", err.message);
    return text(c, 503, buf);
  }
  period_flush(&p);
  lraf_time_format(f, fs);
  lraf_time_format(t, ts);
  {
    char *all = NULL;
    size_t len = 0, cap = 256 + strlen(buf) + p.len;
    all = malloc(cap);
    if (all == NULL) {
      free(p.b);
      return MHD_NO;
    }
    all[0] = '\0';
    addf(&all, &len, &cap, "%s, \"from\": %s%s%s, \"to\": %s%s%s, "
         "\"period\": \"%s\", \"periods\": [%s]}\n", buf,
         from ? "\"" : "", from ? fs : "null", from ? "\"" : "",
         to ? "\"" : "", to ? ts : "null", to ? "\"" : "",
         p.period == LRAF_PERIOD_DAY ? "day" : p.period == LRAF_PERIOD_MONTH
                                                 ? "month" : "total",
         p.b);
    memset(&r, 0, sizeof r);
    r.status = 200;
    r.body = all;
    r.len = len;
    r.type = "application/json";
    ret = send_reply(c, &r);
    free(all);
  }
  free(p.b);
  return ret;
}

static enum MHD_Result metrics(srv *s, struct MHD_Connection *c) {
  srv_text t;
  reply r;
  enum MHD_Result ret;
  memset(&t, 0, sizeof t);
  srv_metrics_render(s, &t);
  if (t.failed) {
    free(t.b);
    return text(c, 503, "out of memory\n");
  }
  memset(&r, 0, sizeof r);
  r.status = 200;
  r.body = t.b;
  r.len = t.len;
  r.type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
  ret = send_reply(c, &r);
  free(t.b);
  return ret;
}

/* ---- framing ---- */

/* What the request's headers say about its length. */
typedef struct framing {
  int lengths, codings;    /* Content-Length, Transfer-Encoding headers */
  int bad;                 /* a value that is not one plain number, or a
                              coding other than chunked */
  char first[24];          /* the first Content-Length */
  int differ;              /* a later Content-Length differs */
} framing;

static enum MHD_Result note_framing(void *cls, enum MHD_ValueKind kind,
                                    const char *key, const char *value) {
  framing *f = cls;
  (void)kind;
  if (key == NULL) return MHD_YES;
  if (value == NULL) value = "";
  if (strcasecmp(key, "Content-Length") == 0) {
    size_t n = strlen(value), i;
    if (n == 0 || n > 18) f->bad = 1;
    for (i = 0; i < n; i++)
      if (!isdigit((unsigned char)value[i])) f->bad = 1;
    if (f->lengths++ == 0) snprintf(f->first, sizeof f->first, "%s", value);
    else if (strcmp(f->first, value) != 0) f->differ = 1;
  } else if (strcasecmp(key, "Transfer-Encoding") == 0) {
    f->codings++;
    if (strcasecmp(value, "chunked") != 0) f->bad = 1;
  }
  return MHD_YES;
}

/* Why the request's framing is ambiguous, or NULL. */
static const char *ambiguous(struct MHD_Connection *c) {
  framing f;
  memset(&f, 0, sizeof f);
  cli_mhd.get_connection_values(c, MHD_HEADER_KIND, note_framing, &f);
  if (f.lengths > 0 && f.codings > 0)
    return "ambiguous request framing: both Content-Length and "
           "Transfer-Encoding";
  if (f.lengths > 1)
    return f.differ ? "ambiguous request framing: conflicting "
                      "Content-Length headers"
                    : "ambiguous request framing: more than one "
                      "Content-Length header";
  if (f.codings > 1)
    return "ambiguous request framing: more than one Transfer-Encoding "
           "header";
  if (f.bad)
    return f.lengths > 0 ? "ambiguous request framing: a Content-Length "
                           "that is not a plain number"
                         : "ambiguous request framing: a transfer coding "
                           "other than chunked";
  return NULL;
}

/* Why the request line is malformed, or NULL: a target that is not a
   path (libmicrohttpd ends it at a NUL byte, so one there leaves it
   empty), or a version other than HTTP/1.0 and HTTP/1.1. */
static const char *malformed(const char *url, const char *version) {
  if (url == NULL || url[0] != '/')
    return "malformed request line: the target is not a path";
  if (version == NULL || (strcmp(version, "HTTP/1.1") != 0 &&
                          strcmp(version, "HTTP/1.0") != 0))
    return "malformed request line: not HTTP/1.0 or HTTP/1.1";
  return NULL;
}

/* 400 with what, and the connection closed: what follows the request
   on it is never read as another request. */
static enum MHD_Result refuse_request(struct MHD_Connection *c,
                                      const char *what) {
  char msg[160];
  reply r;
  snprintf(msg, sizeof msg, "%s\n", what);
  memset(&r, 0, sizeof r);
  r.status = 400;
  r.body = msg;
  r.len = strlen(msg);
  r.type = "text/plain; charset=utf-8";
  r.close = 1;
  return send_reply(c, &r);
}

/* ---- running a handler ---- */

typedef struct pairs {
  const char *kv[2 * MAX_PAIRS + 2];
  char lower[MAX_PAIRS][128];
  int n, headers;
  int secret;      /* Authorization holds the server's API key: the
                      handler does not see it */
} pairs;

/* Empty pairs (their arrays, 9 KiB, are filled as pairs come). */
static void pairs_init(pairs *p, int headers, int secret) {
  p->kv[0] = NULL;
  p->n = 0;
  p->headers = headers;
  p->secret = secret;
}

static enum MHD_Result add_pair(void *cls, enum MHD_ValueKind kind,
                                const char *key, const char *value) {
  pairs *p = cls;
  (void)kind;
  if (p->n == MAX_PAIRS || key == NULL) return MHD_YES;
  if (p->headers) {
    size_t i;
    for (i = 0; key[i] && i + 1 < sizeof p->lower[0]; i++)
      p->lower[p->n][i] = (char)tolower((unsigned char)key[i]);
    p->lower[p->n][i] = '\0';
    key = p->lower[p->n];
    if (p->secret && strcmp(key, "authorization") == 0) return MHD_YES;
  }
  p->kv[2 * p->n] = key;
  p->kv[2 * p->n + 1] = value != NULL ? value : "";
  p->n++;
  p->kv[2 * p->n] = NULL;
  return MHD_YES;
}

/* ---- reservations ---- */

const char *srv_max_instructions(const char *v, int64_t *n) {
  int64_t x = 0;
  size_t i, len = strlen(v);
  if (len == 0) return "empty";
  if (len > 18) return "more than 18 digits";
  for (i = 0; i < len; i++) {
    if (!isdigit((unsigned char)v[i]))
      return "not a whole number of decimal digits (no sign, space or unit)";
    x = x * 10 + (v[i] - '0');
  }
  if (x < 1) return "0 (at least 1)";
  *n = x;
  return NULL;
}

static enum MHD_Result count_max(void *cls, enum MHD_ValueKind kind,
                                 const char *key, const char *value) {
  (void)kind, (void)value;
  if (key != NULL && strcasecmp(key, "X-Lraf-Max-Instructions") == 0)
    (*(int *)cls)++;
  return MHD_YES;
}

/* The request's X-Lraf-Max-Instructions (*n 0 without one); NULL, or
   why the header is refused (400). */
static const char *max_header(struct MHD_Connection *c, int64_t *n,
                              char *why, size_t size) {
  const char *v, *bad;
  int count = 0;
  *n = 0;
  cli_mhd.get_connection_values(c, MHD_HEADER_KIND, count_max, &count);
  if (count == 0) return NULL;
  if (count > 1) return "more than one X-Lraf-Max-Instructions header";
  v = cli_mhd.lookup_connection_value(c, MHD_HEADER_KIND,
                                      "X-Lraf-Max-Instructions");
  if ((bad = srv_max_instructions(v != NULL ? v : "", n)) == NULL)
    return NULL;
  snprintf(why, size, "bad X-Lraf-Max-Instructions header: %s; expected "
           "the instructions to reserve, 1 to 999999999999999999", bad);
  return why;
}

/* What handler name reserves by default: "return N" in DIR/NAME.contract
   (its own contract, from lraf bound --write-contract), else "NAME N"
   in --contract FILE; 0 when neither declares it, -1 when the handler's
   contract file cannot be read (said on stderr). */
static int64_t declared(srv *s, const char *name) {
  char path[4096];
  int64_t n = 0;
  cli_contract *k;
  snprintf(path, sizeof path, "%s/%s.contract", s->dir, name);
  if (access(path, F_OK) == 0) {
    if ((k = malloc(sizeof *k)) == NULL) return -1;
    if (cli_contract_load(path, k) != CLI_OK) n = -1;
    else if (!cli_contract_find(k, "return", &n)) n = 0;
    free(k);
    if (n != 0) return n;
  }
  if (s->contract != NULL && cli_contract_find(s->contract, name, &n))
    return n;
  return 0;
}

static char *read_handler(srv *s, const char *name, size_t *len) {
  char path[4096];
  char *data;
  lraf_error err;
  snprintf(path, sizeof path, "%s/%s.lua", s->dir, name);
  if (cli_read_file(path, &data, len, &err) != LRAF_OK) return NULL;
  return data;
}

/* The reply to a bill. */
static void bill_reply(const lraf_bill *bill, const lraf_error *err,
                       reply *r, char *msg, size_t size) {
  static const char clash[] = "Idempotency-Key already recorded for this "
    "tenant by another request; this one ran and is billed under its "
    "X-Request-Id\n";
  const lraf_response *res = &bill->response;
  memset(r, 0, sizeof *r);
  r->status = bill->status;
  r->instructions = bill->instructions;
  r->type = "text/plain; charset=utf-8";
  r->request_id = bill->request_id[0] ? bill->request_id : NULL;
  switch (bill->outcome) {
    case LRAF_BILL_RAN:
      r->body = res->body;
      r->len = res->body_len;
      r->headers = res->headers;
      if (res->code == LRAF_OK) r->type = NULL;
      return;
    case LRAF_BILL_REPEAT:
      r->status = 409;
      r->instructions = 0;
      snprintf(msg, size, "already recorded: status %d, %" PRId64
               " instructions\n", bill->status, bill->instructions);
      break;
    case LRAF_BILL_CLASH:
      snprintf(msg, size, "%s", clash);
      break;
    case LRAF_BILL_BUSY:
      r->request_id = NULL;
      snprintf(msg, size, "%s: try again later\n", err->message);
      break;
    case LRAF_BILL_REFUSED:
      r->request_id = NULL;
      snprintf(msg, size, "reservation refused: cannot reserve %" PRId64
               " instructions of the tenant's quota, %" PRId64 " available "
               "(nothing ran)\n", bill->reserved, bill->available);
      break;
    default:
      snprintf(msg, size, "ledger unavailable: the request was not "
               "recorded\n");
  }
  r->body = msg;
  r->len = strlen(msg);
}

static double unix_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The phases of a request that ran, noted in the timeline. */
static void note_times(srv *s, const lraf_request *rq, const lraf_bill *b,
                       double submit, srv_req_times *t) {
  const lraf_response *res = &b->response;
  t->submit = submit;
  t->start = res->started > submit ? res->started : submit;
  t->end = res->ended > t->start ? res->ended : t->start;
  t->done = unix_now();
  if (t->done < t->end) t->done = t->end;
  t->cpu = res->cpu;
  t->instructions = res->instructions;
  t->worker = res->worker;
  t->status = b->status;
  t->tenant = rq->tenant;
  t->handler = rq->handler;
  t->request_id = b->request_id;
  srv_timeline_note(s->timeline, t);
}

static enum MHD_Result run_billed(srv *s, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  conn *cn) {
  double submit = unix_now();
  srv_req_times times;
  const char *name = url + 1, *tenant, *key;
  char *source;
  size_t slen;
  lraf_error err;
  lraf_request rq;
  lraf_bill bill;
  lraf_status st;
  pairs q, h;
  char msg[600];
  const char *why;
  int64_t reserve;
  reply r;
  enum MHD_Result ret;
  if (!valid_name(name, 128) || name[0] == '.')
    return text(c, 404, "no such handler\n");
  {
    const char *why;
    int status;
    tenant = srv_auth_tenant(&s->auth, cli_mhd.lookup_connection_value(
                               c, MHD_HEADER_KIND, "Authorization"),
                             cli_mhd.lookup_connection_value(
                               c, MHD_HEADER_KIND, "X-Tenant"),
                             &status, &why);
    if (tenant == NULL)   /* nothing runs, nothing is billed */
      return status == 401 ? unauthorized(s, c, why) : text(c, status, why);
  }
  key = cli_mhd.lookup_connection_value(c, MHD_HEADER_KIND, "Idempotency-Key");
  if (key != NULL && (key[0] == '\0' || strlen(key) > 200))
    return text(c, 400, "bad Idempotency-Key header (1-200 bytes)\n");
  if ((why = max_header(c, &reserve, msg, sizeof msg - 1)) != NULL) {
    if (why != msg) snprintf(msg, sizeof msg - 1, "%s", why);
    strcat(msg, "\n");
    return text(c, 400, msg);
  }
  source = read_handler(s, name, &slen);
  if (source == NULL) return text(c, 404, "no such handler\n");
  if (reserve == 0 && s->metering && (reserve = declared(s, name)) < 0) {
    free(source);
    return text(c, 500, "the handler's contract cannot be read (see the "
                "server's log)\n");
  }
  pairs_init(&q, 0, 0);
  pairs_init(&h, 1, s->auth.keys != NULL);
  cli_mhd.get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_pair, &q);
  cli_mhd.get_connection_values(c, MHD_HEADER_KIND, add_pair, &h);
  memset(&rq, 0, sizeof rq);
  rq.tenant = tenant;
  rq.handler = name;
  rq.source = source;
  rq.source_len = slen;
  rq.method = method;
  rq.path = url;
  rq.query = q.kv;
  rq.headers = h.kv;
  rq.body = cn->body;
  rq.body_len = cn->len;
  rq.reserve = reserve;
  st = lraf_billing_run(s->billing, &rq, key, &bill, &err);
  if (st == LRAF_EIO) atomic_fetch_add(&s->metrics.ledger_errors, 1);
  free(source);
  if (st != LRAF_OK && bill.outcome != LRAF_BILL_UNRECORDED) {
    /* nothing ran */
    fprintf(stderr, "lraf serve: %s\n", err.message);
    if (st == LRAF_EIO)
      snprintf(msg, sizeof msg, "ledger unavailable\n");
    else if (st == LRAF_ELIMIT)
      snprintf(msg, sizeof msg, "no random request id: the system has no "
               "entropy\n");
    else
      snprintf(msg, sizeof msg, "cannot set up the tenant: %s\n",
               err.message);
    lraf_bill_free(&bill);
    return text(c, 503, msg);
  }
  if (st != LRAF_OK) fprintf(stderr, "lraf serve: %s\n", err.message);
  if (bill.outcome == LRAF_BILL_BUSY)
    snprintf(err.message, sizeof err.message, "too many tenants: this "
             "server keeps %d at once (--max-tenants) and none is idle",
             s->max_tenants);
  bill_reply(&bill, &err, &r, msg, sizeof msg);
  if (bill.outcome == LRAF_BILL_RAN || bill.outcome == LRAF_BILL_CLASH ||
      bill.outcome == LRAF_BILL_UNRECORDED) {
    note_times(s, &rq, &bill, submit, &times);
    r.times = &times;
  }
  ret = send_reply(c, &r);
  lraf_bill_free(&bill);
  return ret;
}

/* A handler request, counted in flight and timed (/metrics). */
static enum MHD_Result run(srv *s, struct MHD_Connection *c, const char *url,
                           const char *method, conn *cn) {
  struct timespec t0, t1;
  enum MHD_Result ret;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  atomic_fetch_add(&s->metrics.inflight, 1);
  ret = run_billed(s, c, url, method, cn);
  atomic_fetch_sub(&s->metrics.inflight, 1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  srv_hist_add(&s->metrics.request, (double)(t1.tv_sec - t0.tv_sec) +
               (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
  return ret;
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *c,
                                 const char *url, const char *method,
                                 const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls) {
  srv *s = cls;
  conn *cn = *con_cls;
  if (cn == NULL) {
    const char *why = malformed(url, version);
    if (why == NULL) why = ambiguous(c);
    cn = calloc(1, sizeof *cn);
    if (cn == NULL) return MHD_NO;
    *con_cls = cn;
    if (why != NULL) {
      cn->refused = 1;
      return refuse_request(c, why);
    }
    return MHD_YES;
  }
  if (cn->refused) {   /* answered already: drop what follows */
    *upload_size = 0;
    return MHD_YES;
  }
  if (*upload_size > 0) {
    if (cn->len + *upload_size > MAX_BODY) {
      cn->too_big = 1;
    } else if (!cn->too_big) {
      if (cn->len + *upload_size + 1 > cn->cap) {
        size_t cap = (cn->len + *upload_size + 1) * 2;
        char *p = realloc(cn->body, cap);
        if (p == NULL) return MHD_NO;
        cn->body = p;
        cn->cap = cap;
      }
      memcpy(cn->body + cn->len, upload, *upload_size);
      cn->len += *upload_size;
    }
    *upload_size = 0;
    return MHD_YES;
  }
  if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0)
    return text(c, 405, "only GET and POST\n");
  if (cn->too_big) return text(c, 413, "request body over 1 MiB\n");
  if (strcmp(url, "/usage") == 0 || strcmp(url, "/metrics") == 0) {
    if (!admin(s, c))
      return unauthorized(s, c, "the admin token is needed: Authorization: "
                          "Bearer TOKEN\n");
    return url[1] == 'u' ? usage(s, c) : metrics(s, c);
  }
  return run(s, c, url, method, cn);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  conn *cn = *con_cls;
  (void)cls, (void)c, (void)toe;
  if (cn != NULL) {
    free(cn->body);
    free(cn);
    *con_cls = NULL;
  }
}

struct MHD_Daemon *srv_http_start(srv *s) {
  struct sockaddr_in addr;
  struct MHD_Daemon *d;
  const union MHD_DaemonInfo *info;
  const char *why;
  if (!cli_dl_mhd_load(&why)) {
    cli_error("%s", why);
    return NULL;
  }
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)s->port);
  if (inet_pton(AF_INET, s->bind, &addr.sin_addr) != 1) {
    cli_error("--bind needs an IPv4 address (got '%s')", s->bind);
    return NULL;
  }
  d = cli_mhd.start_daemon(MHD_USE_THREAD_PER_CONNECTION |
                           MHD_USE_INTERNAL_POLLING_THREAD,
                           (uint16_t)s->port, NULL, NULL, access_cb, s,
                           MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                           MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                           MHD_OPTION_CONNECTION_LIMIT,
                           (unsigned)s->max_conns,
                           MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                           (unsigned)s->max_per_ip,
                           MHD_OPTION_CONNECTION_TIMEOUT,
                           (unsigned)s->idle_timeout,
                           MHD_OPTION_END);
  if (d == NULL) {
    cli_error("cannot listen on %s:%d (in use, or not allowed)", s->bind,
              s->port);
    return NULL;
  }
  info = cli_mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  printf("lraf serve: listening on http://%s:%u/ (%d workers, %s, %s)\n",
         s->bind, info ? (unsigned)info->port : (unsigned)s->port, s->workers,
         s->metering ? lraf_pool_model(s->pool) : "no metering",
         s->ledger != NULL ? s->ledger_spec : "no ledger");
  fflush(stdout);
  return d;
}

void srv_http_stop(struct MHD_Daemon *d) { cli_mhd.stop_daemon(d); }
