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

#include "err.h"
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
      e[k - 1].self = e[i].self > INT64_MAX - e[k - 1].self  /* both >= 0 */
                      ? INT64_MAX : e[k - 1].self + e[i].self;
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
    return err_fail(err, LRAF_EMEM, "lraf diff: out of memory");
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

/* ---- the public API (lraf.h) ---- */

struct lraf_profile_diff {
  pf_read a, b;
  pf_diff d;
};

lraf_status lraf_profile_diff_new(const char *a, size_t a_len,
                                  const char *a_name, const char *b,
                                  size_t b_len, const char *b_name,
                                  lraf_profile_diff **out, lraf_error *err) {
  lraf_profile_diff *D = calloc(1, sizeof *D);
  lraf_status st;
  *out = NULL;
  if (D == NULL)
    return err_fail(err, LRAF_EMEM, "lraf diff: out of memory");
  st = pf_read_json(a, a_len, a_name, &D->a, err);
  if (st == LRAF_OK) {
    st = pf_read_json(b, b_len, b_name, &D->b, err);
    if (st == LRAF_OK) {
      st = pf_diff_make(&D->a, &D->b, &D->d, err);
      if (st != LRAF_OK) pf_read_free(&D->b);
    }
    if (st != LRAF_OK) pf_read_free(&D->a);
  }
  if (st != LRAF_OK) {
    free(D);
    return st;
  }
  *out = D;
  return LRAF_OK;
}

int lraf_profile_diff_rows(const lraf_profile_diff *D) {
  return D->d.n;
}

int lraf_profile_diff_row(const lraf_profile_diff *D, int i,
                          lraf_profile_change *out) {
  if (i == -1) {
    out->frame = "(total)";
    out->before = D->d.before;
    out->after = D->d.after;
    return 1;
  }
  if (i < 0 || i >= D->d.n) return 0;
  out->frame = D->d.row[i].frame;
  out->before = D->d.row[i].before;
  out->after = D->d.row[i].after;
  return 1;
}

double lraf_profile_diff_similarity(const lraf_profile_diff *D) {
  return D->d.similarity;
}

const char *lraf_profile_diff_model(const lraf_profile_diff *D, int second) {
  return second ? D->b.model : D->a.model;
}

double lraf_profile_change_percent(int64_t before, int64_t after) {
  return pf_diff_percent(before, after);
}

void lraf_profile_diff_free(lraf_profile_diff *D) {
  if (D == NULL) return;
  pf_diff_free(&D->d);
  pf_read_free(&D->a);
  pf_read_free(&D->b);
  free(D);
}
