/*
** nat_next.c - next charged by the slots it scans, and pairs handing
** out that next.
**
** next(t, k) skips every empty slot after k: the rest of the array
** part, then the hash part's nodes, up to the next entry.  Lua's API
** does not tell how large the two parts are, so this file reads them
** from the table's header as Lua 5.4 lays it out (lobject.h: Table,
** TValue, Node), after checking at startup, on tables it builds, that
** the layout is that one; when it is not, next is charged per call only
** (docs/cost-model.md says so).  The size function scans the slots Lua
** will scan, charging as it goes, so a quota stops it before the stock
** next repeats the scan.  To start after a key of the hash part it must
** find that key's node: a per-state cache holds where recent scans
** ended (a traversal asks for exactly those keys); otherwise the nodes
** are searched from the first, and that is charged too.
*/
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "nat_wrap.h"
#include "nat_next.h"

/* Lua 5.4's layout (lobject.h), as far as it is read here. */
typedef union peek_val {
  const void *p;
  int64_t i;
  double n;
} peek_val;

typedef struct peek_tv {   /* TValue */
  peek_val v;
  unsigned char tt;
} peek_tv;

typedef struct peek_node { /* Node */
  peek_val v;
  unsigned char tt;
  unsigned char key_tt;
  int next;
  peek_val key;
} peek_node;

typedef struct peek_table { /* Table */
  const void *gcnext;
  unsigned char tt, marked, flags, lsizenode;
  unsigned int alimit;
  const peek_tv *array;
  const peek_node *node;
  const peek_node *lastfree;
} peek_table;

#define TAG_TABLE 0x05     /* LUA_VTABLE (headers have no collectable bit) */
#define TAG_INT 0x03       /* LUA_VNUMINT */
#define TAG_FLOAT 0x13     /* LUA_VNUMFLT */
#define TAG_SHORTSTR 0x44  /* LUA_VSHRSTR | collectable */
#define TAG_DEADKEY 11     /* LUA_TDEADKEY */
#define NOT_REAL_ASIZE 0x80  /* flags: alimit is not the array's size */
#define EMPTY(tt) (((tt) & 0x0F) == 0)

#define HINTS 8
/* Slots scanned between two charges: a bounded slice of the scan. */
#define SLICE 65536

typedef struct scan_state {
  int ok;             /* the layout checked out */
  lua_CFunction next; /* the stock next (what pairs returns) */
  struct {
    const void *t;
    unsigned node;    /* where a scan of t last ended */
  } hint[HINTS];
  unsigned nexthint;  /* the entry a new table takes (round robin: which
                         entry a table gets must not follow its address,
                         or the charge would) */
} scan_state;

static const char state_key = 'n';
static const char next_key = 'x';

static scan_state *get_state(lua_State *L) {
  return rt_state(L)->natnext;
}

static unsigned array_size(const peek_table *t) {
  unsigned s = t->alimit;
  if ((t->flags & NOT_REAL_ASIZE) == 0 || (s & (s - 1)) == 0) return s;
  s |= s >> 1;
  s |= s >> 2;
  s |= s >> 4;
  s |= s >> 8;
  s |= s >> 16;
  return s + 1;
}

/* A key, as a node holds it: its tag and its value's bits (tag -1:
   compare the tag only, for booleans). */
typedef struct key_id {
  int tag;      /* the node's key_tt for a live key */
  int bits;     /* compare the value too */
  int dead_ok;  /* a collectable key: a dead node with its object counts */
  peek_val v;
} key_id;

static void key_of(lua_State *L, int idx, key_id *k) {
  int t = lua_type(L, idx);
  k->bits = 1;
  k->dead_ok = 0;
  k->v.i = 0;
  switch (t) {
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        k->tag = TAG_INT;
        k->v.i = lua_tointeger(L, idx);
      } else {
        k->tag = TAG_FLOAT;
        k->v.n = lua_tonumber(L, idx);
      }
      break;
    case LUA_TBOOLEAN:
      k->tag = lua_toboolean(L, idx) ? 0x11 : 0x01;
      k->bits = 0;
      break;
    case LUA_TLIGHTUSERDATA:
      k->tag = 0x02;
      k->v.p = lua_touserdata(L, idx);
      break;
    default:  /* collectable (or a light C function): its address */
      k->tag = -t;  /* any variant of type t */
      k->dead_ok = 1;
      k->v.p = lua_topointer(L, idx);
      break;
  }
}

/* Is node n's key k (a live key, or a dead one whose object is k's: next
   accepts both)? */
static int same_key(const key_id *k, const peek_node *n) {
  int tt = n->key_tt;
  if (k->tag >= 0 ? tt != k->tag
                  : (tt & 0x0F) != -k->tag &&
                    !(k->dead_ok && tt == TAG_DEADKEY))
    return 0;
  return !k->bits || memcmp(&n->key, &k->v, sizeof k->v) == 0;
}

typedef struct scan {
  lua_State *L;
  const nat_model *m;
  int64_t pending;  /* slots scanned and not charged yet */
} scan;

/* A node costs this many array slots to scan (24 bytes against 16, and
   its key is read too: measured with make bench-native). */
#define NODE_WEIGHT 5

/* One more slot scanned, of weight w: charged a slice at a time. */
static void count(scan *sc, int w) {
  sc->pending += w;
  if (sc->pending >= SLICE) {
    nat_steps(sc->L, sc->m, sc->pending);
    sc->pending = 0;
  }
}

/* The hint entry of t, or -1. */
static int hint_of(const scan_state *ns, const peek_table *t) {
  int h;
  for (h = 0; h < HINTS; h++)
    if (ns->hint[h].t == t) return h;
  return -1;
}

/* Note that a scan of t ended at node i. */
static void hint_set(scan_state *ns, const peek_table *t, unsigned i) {
  int h = hint_of(ns, t);
  if (h < 0) {
    h = (int)(ns->nexthint++ % HINTS);
    ns->hint[h].t = t;
  }
  ns->hint[h].node = i;
}

/* The node index of the key at idx in t's hash part of hs nodes, or -1. */
static long find_node(scan_state *ns, scan *sc, const peek_table *t,
                      unsigned hs, int idx) {
  int h = hint_of(ns, t);
  unsigned i;
  key_id k;
  key_of(sc->L, idx, &k);
  if (h >= 0 && ns->hint[h].node < hs &&
      same_key(&k, &t->node[ns->hint[h].node]))
    return (long)ns->hint[h].node;
  for (i = 0; i < hs; i++) {
    count(sc, NODE_WEIGHT);
    if (same_key(&k, &t->node[i])) return (long)i;
  }
  return -1;
}

int64_t nat_next_size(lua_State *L, const nat_model *m) {
  scan_state *ns;
  const peek_table *t;
  unsigned as, hs, i;
  scan sc;
  if (lua_type(L, 1) != LUA_TTABLE || (ns = get_state(L)) == NULL ||
      !ns->ok)
    return 0;
  t = lua_topointer(L, 1);
  as = array_size(t);
  hs = 1u << t->lsizenode;
  sc.L = L;
  sc.m = m;
  sc.pending = 0;
  i = 0;
  if (!lua_isnoneornil(L, 2)) {
    lua_Integer k = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : 0;
    if (k >= 1 && (lua_Unsigned)k <= as) {
      i = (unsigned)k;
    } else {
      long j = find_node(ns, &sc, t, hs, 2);
      if (lua_type(L, 2) == LUA_TSTRING)  /* a long key is compared */
        sc.pending += (int64_t)lua_rawlen(L, 2) / 16;
      if (j < 0)  /* Lua may still find it, and scan all nodes */
        return sc.pending + (int64_t)hs * NODE_WEIGHT;
      i = as + (unsigned)j + 1;
    }
  }
  for (; i < as; i++) {
    count(&sc, 1);
    if (!EMPTY(t->array[i].tt)) return sc.pending;
  }
  for (i -= as; i < hs; i++) {
    count(&sc, NODE_WEIGHT);
    if (!EMPTY(t->node[i].tt)) {
      hint_set(ns, t, i);
      return sc.pending;
    }
  }
  return sc.pending;
}

/* pairs(t) without __pairs returns the stock next: hand out the
   charged one instead. */
int nat_next_pairs(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  int n = stock(L);
  scan_state *ns = get_state(L);
  (void)m;
  if (n == 3 && ns != NULL && ns->next != NULL &&
      lua_tocfunction(L, -3) == ns->next) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, &next_key);
    lua_replace(L, -4);
  }
  return n;
}

/* Build a table the layout says something about and check it. */
static int layout_ok(lua_State *L) {
  const peek_table *t;
  int i, live = 0, found = 0;
  const void *a;
  lua_createtable(L, 4, 0);
  for (i = 1; i <= 4; i++) {
    lua_pushinteger(L, i * 10);
    lua_rawseti(L, -2, i);
  }
  lua_pushnil(L);
  lua_rawseti(L, -2, 3);
  t = lua_topointer(L, -1);
  if (t->tt != TAG_TABLE || array_size(t) != 4 || t->array == NULL ||
      t->array[0].tt != TAG_INT || t->array[0].v.i != 10 ||
      t->array[3].v.i != 40 || !EMPTY(t->array[2].tt) || t->lsizenode != 0)
    return 0;
  lua_pop(L, 1);
  lua_createtable(L, 0, 4);
  for (i = 0; i < 4; i++) {
    char k[2] = {(char)('a' + i), '\0'};
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, k);
  }
  lua_pushliteral(L, "c");
  a = lua_topointer(L, -1);
  t = lua_topointer(L, -2);
  if (t->lsizenode != 2 || t->node == NULL || array_size(t) != 0) return 0;
  for (i = 0; i < 4; i++) {
    if (!EMPTY(t->node[i].tt)) live++;
    if (t->node[i].key_tt == TAG_SHORTSTR && t->node[i].key.p == a &&
        t->node[i].tt == 0x11)
      found++;
  }
  lua_pop(L, 2);
  return live == 4 && found == 1;
}

void nat_next_open(lua_State *L) {
  scan_state *ns = lua_newuserdatauv(L, sizeof *ns, 0);
  memset(ns, 0, sizeof *ns);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &state_key);
  rt_state(L)->natnext = ns;
  ns->ok = layout_ok(L);
  /* the charged next, and the stock one that it wraps */
  lua_getglobal(L, "next");
  if (rt_is_wrapper(L, -1) && nat_wrap_original(L, -1)) {
    ns->next = lua_tocfunction(L, -1);
    lua_pop(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &next_key);
  } else {
    lua_pop(L, 1);
  }
}

void nat_next_forget(lraf_state *S) {
  scan_state *ns = S->natnext;
  if (ns == NULL) return;
  memset(ns->hint, 0, sizeof ns->hint);
  ns->nexthint = 0;
}
