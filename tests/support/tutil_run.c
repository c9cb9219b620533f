/*
** tutil_run.c - running Lua source unmodified under a count hook, or
** rewritten by lraf with a minimal counter binding, for the tests.
** Rewritten for the lraf VM (target RW_LRAVM, built with LRAF_VM=1), the
** counter is the state's ACCT counter and consume is set with
** lua_setacctconsume instead of upvalues.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "rt.h"
#include "rt_pipeline.h"
#include "tutil_capture.h"
#include "tutil_run.h"

/* One run's state, reachable from the Lua C functions below. */
typedef struct run_state {
  tutil_run *r;
  const rw_options *opt;
  long long granularity;
  long long flushed;
  int counter_up;   /* 1-based upvalue index of the counter in main */
} run_state;

static long long hook_count;
long long tutil_run_consume_limit = 0;
static const char *const MAIN_KEY = "tutil.main";
static const char *const STATE_KEY = "tutil.state";

static run_state *get_state(lua_State *L) {
  run_state *s;
  lua_getfield(L, LUA_REGISTRYINDEX, STATE_KEY);
  s = (run_state *)lua_touserdata(L, -1);
  lua_pop(L, 1);
  return s;
}

static void count_hook(lua_State *L, lua_Debug *ar) {
  (void)L; (void)ar;
  hook_count++;
}

static lua_State *new_state(run_state *s) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_pushlightuserdata(L, s);
  lua_setfield(L, LUA_REGISTRYINDEX, STATE_KEY);
  tutil_capture(L, &s->r->output, &s->r->outlen);
  return L;
}

static void finish(lua_State *L, tutil_run *r, int status) {
  r->ok = status == LUA_OK;
  if (!r->ok) {
    const char *m = lua_tostring(L, -1);
    snprintf(r->error, sizeof r->error, "%s", m ? m : "(non-string error)");
  }
}

void tutil_run_every(const char *src, size_t len, const char *name,
                     int period, tutil_run *r) {
  run_state s;
  lua_State *L;
  int st;
  memset(r, 0, sizeof *r);
  memset(&s, 0, sizeof s);
  s.r = r;
  L = new_state(&s);
  st = luaL_loadbuffer(L, src, len, name);
  if (st == LUA_OK) {
    hook_count = 0;
    if (period > 0) lua_sethook(L, count_hook, LUA_MASKCOUNT, period);
    st = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
    r->count = hook_count;
  }
  finish(L, r, st);
  lua_close(L);
}

void tutil_run_hook(const char *src, size_t len, const char *name,
                    tutil_run *r) {
  tutil_run_every(src, len, name, 1, r);
}

/* ---------------------------------------------------------------- */
/* Rewritten runs                                                    */
/* ---------------------------------------------------------------- */

/* The lraf VM's counter (NULL on stock Lua, where no chunk for the
   lraf VM can run). */
static lua_Integer *bc_counter(lua_State *L) {
#ifdef LUA_ACCT_VM
  return lua_acctcounter(L);
#else
  (void)L;
  return NULL;
#endif
}

static void counter_get(lua_State *L, run_state *s) {
  if (s->opt->target == RW_LRAVM) {
    lua_pushinteger(L, *bc_counter(L));
    return;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, MAIN_KEY);
  lua_getupvalue(L, -1, s->counter_up);
  lua_remove(L, -2);
}

static void counter_set(lua_State *L, run_state *s, long long v) {
  if (s->opt->target == RW_LRAVM) {
    *bc_counter(L) = v;
    return;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, MAIN_KEY);
  lua_pushinteger(L, v);
  lua_setupvalue(L, -2, s->counter_up);
  lua_pop(L, 1);
}

static int consume(lua_State *L) {
  run_state *s = get_state(L);
  counter_get(L, s);
  s->flushed += lua_tointeger(L, -1) + s->granularity;
  lua_pop(L, 1);
  if (s->opt->mode == RW_OVERHEAD) s->flushed += rw_consume_overhead(s->opt);
  s->r->consumes++;
  counter_set(L, s, -s->granularity);
  if (tutil_run_consume_limit > 0 && s->r->consumes >= tutil_run_consume_limit)
    return luaL_error(L, "tutil: consume limit reached");
  return 0;
}

typedef struct readbuf {
  const char *p;
  size_t n;
} readbuf;

static const char *buf_reader(lua_State *L, void *ud, size_t *size) {
  readbuf *b = ud;
  (void)L;
  *size = b->n;
  b->n = 0;
  return *size ? b->p : NULL;
}

static void add_stats(rw_stats *to, const rw_stats *s) {
  to->functions += s->functions;
  to->blocks += s->blocks;
  to->increments += s->increments;
  to->synced += s->synced;
  to->lazy += s->lazy;
  to->flushes += s->flushes;
  to->folded += s->folded;
  to->branch_folds += s->branch_folds;
  to->paid_by_preds += s->paid_by_preds;
  to->paid_at_end += s->paid_at_end;
  to->paid_at_entry += s->paid_at_entry;
  to->paid_by_tforloop += s->paid_by_tforloop;
  to->checks += s->checks;
  to->stubs += s->stubs;
  to->widened += s->widened;
  to->code_before += s->code_before;
  to->code_after += s->code_after;
}

/* Compile, rewrite, verify and load src; pushes the function (or an
   error message) and returns a Lua status.  *counter_up is the 1-based
   index of the counter upvalue of the loaded function. */
static int load_rewritten(lua_State *L, run_state *s, const char *src,
                          size_t len, const char *name, int *counter_up) {
  lraf_error err;
  bc_chunk *chunk = NULL;
  void *bytes = NULL;
  size_t size = 0;
  readbuf rb;
  rw_stats stats;
  rt_input in;
  lraf_status ls;
  int st = luaL_loadbufferx(L, src, len, name, "t");
  if (st != LUA_OK) return st;
  if (s->opt->target == RW_LRAVM) {  /* in memory, as the runtime does */
    memset(&stats, 0, sizeof stats);
    ls = rt_pipeline_in_place(L, s->opt, &stats, &err);
    if (ls != LRAF_OK) {
      lua_pop(L, 1);
      lua_pushfstring(L, "lraf: %s", err.message);
      return LUA_ERRSYNTAX;
    }
    add_stats(&s->r->stats, &stats);
    *counter_up = 0;
    return LUA_OK;
  }
  in.kind = RT_INPUT_TOP;
  in.L = L;
  ls = rt_pipeline(&in, s->opt, &stats, &chunk, &err);
  if (ls == LRAF_OK) ls = bc_write(chunk, &bytes, &size, &err);
  if (ls != LRAF_OK) {
    bc_chunk_free(chunk);
    lua_pushfstring(L, "lraf: %s", err.message);
    return LUA_ERRSYNTAX;
  }
  add_stats(&s->r->stats, &stats);
  *counter_up = RW_COUNTER_UPVAL(chunk->main->sizeupvalues - 2) + 1;
  bc_chunk_free(chunk);
  rb.p = bytes;
  rb.n = size;
  st = lua_load(L, buf_reader, &rb, name, "b");
  free(bytes);
  return st;
}

/* load(chunk [, name [, mode [, env]]]) for strings, through lraf. */
static int rewriting_load(lua_State *L) {
  run_state *s = get_state(L);
  size_t len;
  const char *src = luaL_checklstring(L, 1, &len);
  const char *name = luaL_optstring(L, 2, src);
  int up, st, env = !lua_isnone(L, 4);
  st = load_rewritten(L, s, src, len, name, &up);
  if (st != LUA_OK) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
  if (s->opt->target != RW_LRAVM) {
    lua_getfield(L, LUA_REGISTRYINDEX, MAIN_KEY);
    lua_upvaluejoin(L, -2, up, -1, s->counter_up);
    lua_upvaluejoin(L, -2, up + 1, -1, s->counter_up + 1);
    lua_pop(L, 1);
  }
  if (env) {
    lua_pushvalue(L, 4);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

void tutil_run_rewritten(const char *src, size_t len, const char *name,
                         const rw_options *opt, long long granularity,
                         int hook, tutil_run *r) {
  run_state s;
  lua_State *L;
  int st, up;
  memset(r, 0, sizeof *r);
  memset(&s, 0, sizeof s);
  s.r = r;
  s.opt = opt;
  s.granularity = granularity;
  L = new_state(&s);
  lua_pushcfunction(L, rewriting_load);
  lua_setglobal(L, "load");
  st = load_rewritten(L, &s, src, len, name, &up);
  if (st == LUA_OK) {
    s.counter_up = up;
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, MAIN_KEY);
    if (opt->target == RW_LRAVM) {
#ifdef LUA_ACCT_VM
      *bc_counter(L) = -granularity;
      rt_vm_bind(L, consume, opt, 0);  /* as the runtime binds it */
#endif
    } else {
      lua_pushinteger(L, -granularity);
      lua_setupvalue(L, -2, up);
      lua_pushcfunction(L, consume);
      lua_setupvalue(L, -2, up + 1);
    }
    hook_count = 0;
    if (hook) lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    st = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
    counter_get(L, &s);
    r->count = s.flushed + lua_tointeger(L, -1) + granularity;
    lua_pop(L, 1);
    if (hook) r->count = hook_count;
  }
  finish(L, r, st);
  lua_close(L);
}

void tutil_run_free(tutil_run *r) {
  free(r->output);
  r->output = NULL;
}

int tutil_run_same_output(const tutil_run *a, const tutil_run *b) {
  return a->outlen == b->outlen &&
         (a->outlen == 0 || memcmp(a->output, b->output, a->outlen) == 0);
}

double tutil_run_accounting_ratio(const char *src, size_t len,
                                  const char *name, const rw_options *opt,
                                  rw_stats *stats) {
  tutil_run plain, rw;
  double ratio = -1;
  tutil_run_hook(src, len, name, &plain);
  tutil_run_rewritten(src, len, name, opt, 100000, 1, &rw);
  if (plain.ok && rw.ok && plain.count > 0)
    ratio = (double)(rw.count - plain.count) / (double)plain.count;
  if (stats != NULL) *stats = rw.stats;
  tutil_run_free(&plain);
  tutil_run_free(&rw);
  return ratio;
}

char *tutil_run_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
      free(buf);
      buf = NULL;
    } else {
      buf[n] = '\0';
      *len = (size_t)n;
    }
  }
  fclose(f);
  return buf;
}
