/*
** rw_lines.c - the lines each accounting block's increment pays for.
**
** A block that pays for itself charges its own instructions and those
** of the blocks folded into it (rw_cfg.c: fold_into chains end at it).
** Branch folding moves a branch x into the test d before it (x's
** fold_into is then d, and d charges ahead) and takes x's charge back
** at d's other branch y.  So each instruction of a block b adds its
** cost to the block at the end of b's chain, and takes it back at the
** y of every branch fold on the way.  The sums per line are exactly the
** increments' charges split by line; rw_emit.c checks that they add up.
*/
#include <stdlib.h>

#include "rw_lines.h"

typedef struct triple {
  int block;
  int line;
  int64_t cost;
} triple;

typedef struct acc {
  triple *t;
  size_t n, cap;
} acc;

static int push(acc *a, int block, int line, int64_t cost) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    triple *t = realloc(a->t, cap * sizeof *t);
    if (t == NULL) return 0;
    a->t = t;
    a->cap = cap;
  }
  a->t[a->n].block = block;
  a->t[a->n].line = line;
  a->t[a->n++].cost = cost;
  return 1;
}

/* Whether x was moved into the test before it by a branch fold; *y is
   the test's other branch, which takes x's charge back. */
static int branch_folded(const rw_cfg *cfg, int x, int *y) {
  int d = cfg->b[x].fold_into;
  const rw_block *bd;
  if (d < 0) return 0;
  bd = &cfg->b[d];
  if (!bd->charges_ahead || bd->nsucc != 2) return 0;
  if (bd->succ[0] == x) *y = bd->succ[1];
  else if (bd->succ[1] == x) *y = bd->succ[0];
  else return 0;
  return cfg->b[*y].fold_into < 0;
}

static int by_block_line(const void *a, const void *b) {
  const triple *x = a, *y = b;
  if (x->block != y->block) return x->block < y->block ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

int rw_lines_build(const bc_proto *f, const rw_cfg *cfg,
                   const uint32_t *pccost, const int *lines,
                   rw_lines *out) {
  acc a = {NULL, 0, 0};
  size_t i, k;
  int pc, b;
  out->start = calloc((size_t)cfg->nblocks + 1, sizeof *out->start);
  out->e = NULL;
  if (out->start == NULL) return 0;
  for (pc = cfg->first; pc < f->sizecode; pc++) {
    int r = cfg->block_of[pc], y;
    if (r < 0 || pccost[pc] == 0) continue;
    for (;; r = cfg->b[r].fold_into) {
      if (branch_folded(cfg, r, &y) &&
          !push(&a, y, lines[pc], -(int64_t)pccost[pc]))
        goto oom;
      if (cfg->b[r].fold_into < 0) {
        if (!push(&a, r, lines[pc], pccost[pc])) goto oom;
        break;
      }
    }
  }
  qsort(a.t, a.n, sizeof *a.t, by_block_line);
  for (i = 0, k = 0; i < a.n; ) {  /* merge equal lines, drop zeros */
    triple t = a.t[i];
    for (i++; i < a.n && a.t[i].block == t.block && a.t[i].line == t.line;
         i++)
      t.cost += a.t[i].cost;
    if (t.cost != 0) a.t[k++] = t;
  }
  out->e = malloc((k + 1) * sizeof *out->e);
  if (out->e == NULL) goto oom;
  for (i = 0; i < k; i++) {
    out->e[i].line = a.t[i].line;
    out->e[i].cost = a.t[i].cost;
    out->start[a.t[i].block + 1]++;
  }
  for (b = 0; b < cfg->nblocks; b++)
    out->start[b + 1] += out->start[b];
  free(a.t);
  return 1;
oom:
  free(a.t);
  rw_lines_free(out);
  return 0;
}

void rw_lines_free(rw_lines *l) {
  free(l->start);
  free(l->e);
  l->start = NULL;
  l->e = NULL;
}
