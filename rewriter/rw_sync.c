/*
** rw_sync.c - two analyses over the blocks of one function for the
** emitter.  "Synced": where r is known to hold the counter, because on
** every path from the last accounting code only instructions ran that
** cannot change the counter (keeps_counter).  "Lazy": where r may also
** run ahead of the cell, because nothing in the block can let anything
** read the cell (is_quiet); every other block writes r back.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_sync.h"

/* Whether the instruction at pc leaves both the counter and r alone:
   it cannot call a function or metamethod (which may charge, consume,
   or switch coroutines), cannot run a GC step (whose finalizers may
   charge) and cannot write above the function's registers.  An
   arithmetic op's metamethod runs in its stub, which reloads r. */
static int keeps_counter(const bc_proto *f, int pc) {
  switch (bc_op(f->code[pc])) {
    case BC_OP_MOVE: case BC_OP_LOADI: case BC_OP_LOADF: case BC_OP_LOADK:
    case BC_OP_LOADKX: case BC_OP_EXTRAARG: case BC_OP_LOADFALSE:
    case BC_OP_LFALSESKIP: case BC_OP_LOADTRUE: case BC_OP_LOADNIL:
    case BC_OP_GETUPVAL: case BC_OP_SETUPVAL: case BC_OP_NOT:
    case BC_OP_JMP: case BC_OP_TEST: case BC_OP_TESTSET: case BC_OP_EQK:
    case BC_OP_EQI: case BC_OP_FORPREP: case BC_OP_FORLOOP:
    case BC_OP_TFORPREP: case BC_OP_TFORLOOP: case BC_OP_SETLIST:
      return 1;
    default:
      return bc_mmbin_pair(f, pc);
  }
}

/* Whether every instruction of block b satisfies ok (an arithmetic op
   and its MMBIN* count as one). */
static int block_all(const bc_proto *f, const rw_block *b,
                     int (*ok)(const bc_proto *, int)) {
  int pc;
  for (pc = b->start; pc <= b->end; pc++) {
    if (!ok(f, pc)) return 0;
    if (bc_mmbin_pair(f, pc)) pc++;
  }
  return 1;
}

/* A forward must-analysis over the blocks: synced[b] when every path
   into b's accounting code comes from accounting code through blocks
   that keep the counter.  TFORPREP enters a TFORCALL block past its
   accounting code, so that edge does not count.  Each block's state
   falls from 1 to 0 at most once. */
static int find_synced(const bc_proto *f, const rw_cfg *cfg,
                       const unsigned char *emits, unsigned char *synced,
                       rw_arena *a) {
  int nb = cfg->nblocks, i, top = 0;
  unsigned char *out = rw_arena_alloc(a, (size_t)nb + 1, 1);
  unsigned char *disturbs = rw_arena_alloc(a, (size_t)nb + 1, 1);
  int *work = rw_arena_alloc(a, (size_t)nb + 1, sizeof *work);
  if (out == NULL || disturbs == NULL || work == NULL)
    return 0;
  for (i = 0; i < nb; i++) {
    disturbs[i] = (unsigned char)!block_all(f, &cfg->b[i], keeps_counter);
    synced[i] = 1;
  }
  if (nb > 0 && cfg->block_at[cfg->first] >= 0)
    synced[cfg->block_at[cfg->first]] = 0;
  for (i = 0; i < nb; i++) {
    out[i] = (unsigned char)(!disturbs[i] &&
                             (emits[i] || synced[i]));
    if (!out[i]) work[top++] = i;
  }
  while (top > 0) {  /* propagate 0s along the edges */
    const rw_block *b = &cfg->b[work[--top]];
    int k;
    for (k = 0; k < b->nsucc; k++) {
      int s = b->succ[k];
      if (cfg->b[s].tforcall && bc_op(f->code[b->end]) == BC_OP_TFORPREP)
        continue;
      if (!synced[s]) continue;
      synced[s] = 0;
      if (out[s] && !emits[s]) {
        out[s] = 0;
        work[top++] = s;
      }
    }
  }
  for (i = 0; i < nb; i++)  /* unreachable blocks: play safe */
    if (!cfg->b[i].reachable) synced[i] = 0;
  return 1;
}

/* Whether the instruction at pc keeps the counter and also cannot raise
   an error, so that r may run ahead of the cell across it.  Integer
   division and modulo raise on a zero divisor (MODK and IDIVK only when
   the constant is the integer 0); FORPREP on bad limits;
   TFORPREP on a non-closable value; SETLIST when memory runs out.  Other
   arithmetic fails only into its metamethod stub, which writes r back. */
static int is_quiet(const bc_proto *f, int pc) {
  bc_instr i = f->code[pc];
  switch (bc_op(i)) {
    case BC_OP_FORPREP: case BC_OP_TFORPREP: case BC_OP_SETLIST:
    case BC_OP_MOD: case BC_OP_IDIV:
      return 0;
    case BC_OP_MODK: case BC_OP_IDIVK: {  /* only an integer 0 raises */
      const bc_const *k = &f->k[bc_c(i)];
      if (k->tag == BC_TINT && k->i == 0) return 0;
      return keeps_counter(f, pc);
    }
    default:
      return keeps_counter(f, pc);
  }
}

/* May-analysis of where r is ahead of the cell: bit 1 of ahead[b] on
   entry to b, bit 2 at its exit.  A block that does not flush passes
   on what it was given and adds its own increment. */
static void find_ahead(const rw_cfg *cfg, const unsigned char *emits,
                       const unsigned char *flush, unsigned char *ahead,
                       int *work) {
  int nb = cfg->nblocks, i, k, top = 0;
  memset(ahead, 0, (size_t)nb + 1);
  for (i = 0; i < nb; i++)
    if (!flush[i] && emits[i]) {
      ahead[i] |= 2;  /* 2: ahead at exit */
      work[top++] = i;
    }
  while (top > 0) {
    const rw_block *b = &cfg->b[work[--top]];
    for (k = 0; k < b->nsucc; k++) {
      int s = b->succ[k];
      if (ahead[s] & 1) continue;
      ahead[s] |= 1;
      if (!flush[s] && !(ahead[s] & 2)) {
        ahead[s] |= 2;
        work[top++] = s;
      }
    }
  }
}

/* Decide which blocks write r back and which are lazy.  A block writes
   back when it is not quiet, or when r may be ahead at its exit and some
   successor reloads r (is not synced): that GETUPVAL would lose what r
   ran ahead.  Flushing a block only lowers "ahead at exit" elsewhere, so
   one round of marking suffices.  Then a writing block keeps its
   SETUPVAL only if it adds to r itself or r may be ahead on entry. */
static int find_lazy(const bc_proto *f, const rw_cfg *cfg,
                     const unsigned char *emits, const unsigned char *adds,
                     int allow_lazy, rw_arena *a, rw_sync *s) {
  int nb = cfg->nblocks, i, k;
  unsigned char *ahead = s->lazy;  /* reused: ahead bits until the end */
  int *work = rw_arena_alloc(a, (size_t)nb + 1, sizeof *work);
  if (work == NULL) return 0;
  for (i = 0; i < nb; i++)  /* r must hold the counter in a lazy block */
    s->flush[i] = (unsigned char)(!allow_lazy || !cfg->b[i].reachable ||
                                  !(s->synced[i] || emits[i]) ||
                                  !block_all(f, &cfg->b[i], is_quiet));
  find_ahead(cfg, emits, s->flush, ahead, work);
  for (i = 0; i < nb; i++) {
    const rw_block *b = &cfg->b[i];
    if (!(ahead[i] & 2)) continue;
    for (k = 0; k < b->nsucc; k++)
      if (!s->synced[b->succ[k]]) s->flush[i] = 1;
  }
  find_ahead(cfg, emits, s->flush, ahead, work);
  for (i = 0; i < nb; i++) {
    int ahead_in = ahead[i] & 1;
    s->lazy[i] = !s->flush[i];
    if (s->flush[i])
      s->flush[i] = (unsigned char)(adds[i] || (ahead_in && s->synced[i]));
  }
  return 1;
}

int rw_sync_find(const bc_proto *f, const rw_cfg *cfg,
                 const unsigned char *emits, const unsigned char *adds,
                 int allow_lazy, rw_arena *a, rw_sync *s) {
  size_t n = (size_t)cfg->nblocks + 1;
  s->synced = rw_arena_zalloc(a, n, 1);
  s->flush = rw_arena_zalloc(a, n, 1);
  s->lazy = rw_arena_zalloc(a, n, 1);
  if (s->synced == NULL || s->flush == NULL || s->lazy == NULL)
    return 0;
  {  /* what the two analyses use besides s dies with them */
    rw_arena_mark mark = rw_arena_save(a);
    int ok = find_synced(f, cfg, emits, s->synced, a) &&
             find_lazy(f, cfg, emits, adds, allow_lazy, a, s);
    rw_arena_restore(a, mark);
    return ok;
  }
}
