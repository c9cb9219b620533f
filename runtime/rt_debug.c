/*
** rt_debug.c - the debug library of the full environment on the stock
** target, made blind to lraf's accounting.
**
** The rewriter gives every function two upvalues after its own (the
** counter cell and consume) and one register above its own (the
** scratch register r).  The functions here replace their namesakes of
** Debian's debug library and show what lua5.4 shows for the unmodified
** function:
**   - a function carries lraf's upvalues when its last two upvalues are
**     the anchor's counter and consume cells; getinfo's nups, getupvalue,
**     setupvalue, upvalueid and upvaluejoin then see only its own; no
**     upvalue of a C function can be read or set (both targets);
**   - frames running consume are not on the visible stack (getinfo,
**     getlocal, setlocal, traceback count levels without them);
**   - getlocal/setlocal of a frame of such a function skip r: index n
**     at or above the rewritten frame size names slot n + 1;
**   - hooks go through one dispatcher (hookf), which is also where the
**     stock target's profile gets its calls and returns on a thread
**     with a hook of the script's (rt_collector, rt_profile.c): each
**     thread's record keeps the script's own mask and count, and the
**     Lua hook's mask adds calls and returns while the collector follows
**     the thread (without a hook of the script's, the collector's hook
**     function is the thread's Lua hook); call and return events of
**     consume are dropped; a count hook of n is called each time the
**     thread's own count (the accounting, in the default model the
**     instructions the unmodified program runs) has advanced by n past
**     its last call (the events already due when sethook replaces the
**     hook are called first; none inside a hook);
**   - getregistry returns a table refreshed from the registry at each
**     call without lraf's entries (light-userdata keys, the integer
**     references lraf took before the script ran);
**   - debug.debug compiles its commands through the rewriter;
**   - setlocal cannot change a C function's stack, nor the type of
**     what Lua's VM reads from its own slots unchecked (a numeric for
**     loop's state, a constructor's table): lua5.4's can, and corrupts
**     the heap with it (check_slot).
** The lraf VM target keeps its counter in lua_State and needs none of
** the hiding; it keeps Lua's own sethook and gethook and uses the rest
** (the checks of setlocal are for both targets).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "rt_switch.h"

static const char *const HOOKKEY = "_HOOKKEY";  /* as lua5.4's */
static const char sizes_key = 0;     /* closure -> rewritten frame size */
static const char shadow_key = 0;    /* the registry as scripts see it */
static const char hidden_key = 0;    /* registry keys that are lraf's */

/* ---------------------------------------------------------------- */
/* Recognising lraf's parts                                          */
/* ---------------------------------------------------------------- */

static int is_consume(lua_State *L, int idx) {
  return lua_tocfunction(L, idx) == rt_consume;
}

/* The number of upvalues a script sees for the function at idx.  A
   native-charging wrapper (nat_wrap.c, nat_open.c: of a built-in, a
   searcher, a loader) stands for the function it wraps: its own upvalues (the cost
   box, the original) are lraf's. */
static int visible_upvalues(lua_State *L, int idx) {
  lua_Debug ar;
  int own = rt_own_upvalues(L, idx);
  if (own >= 0) return own;
  if (lua_type(L, idx) != LUA_TFUNCTION) return 0;
  if (nat_wrapped(L, idx)) {
    own = visible_upvalues(L, -1);
    lua_pop(L, 1);
    return own;
  }
  lua_pushvalue(L, idx);
  lua_getinfo(L, ">u", &ar);
  return ar.nups;
}

/* Replace a wrapper at idx by the function it stands for. */
static void unwrap(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  while (nat_wrapped(L, idx)) lua_replace(L, idx);
}

/* The frame size (maxstacksize) of the rewritten function at idx, read
   from its dump once per closure. */
static int frame_size(lua_State *L, int idx) {
  char *data = NULL;
  size_t n = 0;
  bc_chunk *chunk = NULL;
  int size = 0;
  idx = lua_absindex(L, idx);
  luaL_checkstack(L, 4, "too many nested calls");
  lua_rawgetp(L, LUA_REGISTRYINDEX, &sizes_key);
  lua_pushvalue(L, idx);
  if (lua_rawget(L, -2) == LUA_TNUMBER) {
    size = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return size;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, idx);
  if (rt_dump(L, 1, &data, &n, NULL) == LRAF_OK &&
      bc_read_rewritten(data, n, NULL, &chunk, NULL) == LRAF_OK)
    size = chunk->main->maxstacksize;
  free(data);
  bc_chunk_free(chunk);
  lua_pop(L, 1);
  if (size == 0) return luaL_error(L, "not enough memory");
  lua_pushvalue(L, idx);
  lua_pushinteger(L, size);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  return size;
}

/* A new weak-keyed table in the registry at key. */
static void new_weak(lua_State *L, const void *key) {
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

/* ---------------------------------------------------------------- */
/* Threads and levels                                                */
/* ---------------------------------------------------------------- */

static lua_State *getthread(lua_State *L, int *arg) {
  if (lua_isthread(L, 1)) {
    *arg = 1;
    return lua_tothread(L, 1);
  }
  *arg = 0;
  return L;
}

static void checkstack(lua_State *L, lua_State *L1, int n) {
  if (L != L1 && !lua_checkstack(L1, n)) luaL_error(L, "stack overflow");
}

/* Fill ar for visible level `level` of L1, skipping frames that run
   consume; 0 when there is no such level. */
static int getstack(lua_State *L, lua_State *L1, int level, lua_Debug *ar) {
  int real = 0, seen = -1;
  if (level < 0) return 0;
  checkstack(L, L1, 1);
  while (lua_getstack(L1, real, ar)) {
    int hidden;
    lua_getinfo(L1, "f", ar);
    hidden = is_consume(L1, -1);
    lua_pop(L1, 1);
    if (!hidden && ++seen == level) return 1;
    real++;
  }
  return 0;
}

/* The real level of visible level `level` (for luaL_traceback). */
static int real_level(lua_State *L, lua_State *L1, int level) {
  lua_Debug ar;
  int real = 0;
  checkstack(L, L1, 1);
  while (lua_getstack(L1, real, &ar)) {
    lua_getinfo(L1, "f", &ar);
    if (!is_consume(L1, -1)) {
      lua_pop(L1, 1);
      if (level-- <= 0) break;
    } else {
      lua_pop(L1, 1);
    }
    real++;
  }
  return real + (level > 0 ? level : 0);
}

/* The slot index to give lua_getlocal/lua_setlocal for index n of the
   frame ar of L1: the scratch register is passed over. */
static int local_index(lua_State *L, lua_State *L1, lua_Debug *ar, int n) {
  int size;
  if (n <= 0) return n;
  checkstack(L, L1, 1);
  lua_getinfo(L1, "f", ar);
  if (L != L1) lua_xmove(L1, L, 1);
  if (rt_own_upvalues(L, -1) < 0) {
    lua_pop(L, 1);
    return n;
  }
  size = frame_size(L, -1);
  lua_pop(L, 1);
  return n >= size ? n + 1 : n;
}

/* ---------------------------------------------------------------- */
/* getinfo, getlocal, setlocal                                       */
/* ---------------------------------------------------------------- */

static void settabss(lua_State *L, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static void settabsi(lua_State *L, const char *k, int v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void settabsb(lua_State *L, const char *k, int v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

static void treatstackoption(lua_State *L, lua_State *L1, const char *f) {
  if (L == L1)
    lua_rotate(L, -2, 1);
  else
    lua_xmove(L1, L, 1);
  lua_setfield(L, -2, f);
}

static int db_getinfo(lua_State *L) {
  lua_Debug ar;
  int arg, nups = -1;
  lua_State *L1 = getthread(L, &arg);
  const char *options = luaL_optstring(L, arg + 2, "flnSrtu");
  checkstack(L, L1, 4);
  luaL_argcheck(L, options[0] != '>', arg + 2, "invalid option '>'");
  if (lua_isfunction(L, arg + 1)) {
    if (strchr(options, 'u')) nups = visible_upvalues(L, arg + 1);
    options = lua_pushfstring(L, ">%s", options);
    lua_pushvalue(L, arg + 1);
    lua_xmove(L, L1, 1);
  } else {
    if (!getstack(L, L1, (int)luaL_checkinteger(L, arg + 1), &ar)) {
      luaL_pushfail(L);
      return 1;
    }
    if (strchr(options, 'u')) {
      lua_getinfo(L1, "f", &ar);
      lua_xmove(L1, L, 1);
      nups = visible_upvalues(L, -1);
      lua_pop(L, 1);
    }
  }
  if (!lua_getinfo(L1, options, &ar))
    return luaL_argerror(L, arg + 2, "invalid option");
  lua_newtable(L);
  if (strchr(options, 'S')) {
    lua_pushlstring(L, ar.source, ar.srclen);
    lua_setfield(L, -2, "source");
    settabss(L, "short_src", ar.short_src);
    settabsi(L, "linedefined", ar.linedefined);
    settabsi(L, "lastlinedefined", ar.lastlinedefined);
    settabss(L, "what", ar.what);
  }
  if (strchr(options, 'l')) settabsi(L, "currentline", ar.currentline);
  if (strchr(options, 'u')) {
    settabsi(L, "nups", nups);
    settabsi(L, "nparams", ar.nparams);
    settabsb(L, "isvararg", ar.isvararg);
  }
  if (strchr(options, 'n')) {
    settabss(L, "name", ar.name);
    settabss(L, "namewhat", ar.namewhat);
  }
  if (strchr(options, 'r')) {
    settabsi(L, "ftransfer", ar.ftransfer);
    settabsi(L, "ntransfer", ar.ntransfer);
  }
  if (strchr(options, 't')) settabsb(L, "istailcall", ar.istailcall);
  if (strchr(options, 'L')) treatstackoption(L, L1, "activelines");
  if (strchr(options, 'f')) treatstackoption(L, L1, "func");
  return 1;
}

static int db_getlocal(lua_State *L) {
  int arg;
  lua_State *L1 = getthread(L, &arg);
  int nvar = (int)luaL_checkinteger(L, arg + 2);
  lua_Debug ar;
  const char *name;
  if (lua_isfunction(L, arg + 1)) {
    lua_pushvalue(L, arg + 1);
    lua_pushstring(L, lua_getlocal(L, NULL, nvar));
    return 1;
  }
  if (!getstack(L, L1, (int)luaL_checkinteger(L, arg + 1), &ar))
    return luaL_argerror(L, arg + 1, "level out of range");
  nvar = local_index(L, L1, &ar, nvar);
  checkstack(L, L1, 1);
  name = lua_getlocal(L1, &ar, nvar);
  if (name == NULL) {
    luaL_pushfail(L);
    return 1;
  }
  lua_xmove(L1, L, 1);
  lua_pushstring(L, name);
  lua_rotate(L, -2, 1);
  return 2;
}

/* The kind of the value at idx as check_slot compares it: numbers by
   their subtype, since OP_FORLOOP reads an integer loop's state as
   integers and a float loop's as floats. */
static const char *slot_type(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TNUMBER)
    return lua_isinteger(L, idx) ? "integer" : "float";
  return luaL_typename(L, idx);
}

/* Whether slot nvar of frame ar of L1 may take the value on top of L.
   Lua's VM trusts what its compiler keeps in its own slots: a numeric
   for loop's state stays numbers of one subtype (OP_FORLOOP) and the
   table a constructor fills stays a table (OP_SETLIST), unchecked; a
   C function keeps pointers into the values on its stack (gsub into
   its subject string).  lua5.4's setlocal lets a script break each of
   these and corrupt the heap.  Here a C function's stack cannot be
   changed, and in Lua's own slots ("(for state)", and "(temporary)",
   which is also what a stripped function's loop state is called) a
   number only to a number of its subtype, a table only to a table. */
static void check_slot(lua_State *L, lua_State *L1, lua_Debug *ar,
                       int nvar, int arg) {
  const char *name, *old, *new;
  int t;
  checkstack(L, L1, 1);
  name = lua_getlocal(L1, ar, nvar);
  if (name == NULL) return;
  if (L != L1) lua_xmove(L1, L, 1);
  if (strcmp(name, "(C temporary)") == 0)
    luaL_argerror(L, arg + 1, "a C function's stack cannot be changed");
  t = lua_type(L, -1);
  if ((t == LUA_TNUMBER || t == LUA_TTABLE) &&
      (strcmp(name, "(for state)") == 0 || strcmp(name, "(temporary)") == 0)) {
    old = slot_type(L, -1);
    new = slot_type(L, -2);
    if (strcmp(old, new) != 0)
      luaL_argerror(L, arg + 3, lua_pushfstring(L, "%s expected for %s, "
                    "got %s", old, name, new));
  }
  lua_pop(L, 1);
}

static int db_setlocal(lua_State *L) {
  int arg;
  lua_State *L1 = getthread(L, &arg);
  lua_Debug ar;
  const char *name;
  int level = (int)luaL_checkinteger(L, arg + 1);
  int nvar = (int)luaL_checkinteger(L, arg + 2);
  if (!getstack(L, L1, level, &ar))
    return luaL_argerror(L, arg + 1, "level out of range");
  luaL_checkany(L, arg + 3);
  lua_settop(L, arg + 3);
  nvar = local_index(L, L1, &ar, nvar);
  check_slot(L, L1, &ar, nvar, arg);
  checkstack(L, L1, 1);
  lua_xmove(L, L1, 1);
  name = lua_setlocal(L1, &ar, nvar);
  if (name == NULL) lua_pop(L1, 1);
  lua_pushstring(L, name);
  return 1;
}

/* ---------------------------------------------------------------- */
/* Upvalues                                                          */
/* ---------------------------------------------------------------- */

/* n when upvalue n of the function at idx is visible, else 0.  No
   upvalue of a C function is: C code trusts what it keeps there
   (gmatch's state, a coroutine, a file, the function a charging
   iterator calls), lua5.4 crashes when a script replaces it, and
   reading a wrapper's would hand out the uncharged original.  getinfo
   still counts them (nups), as lua5.4 does. */
static int visible_upvalue(lua_State *L, int idx, int n) {
  if (lua_iscfunction(L, idx)) return 0;
  return n >= 1 && n <= visible_upvalues(L, idx) ? n : 0;
}

static int auxupvalue(lua_State *L, int get) {
  const char *name;
  int n = (int)luaL_checkinteger(L, 2);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  if (!visible_upvalue(L, 1, n)) return 0;
  unwrap(L, 1);
  name = get ? lua_getupvalue(L, 1, n) : lua_setupvalue(L, 1, n);
  if (name == NULL) return 0;
  lua_pushstring(L, name);
  lua_insert(L, -(get + 1));
  return get + 1;
}

static int db_getupvalue(lua_State *L) {
  return auxupvalue(L, 1);
}

static int db_setupvalue(lua_State *L) {
  luaL_checkany(L, 3);
  return auxupvalue(L, 0);
}

static void *checkupval(lua_State *L, int argf, int argnup, int *pnup) {
  void *id = NULL;
  int nup = (int)luaL_checkinteger(L, argnup);
  luaL_checktype(L, argf, LUA_TFUNCTION);
  if (visible_upvalue(L, argf, nup)) {
    unwrap(L, argf);
    id = lua_upvalueid(L, argf, nup);
  }
  if (pnup) {
    luaL_argcheck(L, id != NULL, argnup, "invalid upvalue index");
    *pnup = nup;
  }
  return id;
}

static int db_upvalueid(lua_State *L) {
  void *id = checkupval(L, 1, 2, NULL);
  if (id != NULL)
    lua_pushlightuserdata(L, id);
  else
    luaL_pushfail(L);
  return 1;
}

static int db_upvaluejoin(lua_State *L) {
  int n1, n2;
  checkupval(L, 1, 2, &n1);
  checkupval(L, 3, 4, &n2);
  luaL_argcheck(L, !lua_iscfunction(L, 1), 1, "Lua function expected");
  luaL_argcheck(L, !lua_iscfunction(L, 3), 3, "Lua function expected");
  lua_upvaluejoin(L, 1, n1, 3, n2);
  return 0;
}

/* ---------------------------------------------------------------- */
/* Hooks                                                             */
/* ---------------------------------------------------------------- */

/* What the thread L has been charged, flushed and live. */
static int64_t thread_count(lua_State *L) {
  rt_thread *t = rt_thread_of(L);
  lraf_state *S = t->S;
  if (t->acct == NULL) return 0;
  if (S->cur != t) rt_switch(S, L, t, 0);
  rt_settle(S);
  return lraf_account_flushed(t->acct) + rt_live_run(S, L);
}

/* The next count event of L (record t) is due count units from now. */
static void arm(lua_State *L, rt_thread *t) {
  t->hooknext = thread_count(L) + t->hookcount;
  t->hookarmed = 1;
}

/* The same for a thread t that L is not: a coroutine that has not run
   yet, or is suspended, or the one that resumed L.  Its count stands
   still until it runs again, so the count starts from here, as
   lua5.4's does, not from its first event. */
static void arm_other(lua_State *L, rt_thread *t) {
  lraf_state *S = t->S;
  int64_t n = 0;
  if (t->acct != NULL) {
    rt_settle(S);
    n = lraf_account_flushed(t->acct);
    if (S->cur == t) n += rt_live_run(S, L);
  }
  t->hooknext = n + t->hookcount;
  t->hookarmed = 1;
}

/* The collector's part of L's hook: whether it follows L now. */
static int collecting(const lraf_state *S, const rt_thread *t) {
  return S->collector != NULL && t->followed;
}

/* A count hook also takes calls and returns: the events due there are
   called before the call or the return, as in lua5.4 (a coroutine's
   last ones before it ends or yields). */
static int wanted_mask(const lraf_state *S, const rt_thread *t) {
  int follow = collecting(S, t) || (t->hookmask & LUA_MASKCOUNT);
  return t->hookmask | (follow ? LUA_MASKCALL | LUA_MASKRET : 0);
}

/* Call the thread's hook function with (event, line), the stack as
   lua5.4's hook leaves it: the hook table, then the function called
   (getlocal can see both).  The hook may
   interrupt a block whose scratch register runs ahead of the counter
   cell, or holds its value, and will write it back: so the cell gets
   its value from before the hook again, and what the hook was charged
   and has not flushed moves into S->base, where the next flush finds
   it.  An error in the hook propagates after the same repair.  A
   collector that follows the thread sees the function as a frame. */
static void call_hook(lua_State *L, lua_Debug *ar, const char *event) {
  rt_thread *t = rt_thread_of(L);
  lraf_state *S = t->S;
  int64_t v0;
  int status, line = ar->event == LUA_HOOKLINE ? ar->currentline : -1;
  const rt_collector *C = collecting(S, t) ? S->collector : NULL;
  if (lua_getfield(L, LUA_REGISTRYINDEX, HOOKKEY) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  lua_pushthread(L);
  if (lua_rawget(L, -2) != LUA_TFUNCTION) {
    lua_pop(L, 2);
    return;
  }
  if (S->cur != t) rt_switch(S, L, t, 0);
  if (C != NULL) C->enter(L, ar);
  v0 = rt_counter_cell(S, L);
  lua_pushstring(L, event);
  if (line >= 0)
    lua_pushinteger(L, line);
  else
    lua_pushnil(L);
  t->hookbusy++;
  status = lua_pcall(L, 2, 0, 0);
  t->hookbusy--;
  if (S->cur == t && !S->quota) {
    int64_t v1 = rt_counter_cell(S, L);
    S->base = v0 - (v1 - S->base);
    rt_counter_set_cell(S, L, v0);
  }
  if (C != NULL && S->collector == C) C->leave(L);
  if (status != LUA_OK) lua_error(L);
  lua_pop(L, 1);
}

/* The count event: one call per `count` units of the thread's own
   count.  next is in the program's own count; what the hook runs
   shifts it: as in lua5.4, the hook's instructions count and the events
   that fall inside the hook are lost.  A hook that sets a new count
   hook of the thread (arm, inside it) restarts the count there: the
   rest of the hook counts towards the new one, as in lua5.4, where the
   call may come late (the new count then starts from the event's own
   place, not from now). */
static void count_event(lua_State *L, lua_Debug *ar, rt_thread *t) {
  int64_t now = thread_count(L), extra = 0;
  if (!t->hookarmed) arm(L, t);
  while (t->hookcount > 0 && t->hooknext <= now) {
    int64_t before = thread_count(L), c, rest, next = t->hooknext;
    int64_t n = t->hookcount;
    call_hook(L, ar, "count");
    if (t->hookcount == 0) return;
    c = thread_count(L) - before;
    if (!t->hookarmed) arm(L, t);
    if (t->hooknext == next) {
      rest = c;  /* the same hook: the whole of it counts */
    } else {     /* a new one, armed count units after its sethook */
      n = t->hookcount;
      rest = c - (t->hooknext - n - before);
      if (rest < 0) rest = 0;
    }
    extra += c;
    t->hooknext = next + n - rest % n;
  }
  if (t->hooknext > now) t->hooknext += extra;
}

/* Before sethook replaces the running thread L's hook: the count
   events already due, as lua5.4 calls them before the CALL of sethook
   runs.  The real count hook comes every count instructions of the
   rewritten code, so an event due since the last one (after a loop's
   write-back, say) would be lost with the hook.  None inside a hook:
   lua5.4 calls no hook there. */
static void count_due(lua_State *L, rt_thread *t) {
  lua_Debug ar;
  if (t->hookcount <= 0 || !t->hookarmed || t->hookbusy) return;
  luaL_checkstack(L, 6, "too many nested calls");
  memset(&ar, 0, sizeof ar);
  ar.event = LUA_HOOKCOUNT;
  ar.currentline = -1;
  count_event(L, &ar, t);
}

/* The script's hook function for an event of its mask. */
static void script_event(lua_State *L, lua_Debug *ar, rt_thread *t) {
  static const char *const names[] =
      {"call", "return", "line", "count", "tail call"};
  int hidden = 0;
  if (!lua_checkstack(L, 6)) return;
  if (ar->event == LUA_HOOKCOUNT) {
    count_event(L, ar, t);
    return;
  }
  if (ar->event != LUA_HOOKLINE) {
    lua_getinfo(L, "f", ar);
    hidden = is_consume(L, -1);
    lua_pop(L, 1);
  }
  if (!hidden) call_hook(L, ar, names[ar->event]);
}

/* The one debug hook lraf gives a thread: the collector's calls and
   returns first, then the script's own hook function for the events
   of its mask. */
static void hookf(lua_State *L, lua_Debug *ar) {
  static const int masks[] = {LUA_MASKCALL, LUA_MASKRET, LUA_MASKLINE,
                              LUA_MASKCOUNT, LUA_MASKCALL};
  rt_thread *t = rt_switch_thread(L, L);
  lraf_state *S = t->S;
  int mask = masks[ar->event];
  if (t->hookbusy) return;  /* a hook sethook called: none inside */
  if (lua_gethookmask(L) != wanted_mask(S, t)) {
    /* inherited, or the collector stopped since */
    rt_hook_set(L);
    if (!(wanted_mask(S, t) & mask)) return;
  }
  if ((t->hookmask & LUA_MASKCOUNT) && (mask & (LUA_MASKCALL | LUA_MASKRET)))
    count_due(L, t);
  if (collecting(S, t) && (mask & (LUA_MASKCALL | LUA_MASKRET)))
    S->collector->event(L, ar);
  if (t->hookmask & mask) script_event(L, ar, t);
}

/* Whether h is one of lraf's hook functions. */
static int own_hook(const lraf_state *S, lua_Hook h) {
  return h == hookf || (S->collector != NULL && h == S->collector->event);
}

/* A thread without a hook of the script's gets the collector's own hook
   function, without the dispatcher in between. */
void rt_hook_set(lua_State *L1) {
  rt_thread *t = rt_thread_of(L1);
  lraf_state *S = t->S;
  int mask = wanted_mask(S, t);
  lua_Hook h = t->hookmask == 0 && collecting(S, t) ? S->collector->event
                                                    : hookf;
  lua_sethook(L1, mask ? h : NULL, mask, t->hookcount);
}

int rt_hook_foreign(lua_State *L) {
  lua_Hook h = lua_gethook(L);
  return h != NULL && !own_hook(rt_state(L), h);
}

static int makemask(const char *smask, int count) {
  int mask = 0;
  if (strchr(smask, 'c')) mask |= LUA_MASKCALL;
  if (strchr(smask, 'r')) mask |= LUA_MASKRET;
  if (strchr(smask, 'l')) mask |= LUA_MASKLINE;
  if (count > 0) mask |= LUA_MASKCOUNT;
  return mask;
}

static char *unmakemask(int mask, char *smask) {
  int i = 0;
  if (mask & LUA_MASKCALL) smask[i++] = 'c';
  if (mask & LUA_MASKRET) smask[i++] = 'r';
  if (mask & LUA_MASKLINE) smask[i++] = 'l';
  smask[i] = '\0';
  return smask;
}

static int db_sethook(lua_State *L) {
  int arg, mask, count;
  lua_State *L1 = getthread(L, &arg);
  rt_thread *t1;
  if (lua_isnoneornil(L, arg + 1)) {
    lua_settop(L, arg + 1);
    mask = 0;
    count = 0;
  } else {
    const char *smask = luaL_checkstring(L, arg + 2);
    luaL_checktype(L, arg + 1, LUA_TFUNCTION);
    count = (int)luaL_optinteger(L, arg + 3, 0);
    mask = makemask(smask, count);
  }
  if (L1 == L) count_due(L, rt_thread_of(L));
  if (!luaL_getsubtable(L, LUA_REGISTRYINDEX, HOOKKEY)) {
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_pushvalue(L, -1);
    lua_setmetatable(L, -2);
  }
  checkstack(L, L1, 1);
  lua_pushthread(L1);
  lua_xmove(L1, L, 1);
  lua_pushvalue(L, arg + 1);
  lua_rawset(L, -3);
  t1 = rt_thread_other(L, L1);
  t1->hookmask = mask;
  t1->hookcount = mask ? count : 0;  /* lua5.4: no mask, no hook */
  /* the count restarts from now, as lua5.4's does */
  t1->hookarmed = 0;
  rt_hook_set(L1);
  if (t1->hookcount > 0 && L1 == L)
    arm(L, t1);
  else if (t1->hookcount > 0)
    arm_other(L, t1);
  return 0;
}

static int db_gethook(lua_State *L) {
  int arg;
  lua_State *L1 = getthread(L, &arg);
  rt_thread *t1 = rt_thread_other(L, L1);
  char buff[5];
  lua_Hook hook = lua_gethook(L1);
  if (hook == NULL || (own_hook(t1->S, hook) && t1->hookmask == 0)) {
    luaL_pushfail(L);  /* none, or only the collector's */
    return 1;
  } else if (!own_hook(t1->S, hook)) {
    lua_pushliteral(L, "external hook");
    lua_pushstring(L, unmakemask(lua_gethookmask(L1), buff));
    lua_pushinteger(L, lua_gethookcount(L1));
    return 3;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, HOOKKEY);
  checkstack(L, L1, 1);
  lua_pushthread(L1);
  lua_xmove(L1, L, 1);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  lua_pushstring(L, unmakemask(t1->hookmask, buff));
  lua_pushinteger(L, t1->hookcount);
  return 3;
}

/* ---------------------------------------------------------------- */
/* Registry, traceback, debug.debug                                  */
/* ---------------------------------------------------------------- */

static int db_getregistry(lua_State *L) {
  lua_settop(L, 0);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &shadow_key);   /* 1 */
  lua_rawgetp(L, LUA_REGISTRYINDEX, &hidden_key);   /* 2 */
  lua_pushnil(L);
  while (lua_next(L, LUA_REGISTRYINDEX)) {
    lua_pushvalue(L, -2);
    if (lua_type(L, -1) == LUA_TLIGHTUSERDATA || lua_rawget(L, 2) != LUA_TNIL) {
      lua_pop(L, 2);
      continue;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, 1);
  }
  lua_settop(L, 1);
  return 1;
}

static int db_traceback(lua_State *L) {
  int arg;
  lua_State *L1 = getthread(L, &arg);
  const char *msg = lua_tostring(L, arg + 1);
  if (msg == NULL && !lua_isnoneornil(L, arg + 1)) {
    lua_pushvalue(L, arg + 1);
  } else {
    int level = (int)luaL_optinteger(L, arg + 2, (L == L1) ? 1 : 0);
    if (level >= 0) level = real_level(L, L1, level);
    luaL_traceback(L, L1, msg, level);
  }
  return 1;
}

static int db_debug(lua_State *L) {
  for (;;) {
    char buffer[250];
    lua_writestringerror("%s", "lua_debug> ");
    if (fgets(buffer, sizeof buffer, stdin) == NULL ||
        strcmp(buffer, "cont\n") == 0)
      return 0;
    if (rt_load_buffer(L, buffer, strlen(buffer), "=(debug command)", "t")
            .status != LUA_OK ||
        lua_pcall(L, 0, 0, 0) != LUA_OK) {
      if (rt_stopping(L, LUA_ERRRUN)) return rt_raise_quota(L);
      lua_writestringerror("%s\n", luaL_tolstring(L, -1, NULL));
    }
    lua_settop(L, 0);
  }
}

static const luaL_Reg funcs[] = {
  {"debug", db_debug},
  {"gethook", db_gethook},
  {"getinfo", db_getinfo},
  {"getlocal", db_getlocal},
  {"getregistry", db_getregistry},
  {"getupvalue", db_getupvalue},
  {"upvaluejoin", db_upvaluejoin},
  {"upvalueid", db_upvalueid},
  {"sethook", db_sethook},
  {"setlocal", db_setlocal},
  {"setupvalue", db_setupvalue},
  {"traceback", db_traceback},
  {NULL, NULL}
};

void rt_debug_open(lua_State *L) {
  const luaL_Reg *f;
  new_weak(L, &sizes_key);
  lua_newtable(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &shadow_key);
  /* the integer references taken so far are lraf's */
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, LUA_REGISTRYINDEX)) {
    lua_pop(L, 1);
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > LUA_RIDX_LAST) {
      lua_pushvalue(L, -1);
      lua_pushboolean(L, 1);
      lua_rawset(L, -4);
    }
  }
  lua_rawsetp(L, LUA_REGISTRYINDEX, &hidden_key);
  if (lua_getglobal(L, LUA_DBLIBNAME) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  for (f = funcs; f->name != NULL; f++) {
    /* the lraf VM's hooks never see ACCT and no hook can reach its
       counter: Lua's own sethook and gethook serve there */
    if (rt_state(L)->opt.target == RW_LRAVM &&
        (f->func == db_sethook || f->func == db_gethook))
      continue;
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  nat_wrap_lib(L, -1, "debug");  /* levels walked (nat_hidden.c) */
  lua_pop(L, 1);
}
