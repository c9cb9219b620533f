/*
** pf_diff.c - comparing two profiles function by function (lraf diff):
** functions matched by name and file (pf.h), their self counts before
** and after, sorted by absolute change, and a similarity score.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pf.h"

static int64_t magnitude(int64_t v) {
  return v < 0 ? -v : v;
}

static int by_change(const void *a, const void *b) {
  const pf_diffrow *x = a, *y = b;
  int64_t cx = magnitude(x->after - x->before);
  int64_t cy = magnitude(y->after - y->before);
  int c;
  if (cx != cy) return cx > cy ? -1 : 1;
  if (x->after != y->after) return x->after > y->after ? -1 : 1;
  if ((c = strcmp(x->frame, y->frame)) != 0) return c;
  return x->line_after - y->line_after;
}

/* A function as matched: its key (kind, file, name; "" for anonymous
   functions), its line, its summed count and its entry. */
typedef struct item {
  char *key;
  int line;
  int64_t self;
  const pf_entry *e;
  int idx;           /* e's index */
} item;

static int by_key(const void *a, const void *b) {
  const item *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/* Anonymous: no name Lua could give ("?"), or named by its place
   ("function <file:line>", as lua5.4's tracebacks write it), which
   changes when it moves. */
static int anonymous(const char *name) {
  return strcmp(name, "?") == 0 || strncmp(name, "function <", 10) == 0;
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static int has_source(const pf_read *r, const char *src) {
  int i;
  for (i = 0; i < r->n; i++)
    if (r->e[i].source && !r->e[i].is_c && strcmp(r->e[i].source, src) == 0)
      return 1;
  return 0;
}

/* The file of a's source src as b names it: itself when b has it, else
   the one file of b, not in a, with the same base name, when exactly one
   file of a and one of b have that base name. */
static const char *follow_source(const pf_read *a, const pf_read *b,
                                 const char *src) {
  const char *found = NULL, *base = base_name(src);
  int i;
  if (has_source(b, src)) return src;
  for (i = 0; i < a->n; i++) {
    const char *s = a->e[i].source;
    if (s && !a->e[i].is_c && strcmp(s, src) != 0 && !has_source(b, s) &&
        strcmp(base_name(s), base) == 0)
      return src;  /* two files of a with that base name */
  }
  for (i = 0; i < b->n; i++) {
    const char *s = b->e[i].source;
    if (s == NULL || b->e[i].is_c || has_source(a, s) ||
        strcmp(base_name(s), base) != 0)
      continue;
    if (found && strcmp(found, s) != 0) return src;
    found = s;
  }
  return found ? found : src;
}

static char *make_key(const pf_entry *e, const char *source) {
  const char *name = e->name, *kind = e->is_c ? "C" : "L";
  size_t n;
  char *k;
  if (name == NULL || (source == NULL && !e->is_c)) {  /* older profile */
    name = e->frame;
    source = "";
    kind = "F";
  } else if (e->is_c) {
    source = "";
  } else if (anonymous(name)) {
    name = "";
  }
  n = strlen(kind) + strlen(source) + strlen(name) + 3;
  if ((k = malloc(n)) != NULL) snprintf(k, n, "%s|%s|%s", kind, source, name);
  return k;
}

static void free_items(item *it, int n) {
  int i;
  if (it == NULL) return;
  for (i = 0; i < n; i++) free(it[i].key);
  free(it);
}

/* r's functions keyed, sorted by key and line, equal ones summed (b is
   the other profile when r is the first: its files are followed); rep:
   each entry's index, or the index of the entry it was summed into. */
static item *items(const pf_read *r, const pf_read *b, int *n, int *rep) {
  item *it = malloc(((size_t)r->n + 1) * sizeof *it);
  int i, k = 0;
  if (it == NULL) return NULL;
  for (i = 0; i < r->n; i++) {
    const pf_entry *e = &r->e[i];
    const char *src = e->source;
    if (b != NULL && src != NULL && !e->is_c) src = follow_source(r, b, src);
    it[i].key = make_key(e, src);
    it[i].line = e->name && e->source && !e->is_c ? e->line : -1;
    it[i].self = e->self;
    it[i].e = e;
    it[i].idx = i;
    rep[i] = i;
    if (it[i].key == NULL) { free_items(it, i); return NULL; }
  }
  qsort(it, (size_t)r->n, sizeof *it, by_key);
  for (i = 0; i < r->n; i++) {
    if (k > 0 && by_key(&it[k - 1], &it[i]) == 0) {
      it[k - 1].self = it[i].self > INT64_MAX - it[k - 1].self  /* >= 0 */
                       ? INT64_MAX : it[k - 1].self + it[i].self;
      rep[it[i].idx] = it[k - 1].idx;
      free(it[i].key);
    } else {
      it[k++] = it[i];
    }
  }
  *n = k;
  return it;
}

static pf_diffrow *add_row(pf_diff *d, const item *x, const item *y) {
  pf_diffrow *r = &d->row[d->n++];
  r->frame = y ? y->e->frame : x->e->frame;
  r->before = x ? x->self : 0;
  r->after = y ? y->self : 0;
  r->in_before = x != NULL;
  r->in_after = y != NULL;
  r->line_before = x ? x->line : -1;
  r->line_after = y ? y->line : -1;
  r->ia = x ? x->idx : -1;
  r->ib = y ? y->idx : -1;
  return r;
}

static int64_t distance(int p, int q) {
  return p > q ? (int64_t)p - q : (int64_t)q - p;
}

/* Pair the functions of one key: a[0..na) and b[0..nb), sorted by line.
   Every function of the shorter list is paired, in order, with the
   smallest sum of line distances; the rest are added or removed. */
static int pair_group(pf_diff *d, const item *a, int na, const item *b,
                      int nb) {
  int swap = na > nb, ns = swap ? nb : na, nl = swap ? na : nb, i, j;
  const item *S = swap ? b : a, *L = swap ? a : b;
  int64_t *f;
  char *used;
  if (ns == 0 || ns == nl || (double)(ns + 1) * (nl + 1) > 4e6) {  /* in order */
    for (i = 0; i < nl; i++) {
      const item *s = i < ns ? &S[i] : NULL;
      add_row(d, swap ? &L[i] : s, swap ? s : &L[i]);
    }
    return 1;
  }
  f = malloc((size_t)(ns + 1) * (size_t)(nl + 1) * sizeof *f);
  used = calloc((size_t)nl, 1);
  if (f == NULL || used == NULL) { free(f); free(used); return 0; }
#define F(i, j) f[(size_t)(i) * (size_t)(nl + 1) + (size_t)(j)]
  for (j = 0; j <= nl; j++) F(0, j) = 0;
  for (i = 1; i <= ns; i++)
    for (j = i; j <= nl; j++) {
      int64_t take = F(i - 1, j - 1) + distance(S[i - 1].line, L[j - 1].line);
      F(i, j) = j > i && F(i, j - 1) < take ? F(i, j - 1) : take;
    }
  for (i = ns, j = nl; i > 0; j--) {  /* back: which of L each S took */
    int64_t take = F(i - 1, j - 1) + distance(S[i - 1].line, L[j - 1].line);
    if (j > i && F(i, j - 1) < take) continue;
    used[j - 1] = 1;
    add_row(d, swap ? &L[j - 1] : &S[i - 1], swap ? &S[i - 1] : &L[j - 1]);
    i--;
  }
#undef F
  for (j = 0; j < nl; j++)
    if (!used[j]) add_row(d, swap ? &L[j] : NULL, swap ? NULL : &L[j]);
  free(f);
  free(used);
  return 1;
}

static double cosine(const pf_diff *d) {
  double dot = 0, qa = 0, qb = 0;
  int i, same = 1;
  for (i = 0; i < d->n; i++) {
    const pf_diffrow *r = &d->row[i];
    int df = (r->before > 0) + (r->after > 0);
    double w = df > 0 ? 1 + log(2.0 / df) : 0;
    double x = (double)r->before * w, y = (double)r->after * w;
    dot += x * y;
    qa += x * x;
    qb += y * y;
    if (r->before != r->after) same = 0;
  }
  if (same) return 1.0;  /* exactly, not to rounding */
  return qa > 0 && qb > 0 ? dot / (sqrt(qa) * sqrt(qb)) : qa == qb ? 1.0 : 0;
}

/* Each entry's row, through rep (items) to the entry that has a row. */
static void map_rows(const pf_diff *d, int *arow, const int *arep, int na,
                     int *brow, const int *brep, int nb) {
  int r, i;
  for (i = 0; i < na; i++) arow[i] = -1;
  for (i = 0; i < nb; i++) brow[i] = -1;
  for (r = 0; r < d->n; r++) {
    if (d->row[r].ia >= 0) arow[d->row[r].ia] = r;
    if (d->row[r].ib >= 0) brow[d->row[r].ib] = r;
  }
  for (i = 0; i < na; i++) arow[i] = arow[arep[i]];
  for (i = 0; i < nb; i++) brow[i] = brow[brep[i]];
}

lraf_status pf_diff_make(const pf_read *a, const pf_read *b, pf_diff *d,
                         lraf_error *err) {
  int na = 0, nb = 0, i = 0, j = 0, ok = 1;
  int *arep = malloc(((size_t)a->n + 1) * sizeof *arep);
  int *brep = malloc(((size_t)b->n + 1) * sizeof *brep);
  item *ia = arep ? items(a, b, &na, arep) : NULL;
  item *ib = brep ? items(b, NULL, &nb, brep) : NULL;
  memset(d, 0, sizeof *d);
  d->row = malloc(((size_t)a->n + (size_t)b->n + 1) * sizeof *d->row);
  d->arow = malloc(((size_t)a->n + 1) * sizeof *d->arow);
  d->brow = malloc(((size_t)b->n + 1) * sizeof *d->brow);
  if (ia == NULL || ib == NULL || d->row == NULL || d->arow == NULL ||
      d->brow == NULL)
    ok = 0;
  while (ok && (i < na || j < nb)) {
    int c = i >= na ? 1 : j >= nb ? -1 : strcmp(ia[i].key, ib[j].key);
    int ei = i, ej = j;
    if (c <= 0)
      while (ei < na && strcmp(ia[ei].key, ia[i].key) == 0) ei++;
    if (c >= 0)
      while (ej < nb && strcmp(ib[ej].key, ib[j].key) == 0) ej++;
    ok = pair_group(d, ia + i, ei - i, ib + j, ej - j);
    i = ei;
    j = ej;
  }
  free_items(ia, na);
  free_items(ib, nb);
  if (!ok) {
    free(arep);
    free(brep);
    pf_diff_free(d);
    return err_fail(err, LRAF_EMEM, "lraf diff: out of memory");
  }
  d->before = a->total;
  d->after = b->total;
  d->similarity = cosine(d);
  qsort(d->row, (size_t)d->n, sizeof *d->row, by_change);
  map_rows(d, d->arow, arep, a->n, d->brow, brep, b->n);
  free(arep);
  free(brep);
  return LRAF_OK;
}

double pf_diff_percent(int64_t before, int64_t after) {
  if (before == after) return 0;
  if (before == 0) return HUGE_VAL;
  return 100.0 * ((double)after - (double)before) / (double)before;
}

void pf_diff_free(pf_diff *d) {
  free(d->row);
  free(d->arow);
  free(d->brow);
  d->arow = d->brow = NULL;
  d->row = NULL;
  d->n = 0;
}

/* ---- the public API (lraf.h) ---- */

struct lraf_profile_diff {
  pf_read a, b;
  pf_diff d;
  char name_a[256], name_b[256];
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
  snprintf(D->name_a, sizeof D->name_a, "%s", a_name ? a_name : "a");
  snprintf(D->name_b, sizeof D->name_b, "%s", b_name ? b_name : "b");
  *out = D;
  return LRAF_OK;
}

lraf_status lraf_profile_diff_write_svg(const lraf_profile_diff *D,
                                        FILE *out, lraf_error *err) {
  pf_diff_svg(&D->a, &D->b, &D->d, D->name_a, D->name_b, out);
  if (fflush(out) != 0 || ferror(out))
    return err_fail(err, LRAF_EIO, "lraf diff: write error");
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
    out->in_before = out->in_after = 1;
    out->line_before = out->line_after = -1;
    return 1;
  }
  if (i < 0 || i >= D->d.n) return 0;
  out->frame = D->d.row[i].frame;
  out->before = D->d.row[i].before;
  out->after = D->d.row[i].after;
  out->in_before = D->d.row[i].in_before;
  out->in_after = D->d.row[i].in_after;
  out->line_before = D->d.row[i].line_before;
  out->line_after = D->d.row[i].line_after;
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
