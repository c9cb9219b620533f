/*
** pf.h - the profiler's core: functions, the calling-context tree, per
** line counts, and the outputs written from them.
**
** Internal to lraf (prefix pf_).  Knows no Lua: a collector (the stock
** target's is runtime/rt_profile.c) reports events - a frame entered, a
** frame left, n instructions run in the frame on top, n instructions of
** a line - and the core keeps the tree.  Frames are matched by an
** opaque id the collector chooses (e.g. an activation record), so that
** frames left without a leave event (errors) can be dropped later.
*/
#ifndef PF_H
#define PF_H

#include <stdint.h>
#include <stdio.h>

#include "lraf.h"

/* A function: a Lua function (source, line defined) or a C function. */
typedef struct pf_func {
  char *name;        /* as debug.getinfo gives it, "?" when none */
  char *source;      /* short source; "[C]" for C functions */
  int line;          /* line defined; -1 for C functions */
  int is_c;
  int64_t calls, self, incl;
  int64_t *lines;    /* per line: instructions (index line - first) */
  int first, nlines;
  int active;        /* while computing inclusive counts */
} pf_func;

/* A node of the calling-context tree: a function under a parent. */
typedef struct pf_node {
  int fn;            /* -1 for the root */
  int parent;
  int child, next;   /* first child, next sibling (creation order) */
  int last;          /* the child entered last (a fast path) */
  int site;          /* the line of the parent's function that made the
                        first call (-1: unknown, a tail call or a C
                        caller; PF_NO_SITE until the collector says) */
  int64_t calls, self, incl;
} pf_node;

#define PF_NO_SITE (-2)

/* A thread's stack of nodes, with the collector's frame ids. */
typedef struct pf_stack {
  const void *key;
  int root;          /* the node its frames hang under */
  int *node;
  const void **frame;
  int n, cap;
} pf_stack;

typedef struct pf_profile {
  char model[96];
  pf_func *fn;
  int nfn, capfn;
  int *fnhash;       /* open addressing over fn, size hashsize */
  int fnhashsize;
  pf_node *node;
  int nnode, capnode;
  int *edge;         /* (parent, fn) -> node, open addressing */
  int edgesize;
  pf_stack *stack;
  int nstack, capstack;
  int *stkhash;      /* key -> stack */
  int stkhashsize;
  int64_t total;
  int has_lines;
  int oom;           /* an allocation failed: the profile is incomplete */
  /* When set, asked before the profile takes n more bytes; 0 refuses
     (then oom and refused are set).  bytes: what it has taken. */
  int (*reserve)(void *ud, size_t n);
  void *reserve_ud;
  size_t bytes;
  int refused;       /* reserve refused: oom because of the budget */
} pf_profile;

pf_profile *pf_new(const char *model);
void pf_free(pf_profile *P);

/* The id of the function (interned by source, line, C-ness and, for C
   functions, name); -1 when out of memory. */
int pf_func_id(pf_profile *P, const char *source, int line,
               const char *name, int is_c);
/* The same without adding it: -1 when it is not there. */
int pf_func_find(const pf_profile *P, const char *source, int line,
                 const char *name, int is_c);
/* The stack of thread key, created under node root when new; -1 when
   out of memory. */
int pf_stack_id(pf_profile *P, const void *key, int root);
/* Start key's stack afresh under root (a thread created anew). */
int pf_stack_reset(pf_profile *P, const void *key, int root);
/* The child of node parent for function fn, created when new. */
int pf_child(pf_profile *P, int parent, int fn);
/* The node on top of stack s (its root when empty); inline, since
   collectors call it at every event. */
static inline int pf_top(const pf_profile *P, int s) {
  const pf_stack *st = &P->stack[s];
  return st->n > 0 ? st->node[st->n - 1] : st->root;
}

/* The node on top of stack s when its call site is not known yet (it
   was just created): the collector then sets node[n].site; else -1. */
static inline int pf_site_wanted(const pf_profile *P, int s) {
  int n = pf_top(P, s);
  return n > 0 && P->node[n].site == PF_NO_SITE ? n : -1;
}

/* A thread's frames deeper than this are merged: each hangs under the
   frame at this depth (deep recursion would otherwise make the tree,
   and the folded stacks, grow with the square of the depth).  Counts
   per function stay exact. */
#define PF_MAX_DEPTH 256

/* Events. */
void pf_enter(pf_profile *P, int s, int fn, const void *frame);
void pf_leave(pf_profile *P, int s);
/* Pop frames until frame is on top (or the stack is empty when it is
   not on it); returns 1 when found. */
int pf_unwind(pf_profile *P, int s, const void *frame);
/* A return of frame: pops it and any frame above it and returns its
   node; nothing and -1 when frame is not on the stack (entered before
   the profile started). */
int pf_return(pf_profile *P, int s, const void *frame);
/* n instructions ran in node (the collector's top since its last
   event: see pf_top); node -1 is the root. */
static inline void pf_charge(pf_profile *P, int node, int64_t n) {
  P->node[node >= 0 ? node : 0].self += n;
}
/* n instructions of line of function fn (collectors that see lines). */
void pf_line(pf_profile *P, int fn, int line, int64_t n);
/* After the last event: sums, inclusive counts and the total. */
void pf_finish(pf_profile *P);

/* A frame's name as the outputs write it: "NAME (SOURCE:LINE)" or
   "[C] NAME".  Writes at most size bytes. */
void pf_frame_name(const pf_func *f, char *buf, size_t size);

/* Outputs (pf_write.c, pf_svg.c).  top: rows of the table. */
typedef enum pf_format {
  PF_TABLE, PF_FOLDED, PF_CALLGRIND, PF_SVG, PF_JSON
} pf_format;
int pf_format_of(const char *name, pf_format *fmt);
lraf_status pf_write(const pf_profile *P, pf_format fmt, int top, FILE *out,
                     lraf_error *err);
void pf_write_svg(const pf_profile *P, FILE *out);

/* ---- pf_svg.c: flame graphs ---- */
/* A tree of boxes: box 0 is the root, parent[i] < i (children in
   order), width[i] the box's inclusive units (the root's is the
   total).  describe gives box i's name, the hover text after it and
   its fill colour. */
typedef struct pf_flame {
  const char *title, *subtitle;
  int n;
  const int *parent;
  const int64_t *width;
  void (*describe)(const void *ud, int i, char *name, size_t nsize,
                   char *info, size_t isize, int rgb[3]);
  const void *ud;
} pf_flame;
/* The interactive SVG (click to zoom, reset, search). */
void pf_svg_flame(const pf_flame *F, FILE *out);
/* s as XML text (at most max bytes of it; bytes outside printable
   ASCII become '?'). */
void pf_svg_text(FILE *out, const char *s, size_t max);

/* ---- pf_json.c: reading a JSON profile back (for lraf diff) ---- */
typedef struct pf_entry {
  char *frame;
  int64_t self;
  char *name, *source;  /* NULL when the profile has none */
  int line;             /* line defined; -1 for C functions or none */
  int is_c;
} pf_entry;
/* A node of the calling-context tree: fn indexes e (-1: the root),
   parent an earlier node (-1: the root). */
typedef struct pf_tnode {
  int fn, parent;
  int64_t calls, self, incl;
} pf_tnode;
typedef struct pf_read {
  char model[96];
  int64_t total;
  pf_entry *e;
  int n;
  pf_tnode *t;          /* the tree, when the profile has one */
  int nt;
} pf_read;
/* Parse text as a JSON profile written by pf_write; errors name the
   byte offset and what was expected. */
lraf_status pf_read_json(const char *text, size_t len, const char *name,
                         pf_read *out, lraf_error *err);
void pf_read_free(pf_read *r);

/* ---- pf_diff.c: comparing profiles ---- */
/* Functions are matched by name and file, not by line: a function
   whose definition moved (an edit above it) is the same function.  The
   line only tells apart functions of one name in one file (anonymous
   ones, methods of different classes): those are paired in the order
   of their lines, keeping the line distance smallest.  A file renamed
   between the profiles is followed when its base name is unique. */
typedef struct pf_diffrow {
  const char *frame;   /* owned by the pf_read it came from (b's when
                          present in b) */
  int64_t before, after;
  int in_before, in_after;     /* present in a, in b */
  int line_before, line_after; /* lines defined (differ: it moved) */
  int ia, ib;                  /* an entry of a, of b (-1: none) */
} pf_diffrow;
typedef struct pf_diff {
  pf_diffrow *row;   /* sorted by absolute change, then frame */
  int n;
  int *arow, *brow;  /* each entry of a, of b: its row */
  int64_t before, after;
  double similarity; /* weighted cosine, see pf_diff.c */
} pf_diff;
lraf_status pf_diff_make(const pf_read *a, const pf_read *b, pf_diff *d,
                         lraf_error *err);
/* The change of before -> after in percent (+inf / -100 at the ends). */
double pf_diff_percent(int64_t before, int64_t after);
void pf_diff_free(pf_diff *d);

/* ---- pf_diffsvg.c: the differential flame graph ---- */
/* b's calling-context tree, each box coloured by the change of its
   self count since a (matched by the path of matched functions from
   the root): red for growth, blue for shrinkage, deeper for larger. */
void pf_diff_svg(const pf_read *a, const pf_read *b, const pf_diff *d,
                 const char *name_a, const char *name_b, FILE *out);

#endif
