/*
** pf_timeline.c - the timeline: a manager that records when each thread
** ran (wall time, OS thread, account, instructions of every consume),
** and the analysis that turns those samples into slices, gaps and the
** delivered share (lraf.h, "Timeline"; docs/timeline.md).  The outputs
** are in pf_tlout.c.
*/
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "pf_timeline.h"

#define TL_MAGIC 0x746c696eu   /* tells a timeline's user data */
#define TL_CAP 262144          /* samples kept before they are merged */
#define TL_MERGE0 50000        /* ns: the first merge span */
#define TL_CPU_EVERY 1000000   /* ns between reads of the thread's CPU */
#define TL_QUANTUM 10000       /* ns: consumes closer than this share a
                                  bucket (coroutine switches, counts that
                                  waited and come in a burst) */
#define TL_SPAN 1000000        /* ns: the longest a bucket spans */
#define TL_WINDOWS 1000000     /* windows of a thread analysed, at most */
#define TL_BUCKET 4            /* accounts a bucket tells apart */
#define TL_CLOCK_INSTR 2048    /* instructions of a thread between two
                                  reads of the clock, at least (a
                                  consume every few instructions, at
                                  coroutine switches, reads none) */

/* Consumes of one OS thread that came in quick succession (coroutines
   taking turns): their counts per account, and when they began and
   ended.  A bucket becomes samples when the next timed consume comes
   more than TL_QUANTUM after its last, when it spans TL_SPAN, or at a
   stop or a pause;
   its time is shared among its accounts in proportion to their counts.
   Consumes that do not read the clock wait in pending, and join the
   bucket at the next one that does. */
typedef struct tl_counts {
  int64_t account[TL_BUCKET], n[TL_BUCKET];
  int naccounts;
} tl_counts;

typedef struct tl_bucket {
  int64_t t0, t1;              /* -1: empty */
  tl_counts in;                /* what ran by t1 */
  tl_counts pending;           /* consumes since, not timed yet */
  int64_t cpu, last_cpu;       /* CPU ns at t1 or -1; when last read */
  int64_t since;               /* instructions since the clock was read */
} tl_bucket;

struct pf_timeline {
  unsigned magic;
  pthread_mutex_t lock;
  lraf_manager *parent;
  struct timespec t0;
  pf_tl_sample *s;
  size_t n, cap;
  int64_t merge;               /* ns: samples closer than this merge */
  tl_bucket *bucket;           /* per OS thread */
  int nthreads;
  unsigned generation;         /* tells this timeline's thread slots */
};

/* The calling OS thread's place in the timeline it last charged. */
typedef struct tl_thread {
  const pf_timeline *tl;
  unsigned generation;
  int index;
} tl_thread;

static _Thread_local tl_thread tl_self;
static atomic_uint tl_generations;

static int64_t ns_since(const struct timespec *t0, clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (int64_t)(t.tv_sec - t0->tv_sec) * 1000000000 +
         (t.tv_nsec - t0->tv_nsec);
}

static int64_t thread_cpu_ns(void) {
  static const struct timespec zero;
  return ns_since(&zero, CLOCK_THREAD_CPUTIME_ID);
}

/* ---- recording ---- */

/* Halve what the samples take: merge each sample into the one before
   it, when both are of one OS thread and came closer than tl->merge.
   The merged sample keeps the larger count's account. */
static void tl_compact(pf_timeline *tl) {
  size_t i, k = 0;
  for (i = 0; i < tl->n; i++) {
    pf_tl_sample *p = k > 0 ? &tl->s[k - 1] : NULL, *q = &tl->s[i];
    if (p != NULL && p->thread == q->thread && !(p->flags & PF_TL_STOP) &&
        p->wait == 0 && q->t - p->t < tl->merge) {
      if (q->n > p->n) p->account = q->account;
      p->n += q->n;
      p->t = q->t;
      p->wait = q->wait;
      p->flags |= q->flags;
      if (q->cpu >= 0) p->cpu = q->cpu;
    } else {
      tl->s[k++] = *q;
    }
  }
  tl->n = k;
  if (tl->n > tl->cap / 2) tl->merge *= 2;
}

static int tl_push(pf_timeline *tl, const pf_tl_sample *x) {
  if (tl->n == tl->cap) {
    if (tl->cap >= TL_CAP) {
      do tl_compact(tl); while (tl->n > tl->cap / 2);
    } else {
      size_t cap = tl->cap ? tl->cap * 2 : 1024;
      pf_tl_sample *s = realloc(tl->s, cap * sizeof *s);
      if (s == NULL) return 0;
      tl->s = s;
      tl->cap = cap;
    }
  }
  tl->s[tl->n++] = *x;
  return 1;
}

/* The bucket's samples: one per account, ending in turn at the share
   of the bucket's time that its count takes; the last one carries the
   wait, the flags and the CPU time.  Out of memory loses samples, never
   the run. */
static void tl_emit(pf_timeline *tl, int thread, int64_t wait, int flags) {
  tl_bucket *b = &tl->bucket[thread];
  tl_counts *c = &b->in;
  int64_t total = 0, sum = 0, span = b->t1 - b->t0;
  int i;
  if (c->naccounts == 0) return;
  for (i = 0; i < c->naccounts; i++) total += c->n[i] > 0 ? c->n[i] : 0;
  for (i = 0; i < c->naccounts; i++) {
    pf_tl_sample x;
    int last = i == c->naccounts - 1;
    sum += c->n[i] > 0 ? c->n[i] : 0;
    x.t = last ? b->t1
               : b->t0 + (total > 0 ? (int64_t)((double)span * (double)sum /
                                               (double)total)
                                    : span * (i + 1) / c->naccounts);
    x.n = c->n[i];
    x.account = c->account[i];
    x.thread = thread;
    x.wait = last ? wait : 0;
    x.flags = last ? flags : 0;
    x.cpu = last ? b->cpu : -1;
    tl_push(tl, &x);
  }
  b->t0 = b->t1 + wait;
  c->naccounts = 0;
  b->cpu = -1;
}

/* Add n instructions of account to c. */
static void tl_add(tl_counts *c, int64_t account, int64_t n) {
  int i, most = 0;
  for (i = 0; i < c->naccounts; i++)
    if (c->account[i] == account) break;
  if (i == c->naccounts) {
    if (c->naccounts == TL_BUCKET) {   /* the busiest keeps the rest */
      for (i = 1; i < c->naccounts; i++)
        if (c->n[i] > c->n[most]) most = i;
      i = most;
    } else {
      c->account[i] = account;
      c->n[i] = 0;
      c->naccounts++;
    }
  }
  c->n[i] += n;
}

/* The pending counts join the bucket, as having run by its t1. */
static void tl_join(tl_bucket *b) {
  int i;
  for (i = 0; i < b->pending.naccounts; i++)
    tl_add(&b->in, b->pending.account[i], b->pending.n[i]);
  b->pending.naccounts = 0;
}

static int tl_thread_index(pf_timeline *tl) {
  if (tl_self.tl != tl || tl_self.generation != tl->generation) {
    tl_bucket *b = realloc(tl->bucket, (size_t)(tl->nthreads + 1) *
                                           sizeof *b);
    if (b == NULL) return -1;
    tl->bucket = b;
    b += tl->nthreads;
    b->t0 = b->t1 = -1;
    b->in.naccounts = b->pending.naccounts = 0;
    b->cpu = -1;
    b->last_cpu = -TL_CPU_EVERY;
    b->since = 0;
    tl_self.tl = tl;
    tl_self.generation = tl->generation;
    tl_self.index = tl->nthreads++;
  }
  return tl_self.index;
}

/* A consume that came soon after the last one on its thread (fewer than
   TL_CLOCK_INSTR instructions since the clock was read) joins the open
   bucket without reading the clock; 0 when it must read it. */
static int tl_quick(pf_timeline *tl, lraf_account *a, int64_t n,
                    lraf_verdict v) {
  tl_bucket *b;
  int thread;
  if (v == LRAF_STOP || tl_self.tl != tl ||
      tl_self.generation != tl->generation)
    return 0;
  thread = tl_self.index;
  pthread_mutex_lock(&tl->lock);
  b = &tl->bucket[thread];
  if (b->t1 < 0 || b->since + (n > 0 ? n : -n) >= TL_CLOCK_INSTR) {
    pthread_mutex_unlock(&tl->lock);
    return 0;
  }
  b->since += n > 0 ? n : -n;
  tl_add(&b->pending, lraf_account_id(a), n);
  pthread_mutex_unlock(&tl->lock);
  return 1;
}

static lraf_verdict tl_consume(void *ud, lraf_account *a, int64_t n,
                               int can_pause) {
  pf_timeline *tl = ud;
  lraf_verdict v = LRAF_CONTINUE;
  int64_t in, out, wait;
  int thread, flags;
  tl_bucket *b;
  if (n < TL_CLOCK_INSTR && n > -TL_CLOCK_INSTR) {
    if (tl->parent != NULL)
      v = lraf_manager_consume(tl->parent, a, n, can_pause);
    if (tl_quick(tl, a, n, v)) return v;
    in = out = ns_since(&tl->t0, CLOCK_MONOTONIC);
  } else {
    in = ns_since(&tl->t0, CLOCK_MONOTONIC);
    if (tl->parent != NULL)
      v = lraf_manager_consume(tl->parent, a, n, can_pause);
    out = ns_since(&tl->t0, CLOCK_MONOTONIC);
  }
  wait = out - in > PF_TL_PAUSE ? out - in : 0;
  flags = v == LRAF_STOP ? PF_TL_STOP : 0;
  pthread_mutex_lock(&tl->lock);
  if ((thread = tl_thread_index(tl)) >= 0) {
    b = &tl->bucket[thread];
    b->since = 0;
    if (b->in.naccounts > 0 &&
        (in - b->t1 > TL_QUANTUM || b->t1 - b->t0 > TL_SPAN))
      tl_emit(tl, thread, 0, 0);   /* a long interval stands alone */
    if (b->t0 < 0) b->t0 = in;
    b->t1 = in;
    tl_join(b);
    tl_add(&b->in, lraf_account_id(a), n);
    if (out - b->last_cpu >= TL_CPU_EVERY || wait > 0 || flags) {
      b->cpu = thread_cpu_ns();
      b->last_cpu = out;
    }
    if (wait > 0 || flags) tl_emit(tl, thread, wait, flags);
  }
  pthread_mutex_unlock(&tl->lock);
  return v;
}

static int64_t tl_granularity(void *ud, lraf_account *a, int64_t dflt) {
  pf_timeline *tl = ud;
  return tl->parent != NULL ? lraf_manager_granularity(tl->parent, a, dflt)
                            : dflt;
}

static void tl_release(void *ud) {
  pf_timeline *tl = ud;
  lraf_manager_release(tl->parent);
  pthread_mutex_destroy(&tl->lock);
  free(tl->s);
  free(tl->bucket);
  tl->magic = 0;
  free(tl);
}

lraf_manager *lraf_timeline_new(lraf_manager *parent) {
  static const lraf_manager_ops ops = {tl_consume, tl_granularity,
                                       tl_release};
  lraf_manager *m;
  pf_timeline *tl = calloc(1, sizeof *tl);
  if (tl == NULL) return NULL;
  tl->magic = TL_MAGIC;
  tl->merge = TL_MERGE0;
  pthread_mutex_init(&tl->lock, NULL);
  clock_gettime(CLOCK_MONOTONIC, &tl->t0);
  tl->generation = atomic_fetch_add(&tl_generations, 1) + 1;
  m = lraf_observer_new(&ops, tl, parent);
  if (m == NULL) {
    pthread_mutex_destroy(&tl->lock);
    free(tl);
    return NULL;
  }
  tl->parent = lraf_manager_retain(parent);
  return m;
}

pf_timeline *pf_timeline_of(lraf_manager *m) {
  pf_timeline *tl = m != NULL ? lraf_manager_userdata(m) : NULL;
  return tl != NULL && tl->magic == TL_MAGIC ? tl : NULL;
}

/* A copy of the samples, taken under the lock, the buckets' included. */
pf_tl_sample *pf_timeline_samples(pf_timeline *tl, size_t *n) {
  pf_tl_sample *s;
  int t;
  pthread_mutex_lock(&tl->lock);
  for (t = 0; t < tl->nthreads; t++) {
    tl_join(&tl->bucket[t]);
    tl_emit(tl, t, 0, 0);
  }
  *n = tl->n;
  s = malloc((tl->n ? tl->n : 1) * sizeof *s);
  if (s != NULL && tl->n > 0) memcpy(s, tl->s, tl->n * sizeof *s);
  pthread_mutex_unlock(&tl->lock);
  return s;
}

/* ---- analysis ---- */

/* The k-th smallest of r[0..n-1] (r is reordered): Hoare's selection. */
static double select_kth(double *r, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = r[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (r[i] < pivot) i++;
      while (r[j] > pivot) j--;
      if (i <= j) {
        double t = r[i];
        r[i] = r[j];
        r[j] = t;
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return r[k];
}

/* Per OS thread of the samples, where its last interval ended: all -1
   (free it); NULL when out of memory. */
static int64_t *thread_ends(const pf_tl_sample *s, size_t n) {
  int64_t *prev;
  int nthreads = 0;
  size_t i;
  for (i = 0; i < n; i++)
    if (s[i].thread >= nthreads) nthreads = s[i].thread + 1;
  prev = malloc((nthreads ? nthreads : 1) * sizeof *prev);
  if (prev != NULL)
    for (i = 0; i < (size_t)nthreads; i++) prev[i] = -1;
  return prev;
}

/* The rate of each interval of at least 1 us with instructions (shorter
   ones are below what the clock can tell) to r, with its count and
   length to nn and dt; their number. */
static size_t interval_rates(const pf_tl_sample *s, size_t n, double *r,
                             double *nn, double *dt) {
  size_t i, k = 0;
  int64_t *prev = thread_ends(s, n);
  if (prev == NULL) return 0;
  for (i = 0; i < n; i++) {
    int64_t from = prev[s[i].thread];
    prev[s[i].thread] = s[i].t + s[i].wait;
    if (from >= 0 && s[i].n > 0 && s[i].t - from >= 1000) {
      nn[k] = (double)s[i].n;
      dt[k] = (double)(s[i].t - from) * 1e-9;
      r[k] = nn[k] / dt[k];
      k++;
    }
  }
  free(prev);
  return k;
}

/* The solo rate: how fast the script runs while it has the CPU, from
   its own intervals, so that it runs the script's own mix, on this
   machine, at its clock speed and with its caches as they are during
   the run.  A scheduler's time slice is a millisecond or more and an
   interval tens of microseconds, so most intervals ran undisturbed and
   their median is near the rate; an interval that held a preemption is
   many times slower.  The rate is the count over the time of the
   intervals at least half as fast as the median, or that lost less
   than SOLO_JITTER against it: the time of the
   undisturbed ones, their slow ones (a cold cache after a switch, a
   collection, the clock reads) included, which a median would leave
   out.  An interval a fraction of whose count belongs to its neighbour
   (counts that waited at a coroutine switch, blocks charged ahead) is
   slow by less than SOLO_JITTER, and stays in. */
#define SOLO_JITTER 100e-6   /* s: less lost than this is no preemption */

static double solo_rate(const pf_tl_sample *s, size_t n) {
  double *r = malloc((n ? n : 1) * 3 * sizeof *r), *nn, *dt;
  double median, count = 0, time = 0;
  size_t i, k;
  if (r == NULL) return 0;
  nn = r + (n ? n : 1);
  dt = nn + (n ? n : 1);
  k = interval_rates(s, n, r, nn, dt);
  if (k == 0) {
    free(r);
    return 0;
  }
  median = select_kth(r, k, (k - 1) / 2);   /* reorders r only */
  for (i = 0; i < k; i++) {
    double lost = dt[i] - nn[i] / median;
    if (lost <= SOLO_JITTER || lost <= nn[i] / median) {
      count += nn[i];
      time += dt[i];
    }
  }
  free(r);
  return time > 0 ? count / time : median;
}

void pf_timeline_options(const lraf_timeline_opts *o, double *gap,
                       double *window) {
  *gap = o != NULL && o->gap_threshold > 0 ? o->gap_threshold : 0.001;
  *window = o != NULL && o->window > 0 ? o->window : 0.1;
}

/* Walk the intervals of every OS thread in order, calling f for each:
   the interval from the thread's previous sample (or, for its first,
   as long before as its count takes at the solo rate) to sample i. */
int pf_timeline_walk(const pf_tl_sample *s, size_t n, double solo,
                     double gap_threshold, pf_tl_visit f, void *ud) {
  int64_t *prev = thread_ends(s, n);
  size_t i;
  if (prev == NULL) return 0;
  for (i = 0; i < n; i++) {
    pf_tl_interval iv;
    double need = solo > 0 ? (double)(s[i].n > 0 ? s[i].n : 0) / solo : 0;
    iv.sample = &s[i];
    iv.first = prev[s[i].thread] < 0;
    iv.end = (double)s[i].t * 1e-9;
    iv.start = iv.first ? iv.end - need
                        : (double)prev[s[i].thread] * 1e-9;
    if (iv.start < 0) iv.start = 0;
    iv.gap = iv.end - iv.start - need;
    if (iv.first || iv.gap <= gap_threshold) iv.gap = 0;
    prev[s[i].thread] = s[i].t + s[i].wait;
    f(&iv, ud);
  }
  free(prev);
  return 1;
}

/* Per-window sums of one OS thread, for the shares over time. */
typedef struct tl_windows {
  double window, solo;
  double start, end;
  int thread;
  int64_t last_cpu;            /* the thread's previous CPU reading */
  double last_cpu_t;
  double *instr, *cpu;         /* per window */
  size_t nwin;
} tl_windows;

typedef struct tl_acc {
  lraf_timeline_summary *sum;
  tl_windows *w;               /* one per OS thread */
  double wall;                 /* sum of the threads' spans */
  double cpu, cpu_wall;        /* CPU time over the wall time it spans */
} tl_acc;

static void acc_interval(const pf_tl_interval *iv, void *ud) {
  tl_acc *a = ud;
  lraf_timeline_summary *sum = a->sum;
  tl_windows *w = &a->w[iv->sample->thread];
  const pf_tl_sample *x = iv->sample;
  size_t k;
  if (w->start < 0) w->start = iv->start;
  w->end = iv->end + (double)x->wait * 1e-9;
  if (sum->start < 0 || iv->start < sum->start) sum->start = iv->start;
  if (w->end > sum->end) sum->end = w->end;
  sum->instructions += x->n;
  sum->samples++;
  if (x->flags & PF_TL_STOP) sum->stopped = 1;
  sum->pause_time += (double)x->wait * 1e-9;
  if (iv->gap > 0) {
    sum->gaps++;
    sum->gap_time += iv->gap;
    if (iv->gap > sum->longest_gap) {
      sum->longest_gap = iv->gap;
      sum->longest_gap_at = iv->end - iv->gap;
    }
  }
  k = iv->end >= w->start ? (size_t)((iv->end - w->start) / w->window)
                           : w->nwin;
  if (k < w->nwin) w->instr[k] += (double)x->n;
  if (x->cpu >= 0) {
    if (w->last_cpu >= 0) {
      double d = (double)(x->cpu - w->last_cpu) * 1e-9;
      a->cpu += d;
      a->cpu_wall += iv->end - w->last_cpu_t;
      if (k < w->nwin) w->cpu[k] += d;
    }
    w->last_cpu = x->cpu;
    w->last_cpu_t = iv->end;
  }
}

/* The least share over the whole windows of every thread; each whole
   window to f too, when given. */
static void min_shares(tl_acc *a, int nthreads, pf_tl_window f, void *ud) {
  lraf_timeline_summary *sum = a->sum;
  int t;
  sum->min_share = sum->min_cpu_share = HUGE_VAL;
  for (t = 0; t < nthreads; t++) {
    tl_windows *w = &a->w[t];
    size_t k, whole = w->end > w->start
                          ? (size_t)((w->end - w->start) / w->window) : 0;
    if (w->start < 0) continue;
    if (whole == 0) {
      double span = w->end - w->start;
      double sh = span > 0 && w->solo > 0 ? w->instr[0] / w->solo / span : 0;
      if (sh < sum->min_share) {
        sum->min_share = sh;
        sum->min_share_at = w->start;
      }
      continue;
    }
    for (k = 0; k < whole && k < w->nwin; k++) {
      double sh = w->solo > 0 ? w->instr[k] / w->solo / w->window : 0;
      if (sh < sum->min_share) {
        sum->min_share = sh;
        sum->min_share_at = w->start + (double)k * w->window;
      }
      if (k > 0 && w->cpu[k] / w->window < sum->min_cpu_share)
        sum->min_cpu_share = w->cpu[k] / w->window;
      if (f != NULL)
        f(t, w->start + (double)k * w->window, sh,
          k > 0 ? w->cpu[k] / w->window : -1, ud);
    }
  }
  if (sum->min_share == HUGE_VAL) sum->min_share = 0;
  if (sum->min_cpu_share == HUGE_VAL) sum->min_cpu_share = sum->cpu_share;
}

static int alloc_windows(tl_acc *a, const pf_tl_sample *s, size_t n,
                         int nthreads, double window, double solo) {
  int t;
  size_t i, nwin;
  double lo = 0, hi = 0, span;
  for (i = 0; i < n; i++) {   /* the times the windows may reach */
    double t0 = (double)s[i].t * 1e-9, t1 = t0 + (double)s[i].wait * 1e-9;
    if (solo > 0 && s[i].n > 0) t0 -= (double)s[i].n / solo;
    if (i == 0 || t0 < lo) lo = t0;
    if (i == 0 || t1 > hi) hi = t1;
  }
  span = (hi - lo) / window;
  nwin = span < (double)TL_WINDOWS ? (size_t)span + 2 : TL_WINDOWS;
  for (t = 0; t < nthreads; t++) {
    tl_windows *w = &a->w[t];
    w->window = window;
    w->solo = solo;
    w->start = -1;
    w->thread = t;
    w->last_cpu = -1;
    w->nwin = nwin;
    w->instr = calloc(nwin, sizeof *w->instr);
    w->cpu = calloc(nwin, sizeof *w->cpu);
    if (w->instr == NULL || w->cpu == NULL) return 0;
  }
  return 1;
}

int pf_timeline_summarise(const pf_tl_sample *s, size_t n,
                          const lraf_timeline_opts *o,
                          lraf_timeline_summary *sum, pf_tl_window f,
                          void *ud) {
  double gap, window;
  tl_acc a;
  int t, nthreads = 0, ok;
  size_t i;
  pf_timeline_options(o, &gap, &window);
  memset(sum, 0, sizeof *sum);
  sum->start = -1;
  for (i = 0; i < n; i++)
    if (s[i].thread >= nthreads) nthreads = s[i].thread + 1;
  sum->solo_rate = solo_rate(s, n);
  memset(&a, 0, sizeof a);
  a.sum = sum;
  a.w = calloc(nthreads ? (size_t)nthreads : 1, sizeof *a.w);
  ok = a.w != NULL &&
       alloc_windows(&a, s, n, nthreads, window, sum->solo_rate) &&
       pf_timeline_walk(s, n, sum->solo_rate, gap, acc_interval, &a);
  if (ok) {
    for (t = 0; t < nthreads; t++)
      if (a.w[t].start >= 0) a.wall += a.w[t].end - a.w[t].start;
    if (a.wall > 0 && sum->solo_rate > 0)
      sum->share = (double)sum->instructions / sum->solo_rate / a.wall;
    if (a.cpu_wall > 0) sum->cpu_share = a.cpu / a.cpu_wall;
    min_shares(&a, nthreads, f, ud);
  }
  if (sum->start < 0) sum->start = 0;
  for (t = 0; a.w != NULL && t < nthreads; t++) {
    free(a.w[t].instr);
    free(a.w[t].cpu);
  }
  free(a.w);
  return ok;
}

lraf_status lraf_timeline_analyse(lraf_manager *m,
                                  const lraf_timeline_opts *o,
                                  lraf_timeline_summary *sum,
                                  lraf_error *err) {
  pf_timeline *tl = pf_timeline_of(m);
  pf_tl_sample *s;
  size_t n;
  int ok;
  if (tl == NULL || sum == NULL)
    return err_fail(err, LRAF_EARG, "lraf_timeline_analyse: %s",
                    tl == NULL ? "not a timeline" : "no summary");
  s = pf_timeline_samples(tl, &n);
  if (s == NULL) return err_fail(err, LRAF_EMEM, "not enough memory");
  ok = pf_timeline_summarise(s, n, o, sum, NULL, NULL);
  free(s);
  return ok ? LRAF_OK : err_fail(err, LRAF_EMEM, "not enough memory");
}
