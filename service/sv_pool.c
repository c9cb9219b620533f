/*
** sv_pool.c - the request pool: a queue of requests and the worker
** threads that take them.  A caller of lraf_pool_run queues its request
** and waits on a condition of its own until a worker has run it, or,
** with sv_pool_run_then, until what the worker then started (a record's
** group commit) is done too.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sv.h"

/* A worker thread and the pool it takes jobs from. */
typedef struct sv_thread {
  sv_worker w;
  lraf_pool *pool;
} sv_thread;

struct sv_job {
  const lraf_request *req;
  lraf_response *res;
  int (*after)(void *ud, sv_job *j);   /* sv_pool_run_then's, or NULL */
  void *ud;
  int done;               /* under m */
  pthread_mutex_t m;      /* its own, not the queue's: waking its caller
                             does not wait behind the queue's users */
  pthread_cond_t cond;
  struct sv_job *next;
};

struct lraf_pool {
  lraf_pool_options o;
  pthread_mutex_t lock;
  pthread_cond_t more;     /* a job was queued, or stop */
  sv_job *head, *tail;
  int stop;
  sv_thread *workers;
  int nworkers;            /* started */
  char model[96];
};

void lraf_pool_default_options(lraf_pool_options *o) {
  memset(o, 0, sizeof *o);
  o->workers = 4;
  o->states_per_worker = 16;
  o->cleanup_limit = 1000000;
  lraf_default_options(&o->state);
  o->state.env = LRAF_ENV_SANDBOX;
}

static void *work(void *arg) {
  sv_thread *t = arg;
  sv_worker *w = &t->w;
  lraf_pool *p = t->pool;
  sv_thread_name("lraf-worker");
  for (;;) {
    sv_job *j;
    pthread_mutex_lock(&p->lock);
    while (p->head == NULL && !p->stop) pthread_cond_wait(&p->more, &p->lock);
    if (p->head == NULL) {
      pthread_mutex_unlock(&p->lock);
      break;
    }
    j = p->head;
    p->head = j->next;
    if (p->head == NULL) p->tail = NULL;
    pthread_mutex_unlock(&p->lock);
    sv_request_run(w, j->req, j->res);
    j->res->worker = (int)(t - p->workers);
    /* j is its caller's: once after has passed it on, it may be gone */
    if (j->after == NULL || j->after(j->ud, j)) sv_pool_done(j);
  }
  sv_worker_free(w);
  return NULL;
}

/* The cost-model id, from a state made with the pool's options. */
static lraf_status model_of(lraf_pool *p, lraf_error *err) {
  lraf_state *S;
  lraf_options opt = p->o.state;
  lraf_status st;
  if (p->o.plain) {
    strcpy(p->model, "lua5.4/plain");
    return LRAF_OK;
  }
  opt.manager = NULL;
  st = lraf_new(&opt, &S, err);
  if (st != LRAF_OK) return st;
  snprintf(p->model, sizeof p->model, "%s", lraf_model(S));
  lraf_close(S);
  return LRAF_OK;
}

lraf_status lraf_pool_new(const lraf_pool_options *o, lraf_pool **out,
                          lraf_error *err) {
  lraf_pool *p;
  lraf_status st;
  int i;
  *out = NULL;
  if (o == NULL || o->workers < 1 || o->workers > 1024 ||
      o->states_per_worker < 1 || o->cleanup_limit < 0)
    return sv_fail(err, LRAF_EARG,
                   "lraf_pool_new: workers must be 1..1024, "
                   "states_per_worker at least 1 and cleanup_limit at "
                   "least 0");
  p = calloc(1, sizeof *p);
  if (p == NULL)
    return sv_fail(err, LRAF_EMEM, "lraf_pool_new: out of memory");
  p->o = *o;
  p->o.state.manager = NULL;
  if ((st = model_of(p, err)) != LRAF_OK) {
    free(p);
    return st;
  }
  p->workers = calloc((size_t)o->workers, sizeof *p->workers);
  if (p->workers == NULL) {
    free(p);
    return sv_fail(err, LRAF_EMEM, "lraf_pool_new: out of memory");
  }
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->more, NULL);
  for (i = 0; i < o->workers; i++) {
    sv_thread *t = &p->workers[i];
    sv_worker *w = &t->w;
    t->pool = p;
    w->opt = &p->o;
    w->model = p->model;
    w->system = lraf_total_new();
    if (w->system == NULL ||
        pthread_create(&w->thread, NULL, work, t) != 0) {
      lraf_manager_release(w->system);
      lraf_pool_close(p);
      return sv_fail(err, LRAF_EMEM, "lraf_pool_new: cannot start worker %d",
                     i);
    }
    p->nworkers++;
  }
  *out = p;
  return LRAF_OK;
}

void sv_pool_done(sv_job *j) {
  pthread_mutex_lock(&j->m);
  j->done = 1;
  pthread_cond_signal(&j->cond);
  pthread_mutex_unlock(&j->m);
}

void lraf_pool_run(lraf_pool *p, const lraf_request *req, lraf_response *res) {
  sv_pool_run_then(p, req, res, NULL, NULL);
}

void sv_pool_run_then(lraf_pool *p, const lraf_request *req,
                      lraf_response *res, int (*after)(void *ud, sv_job *j),
                      void *ud) {
  sv_job j;
  memset(&j, 0, sizeof j);
  j.req = req;
  j.res = res;
  j.after = after;
  j.ud = ud;
  pthread_mutex_init(&j.m, NULL);
  pthread_cond_init(&j.cond, NULL);
  pthread_mutex_lock(&p->lock);
  if (p->tail) p->tail->next = &j;
  else p->head = &j;
  p->tail = &j;
  pthread_cond_signal(&p->more);
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_lock(&j.m);
  while (!j.done) pthread_cond_wait(&j.cond, &j.m);
  pthread_mutex_unlock(&j.m);
  pthread_cond_destroy(&j.cond);
  pthread_mutex_destroy(&j.m);
}

void lraf_response_free(lraf_response *res) {
  if (res == NULL) return;
  free(res->body);
  free(res->headers);
  res->body = res->headers = NULL;
}

const char *lraf_pool_model(const lraf_pool *p) { return p->model; }

void lraf_pool_stats(lraf_pool *p, lraf_pool_counts *s) {
  int i;
  memset(s, 0, sizeof *s);
  for (i = 0; i < p->nworkers; i++) {
    sv_worker *w = &p->workers[i].w;
    s->requests += atomic_load(&w->requests);
    s->states += atomic_load(&w->made);
    s->replaced += atomic_load(&w->drops);
    s->rewrites += atomic_load(&w->rewrites);
    s->loads += atomic_load(&w->loads);
  }
}

void lraf_pool_close(lraf_pool *p) {
  int i;
  if (p == NULL) return;
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  pthread_cond_broadcast(&p->more);
  pthread_mutex_unlock(&p->lock);
  for (i = 0; i < p->nworkers; i++)
    pthread_join(p->workers[i].w.thread, NULL);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->more);
  free(p->workers);
  free(p);
}
