/*
** rw_bound.c - declared costs: the longest path through each function's
** control-flow graph (rw_cfg_build's blocks and costs), numeric for
** loops with constant bounds multiplied by their trip count, and calls
** to closures of the same chunk and to C built-ins that call no Lua
** code.  Anything else is unbounded, with the reason and the line.
** What is proven and what is assumed: docs/bound.md.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"
#include "rw_arena.h"
#include "rw_bound.h"
#include "rw_cfg.h"

/* Above this a bound is reported as too large (no overflow below). */
#define BOUND_MAX ((uint64_t)1 << 60)
/* Float loops are counted by running their control; at most this many. */
#define FLOAT_TRIPS_MAX 10000000

typedef struct bctx {
  const bc_chunk *chunk;
  rw_bound_result *r;
  rw_arena arena;
  int globals_safe;    /* no name in the chunk reaches the globals other
                          than directly (_G, rawset, load, debug...) */
  lraf_error *err;
  lraf_status st;
} bctx;

typedef struct fnctx {
  bctx *c;
  int idx;
  rw_bound_fn *fn;
  const bc_proto *f;
  rw_cfg cfg;
  uint64_t *extra;     /* per block: what its calls add */
  uint64_t *cost;      /* per block: longest path from its start */
  int loops;
} fnctx;

static int unbounded(rw_bound_fn *fn, int line, const char *fmt,
                     const char *a) {
  fn->bounded = 0;
  snprintf(fn->reason, sizeof fn->reason, fmt, a ? a : "");
  fn->reason_line = line;
  return 0;
}

/* ---------------------------------------------------------------- */
/* Registers and names                                               */
/* ---------------------------------------------------------------- */

/* Whether instruction i may write register r: ops writing R[A] alone,
   ops writing R[A] and above (all those not listed: conservative), and
   ops that write no register. */
static int writes_reg(bc_instr i, int r) {
  int op = bc_op(i), a = bc_a(i);
  switch (op) {
    case BC_OP_SETTABUP: case BC_OP_SETTABLE: case BC_OP_SETI:
    case BC_OP_SETFIELD: case BC_OP_SETUPVAL: case BC_OP_JMP:
    case BC_OP_EQ: case BC_OP_LT: case BC_OP_LE: case BC_OP_EQK:
    case BC_OP_EQI: case BC_OP_LTI: case BC_OP_LEI: case BC_OP_GTI:
    case BC_OP_GEI: case BC_OP_TEST: case BC_OP_RETURN:
    case BC_OP_RETURN0: case BC_OP_RETURN1: case BC_OP_TAILCALL:
    case BC_OP_SETLIST: case BC_OP_MMBIN: case BC_OP_MMBINI:
    case BC_OP_MMBINK: case BC_OP_CLOSE: case BC_OP_TBC:
    case BC_OP_VARARGPREP: case BC_OP_EXTRAARG:
      return 0;
    case BC_OP_MOVE: case BC_OP_LOADI: case BC_OP_LOADF: case BC_OP_LOADK:
    case BC_OP_LOADKX: case BC_OP_LOADFALSE: case BC_OP_LFALSESKIP:
    case BC_OP_LOADTRUE: case BC_OP_GETUPVAL: case BC_OP_GETTABUP:
    case BC_OP_GETTABLE: case BC_OP_GETI: case BC_OP_GETFIELD:
    case BC_OP_NEWTABLE: case BC_OP_UNM: case BC_OP_BNOT: case BC_OP_NOT:
    case BC_OP_LEN: case BC_OP_CONCAT: case BC_OP_TESTSET:
    case BC_OP_CLOSURE:
      return a == r;
    default:
      if (op >= BC_OP_ADDI && op <= BC_OP_SHR) return a == r;
      return a <= r;
  }
}

static const char *kstr(const bc_proto *f, int k) {
  if (k < 0 || k >= f->sizek) return NULL;
  if (f->k[k].tag != BC_TSHRSTR && f->k[k].tag != BC_TLNGSTR) return NULL;
  return f->k[k].s.data;
}

/* Follow upvalue u of function fi to its origin: *owner gets the
   function whose register *reg it captures, or -1 with *reg the main
   function's upvalue (0: the chunk's _ENV). */
static void upval_origin(const rw_bound_result *r, int fi, int u, int *owner,
                         int *reg) {
  while (fi >= 0) {
    const bc_proto *f = r->fn[fi].f;
    if (u < 0 || u >= f->sizeupvalues) { *owner = -2; *reg = -1; return; }
    if (f->upvalues[u].instack) {
      *owner = r->fn[fi].parent;
      *reg = f->upvalues[u].idx;
      return;
    }
    u = f->upvalues[u].idx;
    if (r->fn[fi].parent < 0) break;
    fi = r->fn[fi].parent;
  }
  *owner = -1;
  *reg = u;
}

/* Whether upvalue u of fi is the chunk's _ENV. */
static int is_env(const rw_bound_result *r, int fi, int u) {
  int owner, reg;
  upval_origin(r, fi, u, &owner, &reg);
  return owner == -1 && reg == 0;
}

/* The function index of child k of function fi. */
static int child_of(const rw_bound_result *r, int fi, int k) {
  int i;
  for (i = fi + 1; i < r->n; i++)
    if (r->fn[i].parent == fi && r->fn[i].child == k) return i;
  return -1;
}

/* Whether any function writes, through an upvalue, register reg of
   function owner. */
static int upval_written(const rw_bound_result *r, int owner, int reg) {
  int i, pc;
  for (i = 0; i < r->n; i++) {
    const bc_proto *f = r->fn[i].f;
    for (pc = 0; pc < f->sizecode; pc++)
      if (bc_op(f->code[pc]) == BC_OP_SETUPVAL) {
        int o, g;
        upval_origin(r, i, bc_b(f->code[pc]), &o, &g);
        if (o == owner && g == reg) return 1;
      }
  }
  return 0;
}

/* The closure that register reg of function fi always holds once
   set: not a parameter, a CLOSURE is its only writer in fi and no
   upvalue writes it (a local function assigned once), else -1. */
static int local_closure(const rw_bound_result *r, int fi, int reg) {
  const bc_proto *f = r->fn[fi].f;
  int pc, writer = -1;
  if (reg < f->numparams) return -1;  /* holds an argument first */
  for (pc = 0; pc < f->sizecode; pc++)
    if (writes_reg(f->code[pc], reg)) {
      if (writer >= 0 || bc_op(f->code[pc]) != BC_OP_CLOSURE) return -1;
      writer = pc;
    }
  if (writer < 0 || upval_written(r, fi, reg)) return -1;
  return child_of(r, fi, bc_bx(f->code[writer]));
}

/* The closure assigned to global name, when the chunk assigns it once,
   from a CLOSURE just before; -1 when never; -2 otherwise. */
static int global_closure(const rw_bound_result *r, const char *name) {
  int i, pc, found = -1;
  for (i = 0; i < r->n; i++) {
    const bc_proto *f = r->fn[i].f;
    for (pc = 0; pc < f->sizecode; pc++) {
      bc_instr in = f->code[pc];
      const char *key;
      if (bc_op(in) != BC_OP_SETTABUP || !is_env(r, i, bc_a(in))) continue;
      key = kstr(f, bc_b(in));
      if (key == NULL || strcmp(key, name) != 0) continue;
      if (found != -1 || bc_k(in) || pc == 0 ||
          bc_op(f->code[pc - 1]) != BC_OP_CLOSURE ||
          bc_a(f->code[pc - 1]) != bc_c(in))
        return -2;
      found = child_of(r, i, bc_bx(f->code[pc - 1]));
      if (found < 0) return -2;
    }
  }
  return found;
}

/* Whether the chunk stores field key into any table (SETFIELD). */
static int field_written(const rw_bound_result *r, const char *key) {
  int i, pc;
  for (i = 0; i < r->n; i++) {
    const bc_proto *f = r->fn[i].f;
    for (pc = 0; pc < f->sizecode; pc++) {
      const char *k;
      if (bc_op(f->code[pc]) != BC_OP_SETFIELD) continue;
      k = kstr(f, bc_b(f->code[pc]));
      if (k != NULL && strcmp(k, key) == 0) return 1;
    }
  }
  return 0;
}

/* C built-ins that run no Lua code of their own (only metamethods, which
   the bound assumes run none): a call costs its CALL alone. */
static const char *const builtins[] = {
  "assert", "error", "getmetatable", "ipairs", "next", "pairs", "print",
  "rawequal", "rawget", "rawlen", "select", "setmetatable", "tonumber",
  "tostring", "type",
  "math.abs", "math.ceil", "math.cos", "math.exp", "math.floor",
  "math.fmod", "math.log", "math.max", "math.min", "math.modf",
  "math.random", "math.sin", "math.sqrt", "math.tan", "math.tointeger",
  "math.type", "math.ult",
  "string.byte", "string.char", "string.find", "string.format",
  "string.len", "string.lower", "string.match", "string.rep",
  "string.reverse", "string.sub", "string.upper",
  "table.concat", "table.insert", "table.pack", "table.remove",
  "table.unpack", "os.clock", "os.time", NULL
};
/* Names that reach the globals or the libraries other than directly. */
static const char *const unsafe_names[] = {
  "_G", "rawset", "load", "loadfile", "dofile", "require", "debug",
  "package", NULL
};

static int in_list(const char *const *list, const char *s) {
  for (; *list != NULL; list++)
    if (strcmp(*list, s) == 0) return 1;
  return 0;
}

static int chunk_names_unsafe(const rw_bound_result *r) {
  int i, k;
  for (i = 0; i < r->n; i++)
    for (k = 0; k < r->fn[i].f->sizek; k++) {
      const char *s = kstr(r->fn[i].f, k);
      if (s != NULL && in_list(unsafe_names, s)) return 1;
    }
  return 0;
}

/* The last writer of register reg in f before pc, within [lo, pc), or
   -1 (none there). */
static int last_writer(const bc_proto *f, int lo, int pc, int reg) {
  while (--pc >= lo)
    if (writes_reg(f->code[pc], reg)) return pc;
  return -1;
}

/* ---------------------------------------------------------------- */
/* Calls                                                             */
/* ---------------------------------------------------------------- */

static int bound_fn(bctx *c, int fi);

/* What the call at pc adds beyond its own CALL: *add.  0 (and fn set
   unbounded) when the callee is not known to be bounded. */
static int call_cost(fnctx *x, int pc, int blo, uint64_t *add) {
  const bc_proto *f = x->f;
  rw_bound_result *r = x->c->r;
  int line = bc_getline(f, pc), a = bc_a(f->code[pc]);
  int w = last_writer(f, blo, pc, a), callee = -1, owner, reg;
  char name[80];
  bc_instr in;
  *add = 0;
  if (w < 0)
    return unbounded(x->fn, line, "calls a function value it cannot name%s",
                     NULL);
  in = f->code[w];
  switch (bc_op(in)) {
    case BC_OP_CLOSURE:
      callee = child_of(r, x->idx, bc_bx(in));
      break;
    case BC_OP_MOVE:
      callee = local_closure(r, x->idx, bc_b(in));
      break;
    case BC_OP_GETUPVAL:
      upval_origin(r, x->idx, bc_b(in), &owner, &reg);
      if (owner >= 0) callee = local_closure(r, owner, reg);
      break;
    case BC_OP_GETTABUP: {
      const char *g = kstr(f, bc_c(in));
      if (g == NULL || !is_env(r, x->idx, bc_b(in)))
        return unbounded(x->fn, line, "calls an unknown function%s", NULL);
      if (!x->c->globals_safe)
        return unbounded(x->fn, line, "calls global '%s' (the chunk reaches "
                         "the globals indirectly)", g);
      callee = global_closure(r, g);
      if (callee == -1 && in_list(builtins, g)) return 1;
      if (callee < 0)
        return unbounded(x->fn, line, callee == -1
                         ? "calls global '%s' (not a known function)"
                         : "calls global '%s' (assigned more than once or "
                           "not a closure)", g);
      break;
    }
    case BC_OP_GETFIELD: {
      const char *fld = kstr(f, bc_c(in)), *lib = NULL;
      int t = last_writer(f, blo, w, bc_b(in));
      if (t >= 0 && bc_op(f->code[t]) == BC_OP_GETTABUP &&
          is_env(r, x->idx, bc_b(f->code[t])))
        lib = kstr(f, bc_c(f->code[t]));
      if (lib == NULL || fld == NULL)
        return unbounded(x->fn, line, "calls a field of a table%s", NULL);
      snprintf(name, sizeof name, "%s.%s", lib, fld);
      if (x->c->globals_safe && in_list(builtins, name) &&
          global_closure(r, lib) == -1 && !field_written(r, fld))
        return 1;
      return unbounded(x->fn, line, "calls %s (not a known function)", name);
    }
    default:
      break;
  }
  if (callee < 0)
    return unbounded(x->fn, line, "calls a function value it cannot name%s",
                     NULL);
  if (!bound_fn(x->c, callee)) {
    rw_bound_fn *g = &r->fn[callee];
    if (x->c->st != LRAF_OK) return 0;
    x->fn->bounded = 0;
    x->fn->reason_line = line;
    if (g->state == 1)
      snprintf(x->fn->reason, sizeof x->fn->reason,
               "recursion (calls %s, line %d)", g->name, g->line);
    else
      snprintf(x->fn->reason, sizeof x->fn->reason,
               "calls %s (line %d), unbounded", g->name, g->line);
    return 0;
  }
  *add = r->fn[callee].bound;
  x->fn->metamethods |= r->fn[callee].metamethods;
  if (!r->fn[callee].loopfree) x->loops = 1;
  return 1;
}

/* Per block: what its calls add, the MMBIN* its arithmetic may run (the
   metric charges them on a side path), and the refusals: loops other
   than numeric for, generic for. */
static int scan_blocks(fnctx *x) {
  const bc_proto *f = x->f;
  int b, pc, t;
  for (b = 0; b < x->cfg.nblocks; b++) {
    const rw_block *bl = &x->cfg.b[b];
    uint64_t sum = 0;
    for (pc = bl->start; pc <= bl->end; pc++) {
      bc_instr in = f->code[pc];
      int op = bc_op(in);
      const bc_opinfo *oi = bc_opinfo_of(op);
      uint64_t add = 0;
      if ((op == BC_OP_MMBIN || op == BC_OP_MMBINI || op == BC_OP_MMBINK) &&
          rw_instr_cost(f, pc, &(rw_options){ .mode = RW_ORIGINAL }) == 0)
        sum++;
      if (op == BC_OP_TFORPREP || op == BC_OP_TFORCALL)
        return unbounded(x->fn, bc_getline(f, pc), "generic for loop%s",
                         NULL);
      if (op == BC_OP_JMP && bc_jump_target(in, pc, &t) && t <= pc)
        return unbounded(x->fn, bc_getline(f, pc),
                         "loop (while, repeat or goto)%s", NULL);
      if (op == BC_OP_CALL || op == BC_OP_TAILCALL) {
        if (!call_cost(x, pc, bl->start, &add)) return 0;
        sum += add;
        if (sum > BOUND_MAX)
          return unbounded(x->fn, bc_getline(f, pc), "bound too large%s",
                           NULL);
      } else if (oi != NULL && (oi->flags & BC_OPF_CALLS)) {
        x->fn->metamethods = 1;
      }
    }
    x->extra[b] = sum;
  }
  return 1;
}

/* ---------------------------------------------------------------- */
/* Loops                                                             */
/* ---------------------------------------------------------------- */

static int loadnum(const bc_proto *f, bc_instr in, int *isint, int64_t *i,
                   double *d) {
  switch (bc_op(in)) {
    case BC_OP_LOADI: *isint = 1; *i = bc_sbx(in); return 1;
    case BC_OP_LOADF: *isint = 0; *d = bc_sbx(in); return 1;
    case BC_OP_LOADK: {
      const bc_const *k = &f->k[bc_bx(in)];
      if (k->tag == BC_TINT) { *isint = 1; *i = k->i; return 1; }
      if (k->tag == BC_TFLT) { *isint = 0; *d = k->n; return 1; }
      return 0;
    }
    default:
      return 0;
  }
}

/* The trip count of the numeric for whose FORPREP is at p, from the
   constants its block loads, as Lua 5.4's forprep computes it. */
static int trip_count(fnctx *x, int p, int blo, uint64_t *trips) {
  const bc_proto *f = x->f;
  int a = bc_a(f->code[p]), k, isint[3], line = bc_getline(f, p);
  int64_t iv[3] = {0, 0, 0};
  double dv[3] = {0, 0, 0};
  for (k = 0; k < 3; k++) {
    int w = last_writer(f, blo, p, a + k);
    if (w < 0 || !loadnum(f, f->code[w], &isint[k], &iv[k], &dv[k]))
      return unbounded(x->fn, line, "for loop whose bounds are not "
                       "constants%s", NULL);
  }
  if (isint[0] && isint[2]) {
    int64_t init = iv[0], step = iv[2], lim;
    if (step == 0) { *trips = 0; return 1; }   /* "'for' step is zero" */
    if (isint[1]) lim = iv[1];
    else if (isnan(dv[1])) { *trips = 0; return 1; }
    else {
      double l = step > 0 ? floor(dv[1]) : ceil(dv[1]);
      lim = l >= 9.2e18 ? INT64_MAX : l <= -9.2e18 ? INT64_MIN : (int64_t)l;
    }
    if (step > 0 ? init > lim : init < lim) { *trips = 0; return 1; }
    *trips = step > 0
      ? ((uint64_t)lim - (uint64_t)init) / (uint64_t)step + 1
      : ((uint64_t)init - (uint64_t)lim) / ((uint64_t)0 - (uint64_t)step) + 1;
    return 1;
  } else {
    double init = isint[0] ? (double)iv[0] : dv[0];
    double lim = isint[1] ? (double)iv[1] : dv[1];
    double step = isint[2] ? (double)iv[2] : dv[2];
    uint64_t n = 0;
    if (step == 0) { *trips = 0; return 1; }
    while (step > 0 ? init <= lim : lim <= init) {
      if (++n > FLOAT_TRIPS_MAX)
        return unbounded(x->fn, line, "float for loop with too many "
                         "iterations%s", NULL);
      init += step;
    }
    *trips = n;
    return 1;
  }
}

static uint64_t sat_add(uint64_t a, uint64_t b) {
  return a + b > BOUND_MAX ? BOUND_MAX + 1 : a + b;
}
static uint64_t sat_mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > (BOUND_MAX + 1) / b ? BOUND_MAX + 1 : a * b;
}

/* Longest path from each block of [lo, hi] to leaving the region, in
   x->cost.  body: the region is a loop body whose last block ends in its
   FORLOOP (its edges are the loop's own).  Exits past hi add at most
   *exit (the cost from the exit target, which the parent region knows,
   up to parent_hi). */
static int region(fnctx *x, int lo, int hi, int body, int parent_hi,
                  uint64_t *exit) {
  const bc_proto *f = x->f;
  int b, k;
  for (b = hi; b >= lo; b--) {
    const rw_block *bl = &x->cfg.b[b];
    int op = bc_op(f->code[bl->end]);
    uint64_t own = sat_add(bl->cost, x->extra[b]), best = 0;
    if (body && b == hi) { x->cost[b] = own; continue; }
    if (op == BC_OP_FORLOOP) {  /* a loop ending here: its FORPREP's */
      int t, p, pb, q = bl->end, after;
      uint64_t trips, inner, ex = 0;
      bc_jump_target(f->code[q], q, &t);
      p = t - 1;
      pb = x->cfg.block_of[p];
      if (p < 0 || pb < lo || bc_op(f->code[p]) != BC_OP_FORPREP)
        return unbounded(x->fn, bc_getline(f, q), "unexpected loop shape%s",
                         NULL);
      if (!region(x, x->cfg.block_at[t], b, 1, hi, &ex)) return 0;
      inner = x->cost[x->cfg.block_at[t]];
      if (!trip_count(x, p, x->cfg.b[pb].start, &trips)) return 0;
      x->loops = 1;
      after = q + 1 < f->sizecode ? x->cfg.block_at[q + 1] : -1;
      if (after >= 0 && after <= hi) best = x->cost[after];
      else if (after >= 0) {
        if (after > parent_hi)
          return unbounded(x->fn, bc_getline(f, q), "jump out of nested "
                           "loops%s", NULL);
        if (x->cost[after] > *exit) *exit = x->cost[after];
      }
      if (ex > best) best = ex;
      x->cost[pb] = sat_add(sat_add(sat_add(x->cfg.b[pb].cost,
                                            x->extra[pb]),
                                    sat_mul(trips, inner)), best);
      if (x->cost[pb] > BOUND_MAX)
        return unbounded(x->fn, bc_getline(f, p), "bound too large%s", NULL);
      b = pb;
      continue;
    }
    for (k = 0; k < bl->nsucc; k++) {
      int s = bl->succ[k];
      if (s <= b)
        return unbounded(x->fn, bc_getline(f, bl->end), "loop (backward "
                         "jump)%s", NULL);
      if (s <= hi) {
        if (x->cost[s] > best) best = x->cost[s];
      } else if (s > parent_hi) {
        return unbounded(x->fn, bc_getline(f, bl->end), "jump out of "
                         "nested loops%s", NULL);
      } else if (x->cost[s] > *exit) {
        *exit = x->cost[s];
      }
    }
    x->cost[b] = sat_add(own, best);
  }
  return 1;
}

/* ---------------------------------------------------------------- */
/* Functions                                                         */
/* ---------------------------------------------------------------- */

static int analyse_fn(bctx *c, int fi) {
  fnctx x;
  rw_options opt;
  rw_arena_mark m = rw_arena_save(&c->arena);
  char path[96];
  uint64_t exit = 0;
  int ok = 0, first;
  memset(&x, 0, sizeof x);
  x.c = c;
  x.idx = fi;
  x.fn = &c->r->fn[fi];
  x.f = x.fn->f;
  rw_default_options(&opt);
  opt.target = RW_STOCK;
  opt.fold = 0;
  snprintf(path, sizeof path, "function at line %d", x.fn->line);
  c->st = rw_cfg_build(x.f, &opt, path, &c->arena, &x.cfg, c->err);
  if (c->st != LRAF_OK) goto done;
  x.extra = rw_arena_zalloc(&c->arena, (size_t)x.cfg.nblocks + 1,
                            sizeof *x.extra);
  x.cost = rw_arena_zalloc(&c->arena, (size_t)x.cfg.nblocks + 1,
                           sizeof *x.cost);
  if (x.extra == NULL || x.cost == NULL) {
    c->st = err_fail(c->err, LRAF_EMEM, "out of memory bounding %s", path);
    goto done;
  }
  if (!scan_blocks(&x) || c->st != LRAF_OK) goto done;
  if (!region(&x, 0, x.cfg.nblocks - 1, 0, x.cfg.nblocks - 1, &exit))
    goto done;
  first = x.cfg.block_at[x.cfg.first];
  x.fn->bound = x.cost[first];
  x.fn->loopfree = !x.loops;
  x.fn->bounded = 1;
  ok = 1;
done:
  rw_arena_restore(&c->arena, m);
  return ok;
}

/* Bound function fi once (memoized); 1 when bounded. */
static int bound_fn(bctx *c, int fi) {
  rw_bound_fn *fn = &c->r->fn[fi];
  if (fn->state == 2) return fn->bounded;
  if (fn->state == 1) return 0;  /* recursion: the caller says so */
  fn->state = 1;
  analyse_fn(c, fi);
  fn->state = 2;
  return fn->bounded;
}

/* The register of local variable k of p: the locals declared before it
   that are still active where it starts. */
static int local_reg(const bc_proto *p, int k) {
  int j, reg = 0, at = p->locvars[k].startpc;
  for (j = 0; j < k; j++)
    if (p->locvars[j].startpc <= at && at < p->locvars[j].endpc) reg++;
  return reg;
}

static void name_fn(rw_bound_result *r, int fi) {
  rw_bound_fn *fn = &r->fn[fi];
  const bc_proto *p;
  int pc, k;
  strcpy(fn->name, "?");
  if (fn->parent < 0) { strcpy(fn->name, "main chunk"); return; }
  p = r->fn[fn->parent].f;
  for (pc = 0; pc < p->sizecode; pc++) {
    bc_instr in = p->code[pc];
    if (bc_op(in) != BC_OP_CLOSURE || bc_bx(in) != fn->child) continue;
    if (pc + 1 < p->sizecode && bc_op(p->code[pc + 1]) == BC_OP_SETTABUP &&
        !bc_k(p->code[pc + 1]) && bc_c(p->code[pc + 1]) == bc_a(in) &&
        kstr(p, bc_b(p->code[pc + 1])) != NULL) {
      snprintf(fn->name, sizeof fn->name, "%s",
               kstr(p, bc_b(p->code[pc + 1])));
      fn->global = is_env(r, fn->parent, bc_a(p->code[pc + 1]));
      return;
    }
    if (pc + 1 < p->sizecode && bc_op(p->code[pc + 1]) == BC_OP_SETFIELD &&
        !bc_k(p->code[pc + 1]) && bc_c(p->code[pc + 1]) == bc_a(in) &&
        kstr(p, bc_b(p->code[pc + 1])) != NULL) {
      snprintf(fn->name, sizeof fn->name, "?.%s",
               kstr(p, bc_b(p->code[pc + 1])));
      return;
    }
    for (k = 0; k < p->sizelocvars; k++)
      if ((p->locvars[k].startpc == pc || p->locvars[k].startpc == pc + 1) &&
          p->locvars[k].name.data != NULL &&
          local_reg(p, k) == bc_a(in)) {
        snprintf(fn->name, sizeof fn->name, "%s", p->locvars[k].name.data);
        return;
      }
    return;
  }
}

/* Mark the function the main chunk returns (a lraf serve handler):
   every return of values in the main chunk returns one value, from a
   register that only a CLOSURE of that one function writes. */
static void mark_returned(rw_bound_result *r) {
  const bc_proto *f = r->fn[0].f;
  int pc, child = -1;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr in = f->code[pc];
    int op = bc_op(in), c;
    if (op == BC_OP_RETURN0 || (op == BC_OP_RETURN && bc_b(in) == 1))
      continue;                      /* no value */
    if (op == BC_OP_RETURN && bc_b(in) != 2) return;  /* not one value */
    if (op != BC_OP_RETURN && op != BC_OP_RETURN1) continue;
    c = local_closure(r, 0, bc_a(in));
    if (c < 0 || (child >= 0 && c != child)) return;
    child = c;
  }
  if (child < 0) return;
  r->fn[child].returned = 1;
  if (strcmp(r->fn[child].name, "?") == 0)
    strcpy(r->fn[child].name, "(returned)");
}

static int count_fns(const bc_proto *f) {
  int n = 1, k;
  for (k = 0; k < f->sizep; k++) n += count_fns(f->p[k]);
  return n;
}

static void list_fns(rw_bound_result *r, const bc_proto *f, int parent,
                     int child, int *n) {
  int me = (*n)++, k;
  rw_bound_fn *fn = &r->fn[me];
  fn->f = f;
  fn->parent = parent;
  fn->child = child;
  fn->line = parent < 0 ? 0 : f->linedefined;
  for (k = 0; k < f->sizep; k++) list_fns(r, f->p[k], me, k, n);
}

lraf_status rw_bound_chunk(const bc_chunk *chunk, rw_bound_result *out,
                           lraf_error *err) {
  bctx c;
  int n = 0, i;
  memset(out, 0, sizeof *out);
  out->n = count_fns(chunk->main);
  out->fn = calloc((size_t)out->n, sizeof *out->fn);
  if (out->fn == NULL)
    return err_fail(err, LRAF_EMEM, "out of memory bounding a chunk");
  list_fns(out, chunk->main, -1, 0, &n);
  for (i = 0; i < out->n; i++) name_fn(out, i);
  mark_returned(out);
  memset(&c, 0, sizeof c);
  c.chunk = chunk;
  c.r = out;
  c.err = err;
  c.st = LRAF_OK;
  c.globals_safe = !chunk_names_unsafe(out);
  rw_arena_init(&c.arena);
  for (i = 0; i < out->n && c.st == LRAF_OK; i++) bound_fn(&c, i);
  rw_arena_free(&c.arena);
  if (c.st != LRAF_OK) rw_bound_free(out);
  return c.st;
}

void rw_bound_free(rw_bound_result *r) {
  free(r->fn);
  r->fn = NULL;
  r->n = 0;
}
