/*
** rw_finish.c - making what the emitter wrote f's own, once every jump
** fits: its code and line information (in arrays of their exact size
** from rw_options.alloc, where there is one), the table of what it
** charges ahead, its local variables' ranges at the new pcs (each
** metamethod stub gets the locals active at its MMBIN, so that errors
** there name them as before), its stack size with the register r, what
** each ACCT pays for per line (rw_options.lines), and the statistics.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_ahead_table.h"
#include "rw_finish.h"

/* An array of size bytes for f's own (code or line information): from
   the hook, exactly sized, if there is one and it has room (*hooked is
   then set), else from malloc. */
static void *final_array(rw_emitctx *c, size_t size, int *hooked) {
  const rw_options *opt = c->opt;
  void *p = opt->alloc != NULL ? opt->alloc(opt->alloc_ud, NULL, 0, size)
                               : NULL;
  *hooked = p != NULL;
  return p != NULL ? p : malloc(size);
}

/* Free an array of size bytes that final_array gave, or that f owns
   (hook says which: BC_HOOK_* in f->borrowed). */
static void drop_array(rw_emitctx *c, void *p, size_t size, int hooked) {
  if (hooked)
    c->opt->alloc(c->opt->alloc_ud, p, size, 0);
  else
    free(p);
}

/* Room in *abs (of *cap entries) for entry k: 0 when out of memory. */
static int abs_room(bc_absline **abs, int *cap, int k) {
  if (k == *cap) {
    int ncap = *cap ? 2 * *cap : 64;
    bc_absline *p = realloc(*abs, (size_t)ncap * sizeof *p);
    if (p == NULL) return 0;
    *abs = p;
    *cap = ncap;
  }
  return 1;
}

/* Encode the emitted lines as Lua does: deltas, with an absolute entry when a
   delta is too large or after BC_MAXIWTHABS instructions without one. */
static int encode_lines(rw_emitctx *c) {
  bc_proto *f = c->f;
  int n = c->o.n, pc, prev = f->linedefined, since = 0, nabs = 0, cap = 0;
  int hooked;
  int8_t *li = final_array(c, (size_t)n, &hooked);
  bc_absline *abs = NULL;
  const int *lines = c->o.line;  /* (a local: the stores to li may alias
                                     c) */
  if (li == NULL) return 0;
  for (pc = 0; pc < n; pc++) {
    int line = lines[pc], d = line - prev;
    if (d <= -BC_LIMLINEDIFF || d >= BC_LIMLINEDIFF ||
        since++ >= BC_MAXIWTHABS) {
      if (!abs_room(&abs, &cap, nabs)) {
        free(abs);
        drop_array(c, li, (size_t)n, hooked);
        return 0;
      }
      abs[nabs].pc = pc;
      abs[nabs++].line = line;
      d = BC_ABSLINEINFO;
      since = 1;
    }
    li[pc] = (int8_t)d;
    prev = line;
  }
  if (nabs > 0 && nabs < cap) {  /* f's own, as the line information:
                                    exactly sized */
    bc_absline *own = realloc(abs, (size_t)nabs * sizeof *abs);
    if (own != NULL) abs = own;
  }
  if (!(f->borrowed & BC_BORROWED_LINES))
    drop_array(c, f->lineinfo, (size_t)f->sizelineinfo,
               (f->borrowed & BC_HOOK_LINES) != 0);
  if (!(f->borrowed & BC_BORROWED_ABS)) free(f->abslineinfo);
  f->borrowed &= (uint8_t)~(BC_BORROWED_LINES | BC_BORROWED_ABS |
                            BC_HOOK_LINES);
  if (hooked) f->borrowed |= BC_HOOK_LINES;
  f->lineinfo = li;
  f->sizelineinfo = n;
  f->abslineinfo = abs;
  f->sizeabslineinfo = nabs;
  return 1;
}

static int map_pc(rw_emitctx *c, int pc, int main_end) {
  return pc < c->f->sizecode ? c->group[pc] : main_end;
}

/* Whether one sweep finds the locals active at each stub's MMBIN: the
   locals listed by start (as Lua lists them), the stubs in pc order. */
static int sweepable(const rw_emitctx *c, const bc_locvar *lv, int n) {
  int i;
  for (i = 1; i < n; i++)
    if (lv[i].startpc < lv[i - 1].startpc) return 0;
  for (i = 1; i < c->nstubs; i++)
    if (c->stub_pc[i] < c->stub_pc[i - 1]) return 0;
  return 1;
}

/* The locals that were active at each stub's MMBIN (stub_pc + 1), stub
   by stub, each stub's in the order of lv[0..n-1]: how many, and with
   out, each appended there as a local of the stub's code.  With open
   (room for n), one sweep keeps the locals started so far and not yet
   ended; without, every local is looked at for every stub. */
static int stub_locals(const rw_emitctx *c, const bc_locvar *lv, int n,
                       int *open, bc_locvar *out) {
  int s, i, k = 0, next = 0, nopen = 0;
  for (s = 0; s < c->nstubs; s++) {
    int mm = c->stub_pc[s] + 1, j, m = 0;
    if (open != NULL)
      while (next < n && lv[next].startpc <= mm) open[nopen++] = next++;
    for (j = 0; j < (open != NULL ? nopen : n); j++) {
      i = open != NULL ? open[j] : j;
      if (!(lv[i].startpc <= mm && mm < lv[i].endpc)) continue;
      if (open != NULL) open[m++] = i;  /* (an ended one never returns) */
      if (out != NULL) {
        bc_locvar *v = &out[k];
        v->name = lv[i].name;  /* the same name, not a copy */
        v->name.shared = lv[i].name.present;
        v->startpc = c->stub_start[s];
        v->endpc = c->stub_end[s];
      }
      k++;
    }
    nopen = m;
  }
  return k;
}

/* Remap local-variable ranges and give each stub the locals that were
   active at its MMBIN, so errors there name them as before (their names
   are the originals', shared). */
static int remap_locals(rw_emitctx *c, int main_end) {
  bc_proto *f = c->f;
  int i, n = f->sizelocvars, extra = 0, *open = NULL;
  bc_locvar *lv;
  rw_arena_mark mark = rw_arena_save(c->a);
  if (n == 0) return 1;
  if (c->nstubs > 0 && sweepable(c, f->locvars, n) &&
      (open = rw_arena_alloc(c->a, (size_t)n, sizeof *open)) == NULL)
    return 0;
  extra = stub_locals(c, f->locvars, n, open, NULL);
  lv = f->locvars;
  if (extra > 0 && (f->borrowed & BC_BORROWED_LOCVARS)) {
    lv = malloc(((size_t)n + (size_t)extra) * sizeof *lv);
    if (lv == NULL) return 0;
    memcpy(lv, f->locvars, (size_t)n * sizeof *lv);
    f->borrowed &= (uint8_t)~BC_BORROWED_LOCVARS;
  } else if (extra > 0) {
    lv = realloc(f->locvars, ((size_t)n + (size_t)extra) * sizeof *lv);
    if (lv == NULL) return 0;
  }
  f->locvars = lv;
  if (extra > 0) f->sizelocvars += stub_locals(c, lv, n, open, lv + n);
  rw_arena_restore(c->a, mark);
  for (i = 0; i < n; i++) {
    lv[i].startpc = map_pc(c, lv[i].startpc, main_end);
    lv[i].endpc = map_pc(c, lv[i].endpc, main_end);
  }
  return 1;
}

/* f's code is being replaced: free it if it is f's own. */
static void drop_code(rw_emitctx *c) {
  bc_proto *f = c->f;
  if (!(f->borrowed & BC_BORROWED_CODE))
    drop_array(c, f->code, (size_t)f->sizecode * sizeof *f->code,
               (f->borrowed & BC_HOOK_CODE) != 0);
  f->borrowed &= (uint8_t)~(BC_BORROWED_CODE | BC_HOOK_CODE);
}

lraf_status rw_finish(rw_emitctx *c, int main_end) {
  bc_proto *f = c->f;
  if (f->sizelineinfo > 0 && !encode_lines(c))
    return LRAF_EMEM;
  free(c->o.line);  /* encoded: its room serves the code's copy below */
  c->o.line = NULL;
  if (c->table) {
    free(f->ahead);
    if (!rw_build_ahead(c, &f->ahead, &f->sizeahead))
      return LRAF_ELIMIT;
    if (c->o.oom) return LRAF_EMEM;
  }
  if (!remap_locals(c, main_end))
    return LRAF_EMEM;
  c->stats->code_before += f->sizecode;
  c->stats->code_after += c->o.n;
  if (c->opt->alloc != NULL) {  /* into the hook's array, exactly sized */
    int hooked;
    bc_instr *code = final_array(c, (size_t)c->o.n * sizeof *code, &hooked);
    if (code == NULL) return LRAF_EMEM;
    memcpy(code, c->o.code, (size_t)c->o.n * sizeof *code);
    drop_code(c);
    if (hooked) f->borrowed |= BC_HOOK_CODE;
    f->code = code;
  } else {  /* the emitted array itself, cut to size */
    bc_instr *code = c->o.n > 0  /* (realloc to 0 may free) */
        ? realloc(c->o.code, (size_t)c->o.n * sizeof *code) : NULL;
    drop_code(c);
    f->code = code != NULL ? code : c->o.code;
    c->o.code = NULL;
  }
  f->sizecode = c->o.n;
  if (!c->fused || c->used_r)
    f->maxstacksize = (uint8_t)(c->r + 1);
  if (c->lc_on && !c->lc_bad) {  /* else the profile has no lines for f */
    free(f->linecosts);
    f->linecosts = c->lc;
    f->sizelinecosts = c->nlc;
    c->lc = NULL;
  }
  return LRAF_OK;
}
