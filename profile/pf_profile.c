/*
** pf_profile.c - the profile's data: interned functions, the
** calling-context tree, one stack per thread, and the events that
** build them.  Knows no Lua (see pf.h).
*/
#include <stdlib.h>
#include <string.h>

#include "pf.h"

static uint32_t hash_str(uint32_t h, const char *s) {
  while (*s) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static uint32_t hash_int(uint32_t h, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++, v >>= 8) h = (h ^ (uint32_t)(v & 0xff)) * 16777619u;
  return h;
}

/* n more bytes for the profile: 0 when its budget (P->reserve, e.g.
   the state's memory limit) refuses them.  What it takes stays counted
   until pf_free (the tables and arrays only grow). */
static int take(pf_profile *P, size_t n) {
  if (P->reserve != NULL && !P->reserve(P->reserve_ud, n)) {
    P->refused = 1;
    return 0;
  }
  P->bytes += n;
  return 1;
}

static char *dup(pf_profile *P, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = take(P, n) ? malloc(n) : NULL;
  if (d) memcpy(d, s, n);
  return d;
}

/* Grow *p (of *cap elements of size sz) to hold n + 1; 0 when out of
   memory. */
static int grow(pf_profile *P, void *pp, int *cap, int n, size_t sz) {
  void **p = pp;
  if (n < *cap) return 1;
  {
    int c = *cap ? *cap * 2 : 16;
    void *q;
    if (!take(P, (size_t)(c - *cap) * sz)) return 0;
    q = realloc(*p, (size_t)c * sz);
    if (q == NULL) return 0;
    *p = q;
    *cap = c;
  }
  return 1;
}

/* Rehash an open-addressing table of indexes into a new size. */
static int *rehash(int *old, int oldsize, int newsize,
                   uint32_t (*h)(const pf_profile *, int),
                   pf_profile *P) {
  int *t, i;
  if (!take(P, (size_t)(newsize - oldsize) * sizeof *t)) return NULL;
  t = malloc((size_t)newsize * sizeof *t);
  if (t == NULL) return NULL;
  for (i = 0; i < newsize; i++) t[i] = -1;
  for (i = 0; i < oldsize; i++)
    if (old[i] >= 0) {
      uint32_t j = h(P, old[i]) & (uint32_t)(newsize - 1);
      while (t[j] >= 0) j = (j + 1) & (uint32_t)(newsize - 1);
      t[j] = old[i];
    }
  free(old);
  return t;
}

static uint32_t func_hash(const char *source, int line, const char *name,
                          int is_c) {
  uint32_t h = hash_str(2166136261u, source);
  h = hash_int(h, (uint64_t)(int64_t)line);
  h = hash_int(h, (uint64_t)is_c);
  return is_c ? hash_str(h, name) : h;
}

static uint32_t fn_h(const pf_profile *P, int i) {
  const pf_func *f = &P->fn[i];
  return func_hash(f->source, f->line, f->name, f->is_c);
}

static uint32_t edge_hash(int parent, int fn) {
  uint32_t h = (uint32_t)parent * 0x9e3779b1u ^ (uint32_t)fn * 0x85ebca77u;
  return h ^ (h >> 15);
}

static uint32_t edge_h(const pf_profile *P, int i) {
  return edge_hash(P->node[i].parent, P->node[i].fn);
}

static uint32_t stk_h(const pf_profile *P, int i) {
  return hash_int(2166136261u, (uint64_t)(uintptr_t)P->stack[i].key);
}

static int new_node(pf_profile *P, int parent, int fn) {
  pf_node *n;
  if (!grow(P, &P->node, &P->capnode, P->nnode, sizeof *P->node)) {
    P->oom = 1;
    return -1;
  }
  n = &P->node[P->nnode];
  memset(n, 0, sizeof *n);
  n->fn = fn;
  n->parent = parent;
  n->child = n->next = n->last = -1;
  n->site = PF_NO_SITE;
  if (parent >= 0) {
    /* append: children keep creation order */
    int *link = &P->node[parent].child;
    while (*link >= 0) link = &P->node[*link].next;
    *link = P->nnode;
  }
  return P->nnode++;
}

pf_profile *pf_new(const char *model) {
  pf_profile *P = calloc(1, sizeof *P);
  if (P == NULL) return NULL;
  strncpy(P->model, model ? model : "", sizeof P->model - 1);
  if (new_node(P, -1, -1) != 0) {
    free(P);
    return NULL;
  }
  return P;
}

void pf_free(pf_profile *P) {
  int i;
  if (P == NULL) return;
  for (i = 0; i < P->nfn; i++) {
    free(P->fn[i].name);
    free(P->fn[i].source);
    free(P->fn[i].lines);
  }
  for (i = 0; i < P->nstack; i++) {
    free(P->stack[i].node);
    free(P->stack[i].frame);
  }
  free(P->fn);
  free(P->fnhash);
  free(P->node);
  free(P->edge);
  free(P->stack);
  free(P->stkhash);
  free(P);
}

int pf_func_find(const pf_profile *P, const char *source, int line,
                 const char *name, int is_c) {
  uint32_t j;
  if (P->fnhashsize == 0) return -1;
  j = func_hash(source, line, name, is_c) & (uint32_t)(P->fnhashsize - 1);
  for (; P->fnhash[j] >= 0; j = (j + 1) & (uint32_t)(P->fnhashsize - 1)) {
    const pf_func *f = &P->fn[P->fnhash[j]];
    if (f->line == line && f->is_c == is_c && strcmp(f->source, source) == 0
        && (!is_c || strcmp(f->name, name) == 0))
      return P->fnhash[j];
  }
  return -1;
}

int pf_func_id(pf_profile *P, const char *source, int line,
               const char *name, int is_c) {
  uint32_t j;
  pf_func *f;
  if (P->nfn * 2 >= P->fnhashsize) {
    int size = P->fnhashsize ? P->fnhashsize * 2 : 64;
    int *t = rehash(P->fnhash, P->fnhashsize, size, fn_h, P);
    if (t == NULL) { P->oom = 1; return -1; }
    P->fnhash = t;
    P->fnhashsize = size;
  }
  j = func_hash(source, line, name, is_c) & (uint32_t)(P->fnhashsize - 1);
  for (; P->fnhash[j] >= 0; j = (j + 1) & (uint32_t)(P->fnhashsize - 1)) {
    f = &P->fn[P->fnhash[j]];
    if (f->line == line && f->is_c == is_c && strcmp(f->source, source) == 0
        && (!is_c || strcmp(f->name, name) == 0))
      return P->fnhash[j];
  }
  if (!grow(P, &P->fn, &P->capfn, P->nfn, sizeof *P->fn)) {
    P->oom = 1;
    return -1;
  }
  f = &P->fn[P->nfn];
  memset(f, 0, sizeof *f);
  f->name = dup(P, name);
  f->source = dup(P, source);
  f->line = line;
  f->is_c = is_c;
  if (f->name == NULL || f->source == NULL) {
    free(f->name);
    free(f->source);
    P->oom = 1;
    return -1;
  }
  P->fnhash[j] = P->nfn;
  return P->nfn++;
}

/* The node of fn under parent in the edge table, created when new. */
static int edge(pf_profile *P, int parent, int fn) {
  uint32_t j;
  int n;
  if (P->nnode * 2 >= P->edgesize) {
    int size = P->edgesize ? P->edgesize * 2 : 256, *t;
    t = rehash(P->edge, P->edgesize, size, edge_h, P);
    if (t == NULL) { P->oom = 1; return -1; }
    P->edge = t;
    P->edgesize = size;
  }
  j = edge_hash(parent, fn) & (uint32_t)(P->edgesize - 1);
  for (; P->edge[j] >= 0; j = (j + 1) & (uint32_t)(P->edgesize - 1))
    if (P->node[P->edge[j]].parent == parent && P->node[P->edge[j]].fn == fn)
      return P->edge[j];
  n = new_node(P, parent, fn);
  if (n >= 0) P->edge[j] = n;
  return n;
}

/* The child of parent for fn: most calls repeat the last one. */
static int child(pf_profile *P, int parent, int fn) {
  int n = P->node[parent].last;
  if (n < 0 || P->node[n].fn != fn) {
    n = edge(P, parent, fn);
    if (n >= 0) P->node[parent].last = n;
  }
  return n;
}

int pf_child(pf_profile *P, int parent, int fn) {
  return child(P, parent, fn);
}

static int find_stack(pf_profile *P, const void *key, uint32_t *slot) {
  uint32_t j = hash_int(2166136261u, (uint64_t)(uintptr_t)key) &
               (uint32_t)(P->stkhashsize - 1);
  for (; P->stkhash[j] >= 0; j = (j + 1) & (uint32_t)(P->stkhashsize - 1))
    if (P->stack[P->stkhash[j]].key == key) break;
  *slot = j;
  return P->stkhash[j];
}

int pf_stack_id(pf_profile *P, const void *key, int root) {
  uint32_t j;
  int s;
  pf_stack *st;
  if (P->nstack * 2 >= P->stkhashsize) {
    int size = P->stkhashsize ? P->stkhashsize * 2 : 16;
    int *t = rehash(P->stkhash, P->stkhashsize, size, stk_h, P);
    if (t == NULL) { P->oom = 1; return -1; }
    P->stkhash = t;
    P->stkhashsize = size;
  }
  if ((s = find_stack(P, key, &j)) >= 0) return s;
  if (!grow(P, &P->stack, &P->capstack, P->nstack, sizeof *P->stack)) {
    P->oom = 1;
    return -1;
  }
  st = &P->stack[P->nstack];
  memset(st, 0, sizeof *st);
  st->key = key;
  st->root = root;
  P->stkhash[j] = P->nstack;
  return P->nstack++;
}

int pf_stack_reset(pf_profile *P, const void *key, int root) {
  int s = pf_stack_id(P, key, root);
  if (s >= 0) {
    P->stack[s].n = 0;
    P->stack[s].root = root;
  }
  return s;
}

void pf_enter(pf_profile *P, int s, int fn, const void *frame) {
  pf_stack *st = &P->stack[s];
  int n;
  if (fn < 0) return;
  /* frames deeper than PF_MAX_DEPTH hang under the one at that depth */
  n = child(P, st->n < PF_MAX_DEPTH ? pf_top(P, s)
                                    : st->node[PF_MAX_DEPTH - 1], fn);
  if (n < 0) return;
  if (st->n == st->cap) {
    int cap = st->cap ? st->cap * 2 : 32;
    int *nd = take(P, (size_t)(cap - st->cap) * (sizeof *st->node +
                                                 sizeof *st->frame))
                  ? realloc(st->node, (size_t)cap * sizeof *nd) : NULL;
    const void **fr = nd ? realloc(st->frame, (size_t)cap * sizeof *fr) : NULL;
    if (nd) st->node = nd;
    if (fr == NULL) { P->oom = 1; return; }
    st->frame = fr;
    st->cap = cap;
  }
  st->node[st->n] = n;
  st->frame[st->n++] = frame;
  P->node[n].calls++;
}

void pf_leave(pf_profile *P, int s) {
  if (P->stack[s].n > 0) P->stack[s].n--;
}

int pf_unwind(pf_profile *P, int s, const void *frame) {
  pf_stack *st = &P->stack[s];
  int i;
  for (i = st->n - 1; i >= 0; i--)
    if (st->frame[i] == frame) {
      st->n = i + 1;
      return 1;
    }
  st->n = 0;
  return 0;
}

int pf_return(pf_profile *P, int s, const void *frame) {
  pf_stack *st = &P->stack[s];
  int i;
  for (i = st->n - 1; i >= 0; i--)
    if (st->frame[i] == frame) {
      st->n = i;
      return st->node[i];
    }
  return -1;
}

void pf_line(pf_profile *P, int fn, int line, int64_t n) {
  pf_func *f = &P->fn[fn];
  if (f->nlines == 0 || line < f->first || line >= f->first + f->nlines) {
    int lo = f->nlines ? (line < f->first ? line : f->first) : line;
    int hi = f->nlines ? (line >= f->first + f->nlines ? line + 1
                                                       : f->first + f->nlines)
                       : line + 1;
    int64_t *l = take(P, (size_t)(hi - lo - f->nlines) * sizeof *l)
                     ? calloc((size_t)(hi - lo), sizeof *l) : NULL;
    if (l == NULL) { P->oom = 1; return; }
    if (f->nlines)
      memcpy(l + (f->first - lo), f->lines, (size_t)f->nlines * sizeof *l);
    free(f->lines);
    f->lines = l;
    f->first = lo;
    f->nlines = hi - lo;
  }
  f->lines[line - f->first] += n;
  P->has_lines = 1;
}

/* Inclusive counts: a node's is its subtree's; a function's sums its
   nodes that have no ancestor of the same function (recursion counts
   once).  Children come after their parents in the node array. */
/* What ran with no frame of the profile on the stack (the host's own
   work after the main chunk unwound: a stop's finalizers, a caught
   error's charge) belongs to a frame "[C] (host)" under the root, so
   that the functions' self counts still add up to the total. */
static void host_frame(pf_profile *P) {
  int fn, c;
  if (P->nnode == 0 || P->node[0].self == 0) return;
  if ((fn = pf_func_id(P, "[C]", -1, "(host)", 1)) < 0) return;
  if ((c = pf_child(P, 0, fn)) < 0) return;
  P->node[c].self += P->node[0].self;
  P->node[0].self = 0;
}

void pf_finish(pf_profile *P) {
  int i;
  host_frame(P);
  for (i = 0; i < P->nfn; i++) P->fn[i].calls = P->fn[i].self =
                                P->fn[i].incl = 0;
  P->total = 0;
  for (i = P->nnode - 1; i >= 0; i--) P->node[i].incl = P->node[i].self;
  for (i = P->nnode - 1; i > 0; i--)
    P->node[P->node[i].parent].incl += P->node[i].incl;
  for (i = 0; i < P->nnode; i++) {
    pf_node *n = &P->node[i];
    P->total += n->self;
    if (n->fn >= 0) {
      P->fn[n->fn].calls += n->calls;
      P->fn[n->fn].self += n->self;
    }
  }
  /* outermost nodes of each function: walk the tree depth first */
  {
    int *stack = malloc((2 * (size_t)P->nnode + 1) * sizeof *stack), sp = 0;
    if (stack == NULL) { P->oom = 1; return; }
    stack[sp++] = 0;
    while (sp > 0) {
      int v = stack[--sp];
      if (v < 0) {  /* leaving node ~v */
        pf_node *n = &P->node[~v];
        if (n->fn >= 0) P->fn[n->fn].active--;
        continue;
      }
      {
        pf_node *n = &P->node[v];
        int c;
        if (n->fn >= 0) {
          if (P->fn[n->fn].active == 0) P->fn[n->fn].incl += n->incl;
          P->fn[n->fn].active++;
        }
        stack[sp++] = ~v;
        for (c = n->child; c >= 0; c = P->node[c].next) stack[sp++] = c;
      }
    }
    free(stack);
  }
}

void pf_frame_name(const pf_func *f, char *buf, size_t size) {
  if (f->is_c)
    snprintf(buf, size, "[C] %s", f->name);
  else
    snprintf(buf, size, "%s (%s:%d)", f->name, f->source, f->line);
}
