/*
** pf_diff.c - comparing two profiles function by function (lraf diff):
** the self counts before and after, sorted by absolute change, and a
** similarity score.
**
** The score is the cosine of the two profiles' per-function vectors,
** each count weighted by its function's inverse frequency across the
** profiles given, smoothed so that a function in every profile still
** counts: w(f) = 1 + ln(N / df(f)), N = 2 profiles, df(f) = how many of
** them ran f.  Functions only one run has weigh more, so runs of
** different programs score low even when they share a hot library
** function; two runs of one program on different inputs share their
** functions and score by how their counts are spread.  Identical
** profiles score 1.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

static int by_frame(const void *a, const void *b) {
  return strcmp(((const pf_entry *)a)->frame, ((const pf_entry *)b)->frame);
}

static int64_t magnitude(int64_t v) {
  return v < 0 ? -v : v;
}

static int by_change(const void *a, const void *b) {
  const pf_diffrow *x = a, *y = b;
  int64_t cx = magnitude(x->after - x->before);
  int64_t cy = magnitude(y->after - y->before);
  if (cx != cy) return cx > cy ? -1 : 1;
  return strcmp(x->frame, y->frame);
}

/* A copy of r's entries sorted by frame, equal frames summed. */
static pf_entry *sorted(const pf_read *r, int *n) {
  pf_entry *e = malloc(((size_t)r->n + 1) * sizeof *e);
  int i, k = 0;
  if (e == NULL) return NULL;
  if (r->n > 0) memcpy(e, r->e, (size_t)r->n * sizeof *e);
  qsort(e, (size_t)r->n, sizeof *e, by_frame);
  for (i = 0; i < r->n; i++) {
    if (k > 0 && strcmp(e[k - 1].frame, e[i].frame) == 0)
      e[k - 1].self += e[i].self;
    else
      e[k++] = e[i];
  }
  *n = k;
  return e;
}

lraf_status pf_diff_make(const pf_read *a, const pf_read *b, pf_diff *d,
                         lraf_error *err) {
  int na, nb, i = 0, j = 0;
  pf_entry *ea = sorted(a, &na), *eb = sorted(b, &nb);
  double dot = 0, qa = 0, qb = 0;
  memset(d, 0, sizeof *d);
  d->row = malloc(((size_t)na + (size_t)nb + 1) * sizeof *d->row);
  if (ea == NULL || eb == NULL || d->row == NULL) {
    free(ea);
    free(eb);
    free(d->row);
    d->row = NULL;
    if (err != NULL) {
      err->code = LRAF_EMEM;
      snprintf(err->message, sizeof err->message, "lraf diff: out of memory");
    }
    return LRAF_EMEM;
  }
  while (i < na || j < nb) {
    int c = i >= na ? 1 : j >= nb ? -1 : strcmp(ea[i].frame, eb[j].frame);
    pf_diffrow *r = &d->row[d->n++];
    r->frame = c <= 0 ? ea[i].frame : eb[j].frame;
    r->before = c <= 0 ? ea[i++].self : 0;
    r->after = c >= 0 ? eb[j++].self : 0;
  }
  for (i = 0; i < d->n; i++) {
    const pf_diffrow *r = &d->row[i];
    int df = (r->before > 0) + (r->after > 0);
    double w = df > 0 ? 1 + log(2.0 / df) : 0;
    double x = (double)r->before * w, y = (double)r->after * w;
    dot += x * y;
    qa += x * x;
    qb += y * y;
  }
  d->before = a->total;
  d->after = b->total;
  d->similarity = qa > 0 && qb > 0 ? dot / (sqrt(qa) * sqrt(qb))
                : qa == qb ? 1.0 : 0.0;
  qsort(d->row, (size_t)d->n, sizeof *d->row, by_change);
  free(ea);
  free(eb);
  return LRAF_OK;
}

double pf_diff_percent(int64_t before, int64_t after) {
  if (before == after) return 0;
  if (before == 0) return HUGE_VAL;
  return 100.0 * ((double)after - (double)before) / (double)before;
}

void pf_diff_free(pf_diff *d) {
  free(d->row);
  d->row = NULL;
  d->n = 0;
}
