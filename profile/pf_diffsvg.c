/*
** pf_diffsvg.c - the differential flame graph of lraf diff: the second
** profile's calling-context tree (its boxes as wide as its inclusive
** counts), each box coloured by how its self count changed since the
** first profile, red for growth and blue for shrinkage, the deeper the
** larger the change against the largest one; unchanged boxes grey.  A
** context of the second profile is matched with the first's by its
** path from the root: the functions along it, matched as lraf diff
** matches them (pf_diff.c).  Contexts only the first profile has do
** not show (the graph has the new profile's shape).  Drawn by
** pf_svg_flame, with its zoom and search.
*/
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

/* A profile's tree, or one made of its functions under a root when it
   has none (a profile written by hand). */
typedef struct ctree {
  int n;
  int *fn, *parent;
  int64_t *self, *incl;
} ctree;

static int ctree_make(const pf_read *r, ctree *t) {
  int i, flat = r->nt == 0;
  size_t n = (size_t)(flat ? r->n + 1 : r->nt) + 1;
  t->n = flat ? r->n + 1 : r->nt;
  t->fn = malloc(n * sizeof *t->fn);
  t->parent = malloc(n * sizeof *t->parent);
  t->self = malloc(n * sizeof *t->self);
  t->incl = malloc(n * sizeof *t->incl);
  if (!t->fn || !t->parent || !t->self || !t->incl) return 0;
  for (i = 0; i < t->n; i++) {
    if (!flat) {
      t->fn[i] = r->t[i].fn;
      t->parent[i] = r->t[i].parent;
      t->self[i] = r->t[i].self;
      t->incl[i] = i == 0 ? r->total : r->t[i].incl;
    } else {
      t->fn[i] = i - 1;
      t->parent[i] = i == 0 ? -1 : 0;
      t->self[i] = i == 0 ? 0 : r->e[i - 1].self;
      t->incl[i] = i == 0 ? r->total : r->e[i - 1].self;
    }
  }
  return 1;
}

static void ctree_free(ctree *t) {
  free(t->fn);
  free(t->parent);
  free(t->self);
  free(t->incl);
}

/* Paths as (parent path, row) pairs, interned: path 0 is the root. */
typedef struct paths {
  int *key_parent, *key_row, *slot;
  int64_t *self, *incl;  /* summed over the first profile's contexts */
  int n, size;           /* size: slots, a power of two */
} paths;

static unsigned hash(int parent, int row) {
  return ((unsigned)parent * 2654435761u) ^ ((unsigned)row * 40503u);
}

/* The path (parent, row); added when add, else -1 when absent. */
static int path_of(paths *P, int parent, int row, int add) {
  unsigned h = hash(parent, row) & (unsigned)(P->size - 1);
  for (;; h = (h + 1) & (unsigned)(P->size - 1)) {
    int k = P->slot[h];
    if (k < 0) break;
    if (P->key_parent[k] == parent && P->key_row[k] == row) return k;
  }
  if (!add) return -1;
  P->slot[h] = P->n;
  P->key_parent[P->n] = parent;
  P->key_row[P->n] = row;
  P->self[P->n] = P->incl[P->n] = 0;
  return P->n++;
}

static int paths_make(paths *P, int n) {
  int i;
  P->size = 16;
  while (P->size < 2 * n + 2) P->size *= 2;
  P->n = 0;
  P->slot = malloc((size_t)P->size * sizeof *P->slot);
  P->key_parent = malloc(((size_t)n + 2) * sizeof *P->key_parent);
  P->key_row = malloc(((size_t)n + 2) * sizeof *P->key_row);
  P->self = malloc(((size_t)n + 2) * sizeof *P->self);
  P->incl = malloc(((size_t)n + 2) * sizeof *P->incl);
  if (!P->slot || !P->key_parent || !P->key_row || !P->self || !P->incl)
    return 0;
  for (i = 0; i < P->size; i++) P->slot[i] = -1;
  return 1;
}

static void paths_free(paths *P) {
  free(P->slot);
  free(P->key_parent);
  free(P->key_row);
  free(P->self);
  free(P->incl);
}

/* Each context's path; -1 when some function on it has no row (or,
   with add 0, when the first profile lacks the path). */
static void trace(const ctree *t, const int *rowmap, paths *P, int add,
                  int *path) {
  int i;
  for (i = 0; i < t->n; i++) {
    int p = t->parent[i], f = t->fn[i];
    if (i == 0) path[i] = path_of(P, -1, -1, add);
    else if (p < 0 || p >= i || path[p] < 0 || f < 0 || rowmap[f] < 0)
      path[i] = -1;
    else path[i] = path_of(P, path[p], rowmap[f], add);
  }
}

/* x + y for counts (at least 0), at most INT64_MAX. */
static int64_t sum(int64_t x, int64_t y) {
  return y > INT64_MAX - x ? INT64_MAX : x + y;
}

typedef struct view {
  const pf_read *b;
  const ctree *t;
  const int *path;
  const paths *P;
  int64_t maxchange;
} view;

static int64_t before_self(const view *v, int i) {
  return v->path[i] >= 0 ? v->P->self[v->path[i]] : 0;
}

static int64_t before_incl(const view *v, int i) {
  return v->path[i] >= 0 ? v->P->incl[v->path[i]] : 0;
}

static void describe(const void *ud, int i, char *name, size_t nsize,
                     char *info, size_t isize, int rgb[3]) {
  const view *v = ud;
  int f = v->t->fn[i];
  int64_t s0 = before_self(v, i), s1 = v->t->self[i], ch = s1 - s0;
  double k = v->maxchange > 0
             ? (double)(ch < 0 ? -ch : ch) / (double)v->maxchange : 0;
  int shade = 200 - (int)lround(170.0 * k);
  snprintf(name, nsize, "%s", f < 0 ? "all" : v->b->e[f].frame);
  if (ch > 0) { rgb[0] = 255; rgb[1] = rgb[2] = shade; }
  else if (ch < 0) { rgb[0] = rgb[1] = shade; rgb[2] = 255; }
  else { rgb[0] = rgb[1] = rgb[2] = 225; }
  snprintf(info, isize, " (after %" PRId64 ", before %" PRId64
           "; self %" PRId64 " -> %" PRId64 ", %+" PRId64 "%s)",
           v->t->incl[i], before_incl(v, i), s0, s1, ch,
           v->path[i] < 0 && i > 0 ? ", new here" : "");
}

void pf_diff_svg(const pf_read *a, const pf_read *b, const pf_diff *d,
                 const char *name_a, const char *name_b, FILE *out) {
  ctree ta, tb;
  paths P;
  int *pa = NULL, *pb = NULL, i, ok;
  char title[600], subtitle[400];
  view v;
  pf_flame F;
  memset(&ta, 0, sizeof ta);
  memset(&tb, 0, sizeof tb);
  memset(&P, 0, sizeof P);
  ok = ctree_make(a, &ta) && ctree_make(b, &tb) && paths_make(&P, ta.n) &&
       (pa = malloc(((size_t)ta.n + 1) * sizeof *pa)) != NULL &&
       (pb = malloc(((size_t)tb.n + 1) * sizeof *pb)) != NULL;
  if (ok) {
    trace(&ta, d->arow, &P, 1, pa);
    for (i = 0; i < ta.n; i++)
      if (pa[i] >= 0) {
        P.self[pa[i]] = sum(P.self[pa[i]], ta.self[i]);
        P.incl[pa[i]] = sum(P.incl[pa[i]], ta.incl[i]);
      }
    trace(&tb, d->brow, &P, 0, pb);
    v.b = b;
    v.t = &tb;
    v.path = pb;
    v.P = &P;
    v.maxchange = 0;
    for (i = 0; i < tb.n; i++) {
      int64_t ch = tb.self[i] - (pb[i] >= 0 ? P.self[pb[i]] : 0);
      if (ch < 0) ch = -ch;
      if (ch > v.maxchange) v.maxchange = ch;
    }
    snprintf(title, sizeof title, "lraf diff: %s -> %s", name_a, name_b);
    snprintf(subtitle, sizeof subtitle, "%" PRId64 " -> %" PRId64
             " instructions (%+" PRId64 "), cost model %s; red: self count "
             "grew, blue: shrank", a->total, b->total, b->total - a->total,
             b->model);
    F.title = title;
    F.subtitle = subtitle;
    F.n = tb.n;
    F.parent = tb.parent;
    F.width = tb.incl;
    F.describe = describe;
    F.ud = &v;
    pf_svg_flame(&F, out);
  } else {
    fputs("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""
          "/>\n", out);
  }
  free(pa);
  free(pb);
  paths_free(&P);
  ctree_free(&ta);
  ctree_free(&tb);
}
