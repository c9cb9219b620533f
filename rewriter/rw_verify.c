/*
** rw_verify.c - checks a rewritten chunk before it is loaded.
**
** Beyond the structural checks of bc_check_code (valid opcodes, operand
** ranges, jump targets, required pairs), every function must carry the
** counter and consume upvalues, nested functions must capture their
** parent's, and the accounting code may touch them only through the
** scratch register at the top of the frame.  Chunks for the lraf VM
** carry no such upvalues; there every function must start with a zero
** check (ACCT) and every loop must pass one (verify_fused; its search
** is skipped where a first or a second look at the backward jumps shows
** that every cycle passes a check, jumps_back_unchecked and
** jumps_back_unguarded: the same verdict).  Code
** rewritten in memory from Lua's parser's own output has its structure
** checked only where rewriting changed it (rw_verify_lean, rw_verify_lean.c).
*/
#include <stdio.h>
#include <stdlib.h>

#include "rw.h"
#include "rw_arena.h"
#include "rw_verify_lean.h"

static lraf_status verify_accounting(const bc_proto *f, const char *path,
                                     lraf_error *err) {
  int counter = f->sizeupvalues - 2, consume = counter + 1;
  int scratch = f->maxstacksize - 1, pc;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr i = f->code[pc];
    int op = bc_op(i);
    if ((op == BC_OP_GETUPVAL || op == BC_OP_SETUPVAL) &&
        (bc_b(i) == counter || bc_b(i) == consume) && bc_a(i) != scratch)
      return err_fail(err, LRAF_EVERIFY,
                      "%s: pc %d uses the lraf upvalue %d outside the "
                      "scratch register", path, pc + 1, bc_b(i));
    if (op == BC_OP_SETUPVAL && bc_b(i) == consume)
      return err_fail(err, LRAF_EVERIFY, "%s: pc %d overwrites consume", path,
                      pc + 1);
  }
  return LRAF_OK;
}

static lraf_status verify_function(const bc_proto *f, const bc_proto *parent,
                                   int index, int depth, lraf_error *err) {
  char path[64];
  lraf_status st;
  int i;
  snprintf(path, sizeof path, "function %d at depth %d (line %d)", index,
           depth, f->linedefined);
  if (f->sizeupvalues < 2)
    return err_fail(err, LRAF_EVERIFY, "%s lacks the lraf upvalues", path);
  if (f->maxstacksize < 1)
    return err_fail(err, LRAF_EVERIFY, "%s has no scratch register", path);
  if (parent != NULL) {
    const bc_upvaldesc *uv = &f->upvalues[f->sizeupvalues - 2];
    int pc = parent->sizeupvalues - 2;
    if (uv[0].instack || uv[1].instack || uv[0].idx != pc ||
        uv[1].idx != pc + 1)
      return err_fail(err, LRAF_EVERIFY,
                      "%s does not capture its parent's counter and consume",
                      path);
  }
  st = bc_check_code(f, path, BC_CHECK_REWRITTEN, err);
  if (st == LRAF_OK)
    st = verify_accounting(f, path, err);
  for (i = 0; st == LRAF_OK && i < f->sizep; i++)
    st = verify_function(f->p[i], f, i, depth + 1, err);
  if (st != LRAF_OK && err != NULL)
    err->code = LRAF_EVERIFY;
  return st != LRAF_OK ? LRAF_EVERIFY : LRAF_OK;
}

/* An instruction that makes a zero check: an ACCT that checks, or a
   paying jump (JMPACCT, FORLOOPACCT, TFORLOOPACCT: it checks whichever
   way it goes; bc_check_code makes sure that no test runs one as its
   jump). */
static int is_check(bc_instr i) {
  return rw_is_check(i);
}

/* Where control may go after pc (a superset: a skip edge where the next
   instruction may be skipped, both ways of a loop instruction). */
static int successors(const bc_proto *f, int pc, int *s) {
  bc_instr i = f->code[pc];
  const bc_opinfo *oi = bc_opinfo_of(bc_op(i));
  int n = 0, t, k, m = 0;
  if (oi->flags & BC_OPF_ENDS) return 0;
  if (bc_jump_target(i, pc, &t)) s[n++] = t;
  if (bc_op(i) == BC_OP_FORLOOPACCT || bc_op(i) == BC_OP_TFORLOOPACCT)
    s[n++] = pc + 2;  /* the exit skips its ACCT */
  else if (bc_op(i) != BC_OP_JMP && bc_op(i) != BC_OP_JMPACCT) s[n++] = pc + 1;
  if ((oi->flags & (BC_OPF_TEST | BC_OPF_MMBIN | BC_OPF_SKIPNEXT)) ||
      bc_needs_extraarg(i))
    s[n++] = pc + 2;
  for (k = 0; k < n; k++)
    if (s[k] >= 0 && s[k] < f->sizecode) s[m++] = s[k];
  return m;
}

/* Whether a cycle of f's code that can run avoids every zero check,
   with *at a pc on it: a depth-first search that stops at checks, over
   the code reachable from the entry (the compiler leaves dead code, such
   as the else of "elseif true", which the rewriter does not check).  It
   starts at the entry and again after every check that it meets, so it
   reaches all of that code, each instruction once with its successors
   worked out once: linear in the code size.  An edge back to an
   instruction on its stack closes a cycle without a check.  A run of
   plain instructions (each goes on only to the next) is one frame of
   the search, entered and left as a whole.  -1 when out of memory. */
typedef struct dfs_frame {
  int start, pc, ns, next;  /* the run start..pc; pc's successors */
  int s[3];
} dfs_frame;

/* Whether control goes from i only to the next instruction (i is no
   check, jump, return or instruction that may skip the next). */
static int plain(bc_instr i) {
  return rw_plain(i);
}

/* Whether f's code may hold a cycle without a check, at a first look:
   only a jump goes back (to itself or before; every other edge goes
   forward), so every cycle holds a backward jump, and passes its target.
   When each backward jump checks itself (a paying jump) or its target
   starts a run of plain instructions that ends in a check (the run may
   be empty), every cycle passes a check: 0.  1 when some target does
   not (the search below then decides). */
static int jumps_back_unchecked(const bc_proto *f) {
  int pc, t;
  for (pc = 0; pc < f->sizecode; pc++)
    if (bc_jump_target(f->code[pc], pc, &t) && rw_back_unchecked(f, pc, t))
      return 1;
  return 0;
}

/* A second look, when the first one fails (loops whose header the
   predecessors pay for, or whose body branches: the check is in the
   body, before the jump back).  Every cycle holds a backward jump to its
   lowest instruction t, and the rest of the cycle, from t to the jump,
   stays at t or above.  So it is enough that, for each backward jump at
   pc to t, every path from t to pc that stays at t or above passes a
   check: the first look, or the following.  Let x be the last check
   before pc, with x >= t; no jump from t or above lands in x + 1 .. pc;
   and the instruction before x, if it may skip to x + 1, lies below t.
   A path from t (at most x) to pc enters x + 1 .. pc somewhere, by an
   edge from outside: not by a jump (from t or above) nor by a skip from
   x - 1 (at t or above), so by falling or skipping from x itself, and
   passes the check.  One pass after the one that notes, for each
   instruction, the highest jump that lands on it (maxsrc): run is the
   highest such source in x + 1 .. pc, or x - 1 when that may skip.
   With every backward jump covered one way or the other, every cycle
   passes a check: 0, as the search would find.  1 when some jump is
   not, -1 out of memory. */
static int jumps_back_unguarded(const bc_proto *f, rw_arena *a) {
  int n = f->sizecode, pc, t, x = -1, run = -1;
  int *maxsrc = rw_arena_alloc(a, (size_t)n + 1, sizeof *maxsrc);
  if (maxsrc == NULL) return -1;
  for (pc = 0; pc < n; pc++) maxsrc[pc] = -1;
  for (pc = 0; pc < n; pc++)
    if (bc_jump_target(f->code[pc], pc, &t) && t >= 0 && t < n)
      maxsrc[t] = pc;  /* (pc increases: the highest one last) */
  for (pc = 0; pc < n; pc++) {
    bc_instr i = f->code[pc];
    if (maxsrc[pc] > run) run = maxsrc[pc];
    if (bc_jump_target(i, pc, &t) && rw_back_unchecked(f, pc, t) &&
        (t < 0 || x < t || run >= t))
      return 1;
    if (is_check(i)) {
      x = pc;
      run = pc > 0 && rw_skips(f->code[pc - 1]) ? pc - 1 : -1;
    }
  }
  return 0;
}

/* A check at pc: the search starts again after it. */
static void restart_after(const bc_proto *f, int pc, int *roots, int *nroots,
                          char *state) {
  int s[3], k, ns = successors(f, pc, s);
  for (k = 0; k < ns; k++) roots[(*nroots)++] = s[k];
  state[pc] = 2;
}

/* back: the first look's answer, or -1 to take it here. */
static int unchecked_cycle(const bc_proto *f, int back, rw_arena *a,
                           int *at) {
  int n = f->sizecode, sp, nroots = 0, found = 0;
  dfs_frame *stack;
  int *roots;
  char *state;
  if (back < 0) back = jumps_back_unchecked(f);
  if (back) back = jumps_back_unguarded(f, a);
  if (back <= 0) return back;
  stack = rw_arena_alloc(a, (size_t)n, sizeof *stack);
  roots = rw_arena_alloc(a, 3 * (size_t)n + 1, sizeof *roots);  /* to
                                                          start from */
  state = rw_arena_zalloc(a, (size_t)n, 1);  /* 0 new, 1 on the stack,
                                                2 done */
  if (!stack || !roots || !state)
    return -1;
  roots[nroots++] = 0;
  while (nroots > 0 && !found) {
    int root = roots[--nroots], w;
    if (state[root] != 0) continue;
    state[root] = 1;
    sp = 0;
    w = root;
    for (;;) {
      if (w >= 0 && is_check(f->code[w])) {  /* go on after it */
        restart_after(f, w, roots, &nroots, state);
      } else if (w >= 0) {  /* enter w and the plain run from it */
        dfs_frame *v = &stack[sp++];
        int tail = 0;  /* the run ends where the next one is done */
        v->start = w;
        while (w + 1 < n && plain(f->code[w])) {
          int x = w + 1;
          if (state[x] == 1) {
            found = 1;
            *at = x;
            break;
          }
          if (state[x] == 2) { tail = 1; break; }
          if (is_check(f->code[x])) {
            restart_after(f, x, roots, &nroots, state);
            tail = 1;
            break;
          }
          state[x] = 1;
          w = x;
        }
        if (found) break;
        v->pc = w;
        v->ns = tail || plain(f->code[w]) ? 0 : successors(f, w, v->s);
        v->next = 0;
      }
      if (sp == 0) break;
      {
        dfs_frame *v = &stack[sp - 1];
        w = -1;
        if (v->next < v->ns) {
          int s = v->s[v->next++];
          if (state[s] == 1) {
            found = 1;
            *at = s;
            break;
          }
          if (state[s] == 0) {
            state[s] = 1;
            w = s;
          }
        } else {
          int k;
          for (k = v->start; k <= v->pc; k++) state[k] = 2;
          sp--;
        }
      }
    }
  }
  return found;
}

/* The functions that Lua's parser produced, for rw_verify_lean: the
   next one in preorder is orig[next]. */
typedef struct originals {
  const rw_original *orig;
  int n, next;
} originals;

/* The lraf VM's chunks: the counter is the state's, so no upvalue is
   needed; the function must start with a zero check and every cycle of
   its code must pass one, so that no run goes on unchecked.  With og,
   code that only the rewriting for the lraf VM changed gets the lean
   check (rw_verify_lean.c) instead of bc_check_code. */
static lraf_status verify_fused(const bc_proto *f, originals *og, int index,
                                int depth, rw_arena *a, lraf_error *err) {
  char path[64];
  lraf_status st;
  int i, entry, checked, at = 0, c = 0, fits = 1, back = -1;
  const rw_original *o = NULL;
  if (og != NULL) {  /* f and its original must nest alike */
    fits = og->next < og->n && og->orig[og->next].sizep == f->sizep;
    if (fits) o = &og->orig[og->next++];
  }
  /* a name for messages only: checked without it first, and named only
     to say what failed */
  st = !fits ? LRAF_EVERIFY
     : o != NULL && rw_verify_lean_scan(f, o, &back) ? bc_check_debug(f, NULL,
                                                                NULL)
     : bc_check_code(f, NULL, BC_CHECK_REWRITTEN, NULL);
  entry = f->sizecode > 0 && bc_op(f->code[0]) == BC_OP_VARARGPREP;
  while (entry < f->sizecode && bc_op(f->code[entry]) == BC_OP_ACCT &&
         !is_check(f->code[entry]))
    entry++;  /* a charge too large for one ACCT: the last one checks */
  /* or the VM charges the first block as a call starts (bc_proto.entry) */
  checked = f->entry > 0 ? f->entry_mode == BC_ACCT_ADDCHECK ||
                           f->entry_mode == BC_ACCT_CHECKADD
                         : entry < f->sizecode && is_check(f->code[entry]);
  if (st == LRAF_OK && checked)
    c = unchecked_cycle(f, back, a, &at);
  rw_arena_reset(a);
  if (st != LRAF_OK || !checked || c != 0) {
    snprintf(path, sizeof path, "function %d at depth %d (line %d)", index,
             depth, f->linedefined);
    if (!fits)
      err_fail(err, LRAF_EVERIFY, "%s does not fit the function that Lua's "
               "parser produced", path);
    else if (st != LRAF_OK)
      bc_check_code(f, path, BC_CHECK_REWRITTEN, err);
    else if (!checked)
      err_fail(err, LRAF_EVERIFY, "%s does not start with a zero check "
               "(ACCT or an entry charge)", path);
    else if (c < 0)
      err_fail(err, LRAF_EMEM, "out of memory verifying %s", path);
    else
      err_fail(err, LRAF_EVERIFY, "%s has a loop through pc %d without a "
               "zero check", path, at + 1);
    st = LRAF_EVERIFY;
  }
  for (i = 0; st == LRAF_OK && i < f->sizep; i++)
    st = verify_fused(f->p[i], og, i, depth + 1, a, err);
  if (st != LRAF_OK && err != NULL)
    err->code = LRAF_EVERIFY;
  return st != LRAF_OK ? LRAF_EVERIFY : LRAF_OK;
}

/* Whether f or a function nested in it holds an ACCT or a paying jump
   (an opcode that stock Lua does not have). */
static int has_acct(const bc_proto *f) {
  int i;
  for (i = 0; i < f->sizecode; i++)
    if (bc_op(f->code[i]) >= BC_OP_ACCT) return 1;
  for (i = 0; i < f->sizep; i++)
    if (has_acct(f->p[i])) return 1;
  return 0;
}

lraf_status rw_verify_target(const bc_chunk *chunk, rw_target target,
                             lraf_error *err) {
  if (chunk == NULL || chunk->main == NULL)
    return err_fail(err, LRAF_EARG, "rw_verify: no chunk");
  if (chunk->nupvalues != chunk->main->sizeupvalues)
    return err_fail(err, LRAF_EVERIFY,
                    "chunk header says %d upvalues, main has %d",
                    chunk->nupvalues, chunk->main->sizeupvalues);
  if (target == RW_LRAVM) {
    rw_arena a;
    lraf_status st;
    rw_arena_init(&a);
    st = verify_fused(chunk->main, NULL, 0, 0, &a, err);
    rw_arena_free(&a);
    return st;
  }
  if (has_acct(chunk->main))
    return err_fail(err, LRAF_EVERIFY,
                    "the chunk holds ACCT, which only the lraf VM runs");
  return verify_function(chunk->main, NULL, 0, 0, err);
}

lraf_status rw_verify(const bc_chunk *chunk, lraf_error *err) {
  return rw_verify_target(chunk, RW_STOCK, err);
}

lraf_status rw_verify_lean(const bc_chunk *chunk, const rw_original *orig,
                           int norig, lraf_error *err) {
  originals og;
  rw_arena a;
  lraf_status st;
  if (chunk == NULL || chunk->main == NULL || orig == NULL)
    return err_fail(err, LRAF_EARG, "rw_verify_lean: no chunk");
  if (chunk->nupvalues != chunk->main->sizeupvalues)
    return err_fail(err, LRAF_EVERIFY,
                    "chunk header says %d upvalues, main has %d",
                    chunk->nupvalues, chunk->main->sizeupvalues);
  og.orig = orig;
  og.n = norig;
  og.next = 0;
  rw_arena_init(&a);
  st = verify_fused(chunk->main, &og, 0, 0, &a, err);
  rw_arena_free(&a);
  if (st == LRAF_OK && og.next != norig)
    st = err_fail(err, LRAF_EVERIFY, "the chunk has %d functions, Lua's "
                  "parser made %d", og.next, norig);
  return st;
}
