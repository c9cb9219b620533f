/*
** rt_inplace.c - rewriting in memory on the lraf VM: the Proto tree that
** Lua's parser produced is copied into the chunk model (bytecode/), rewritten
** and verified there, and the new code, line information and local
** variables are written back into the same Protos.  There is no
** lua_dump/lua_load round trip: constants, upvalue descriptors and
** nested functions stay as the parser made them, so string constants
** keep their identity (a literal shared by two functions of a chunk is
** one string, as under lua5.4).  The verifier is told what the parser
** produced, and checks only what rewriting changed (rw_verify_lean).
**
** This is the one file of lraf that reads Lua's internal structures
** (lobject.h, lstate.h, lmem.h); it is compiled against the lraf VM's
** sources only (LUA_ACCT_VM, make vm).  Built against stock Lua it only
** says that it cannot, and the stock target keeps the dump path.
*/
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rt_pipeline.h"
#include "rt_profile.h"

#ifdef LUA_ACCT_VM

#include "lobject.h"
#include "lstate.h"
#include "lmem.h"

/* ---- Proto -> chunk model ----
   The model keeps what the rewriter and the verifier read: code, line
   information, the tags of constants and the lengths of string ones
   (not their bytes: data stays NULL), upvalue descriptors, the pc
   ranges of locals (not their names, which are written back from the
   Proto, since the lraf VM's target adds no local), nested functions
   and the source name for messages. */

static int copy_tstring(bc_string *s, const TString *ts) {
  size_t len;
  memset(s, 0, sizeof *s);
  if (ts == NULL) return 1;
  len = tsslen(ts);
  s->data = malloc(len + 1);
  if (s->data == NULL) return 0;
  memcpy(s->data, getstr(ts), len + 1);
  s->len = len;
  s->present = 1;
  return 1;
}

static int copy_const(bc_const *k, const TValue *o) {
  static const bc_const zero;
  *k = zero;
  k->tag = ttypetag(o);
  switch (k->tag) {
    case LUA_VNUMINT: k->i = ivalue(o); return 1;
    case LUA_VNUMFLT: k->n = fltvalue(o); return 1;
    case LUA_VSHRSTR: case LUA_VLNGSTR:
      k->s.len = tsslen(tsvalue(o));
      k->s.present = 1;
      return 1;
    default: return 1;  /* nil, false, true */
  }
}

/* n rounded up to the alignment of any type. */
static size_t aligned(size_t n) {
  size_t a = _Alignof(max_align_t);
  return (n + a - 1) / a * a;
}

/* The bytes of one function's part of the model's block: the function,
   its constants, upvalue descriptors, table of nested functions,
   absolute line entries and locals. */
static size_t own_size(const Proto *p) {
  return aligned(sizeof(bc_proto)) +
         aligned((size_t)p->sizek * sizeof(bc_const)) +
         aligned((size_t)p->sizeupvalues * sizeof(bc_upvaldesc)) +
         aligned((size_t)p->sizep * sizeof(bc_proto *)) +
         aligned((size_t)p->sizeabslineinfo * sizeof(bc_absline)) +
         aligned((size_t)p->sizelocvars * sizeof(bc_locvar));
}

static size_t tree_size(const Proto *p) {
  size_t n = own_size(p);
  int i;
  for (i = 0; i < p->sizep; i++) n += tree_size(p->p[i]);
  return n;
}

/* The next n bytes of the block (NULL for none), *at moved past them. */
static void *carve(char *block, size_t *at, size_t n) {
  void *x = n > 0 ? block + *at : NULL;
  *at += aligned(n);
  return x;
}

/* Free what the rewriter gave f's tree of its own; the block that
   from_proto carved the tree from is the caller's. */
static void free_parts(lua_State *L, bc_proto *f) {
  int i;
  for (i = 0; i < f->sizep; i++) free_parts(L, f->p[i]);
  if (!(f->borrowed & BC_BORROWED_LOCVARS))  /* from_proto_in names none */
    for (i = 0; i < f->sizelocvars; i++)
      if (f->locvars[i].name.present && !f->locvars[i].name.shared)
        free(f->locvars[i].name.data);
  if (f->source.present) free(f->source.data);
  if (f->borrowed & (BC_HOOK_CODE | BC_HOOK_LINES)) {  /* Lua's allocator's
                                                        (not written back) */
    void *ud;
    lua_Alloc fa = lua_getallocf(L, &ud);
    if (f->borrowed & BC_HOOK_CODE)
      fa(ud, f->code, (size_t)f->sizecode * sizeof *f->code, 0);
    if (f->borrowed & BC_HOOK_LINES)
      fa(ud, f->lineinfo, (size_t)f->sizelineinfo, 0);
  }
  if (!(f->borrowed & (BC_BORROWED_CODE | BC_HOOK_CODE))) free(f->code);
  if (!(f->borrowed & (BC_BORROWED_LINES | BC_HOOK_LINES)))
    free(f->lineinfo);
  if (!(f->borrowed & BC_BORROWED_ABS)) free(f->abslineinfo);
  if (!(f->borrowed & BC_BORROWED_LOCVARS)) free(f->locvars);
  if (f->linecosts != NULL) free(f->linecosts);
  if (f->upnames != NULL) free(f->upnames);
  if (f->ahead != NULL) free(f->ahead);
}

/* Free a model that from_proto made: the whole tree's functions,
   constants, upvalue descriptors, nested functions, absolute line
   entries and locals are one allocation, the main function at its
   start (the lraf VM's target never replaces the first three; the
   rewriter replaces the others as borrowed, BC_BORROWED_*). */
static void free_model(lua_State *L, bc_proto *f) {
  if (f == NULL) return;
  free_parts(L, f);
  free(f);
}

/* Fill f (in block at *at) from p, carving its arrays and its
   nested functions' from the block.  0 when out of memory (f's parts
   made so far are then f's to free). */
static int from_proto_in(bc_proto *f, const Proto *p, const TString *psource,
                         char *block, size_t *at) {
  int i;
  memset(f, 0, sizeof *f);
  f->linedefined = p->linedefined;
  f->lastlinedefined = p->lastlinedefined;
  f->numparams = p->numparams;
  f->is_vararg = p->is_vararg;
  f->maxstacksize = p->maxstacksize;
  /* the code and line information are the Proto's, lent (read until
     the rewriter replaces them; bc_instr is Lua's Instruction) */
  f->code = p->code;
  f->lineinfo = p->lineinfo;
  f->borrowed = BC_BORROWED_CODE | BC_BORROWED_LINES | BC_BORROWED_ABS |
                BC_BORROWED_LOCVARS;
  f->k = carve(block, at, (size_t)p->sizek * sizeof(bc_const));
  f->upvalues = carve(block, at,
                      (size_t)p->sizeupvalues * sizeof(bc_upvaldesc));
  f->p = carve(block, at, (size_t)p->sizep * sizeof(bc_proto *));
  f->abslineinfo = carve(block, at,
                         (size_t)p->sizeabslineinfo * sizeof(bc_absline));
  f->locvars = carve(block, at, (size_t)p->sizelocvars * sizeof(bc_locvar));
  f->sizecode = p->sizecode;
  for (i = 0; i < p->sizek; i++, f->sizek++)
    if (!copy_const(&f->k[i], &p->k[i])) break;
  for (i = 0; i < p->sizeupvalues; i++) {
    f->upvalues[i].instack = p->upvalues[i].instack;
    f->upvalues[i].idx = p->upvalues[i].idx;
    f->upvalues[i].kind = p->upvalues[i].kind;
  }
  f->sizeupvalues = p->sizeupvalues;
  f->sizelineinfo = p->sizelineinfo;
  f->sizeabslineinfo = p->sizeabslineinfo;
  for (i = 0; i < p->sizeabslineinfo; i++) {
    f->abslineinfo[i].pc = p->abslineinfo[i].pc;
    f->abslineinfo[i].line = p->abslineinfo[i].line;
  }
  for (i = 0; i < p->sizelocvars; i++) {
    memset(&f->locvars[i].name, 0, sizeof f->locvars[i].name);
    f->locvars[i].startpc = p->locvars[i].startpc;
    f->locvars[i].endpc = p->locvars[i].endpc;
  }
  f->sizelocvars = p->sizelocvars;
  if (f->sizek < p->sizek) return 0;
  if (p->source != psource && !copy_tstring(&f->source, p->source)) return 0;
  for (i = 0; i < p->sizep; i++, f->sizep++) {
    f->p[i] = carve(block, at, sizeof(bc_proto));
    if (!from_proto_in(f->p[i], p->p[i], p->source, block, at)) {
      f->sizep++;  /* its parts made so far are freed with f's */
      return 0;
    }
  }
  return 1;
}

/* The model of p's tree, in one block (free_model), or NULL. */
static bc_proto *from_proto(lua_State *L, const Proto *p) {
  size_t at = 0;
  char *block = malloc(tree_size(p));  /* from_proto_in sets all it
                                          uses */
  bc_proto *f = (bc_proto *)(void *)block;
  if (f == NULL) return NULL;
  carve(block, &at, sizeof(bc_proto));
  if (!from_proto_in(f, p, NULL, block, &at)) {
    free_model(L, f);
    return NULL;
  }
  return f;
}

/* What the verifier trusts (rw_verify_lean): the code that Lua's parser
   produced, for every function in preorder.  The number of functions of
   p's tree. */
static int count_protos(const Proto *p) {
  int i, n = 1;
  for (i = 0; i < p->sizep; i++) n += count_protos(p->p[i]);
  return n;
}

static void originals(const Proto *p, rw_original *o, int *n) {
  int i;
  rw_original *x = &o[(*n)++];
  x->code = p->code;
  x->sizecode = p->sizecode;
  x->maxstacksize = p->maxstacksize;
  x->sizek = p->sizek;
  x->sizeupvalues = p->sizeupvalues;
  x->sizep = p->sizep;
  for (i = 0; i < p->sizep; i++) originals(p->p[i], o, n);
}

/* ---- chunk model -> Proto ---- */

typedef struct writeback {
  Proto *p;
  bc_proto *f;
} writeback;

/* An array that the emitter took from Lua's allocator (rw_options.alloc)
   becomes p's as it is: Lua counts it from here on, as luaM_malloc_
   would have, and the model no longer frees it. */
static void *adopt(lua_State *L, bc_proto *f, void *a, size_t size,
                   uint8_t hook, uint8_t borrowed) {
  G(L)->GCdebt += (l_mem)size;
  f->borrowed = (uint8_t)((f->borrowed & ~hook) | borrowed);
  return a;
}

/* Replace p's code and line information by f's, and remap its locals'
   pc ranges in place.  The new arrays are allocated (a memory error is
   raised) before anything changes, so that a collection during an
   allocation sees a consistent Proto; those that the emitter took from
   Lua's allocator (BC_HOOK_*) are adopted as they are, after that. */
static void write_proto(lua_State *L, Proto *p, bc_proto *f) {
  Instruction *code = NULL;
  ls_byte *li = NULL;
  AbsLineInfo *abs = NULL;
  struct AcctAhead *ah = NULL;
  int i;
  for (i = 0; i < p->sizep; i++) write_proto(L, p->p[i], f->p[i]);
  if (!(f->borrowed & BC_HOOK_CODE)) {
    code = luaM_newvectorchecked(L, f->sizecode, Instruction);
    memcpy(code, f->code, (size_t)f->sizecode * sizeof *code);
  }
  if (f->sizelineinfo > 0 && !(f->borrowed & BC_HOOK_LINES)) {
    li = luaM_newvectorchecked(L, f->sizelineinfo, ls_byte);
    memcpy(li, f->lineinfo, (size_t)f->sizelineinfo);
  }
  if (f->sizeabslineinfo > 0)
    abs = luaM_newvectorchecked(L, f->sizeabslineinfo, AbsLineInfo);
  for (i = 0; i < f->sizeabslineinfo; i++) {
    abs[i].pc = f->abslineinfo[i].pc;
    abs[i].line = f->abslineinfo[i].line;
  }
  if (f->sizeahead > 0)  /* what frames give back when left (ldo.c) */
    ah = luaM_newvectorchecked(L, f->sizeahead, struct AcctAhead);
  for (i = 0; i < f->sizeahead; i++) {
    ah[i].pc = f->ahead[i].pc;
    ah[i].n = f->ahead[i].n;
  }
  /* (an array the Proto lacks is not freed: freeing NULL changes
     nothing but costs a call of the allocator) */
  luaM_freearray(L, p->code, p->sizecode);
  if (p->lineinfo != NULL) luaM_freearray(L, p->lineinfo, p->sizelineinfo);
  if (p->abslineinfo != NULL)
    luaM_freearray(L, p->abslineinfo, p->sizeabslineinfo);
  if (p->acctahead != NULL)
    luaM_freearray(L, p->acctahead, p->sizeacctahead);
  if (f->borrowed & BC_HOOK_CODE)
    code = adopt(L, f, f->code, (size_t)f->sizecode * sizeof *code,
                 BC_HOOK_CODE, BC_BORROWED_CODE);
  if (f->borrowed & BC_HOOK_LINES)
    li = adopt(L, f, f->lineinfo, (size_t)f->sizelineinfo, BC_HOOK_LINES,
               BC_BORROWED_LINES);
  p->code = code;
  p->sizecode = f->sizecode;
  p->lineinfo = li;
  p->sizelineinfo = f->sizelineinfo;
  p->abslineinfo = abs;
  p->sizeabslineinfo = f->sizeabslineinfo;
  for (i = 0; i < p->sizelocvars; i++) {  /* the same locals, remapped
                                             (same_shape: as many) */
    p->locvars[i].startpc = f->locvars[i].startpc;
    p->locvars[i].endpc = f->locvars[i].endpc;
  }
  p->maxstacksize = f->maxstacksize;
  p->acctahead = ah;
  p->sizeacctahead = f->sizeahead;
  p->acctentry = (lua_Integer)f->entry;  /* the first block's charge */
  p->acctentrymode = f->entry_mode;
  if (ah != NULL) G(L)->acct.refunds = 1;  /* the VM looks for refunds */
}

static int write_all(lua_State *L) {
  writeback *w = lua_touserdata(L, 1);
  write_proto(L, w->p, w->f);
  return 0;
}

/* Whether the rewritten tree still matches p's in shape (the lraf VM's
   target adds no constant, upvalue, local or function). */
static int same_shape(const Proto *p, const bc_proto *f) {
  int i;
  if (f->sizek != p->sizek || f->sizeupvalues != p->sizeupvalues ||
      f->sizelocvars != p->sizelocvars || f->sizep != p->sizep)
    return 0;
  for (i = 0; i < f->sizep; i++)
    if (!same_shape(p->p[i], f->p[i])) return 0;
  return 1;
}

lraf_status rt_pipeline_in_place(lua_State *L, const rw_options *opt,
                                 rw_stats *stats, lraf_error *err) {
  bc_chunk chunk;
  writeback w;
  lraf_status st;
  rw_options ropt = *opt;
  int status;
  /* the emitter's final code and line information come from Lua's
     allocator (counted against the memory limit) and are written back
     as they are */
  ropt.alloc = lua_getallocf(L, &ropt.alloc_ud);
  /* the code stays here, with its table of refunds; a profile with
     per-line counts keeps exact mode's small blocks instead, so that its
     lines stay exact after errors too */
  ropt.refunds = !opt->lines;
  opt = &ropt;
  if (opt->target != RW_LRAVM || !lua_isfunction(L, -1) ||
      lua_iscfunction(L, -1))
    return err_fail(err, LRAF_EARG, "rt_pipeline_in_place: needs a Lua "
                    "function and the lraf VM's target");
  w.p = ((LClosure *)lua_topointer(L, -1))->p;
  chunk.main = from_proto(L, w.p);
  if (chunk.main == NULL)
    return err_fail(err, LRAF_EMEM, "out of memory reading a function");
  chunk.nupvalues = (uint8_t)chunk.main->sizeupvalues;
  st = rw_rewrite(&chunk, opt, stats, err);
  if (st == LRAF_OK) {  /* the Protos still hold the parser's code */
    rw_original few[32];  /* (most chunks: no malloc) */
    int n = count_protos(w.p), k = 0;
    rw_original *o = n <= 32 ? few : malloc((size_t)n * sizeof *o);
    if (o == NULL) {
      st = err_fail(err, LRAF_EMEM, "out of memory verifying a function");
    } else {
      originals(w.p, o, &k);
      st = rw_verify_lean(&chunk, o, n, err);
      if (o != few) free(o);
    }
  }
  if (st == LRAF_OK && !same_shape(w.p, chunk.main))
    st = err_fail(err, LRAF_EREWRITE, "the rewritten function does not fit "
                  "its prototype");
  if (st == LRAF_OK) {
    w.f = chunk.main;
    lua_pushcfunction(L, write_all);
    lua_pushlightuserdata(L, &w);
    status = lua_pcall(L, 1, 0, 0);
    if (status != LUA_OK) {
      lua_pop(L, 1);
      st = err_fail(err, status == LUA_ERRMEM ? LRAF_EMEM : LRAF_ERUN,
                    "cannot write the rewritten code back");
    } else if (opt->lines) {  /* a profile counts its ACCTs */
      rt_pfvm_attach(L, w.p, chunk.main);
    }
  }
  free_model(L, chunk.main);
  return st;
}

#else

lraf_status rt_pipeline_in_place(lua_State *L, const rw_options *opt,
                                 rw_stats *stats, lraf_error *err) {
  (void)L;
  (void)opt;
  (void)stats;
  return err_fail(err, LRAF_EARG, "rewriting in memory needs the lraf VM");
}

#endif
