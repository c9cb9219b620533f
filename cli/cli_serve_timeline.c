/*
** cli_serve_timeline.c - lraf serve's timeline (cli_serve_timeline.h).
** A request's phases come from clocks read at their edges: the HTTP
** front's when it had the whole request and when its response was
** ready, the worker's when the handler started and ended (the
** response's started and ended).  The delivered share of a tenant over
** a window is its requests' instructions against what they would have
** run at their handler's solo rate, over their running time; a
** handler's solo rate is its best rate so far over a request that ran
** at least a millisecond (a request cannot run faster than the CPU
** lets it, so its best is the nearest to the CPU to itself).  The CPU
** time's figure is beside it (docs/timeline.md).
*/
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_serve_timeline.h"

#define TL_WINDOW 1.0          /* seconds: a tenant's window */
#define TL_MIN_RUN 0.001       /* seconds: the least run to calibrate */
#define TL_MAX_RECORDS 250000 /* requests kept for the file (about
                                 20 MB) */
#define TL_NAME 130

typedef struct tl_req {        /* a request, for the file */
  double submit, start, end, done, cpu;
  int64_t instructions;
  int worker, status, tenant, handler;
  char id[33];
} tl_req;

typedef struct tl_win {        /* a tenant's window, for the file */
  int tenant;
  double t, share, cpu_share;
} tl_win;

typedef struct tl_sums {
  double instr, at_solo, running, cpu;
} tl_sums;

typedef struct tl_tenant {
  char name[TL_NAME];
  double start;                /* the open window's */
  tl_sums open;
  int closed;                  /* a window was closed */
  double rate, share, cpu_share;    /* the last closed window's */
  double least;                /* the least share of a closed window */
  int64_t short_windows;       /* closed below --expect-share */
} tl_tenant;

typedef struct tl_handler {
  char name[TL_NAME];
  double best;                 /* instructions per second */
} tl_handler;

struct srv_timeline {
  pthread_mutex_t lock;
  FILE *f;
  const char *path;
  double expect, t0;
  tl_tenant *tenants;
  int ntenants;
  tl_handler *handlers;
  int nhandlers;
  tl_req *req;                 /* with a file */
  size_t nreq, capreq, dropped;
  tl_win *win;
  size_t nwin, capwin;
  int nworkers;
};

static double unix_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int srv_timeline_open(srv_timeline **out, const char *path,
                      double expect_share) {
  srv_timeline *tl = calloc(1, sizeof *tl);
  int rc;
  *out = NULL;
  if (tl == NULL) return cli_error("out of memory");
  if (path != NULL) {
    size_t len = strlen(path);
    if (len > 4 && strcmp(path + len - 4, ".svg") == 0) {
      free(tl);
      return cli_error("lraf serve --timeline writes the trace event JSON, "
                       "not an SVG (got %s)", path);
    }
  }
  if ((rc = cli_timeline_open(path, &tl->f)) != CLI_OK) {
    free(tl);
    return rc;
  }
  pthread_mutex_init(&tl->lock, NULL);
  tl->path = path;
  tl->expect = expect_share;
  tl->t0 = unix_now();
  *out = tl;
  return CLI_OK;
}

/* Grow *p (of *cap elements of size) to hold n; 0 when out of memory. */
static int grow(void **p, size_t *cap, size_t n, size_t size) {
  size_t c;
  void *q;
  if (n <= *cap) return 1;
  c = *cap ? *cap * 2 : 64;
  if ((q = realloc(*p, c * size)) == NULL) return 0;
  *p = q;
  *cap = c;
  return 1;
}

static tl_tenant *tenant_of(srv_timeline *tl, const char *name, int *idx) {
  int i;
  size_t cap = (size_t)tl->ntenants;
  for (i = 0; i < tl->ntenants; i++)
    if (strcmp(tl->tenants[i].name, name) == 0) break;
  if (i == tl->ntenants) {
    if (!grow((void **)&tl->tenants, &cap, cap + 1, sizeof *tl->tenants))
      return NULL;
    memset(&tl->tenants[i], 0, sizeof tl->tenants[i]);
    snprintf(tl->tenants[i].name, TL_NAME, "%s", name);
    tl->tenants[i].start = -1;
    tl->ntenants++;
  }
  *idx = i;
  return &tl->tenants[i];
}

/* The handler's best rate, rate taken into account when it ran long
   enough to tell; *idx its index (-1 when out of memory). */
static double best_rate(srv_timeline *tl, const char *name, double rate,
                        double running, int *idx) {
  int i;
  size_t cap = (size_t)tl->nhandlers;
  for (i = 0; i < tl->nhandlers; i++)
    if (strcmp(tl->handlers[i].name, name) == 0) break;
  if (i == tl->nhandlers) {
    *idx = -1;
    if (!grow((void **)&tl->handlers, &cap, cap + 1, sizeof *tl->handlers))
      return rate;
    snprintf(tl->handlers[i].name, TL_NAME, "%s", name);
    tl->handlers[i].best = 0;
    tl->nhandlers++;
  }
  *idx = i;
  if (running >= TL_MIN_RUN && rate > tl->handlers[i].best)
    tl->handlers[i].best = rate;
  return tl->handlers[i].best > 0 ? tl->handlers[i].best : rate;
}

/* Close tenant k's open window: its figures, the warning, the file's
   counter. */
static void close_window(srv_timeline *tl, int k) {
  tl_tenant *t = &tl->tenants[k];
  tl_sums *s = &t->open;
  if (s->running <= 0) return;
  t->rate = s->instr / s->running;
  t->share = s->at_solo / s->running;
  t->cpu_share = s->cpu / s->running;
  if (!t->closed || t->share < t->least) t->least = t->share;
  t->closed = 1;
  if (tl->expect > 0 && t->share < tl->expect) {
    t->short_windows++;
    fprintf(stderr, "lraf serve: tenant %s: delivered share %.1f%% in the "
            "window at %.3f s, below --expect-share %.1f%%\n", t->name,
            100 * t->share, t->start - tl->t0, 100 * tl->expect);
  }
  if (tl->f != NULL &&
      grow((void **)&tl->win, &tl->capwin, tl->nwin + 1, sizeof *tl->win)) {
    tl_win *w = &tl->win[tl->nwin++];
    w->tenant = k;
    w->t = t->start;
    w->share = t->share;
    w->cpu_share = t->cpu_share;
  }
  memset(s, 0, sizeof *s);
}

static void keep(srv_timeline *tl, const srv_req_times *r, int k, int h) {
  tl_req *q;
  if (h < 0 || tl->nreq >= TL_MAX_RECORDS ||
      !grow((void **)&tl->req, &tl->capreq, tl->nreq + 1, sizeof *tl->req)) {
    tl->dropped++;
    return;
  }
  q = &tl->req[tl->nreq++];
  q->submit = r->submit;
  q->start = r->start;
  q->end = r->end;
  q->done = r->done;
  q->cpu = r->cpu;
  q->instructions = r->instructions;
  q->worker = r->worker;
  q->status = r->status;
  q->tenant = k;
  q->handler = h;
  snprintf(q->id, sizeof q->id, "%s", r->request_id ? r->request_id : "");
  if (r->worker + 1 > tl->nworkers) tl->nworkers = r->worker + 1;
}

void srv_timeline_note(srv_timeline *tl, const srv_req_times *r) {
  double running = r->end - r->start;
  tl_tenant *t;
  int k, h;
  if (tl == NULL || r->tenant == NULL || r->handler == NULL) return;
  pthread_mutex_lock(&tl->lock);
  if ((t = tenant_of(tl, r->tenant, &k)) != NULL) {
    if (t->start < 0) t->start = r->start;
    if (r->end - t->start >= TL_WINDOW) {
      close_window(tl, k);
      t->start = r->start;
    }
    double rate = running > 0 ? (double)r->instructions / running : 0;
    double solo = best_rate(tl, r->handler, rate, running, &h);
    if (running > 0) {
      t->open.instr += (double)r->instructions;
      t->open.at_solo += solo > 0 ? (double)r->instructions / solo : running;
      t->open.running += running;
      t->open.cpu += r->cpu;
    }
    if (tl->f != NULL) keep(tl, r, k, h);
  }
  pthread_mutex_unlock(&tl->lock);
}

/* ---- /metrics ---- */

double srv_timeline_each(srv_timeline *tl,
                         void (*f)(void *ud, const srv_share *s), void *ud) {
  int i;
  if (tl == NULL) return 0;
  pthread_mutex_lock(&tl->lock);
  for (i = 0; i < tl->ntenants; i++) {
    const tl_tenant *x = &tl->tenants[i];
    double run = x->open.running;
    srv_share s;
    s.tenant = x->name;
    s.rate = x->closed ? x->rate : run > 0 ? x->open.instr / run : 0;
    s.share = x->closed ? x->share : run > 0 ? x->open.at_solo / run : 0;
    s.cpu_share = x->closed ? x->cpu_share : run > 0 ? x->open.cpu / run : 0;
    s.short_windows = x->short_windows;
    f(ud, &s);
  }
  pthread_mutex_unlock(&tl->lock);
  return tl->expect;
}

/* ---- the file ---- */

/* s as a JSON string (names are checked before a request runs; still,
   whatever they hold stays inside the string). */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

static double us(const srv_timeline *tl, double t) {
  double v = (t - tl->t0) * 1e6;
  return v > 0 ? v : 0;
}

static void phase(FILE *f, const srv_timeline *tl, size_t id,
                  const char *name, double from, double to) {
  fprintf(f, ",\n{\"name\": \"%s\", \"cat\": \"request\", \"ph\": \"b\", "
          "\"pid\": 2, \"tid\": 0, \"id\": %zu, \"ts\": %.3f},\n"
          "{\"name\": \"%s\", \"cat\": \"request\", \"ph\": \"e\", "
          "\"pid\": 2, \"tid\": 0, \"id\": %zu, \"ts\": %.3f}",
          name, id, us(tl, from), name, id, us(tl, to > from ? to : from));
}

static void write_request(FILE *f, const srv_timeline *tl, size_t i) {
  const tl_req *q = &tl->req[i];
  double run = q->end - q->start;
  fprintf(f, ",\n{\"name\": ");
  json_str(f, tl->handlers[q->handler].name);
  fprintf(f, ", \"cat\": \"request\", \"ph\": \"X\", \"pid\": 1, "
          "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": {\"tenant\": ",
          q->worker + 1, us(tl, q->start), run > 0 ? run * 1e6 : 0);
  json_str(f, tl->tenants[q->tenant].name);
  fprintf(f, ", \"request_id\": \"%s\", \"status\": %d, \"instructions\": %"
          PRId64 ", \"queued_s\": %.6f, \"running_s\": %.6f, "
          "\"ledger_s\": %.6f, \"instructions_per_s\": %.0f, "
          "\"cpu_share\": %.4f}}", q->id, q->status, q->instructions,
          q->start - q->submit, run, q->done - q->end,
          run > 0 ? (double)q->instructions / run : 0,
          run > 0 ? q->cpu / run : 0);
  /* the request's phases, an async track per request */
  fprintf(f, ",\n{\"name\": ");
  json_str(f, tl->handlers[q->handler].name);
  fprintf(f, ", \"cat\": \"request\", \"ph\": \"b\", \"pid\": 2, \"tid\": 0, "
          "\"id\": %zu, \"ts\": %.3f, \"args\": {\"tenant\": ", i + 1,
          us(tl, q->submit));
  json_str(f, tl->tenants[q->tenant].name);
  fprintf(f, "}}");
  phase(f, tl, i + 1, "queued", q->submit, q->start);
  phase(f, tl, i + 1, "running", q->start, q->end);
  phase(f, tl, i + 1, "waiting for the ledger", q->end, q->done);
  fprintf(f, ",\n{\"name\": ");
  json_str(f, tl->handlers[q->handler].name);
  fprintf(f, ", \"cat\": \"request\", \"ph\": \"e\", \"pid\": 2, \"tid\": 0, "
          "\"id\": %zu, \"ts\": %.3f}", i + 1,
          us(tl, q->done > q->submit ? q->done : q->submit));
}

static void write_file(srv_timeline *tl) {
  FILE *f = tl->f;
  size_t i;
  int w;
  fprintf(f, "{\"traceEvents\": [\n{\"name\": \"process_name\", \"ph\": "
          "\"M\", \"pid\": 1, \"args\": {\"name\": \"lraf serve: workers\"}},"
          "\n{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2, "
          "\"args\": {\"name\": \"lraf serve: requests\"}}");
  for (w = 0; w < tl->nworkers; w++)
    fprintf(f, ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, "
            "\"tid\": %d, \"args\": {\"name\": \"worker %d\"}}", w + 1, w);
  for (i = 0; i < tl->nreq; i++) write_request(f, tl, i);
  for (i = 0; i < tl->nwin; i++) {
    const tl_win *x = &tl->win[i];
    fprintf(f, ",\n{\"name\": \"delivered share, tenant %d\", \"ph\": "
            "\"C\", \"pid\": 1, \"ts\": %.3f, \"args\": {\"count\": "
            "%.4f, \"cpu\": %.4f}}", x->tenant, us(tl, x->t), x->share,
            x->cpu_share);
  }
  fprintf(f, "\n], \"displayTimeUnit\": \"ms\", \"otherData\": {"
          "\"requests\": %zu, \"dropped\": %zu, \"expect_share\": %.4f, "
          "\"tenants\": [", tl->nreq, tl->dropped, tl->expect);
  for (w = 0; w < tl->ntenants; w++) {
    const tl_tenant *x = &tl->tenants[w];
    fprintf(f, "%s{\"index\": %d, \"name\": ", w ? ", " : "", w);
    json_str(f, x->name);
    fprintf(f, ", \"least_share\": %.4f, \"short_windows\": %" PRId64 "}",
            x->closed ? x->least : 0, x->short_windows);
  }
  fprintf(f, "]}}\n");
}

void srv_timeline_close(srv_timeline *tl) {
  int k;
  if (tl == NULL) return;
  for (k = 0; k < tl->ntenants; k++) close_window(tl, k);
  if (tl->f != NULL) {
    write_file(tl);
    if (ferror(tl->f) | (fclose(tl->f) != 0))
      cli_error("cannot write the timeline %s: %s", tl->path,
                strerror(errno));
  }
  pthread_mutex_destroy(&tl->lock);
  free(tl->tenants);
  free(tl->handlers);
  free(tl->req);
  free(tl->win);
  free(tl);
}
