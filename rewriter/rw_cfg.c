/*
** rw_cfg.c - accounting blocks of one function and where to charge them.
**
** A unit is an instruction together with the instructions nothing may be
** inserted before: the JMP after a test, an EXTRAARG, the TFORLOOP after
** TFORCALL, the MMBIN* after an arithmetic op, and everything up to the
** instruction that consumes an open stack top.  Blocks are runs of units
** that start at a leader: the entry, a jump target, the unit after a
** jump or return, and (in exact mode) the unit after one that may call
** or raise an error.  Calls do not end blocks otherwise, as in J-RAF2.
**
** Zero checks go at the entry of functions that can call and at every
** target of a retreating DFS edge, so every cycle of the flow graph, and
** every recursion, passes a check.
**
** Folding: block X is charged by its immediate dominator D when X also
** post-dominates D and no cycle passes through one of them without the
** other.  Then, on every run of the function that returns, X and D
** alternate D X D X ..., so they run equally often and charging X at D
** is exact.  Branch folding (fold_branches) then charges one branch of a
** two-way test at the test and takes the charge back on the other.
**
** Every step gets the builder's context (cfgbuild); the graph work that
** knows nothing of bytecode (orders, dominators, searches, components)
** is rw_graph.c's.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_cfg.h"
#include "rw_graph.h"

/* Work budget of the folding cycle checks, in visited blocks per
   function; past it, remaining blocks are simply not folded. */
#define FOLD_BUDGET 20000000L

/* What building the blocks of one function works with, passed from step
   to step as one pointer (as Lua's parser passes its FuncState). */
typedef struct cfgbuild {
  const bc_proto *f;
  const rw_options *opt;
  const char *path;     /* names f in error messages */
  rw_arena *a;          /* cfg's arrays and every step's scratch */
  lraf_error *err;
  rw_cfg *cfg;          /* what is built */
  int small;            /* exact mode's small blocks (small_blocks) */
  /* find_leaders: */
  char *ustart;         /* pc -> starts a unit */
  char *leader;         /* pc -> starts a block */
  int *odd;             /* leaders to check once every unit is known */
  int nleaders;         /* leaders marked */
  int tforprep;         /* some TFORPREP: its TFORCALL needs a look */
  /* analyse: the blocks as a graph, with a virtual exit node */
  rw_graph succ, pred;  /* successors, and their transpose */
  int *post, np;        /* postorder of a search from the entry */
  int acyclic;          /* every edge goes forward in block order */
} cfgbuild;

/* ---------------------------------------------------------------- */
/* Units and leaders                                                 */
/* ---------------------------------------------------------------- */

static int pairs_with_next(bc_instr i) {
  return bc_required_next(i) >= 0;
}

/* Last pc of the unit that starts at pc. */
static int unit_end(const bc_proto *f, int pc) {
  int e = pc;
  for (;;) {
    if (pairs_with_next(f->code[e]) && e + 1 < f->sizecode)
      e++;
    if (!bc_sets_top(f->code[e]))
      return e;
    /* open top: extend through the instruction that consumes it */
    do {
      if (e + 1 >= f->sizecode)
        return e;
      e++;
    } while (!bc_uses_top(f->code[e]));
  }
}

static int ends_block(int op) {
  switch (op) {
    case BC_OP_JMP: case BC_OP_FORLOOP: case BC_OP_FORPREP:
    case BC_OP_TFORPREP: case BC_OP_TFORLOOP: case BC_OP_RETURN:
    case BC_OP_RETURN0: case BC_OP_RETURN1: case BC_OP_TAILCALL:
    case BC_OP_LFALSESKIP:
      return 1;
    default:
      return 0;
  }
}

/* Exact mode ends blocks at calls and error points, unless the lraf VM
   gives back what an unwound frame charged ahead (rw_refunds): then
   its blocks are the default mode's. */
static int small_blocks(const rw_options *opt) {
  return opt->exact && !rw_refunds(opt);
}

static int unit_may_call_or_fail(const bc_proto *f, int s, int e) {
  for (; s <= e; s++) {
    const bc_opinfo *oi = bc_opinfo_of(bc_op(f->code[s]));
    if (oi->flags & (BC_OPF_CALLS | BC_OPF_ERRORS))
      return 1;
  }
  return 0;
}

/* Whether i is a unit of its own that neither jumps nor ends a block,
   by its op's flags (fl): the most common case, which find_leaders
   settles without the tests below.  Every op that jumps, returns or
   skips the next instruction has BC_OPF_JUMP, BC_OPF_ENDS or
   BC_OPF_SKIPNEXT (bc_opcodes.c); one that needs a particular next one
   has BC_OPF_TEST or BC_OPF_MMBIN or is named here, as are those that
   may leave the stack top open (test_bc_opcodes checks this for every
   op). */
static int plain_unit(bc_instr i, unsigned fl) {
  if (fl & (BC_OPF_TEST | BC_OPF_MMBIN | BC_OPF_JUMP | BC_OPF_ENDS |
            BC_OPF_SKIPNEXT))
    return 0;
  switch (bc_op(i)) {
    case BC_OP_LOADKX: case BC_OP_NEWTABLE: case BC_OP_SETLIST:
    case BC_OP_TFORCALL: case BC_OP_CALL: case BC_OP_VARARG:
      return 0;
    default:
      return 1;
  }
}

/* Mark pc as a leader, counting it once. */
static void lead(char *leader, int pc, cfgbuild *cb) {
  cb->nleaders += !leader[pc];
  leader[pc] = 1;
}

/* Mark unit starts (ustart) and leaders.  A leader that the code does
   not make a unit start (a jump target, the instruction LFALSESKIP
   skips to) is noted in odd to be checked once every unit is known. */
static lraf_status find_leaders(cfgbuild *cb) {
  const bc_proto *f = cb->f;
  const char *path = cb->path;
  lraf_error *err = cb->err;
  char *ustart = cb->ustart, *leader = cb->leader;
  int *odd = cb->odd;
  int pc, t, nodd = 0, k, small = cb->small, first = cb->cfg->first;
  /* what ends a plain unit's block: a call or an error, in exact mode */
  unsigned ends = small ? BC_OPF_CALLS | BC_OPF_ERRORS : 0;
  cb->nleaders = 0;
  cb->tforprep = 0;
  lead(leader, first, cb);
  for (pc = first; pc < f->sizecode; ) {
    int e, op = bc_op(f->code[pc]), q;
    const bc_opinfo *oi = bc_opinfo_of(op);
    if (oi != NULL && plain_unit(f->code[pc], oi->flags)) {
      ustart[pc] = 1;
      if ((oi->flags & ends) && pc + 1 < f->sizecode)
        lead(leader, pc + 1, cb);
      pc++;
      continue;
    }
    e = unit_end(f, pc);
    op = bc_op(f->code[e]);
    ustart[pc] = 1;
    /* Only the last instruction of a unit may transfer control: a jump
       or return inside one (never made by Lua's compiler) would leave
       the unit without a block boundary, and so without a zero check
       or with a target that starts no block. */
    for (q = pc; q < e; q++)
      if (ends_block(bc_op(f->code[q])) || bc_jump_target(f->code[q], q, &t))
        return err_fail(err, LRAF_EREWRITE, "%s at pc %d in %s transfers "
                        "control inside an instruction unit (before pc %d)",
                        bc_opname(bc_op(f->code[q])), q + 1, path, e + 1);
    if (bc_jump_target(f->code[e], e, &t)) {
      if (t < first || t >= f->sizecode)
        return err_fail(err, LRAF_EREWRITE, "jump out of range at pc %d in %s",
                        e + 1, path);
      lead(leader, t, cb);
      odd[nodd++] = t;
      cb->tforprep |= op == BC_OP_TFORPREP;
    }
    if ((ends_block(op) || (small && unit_may_call_or_fail(f, pc, e)))
        && e + 1 < f->sizecode)
      lead(leader, e + 1, cb);
    if (op == BC_OP_LFALSESKIP && e + 2 < f->sizecode) {
      lead(leader, e + 2, cb);
      odd[nodd++] = e + 2;
    }
    pc = e + 1;
  }
  for (k = 0, t = f->sizecode; k < nodd; k++)  /* name the first */
    if (!ustart[odd[k]] && odd[k] < t) t = odd[k];
  if (t < f->sizecode)
    return err_fail(err, LRAF_EREWRITE,
                    "jump into the middle of an instruction pair at pc %d "
                    "in %s", t + 1, path);
  return LRAF_OK;
}

/* ---------------------------------------------------------------- */
/* Blocks and successors                                             */
/* ---------------------------------------------------------------- */

static lraf_status add_succ(cfgbuild *cb, rw_block *b, int pc) {
  const rw_cfg *cfg = cb->cfg;
  if (pc < cfg->first || pc >= cb->f->sizecode || cfg->block_at[pc] < 0)
    return err_fail(cb->err, LRAF_EREWRITE,
                    "control leaves the code after pc %d in %s", b->end + 1,
                    cb->path);
  b->succ[b->nsucc++] = cfg->block_at[pc];
  return LRAF_OK;
}

static lraf_status find_succs(cfgbuild *cb, rw_block *b) {
  const bc_proto *f = cb->f;
  rw_cfg *cfg = cb->cfg;
  int e = b->end, t, op = bc_op(f->code[e]);
  lraf_status st = LRAF_OK;
  int has_target = bc_jump_target(f->code[e], e, &t);
  b->nsucc = 0;
  switch (op) {
    case BC_OP_RETURN: case BC_OP_RETURN0: case BC_OP_RETURN1:
    case BC_OP_TAILCALL:
      return LRAF_OK;
    case BC_OP_JMP:
      if (e > b->start && bc_required_next(f->code[e - 1]) == BC_OP_JMP)
        st = add_succ(cb, b, e + 1);
      break;
    case BC_OP_LFALSESKIP:
      return add_succ(cb, b, e + 2);
    case BC_OP_TFORPREP:
      break;
    default:
      if (!has_target)
        return add_succ(cb, b, e + 1);
      st = add_succ(cb, b, e + 1);  /* FORLOOP, FORPREP... */
      break;
  }
  if (st == LRAF_OK && has_target)
    st = add_succ(cb, b, t);
  if (st == LRAF_OK && op == BC_OP_TFORPREP &&  /* its target, the TFORCALL */
      !cfg->b[b->succ[0]].tforcall) {
    cfg->b[b->succ[0]].tforcall = 1;
    cfg->ntforcalls++;
  }
  return st;
}

static lraf_status make_blocks(cfgbuild *cb) {
  const bc_proto *f = cb->f;
  const char *leader = cb->leader;
  rw_cfg *cfg = cb->cfg;
  int pc, n = cb->nleaders, i, *block_at, *block_of, size = f->sizecode;
  rw_block *b = NULL;
  uint32_t cost = 0;
  rw_options o = *cb->opt;  /* (locals: the stores below cannot change
                               them) */
  cfg->b = rw_arena_zalloc(cb->a, (size_t)n, sizeof *cfg->b);
  if (cfg->b == NULL)
    return err_fail(cb->err, LRAF_EMEM, "out of memory rewriting %s",
                    cb->path);
  cfg->nblocks = n;
  block_at = cfg->block_at;
  block_of = cfg->block_of;
  i = -1;
  for (pc = cfg->first; pc < size; pc++) {  /* (b's end and cost kept in
                                              locals) */
    if (leader[pc]) {
      if (b != NULL) { b->end = pc - 1; b->cost = cost; }
      b = &cfg->b[++i];
      b->start = pc;
      b->fold_into = -1;
      cost = 0;
      block_at[pc] = i;
    } else {
      block_at[pc] = -1;
    }
    cost += rw_instr_cost(f, pc, &o);
    block_of[pc] = i;
  }
  if (b != NULL) { b->end = size - 1; b->cost = cost; }
  for (i = 0; i < n; i++) {
    lraf_status st = find_succs(cb, &cfg->b[i]);
    if (st != LRAF_OK)
      return st;
  }
  return LRAF_OK;
}

/* ---------------------------------------------------------------- */
/* Graphs: successors with a virtual exit node, and their transpose  */
/* ---------------------------------------------------------------- */

static int build_graphs(cfgbuild *cb) {
  const rw_cfg *cfg = cb->cfg;
  rw_graph *succ = &cb->succ, *pred = &cb->pred;
  rw_arena *a = cb->a;
  int n = cfg->nblocks + 1, exitn = cfg->nblocks, i, j, m;
  int *fill;
  succ->n = pred->n = n;
  /* (arrays of like lifetime come from one request: fewer of them; fill
     is the scratch of the second pass) */
  succ->start = rw_arena_zalloc(a, 3 * (size_t)n + 2, sizeof(int));
  if (succ->start == NULL) return 0;
  pred->start = succ->start + n + 1;
  fill = pred->start + n + 1;
  for (i = 0; i < cfg->nblocks; i++) {  /* count */
    const rw_block *b = &cfg->b[i];
    succ->start[i + 1] = b->nsucc > 0 ? b->nsucc : 1;
    if (b->nsucc == 0) pred->start[exitn + 1]++;
    for (j = 0; j < b->nsucc; j++) pred->start[b->succ[j] + 1]++;
  }
  for (i = 0; i < n; i++) {
    succ->start[i + 1] += succ->start[i];
    pred->start[i + 1] += pred->start[i];
  }
  m = succ->start[n];  /* the edges, with one to the exit from a block
                          without successors */
  succ->adj = rw_arena_alloc(a, 2 * ((size_t)m + 1), sizeof(int));
  if (succ->adj == NULL) return 0;
  pred->adj = succ->adj + m + 1;
  for (i = 0; i < cfg->nblocks; i++) {  /* fill */
    const rw_block *b = &cfg->b[i];
    int k = succ->start[i];
    if (b->nsucc == 0) {
      succ->adj[k] = exitn;
      pred->adj[pred->start[exitn] + fill[exitn]++] = i;
    }
    for (j = 0; j < b->nsucc; j++) {
      int s = b->succ[j];
      succ->adj[k + j] = s;
      pred->adj[pred->start[s] + fill[s]++] = i;
    }
  }
  return 1;
}

/* Each folded block points straight at the block that pays for it. */
static void point_at_payers(rw_cfg *cfg) {
  int x;
  for (x = 0; x < cfg->nblocks; x++) {
    int r = x, v = x;
    while (cfg->b[r].fold_into >= 0) r = cfg->b[r].fold_into;
    while (cfg->b[v].fold_into >= 0 && cfg->b[v].fold_into != r) {
      int up = cfg->b[v].fold_into;
      cfg->b[v].fold_into = r;
      v = up;
    }
  }
}

/* Fold each block into its immediate dominator when it post-dominates it
   and no cycle passes one of them without the other. */
static void fold_blocks(cfgbuild *cb, const int *idom, const int *ipdom) {
  rw_cfg *cfg = cb->cfg;
  const rw_graph *succ = &cb->succ;
  rw_arena *a = cb->a;
  rw_arena_mark m = rw_arena_save(a);
  int n = succ->n, x;
  int *stack = rw_arena_alloc(a, 3 * (size_t)n, sizeof(int));
  unsigned *mark = rw_arena_zalloc(a, (size_t)n, sizeof(unsigned));
  int *tin = stack != NULL ? stack + n : NULL;
  int *tout = stack != NULL ? stack + 2 * n : NULL;
  rw_graph_walk w = {stack, mark, 0, FOLD_BUDGET};
  /* When acyclic, no cycle passes x or d: the searches would answer 0,
     unless they ran out of budget, which they cannot when each of the
     two per block visits each block once (2 n^2 within the budget). */
  int search = !cb->acyclic || 2.0 * n * n > (double)FOLD_BUDGET;
  if (!stack || !mark || !tin || !tout ||
      !rw_graph_number_tree(ipdom, n, tin, tout, a)) {
    rw_arena_restore(a, m);
    return;  /* no folding: every block pays for itself */
  }
  for (x = 0; x < cfg->nblocks; x++) {
    rw_block *bx = &cfg->b[x];
    int d = idom[x];
    if (!bx->reachable || bx->check || bx->tforcall || d < 0 || d == x)
      continue;
    if (cfg->b[d].tforcall || !rw_graph_above(tin, tout, x, d))
      continue;
    if (search &&
        (rw_graph_reaches_avoiding(succ, &w, x, d, -1, 1) ||
         rw_graph_reaches_avoiding(succ, &w, d, x, -1, 1)))
      continue;
    bx->fold_into = d;
  }
  point_at_payers(cfg);
  rw_arena_restore(a, m);
}

/* fold_blocks for a graph with cycles whose searches cannot run out of
   budget (at most 2 n^2 visits: no search answers "the worst" then):
   the same folds, without the post-dominator tree.  x post-dominates
   d = idom[x] when d reaches the exit (the tree holds only the blocks
   that do) and no path from d that avoids x does.  One search from d
   avoiding x tells that, and whether a cycle through d avoids x. */
static void fold_blocks_small(cfgbuild *cb, const int *idom) {
  rw_cfg *cfg = cb->cfg;
  const rw_graph *succ = &cb->succ, *pred = &cb->pred;
  rw_arena *a = cb->a;
  rw_arena_mark m = rw_arena_save(a);
  int n = succ->n, exitn = cfg->nblocks, x, sp;
  int *stack = rw_arena_alloc(a, (size_t)n, sizeof(int));
  /* (mark and toexit, zeroed, from one request) */
  unsigned *mark = rw_arena_zalloc(a, 2 * (size_t)n, sizeof(unsigned));
  unsigned *toexit = mark != NULL ? mark + n : NULL;
  rw_graph_walk w = {stack, mark, 0, FOLD_BUDGET};
  if (!stack || !mark) {
    rw_arena_restore(a, m);
    return;  /* no folding: every block pays for itself */
  }
  toexit[exitn] = 1;  /* the blocks that reach the exit: back from it */
  stack[0] = exitn;
  sp = 1;
  while (sp > 0) {
    int v = stack[--sp], k;
    for (k = pred->start[v]; k < pred->start[v + 1]; k++) {
      int w = pred->adj[k];
      if (!toexit[w]) { toexit[w] = 1; stack[sp++] = w; }
    }
  }
  for (x = 0; x < cfg->nblocks; x++) {
    rw_block *bx = &cfg->b[x];
    int d = idom[x];
    if (!bx->reachable || bx->check || bx->tforcall || d < 0 || d == x)
      continue;
    if (cfg->b[d].tforcall || !toexit[d] ||
        rw_graph_reaches_avoiding(succ, &w, d, x, exitn, 0))
      continue;
    if (rw_graph_reaches_avoiding(succ, &w, x, d, -1, 1))
      continue;
    bx->fold_into = d;
  }
  point_at_payers(cfg);
  rw_arena_restore(a, m);
}

/* The block whose increment pays for b. */
static int payer(const rw_cfg *cfg, int b) {
  while (cfg->b[b].fold_into >= 0) b = cfg->b[b].fold_into;
  return b;
}

/* Whether successor s of d can take the part of x in a branch fold: d
   is its only predecessor and it pays for itself. */
static int sole_child(const rw_cfg *cfg, const rw_graph *pred, int s) {
  const rw_block *b = &cfg->b[s];
  return pred->start[s + 1] - pred->start[s] == 1 && b->fold_into < 0 &&
         !b->tforcall;
}

/* Whether block b calls a function. */
static int calls(const bc_proto *f, const rw_block *b) {
  int pc;
  for (pc = b->start; pc <= b->end; pc++)
    if (bc_op(f->code[pc]) == BC_OP_CALL) return 1;
  return 0;
}

/* Branch folding: when block d ends in a two-way branch to x and y, and d is
   the only predecessor of both, x's charge moves into d's increment and y's
   increment takes it back (it may become negative).  Every run of d goes on
   to exactly one of x and y, so a run that finishes is charged exactly, and
   x, usually a loop body, runs no accounting code.  Between d's increment
   and y's, only d's own instructions run: d pays for itself, calls no
   function and makes its zero check before its increment, so no check sees
   x's charge ahead except one in a metamethod or finalizer that d's test
   itself runs.  x is the branch that stays in a loop through d if only one
   does, else the dearer.  In exact mode d may not call or raise at all (the
   test of which instructions end its blocks), so nothing can see the charge.
   Post-order visits d before the branch above it that may in turn move d
   (with what it pays for) into its own test.  In an acyclic graph every
   block is a component of its own (comp stays NULL).  With tail payments
   (tail, rw_pay_elsewhere.c), no fold is made when x's group, or d's, ends in
   a jump that can pay for it: such a group pays with no ACCT of its own, so
   that charging x ahead at d would give d (or keep there) an ACCT and y a
   refund for nothing.  When x's or y's group can pay so and d's cannot, d is
   instead sunk into both (charged behind: each run of d goes on to one of
   them, and what an error or a yield cuts short in d the table of what is
   behind charges), its check with it (any cycle through d passes one of
   them); not the entry, which checks first, nor into a block sunk itself.  A
   while loop's test whose body jumps back to it then pays nothing itself,
   the body pays at its jump back, and the header is paid for by its
   predecessors: no ACCT per turn. */
static void fold_branches(cfgbuild *cb, int tail) {
  rw_cfg *cfg = cb->cfg;
  const bc_proto *f = cb->f;
  const rw_graph *pred = &cb->pred;
  const int *post = cb->post;
  int np = cb->np, exact = cb->small, acyclic = cb->acyclic;
  rw_arena *a = cb->a;
  rw_arena_mark mark = rw_arena_save(a);
  int i;
  int *comp = NULL;  /* made when a first branch needs it */
  for (i = 0; i < np; i++) {
    int d = post[i], x, y, k, xin, yin;
    rw_block *bd;
    if (d >= cfg->nblocks) continue;
    bd = &cfg->b[d];
    if (!bd->reachable || bd->nsucc != 2 || bd->succ[0] == bd->succ[1] ||
        bd->fold_into >= 0 || bd->tforcall)
      continue;
    for (k = 0; k < 2; k++)  /* a self-loop would pay and refund at d */
      if (!sole_child(cfg, pred, bd->succ[k]) || bd->succ[k] == d)
        break;
    if (k < 2 || calls(f, bd) ||  /* (the looks at d's code last) */
        (exact && unit_may_call_or_fail(f, bd->start, bd->end)))
      continue;
    if (!acyclic && comp == NULL) {
      comp = rw_arena_alloc(a, (size_t)pred->n, sizeof(int));
      if (comp == NULL || !rw_graph_components(pred, post, np, comp, a))
        break;  /* out of memory: no more branch folds */
    }
    x = bd->succ[0];
    y = bd->succ[1];
    xin = comp != NULL && comp[x] == comp[d];
    yin = comp != NULL && comp[y] == comp[d];
    if ((yin && !xin) ||
        (yin == xin && cfg->b[y].charge > cfg->b[x].charge)) {
      int t = x; x = y; y = t;
      t = xin; xin = yin; yin = t;
    }
    if (tail && bd->tail_end < 0 && d != 0 &&
        (cfg->b[x].tail_end >= 0 || cfg->b[y].tail_end >= 0) &&
        !cfg->b[x].sunk && !cfg->b[y].sunk) {  /* sink d into x and y */
      cfg->b[x].charge += bd->charge;
      cfg->b[y].charge += bd->charge;
      cfg->b[x].check |= bd->check;
      cfg->b[y].check |= bd->check;
      bd->charge = 0;
      bd->check = 0;
      bd->sunk = 1;
      continue;
    }
    if (cfg->b[x].check || cfg->b[x].charge <= 0)
      continue;
    /* taking the charge back must not add accounting code to y's path
       unless y leaves the loop that x stays in */
    if (cfg->b[y].charge == 0 && !cfg->b[y].check && !(xin && !yin))
      continue;
    if (tail && (cfg->b[x].tail_end >= 0 || bd->tail_end >= 0))
      continue;
    bd->charge += cfg->b[x].charge;
    bd->charges_ahead = 1;
    cfg->b[y].charge -= cfg->b[x].charge;
    cfg->b[y].takes_back = 1;
    cfg->b[x].charge = 0;
    cfg->b[x].fold_into = d;
    cfg->b[x].branch_folded = 1;
  }
  rw_arena_restore(a, mark);
}

int rw_cfg_equal_payer(const rw_cfg *cfg, int b) {
  while (cfg->b[b].fold_into >= 0) {
    if (cfg->b[b].branch_folded) return -1;
    b = cfg->b[b].fold_into;
  }
  return b;
}

/* Whether no CALL runs from the start of payer r up to the end of its
   member m (a search from r that stops at m: r and m run exactly as
   often, so it meets the blocks that run between them), within w's
   budget. */
static int quiet_between(const cfgbuild *cb, int r, int m,
                         rw_graph_walk *w) {
  const rw_cfg *cfg = cb->cfg;
  int *stack = w->stack, sp = 0;
  unsigned *stamp = w->mark, st = ++w->stamp;
  stack[sp++] = r;
  stamp[r] = st;
  while (sp > 0) {
    const rw_block *b = &cfg->b[stack[--sp]];
    int k;
    if (calls(cb->f, b) || --w->budget < 0) return 0;
    if (b == &cfg->b[m]) continue;
    for (k = 0; k < b->nsucc; k++) {
      int s = b->succ[k];
      if (s < cfg->nblocks && stamp[s] != st) {
        stamp[s] = st;
        stack[sp++] = s;
      }
    }
  }
  return 1;
}

/* With tail payments (rw_tail_payments), the payers whose group (the payer
   and the blocks folded into it, all run exactly as often) has a block that
   ends in a payable jump, which can pay for the group (rw_pay_elsewhere.c):
   rw_block.tail_end names that block.  Whether there are tail payments (0
   out of memory: no group pays at its end then).  Not the entry, which
   checks first, nor a TFORCALL block, nor a group where a CALL runs before
   it pays: a call could recurse as deep as Lua's stack goes, each frame's
   work run and not yet paid, which no check would see.  (Its metamethods go
   at most 200 deep: RW_TAIL_MAX.) */
static int find_tail_ends(cfgbuild *cb) {
  rw_cfg *cfg = cb->cfg;
  const bc_proto *f = cb->f;
  rw_arena *a = cb->a;
  rw_graph_walk w;
  int m;
  if (!rw_tail_payments(cb->opt)) return 0;
  w.stack = rw_arena_alloc(a, (size_t)cfg->nblocks + 1, sizeof *w.stack);
  w.mark = rw_arena_zalloc(a, (size_t)cfg->nblocks + 1, sizeof *w.mark);
  w.stamp = 0;
  w.budget = 8L * cfg->nblocks + 64;
  if (w.stack == NULL || w.mark == NULL) return 0;
  for (m = 1; m < cfg->nblocks; m++) {
    int r;
    if (!cfg->b[m].reachable || !rw_ends_in_payable_jump(f, &cfg->b[m]))
      continue;
    r = payer(cfg, m);
    if (r == 0 || cfg->b[r].tforcall || cfg->b[r].tail_end >= 0)
      continue;
    if (quiet_between(cb, r, m, &w)) {
      cfg->b[r].tail_end = m;
      cfg->ntail_ends++;
    }
  }
  return 1;
}

/* Paying in the predecessors (lraf VM target, default blocks): when
   every predecessor of block h that can run has h as its only
   successor, each run of h follows exactly one run of one of them, so
   their payers' increments can pay for h and h runs no accounting code.
   A predecessor folded into a control-equivalent dominator runs exactly
   as often as that payer, and every cycle through it passes the payer;
   one that a branch fold charges ahead (itself or a block on its way to
   the payer) does not, and stops this.  A loop header entered by
   falling in and by the jump back at the end of the body (a while loop)
   then costs one ACCT per turn instead of two; a block where branches
   join, one fewer per run.  h's zero check goes
   with its charge to every payer: any cycle through h enters it from
   one of the predecessors.  Not the entry (it keeps its check), nor a
   block that charges ahead for a branch.  A TFORCALL block's TFORPREP
   enters it past its accounting code, and the hook does not count that
   TFORCALL: the TFORPREP pays nothing for it (the end of the loop body
   pays for the next TFORCALL, and the loop's check goes there too; a
   cycle through the TFORPREP is an outer loop's, with its own check). */
static int enters_past(const rw_cfg *cfg, const bc_proto *f, int p, int h) {
  return cfg->b[h].tforcall && bc_op(f->code[cfg->b[p].end]) ==
                               BC_OP_TFORPREP;
}

static void pay_in_predecessors(cfgbuild *cb) {
  rw_cfg *cfg = cb->cfg;
  const bc_proto *f = cb->f;
  const rw_graph *pred = &cb->pred;
  int h, k;
  for (h = 1; h < cfg->nblocks; h++) {
    rw_block *bh = &cfg->b[h];
    int payers = 0;
    if (!bh->reachable || bh->fold_into >= 0 ||
        bh->charges_ahead || (bh->charge == 0 && !bh->check))
      continue;
    for (k = pred->start[h]; k < pred->start[h + 1]; k++) {
      int p = pred->adj[k], r;
      const rw_block *bp;
      if (p >= cfg->nblocks) break;
      bp = &cfg->b[p];
      if (!bp->reachable || enters_past(cfg, f, p, h))
        continue;  /* never runs, or pays nothing */
      r = rw_cfg_equal_payer(cfg, p);
      if (bp->nsucc != 1 || bp->succ[0] != h || r < 0 || r == h ||
          cfg->b[r].tforcall)
        break;
      payers++;
    }
    if (k < pred->start[h + 1] || payers == 0) continue;
    for (k = pred->start[h]; k < pred->start[h + 1]; k++) {
      rw_block *bp;
      if (!cfg->b[pred->adj[k]].reachable ||
          enters_past(cfg, f, pred->adj[k], h))
        continue;
      bp = &cfg->b[rw_cfg_equal_payer(cfg, pred->adj[k])];
      bp->charge += bh->charge;
      bp->check |= bh->check;
    }
    bh->charge = 0;
    bh->check = 0;
    bh->paid_by_preds = 1;
  }
}

/* ---------------------------------------------------------------- */
/* Checks, folding and charges                                       */
/* ---------------------------------------------------------------- */

static lraf_status analyse(cfgbuild *cb) {
  rw_cfg *cfg = cb->cfg;
  const bc_proto *f = cb->f;
  const rw_options *opt = cb->opt;
  rw_arena *a = cb->a;
  int n = cfg->nblocks + 1, nrp, i, pc, k;
  int *post = rw_arena_alloc(a, 4 * (size_t)n, sizeof(int));
  int *rpost = post != NULL ? post + n : NULL;  /* over the reverse graph */
  int *idom = post != NULL ? post + 2 * n : NULL;
  int *ipdom = post != NULL ? post + 3 * n : NULL;
  char *header = rw_arena_zalloc(a, (size_t)n, 1);
  /* the entry block returns (a function without branches): no other
     block runs, so there is no loop and nothing to fold */
  int single = cfg->b[0].nsucc == 0;
  cb->post = post;
  cb->acyclic = 1;
  if (!post || !rpost || !idom || !ipdom || !header ||
      (!single && (!build_graphs(cb) ||
                   (cb->np = rw_graph_dfs(&cb->succ, 0, post, header, a)) <
                   0)))
    return err_fail(cb->err, LRAF_EMEM, "out of memory rewriting %s",
                    cb->path);
  if (single) {
    cb->np = 1;
    post[0] = 0;
  }
  for (i = 0; i < cfg->nblocks; i++) cfg->b[i].tail_end = -1;
  for (i = 0; i < cb->np; i++)
    if (post[i] < cfg->nblocks) cfg->b[post[i]].reachable = 1;
  for (i = 0; i < cfg->nblocks; i++)  /* blocks are in code order */
    for (k = 0; k < cfg->b[i].nsucc; k++)
      if (cfg->b[i].succ[k] <= i) cb->acyclic = 0;
  for (i = 0; i < cfg->nblocks; i++) {
    cfg->b[i].check = header[i];
    if (!single)
      cfg->b[i].npreds = cb->pred.start[i + 1] - cb->pred.start[i];
  }
  /* every entry is checked: even a leaf can be called in a loop from C
     (gsub, sort), where no Lua loop header would see the counter */
  cfg->b[0].check = 1;
  /* exact mode charges the code after a call when the call returns, so
     frames that return one after another would run their remainders
     unchecked: a block that returns checks */
  if (cb->small)
    for (pc = cfg->first; pc < f->sizecode; pc++) {
      int op = bc_op(f->code[pc]);
      if ((op == BC_OP_RETURN || op == BC_OP_RETURN0 ||
           op == BC_OP_RETURN1) && cfg->block_of[pc] >= 0)
        cfg->b[cfg->block_of[pc]].check = 1;
    }
  /* a check before a TFORCALL is skipped by TFORPREP: check there too
     (a TFORPREP ends its block, whose one successor is the TFORCALL's) */
  for (i = 0; cb->tforprep && i < cfg->nblocks; i++) {
    rw_block *b = &cfg->b[i];
    if (bc_op(f->code[b->end]) == BC_OP_TFORPREP && cfg->b[b->succ[0]].check)
      b->check = 1;
  }
  /* (out of memory, the dominators are -1: nothing folds) */
  if (opt->fold && !cb->small && !single) {
    rw_graph_dominators(&cb->pred, post, cb->np, idom, cb->acyclic, a);
    if (cb->acyclic) {
      rw_graph_postdominators_forward(&cb->succ, ipdom);
      fold_blocks(cb, idom, ipdom);
    } else if (2.0 * n * n <= (double)FOLD_BUDGET) {
      fold_blocks_small(cb, idom);
    } else {  /* from the exit */
      nrp = rw_graph_dfs(&cb->pred, cfg->nblocks, rpost, NULL, a);
      if (nrp < 0)
        return err_fail(cb->err, LRAF_EMEM, "out of memory rewriting %s",
                        cb->path);
      rw_graph_dominators(&cb->succ, rpost, nrp, ipdom, cb->acyclic, a);
      fold_blocks(cb, idom, ipdom);
    }
  }
  for (i = 0; i < cfg->nblocks; i++)
    cfg->b[payer(cfg, i)].charge += cfg->b[i].cost;
  if (opt->fold && opt->mode != RW_OVERHEAD && !single)
    fold_branches(cb, find_tail_ends(cb));
  if (opt->fold && opt->mode != RW_OVERHEAD && opt->target == RW_LRAVM &&
      !cb->small && !opt->lines && !single)
    pay_in_predecessors(cb);
  return LRAF_OK;
}

lraf_status rw_cfg_build(const bc_proto *f, const rw_options *opt,
                         const char *path, rw_arena *a, rw_cfg *cfg,
                         lraf_error *err) {
  size_t n = (size_t)f->sizecode;
  char *ustart = rw_arena_zalloc(a, 2 * (n + 1), 1);
  int *odd = rw_arena_alloc(a, 3 * (n + 1), sizeof(int));
  lraf_status st;
  cfgbuild cb;
  int pc;
  memset(cfg, 0, sizeof *cfg);
  memset(&cb, 0, sizeof cb);
  cb.f = f;
  cb.opt = opt;
  cb.path = path;
  cb.a = a;
  cb.err = err;
  cb.cfg = cfg;
  cb.small = small_blocks(opt);
  cb.ustart = ustart;
  cb.leader = ustart != NULL ? ustart + n + 1 : NULL;
  cb.odd = odd;
  if (!ustart || !odd)
    return err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
  cfg->block_at = odd + n + 1;
  cfg->block_of = odd + 2 * (n + 1);
  cfg->first = (f->sizecode > 0 && bc_op(f->code[0]) == BC_OP_VARARGPREP);
  /* make_blocks sets the rest */
  for (pc = 0; pc < cfg->first; pc++)
    cfg->block_at[pc] = cfg->block_of[pc] = -1;
  cfg->block_at[n] = cfg->block_of[n] = -1;
  if (cfg->first >= f->sizecode)
    return err_fail(err, LRAF_EREWRITE, "%s has no code", path);
  st = find_leaders(&cb);
  if (st == LRAF_OK)
    st = make_blocks(&cb);
  if (st == LRAF_OK) {  /* the analysis's graphs and orders die with it */
    rw_arena_mark mark = rw_arena_save(a);
    st = analyse(&cb);
    rw_arena_restore(a, mark);
  }
  return st;
}
