/*
** tutil_fuzz.c - what the fuzz targets do with one input: read, round
** trip, rewrite, verify, write and load chunks, or compile and run
** source in a sandbox state.  Shared by tests/fuzz/ and the regression
** test that replays saved inputs.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lraf.h"
#include "rt_pipeline.h"
#include "tutil_fuzz.h"

static int broken(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why != NULL && n > 0) vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return -1;
}

static FILE *devnull(void) {
  static FILE *f;
  if (f == NULL) f = fopen("/dev/null", "w");
  return f;
}

static void touch_lines(const bc_proto *f) {
  int pc, i;
  volatile unsigned sink = 0;
  for (pc = 0; pc < f->sizecode; pc++) sink += (unsigned)bc_getline(f, pc);
  for (i = 0; i < f->sizep; i++) touch_lines(f->p[i]);
  (void)sink;
}

int tutil_fuzz_read(const uint8_t *data, size_t size, char *why, size_t n) {
  bc_chunk *c = NULL;
  lraf_error err;
  void *out = NULL;
  size_t outsize = 0;
  int rc = 0;
  lraf_status st = bc_read(data, size, NULL, &c, &err);
  if (st != LRAF_OK) {
    if (err.message[0] == '\0')
      return broken(why, n, "bc_read failed (%d) without a message", st);
    return 0;
  }
  st = bc_write(c, &out, &outsize, &err);
  if (st != LRAF_OK)
    rc = broken(why, n, "bc_write failed on a chunk bc_read accepted: %s",
                err.message);
  else if (outsize != size || memcmp(out, data, size) != 0)
    rc = broken(why, n, "read/write round trip changed the chunk (%zu -> "
                "%zu bytes)", size, outsize);
  if (devnull() != NULL) bc_list(devnull(), c->main, 1);
  touch_lines(c->main);
  free(out);
  bc_chunk_free(c);
  return rc;
}

/* ---------------------------------------------------------------- */

static const char *reader_once(lua_State *L, void *ud, size_t *size) {
  size_t *left = ud;
  (void)L;
  *size = left[0];
  left[0] = 0;
  return *size ? (const char *)left[1] : NULL;
}

static int load_only(const void *bytes, size_t size) {
  lua_State *L = luaL_newstate();
  size_t ud[2];
  int st;
  if (L == NULL) return LUA_ERRMEM;
  ud[0] = size;
  ud[1] = (size_t)bytes;
  st = lua_load(L, reader_once, ud, "=fuzz", "b");
  lua_close(L);
  return st;
}

/* rw_options.lines: each entry of f's line costs is at an ACCT or an
   MMBIN*, and the costs at an ACCT add up to what it and the ACCTs
   right after it (one charge split by sBx's range) charge.  The line
   of the first bad entry's function, or -1. */
static int bad_linecosts(const bc_proto *f) {
  int i, k = 0;
  for (i = 0; i < f->sizep; i++) {
    int bad = bad_linecosts(f->p[i]);
    if (bad >= 0) return bad;
  }
  while (k < f->sizelinecosts) {
    int pc = f->linecosts[k].pc, op;
    int64_t sum = 0, charged = 0;
    if (pc < 0 || pc >= f->sizecode) return f->linedefined;
    for (; k < f->sizelinecosts && f->linecosts[k].pc == pc; k++)
      sum += f->linecosts[k].cost;
    op = bc_op(f->code[pc]);
    if (op == BC_OP_MMBIN || op == BC_OP_MMBINI || op == BC_OP_MMBINK)
      continue;
    if (op != BC_OP_ACCT) return f->linedefined;
    for (i = pc; i < f->sizecode && bc_op(f->code[i]) == BC_OP_ACCT; i++)
      charged += bc_bx(f->code[i]) - BC_OFFSET_SBX;
    if (sum != charged) return f->linedefined;
  }
  return -1;
}

/* On the lraf VM: the chunk loaded by Lua, rewritten in memory
   (rt_inplace.c) and dumped, must give the bytes that the dump path
   gives for the same function (lua_dump of it, rt_pipeline, bc_write),
   as rt_load would take either way.  bc_read may refuse what Lua
   loaded: only when the dump path accepts must rewriting in memory. */
static int in_place_same(const uint8_t *data, size_t size,
                         const rw_options *opt, const char *label, char *why,
                         size_t n) {
  lua_State *L = luaL_newstate();
  size_t ud[2];
  char *canon = NULL, *got = NULL;
  void *want = NULL;
  size_t canonsize = 0, gotsize = 0, wantsize = 0;
  bc_chunk *c = NULL;
  rt_input in;
  rw_options dopt;
  lraf_error err;
  lraf_status st;
  int rc = 0;
  if (L == NULL) return 0;
  ud[0] = size;
  ud[1] = (size_t)data;
  if (lua_load(L, reader_once, ud, "=fuzz", "b") != LUA_OK ||
      rt_dump(L, 0, &canon, &canonsize, &err) != LRAF_OK) {
    lua_close(L);
    return 0;
  }
  in.kind = RT_INPUT_CHUNK;
  in.data = canon;
  in.size = canonsize;
  dopt = *opt;  /* with refunds, as rt_pipeline_in_place rewrites */
  dopt.refunds = !opt->lines;
  if (rt_pipeline(&in, &dopt, NULL, &c, &err) != LRAF_OK ||
      bc_write(c, &want, &wantsize, &err) != LRAF_OK) {
    /* the dump path refused it: nothing to compare */
  } else if ((st = rt_pipeline_in_place(L, opt, NULL, &err)) == LRAF_EMEM) {
    /* out of memory: nothing to compare */
  } else if (st != LRAF_OK) {
    rc = broken(why, n, "%s: the dump path rewrote the function, rewriting "
                "in memory refused it: %s", label, err.message);
  } else if (rt_dump(L, 0, &got, &gotsize, &err) != LRAF_OK) {
    rc = broken(why, n, "%s: cannot dump the function rewritten in memory: "
                "%s", label, err.message);
  } else if (gotsize != wantsize || memcmp(got, want, wantsize) != 0) {
    rc = broken(why, n, "%s: rewriting in memory and the dump path differ "
                "(%zu and %zu bytes)", label, gotsize, wantsize);
  }
  bc_chunk_free(c);
  free(canon);
  free(want);
  free(got);
  lua_close(L);
  return rc;
}

static int rewrite_with(const uint8_t *data, size_t size,
                        const rw_options *opt, const char *label, char *why,
                        size_t n) {
  bc_chunk *c = NULL, *back = NULL;
  lraf_error err;
  void *out = NULL;
  size_t outsize = 0;
  int rc = 0, lst;
  rt_input in;
  lraf_status st;
  in.kind = RT_INPUT_CHUNK;
  in.data = (const char *)data;
  in.size = size;
  st = rt_pipeline(&in, opt, NULL, &c, &err);
  if (st == LRAF_EVERIFY) {
    return broken(why, n, "%s: the rewritten chunk does not verify: %s",
                  label, err.message);
  } else if (st != LRAF_OK) {
    if (err.message[0] == '\0')
      return broken(why, n, "%s: the pipeline failed with %s and no "
                    "message", label, lraf_status_name(st));
    return 0;
  }
  if (opt->lines && bad_linecosts(c->main) >= 0) {
    rc = broken(why, n, "%s: the line costs of the function at line %d do "
                "not add up to its ACCTs", label, bad_linecosts(c->main));
  } else if ((st = bc_write(c, &out, &outsize, &err)) != LRAF_OK) {
    rc = broken(why, n, "%s: bc_write failed after rewriting: %s", label,
                err.message);
  } else if ((st = bc_read_rewritten(out, outsize, NULL, &back, &err)) !=
             LRAF_OK) {
    rc = broken(why, n, "%s: bc_read_rewritten refused the rewritten chunk "
                "(offline loading would): %s", label, err.message);
  } else if ((lst = load_only(out, outsize)) != LUA_OK && lst != LUA_ERRMEM) {
    rc = broken(why, n, "%s: lua_load refused the rewritten chunk (%d)",
                label, lst);
  } else if (opt->target == RW_LRAVM && lraf_vm_builtin()) {
    rc = in_place_same(data, size, opt, label, why, n);
  }
  free(out);
  bc_chunk_free(back);
  bc_chunk_free(c);
  return rc;
}

int tutil_fuzz_rewrite(const uint8_t *data, size_t size, char *why,
                       size_t n) {
  static uint32_t weights[BC_NUM_OPCODES];
  rw_options opt;
  int i;
  if (tutil_fuzz_read(data, size, why, n) != 0) return -1;
  for (i = 0; i < BC_NUM_OPCODES; i++) weights[i] = (uint32_t)(i % 7) + 1;
  rw_default_options(&opt);
  if (rewrite_with(data, size, &opt, "original", why, n) != 0) return -1;
  opt.exact = 1;
  if (rewrite_with(data, size, &opt, "original exact", why, n) != 0)
    return -1;
  opt.exact = 0;
  opt.fold = 0;
  opt.mode = RW_OVERHEAD;
  if (rewrite_with(data, size, &opt, "overhead unfolded", why, n) != 0)
    return -1;
  opt.fold = 1;
  opt.mode = RW_WEIGHTED;
  opt.weights = weights;
  if (rewrite_with(data, size, &opt, "weighted", why, n) != 0) return -1;
  /* the lraf VM's target (ACCT): emitted, verified, written, read back
     and loaded (never run here, so any build can check it) */
  opt.target = RW_LRAVM;
  if (rewrite_with(data, size, &opt, "lraf VM weighted", why, n) != 0)
    return -1;
  opt.mode = RW_ORIGINAL;
  opt.weights = NULL;
  if (rewrite_with(data, size, &opt, "lraf VM", why, n) != 0) return -1;
  opt.exact = 1;
  if (rewrite_with(data, size, &opt, "lraf VM exact", why, n) != 0)
    return -1;
  /* what lraf profile loads with on the lraf VM: per-line costs */
  opt.lines = 1;
  if (rewrite_with(data, size, &opt, "lraf VM exact, lines", why, n) != 0)
    return -1;
  opt.exact = 0;
  return rewrite_with(data, size, &opt, "lraf VM, lines", why, n);
}

/* ---------------------------------------------------------------- */

/* The sandbox state's memory: at most CAP bytes live. */
#define CAP (64u * 1024u * 1024u)

typedef struct capped {
  size_t used;
} capped;

static void *capped_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  capped *c = ud;
  size_t old = p != NULL ? osize : 0;
  void *q;
  if (nsize == 0) {
    c->used -= old < c->used ? old : c->used;
    free(p);
    return NULL;
  }
  if (nsize > old && nsize - old > CAP - (c->used < CAP ? c->used : CAP))
    return NULL;
  q = realloc(p, nsize);
  if (q == NULL) return NULL;
  c->used = c->used - (old < c->used ? old : c->used) + nsize;
  return q;
}

int tutil_fuzz_source(const uint8_t *data, size_t size, char *why,
                      size_t n) {
  lraf_options o;
  lraf_state *S = NULL;
  lraf_manager *limit = lraf_limit_new(20000);
  lraf_error err;
  lraf_status st;
  capped cap = {0};
  int rc = 0;
  if (limit == NULL) return broken(why, n, "lraf_limit_new failed");
  lraf_default_options(&o);
  o.env = LRAF_ENV_SANDBOX;
  o.manager = limit;
  o.granularity = 100;
  o.exact = size > 0 && (data[0] & 1);
  /* on the lraf VM, one input in two takes the stock target's code
     (dump, rewrite, load); the others are rewritten in memory (ACCT) */
  o.vm = size > 0 && (data[0] & 2) ? LRAF_VM_STOCK : LRAF_VM_DEFAULT;
  st = lraf_new(&o, &S, &err);
  lraf_manager_release(limit);
  if (st != LRAF_OK) return broken(why, n, "lraf_new: %s", err.message);
  lua_setallocf(lraf_lua(S), capped_alloc, &cap);
  st = lraf_load_string(S, (const char *)data, size, "=fuzz", &err);
  if (st == LRAF_OK) {
    st = lraf_call(S, 0, 0, &err);
    if (st != LRAF_OK && st != LRAF_ERUN && st != LRAF_EQUOTA &&
        st != LRAF_EMEM)
      rc = broken(why, n, "lraf_call: unexpected %s: %s",
                  lraf_status_name(st), err.message);
  } else if (st != LRAF_ESYNTAX && st != LRAF_EMEM && st != LRAF_ELIMIT &&
             st != LRAF_EREWRITE && st != LRAF_EFORMAT && st != LRAF_ERUN) {
    /* LRAF_ERUN: Lua's parser reports "C stack overflow" (too deep
       nesting) as a runtime error, and lraf passes Lua's status on. */
    rc = broken(why, n, "lraf_load_string: unexpected %s: %s",
                lraf_status_name(st), err.message);
  }
  lraf_close(S);
  return rc;
}
