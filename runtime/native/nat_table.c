/*
** nat_table.c - table.insert, remove, unpack, concat and sort on
** values with metatables, charged by the length __len reports.
**
** The model of a plain table reads its raw length; a __len metamethod
** may report any length, and the stock functions then loop that many
** times through lua_geti/lua_seti.  Calling __len once more to size the
** call would run the program's code twice, so for such values insert,
** remove, unpack and concat run here instead, with the semantics and
** messages of the running Lua's table library (test_nat_audit
** compares), charging each slice of elements before moving it.  sort
** keeps the stock algorithm (the order of its comparisons is the
** program's to see) and is charged per comparison, through a comparator
** that wraps the program's one or stands for '<'.
*/
#include <limits.h>

#include <lauxlib.h>

#include "rt.h"
#include "nat_table.h"

/* Elements moved between two charges. */
#define SLICE 1024
/* Units of size an access costs when it calls a metamethod function: a
   C one (tostring, rawlen...) counts nothing (measured with make
   bench-native and the amplification suite). */
#define MM_WEIGHT 16
/* The argument table.remove names when its position is out of bounds:
   the table up to Lua 5.4.4, the position from 5.4.7 on (lua.h is the
   running Lua's: Debian's liblua5.4 or the lraf VM's sources). */
#if LUA_VERSION_RELEASE_NUM <= 50404
#define REMOVE_POS_ARG 1
#else
#define REMOVE_POS_ARG 2
#endif
/* Lua's limit on __index/__newindex chains (MAXTAGLOOP). */
#define MAX_CHAIN 2000

static int has_metatable(lua_State *L, int idx) {
  if (!lua_getmetatable(L, idx)) return 0;
  lua_pop(L, 1);
  return 1;
}

/* Units of size one access through the field event (__index or
   __newindex) of the value at idx costs: 2 (Lua looks for the event
   when the raw access finds nothing), plus 1 for every table of its
   chain, plus MM_WEIGHT when the chain ends at a function. */
static int chain_weight(lua_State *L, int idx, const char *event) {
  int w = 2, n;
  luaL_checkstack(L, 3, "too many nested metatables");
  lua_pushvalue(L, idx);
  for (n = 0; n < MAX_CHAIN && lua_getmetatable(L, -1); n++) {
    int t;
    lua_pushstring(L, event);
    t = lua_rawget(L, -2);
    lua_remove(L, -2);  /* the metatable */
    lua_remove(L, -2);  /* the value */
    if (t == LUA_TFUNCTION) w += MM_WEIGHT;
    if (t != LUA_TTABLE) break;
    w++;
  }
  lua_pop(L, 1);
  return w;
}

int nat_table_move_weight(lua_State *L) {
  int dst = lua_isnoneornil(L, 5) ? 1 : 5;
  if (!has_metatable(L, 1) && !has_metatable(L, dst)) return 1;
  return chain_weight(L, 1, "__index") + chain_weight(L, dst, "__newindex");
}

/* The weight of moving one element of the value at 1: a read and,
   when write, a write. */
static int move_weight(lua_State *L, int write) {
  return chain_weight(L, 1, "__index") +
         (write ? chain_weight(L, 1, "__newindex") : 0);
}

int nat_table_plain(lua_State *L) {
  /* a table without a metatable, or a value the stock function refuses */
  return !has_metatable(L, 1);
}

/* Lua's rule for what may stand for a table: a table, or a value whose
   metatable has the fields the function uses (R: __index, W:
   __newindex, L: __len); otherwise the usual type error. */
static void check_tab(lua_State *L, int write) {
  int ok = 1;
  if (lua_type(L, 1) == LUA_TTABLE) return;
  if (lua_getmetatable(L, 1)) {
    ok = lua_getfield(L, -1, "__index") != LUA_TNIL;
    ok = (lua_getfield(L, -2, "__len") != LUA_TNIL) && ok;
    if (write) ok = (lua_getfield(L, -3, "__newindex") != LUA_TNIL) && ok;
    lua_pop(L, write ? 4 : 3);
  } else {
    ok = 0;
  }
  if (!ok) luaL_checktype(L, 1, LUA_TTABLE);
}

typedef struct meter {
  lua_State *L;
  const nat_model *m;
  lua_Integer left;  /* moves paid for */
  int weight;        /* units of size per move */
} meter;

static void meter_init(meter *mt, lua_State *L, const nat_model *m) {
  mt->L = L;
  mt->m = m;
  mt->left = 0;
  mt->weight = 1;
}

/* Pay for the next move (a slice at a time, before the slice). */
static void pay(meter *mt, lua_Integer todo) {
  if (mt->left-- > 0) return;
  mt->left = todo < SLICE ? todo : SLICE;
  nat_steps(mt->L, mt->m, mt->left * mt->weight);
  mt->left--;
}

int nat_table_insert(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  lua_Integer e, pos, i;
  meter mt;
  if (nat_table_plain(L)) return stock(L);
  check_tab(L, 1);
  e = luaL_len(L, 1);
  e = (lua_Integer)((lua_Unsigned)e + 1u);  /* first empty element */
  switch (lua_gettop(L)) {
    case 2:
      pos = e;
      break;
    case 3:
      pos = luaL_checkinteger(L, 2);
      luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2,
                    "position out of bounds");
      meter_init(&mt, L, m);
      mt.weight = move_weight(L, 1);
      for (i = e; i > pos; i--) {
        pay(&mt, i - pos);
        lua_geti(L, 1, i - 1);
        lua_seti(L, 1, i);
      }
      break;
    default:
      return luaL_error(L, "wrong number of arguments to 'insert'");
  }
  lua_seti(L, 1, pos);
  return 0;
}

int nat_table_remove(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  lua_Integer size, pos;
  meter mt;
  if (nat_table_plain(L)) return stock(L);
  check_tab(L, 1);
  size = luaL_len(L, 1);
  pos = luaL_optinteger(L, 2, size);
  if (pos != size)
    luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size,
                  REMOVE_POS_ARG, "position out of bounds");
  lua_geti(L, 1, pos);
  meter_init(&mt, L, m);
  mt.weight = move_weight(L, 1);
  for (; pos < size; pos++) {
    pay(&mt, size - pos);
    lua_geti(L, 1, pos + 1);
    lua_seti(L, 1, pos);
  }
  lua_pushnil(L);
  lua_seti(L, 1, pos);
  return 1;
}

/* A value that table.move reads from (write 0) or writes to (1): a
   table, or one whose metatable has __index / __newindex; otherwise
   Lua's type error. */
static void check_moved(lua_State *L, int idx, int write) {
  int ok = 0;
  if (lua_type(L, idx) == LUA_TTABLE) return;
  if (lua_getmetatable(L, idx)) {
    ok = lua_getfield(L, -1, write ? "__newindex" : "__index") != LUA_TNIL;
    lua_pop(L, 2);
  }
  if (!ok) luaL_checktype(L, idx, LUA_TTABLE);
}

/* table.move through metamethods, paid slice by slice: sized in
   advance, a long move that a metamethod ends with an error (Lua's
   sort.lua does) was charged its whole span first.  Between tables
   without metatables the model sized the call and the stock one runs. */
int nat_table_move(lua_State *L, lua_CFunction stock,
                   const nat_model *m) {
  lua_Integer f, e, t, n, k;
  int dst = lua_isnoneornil(L, 5) ? 1 : 5, up;
  meter mt;
  if (!has_metatable(L, 1) && !has_metatable(L, dst)) return stock(L);
  f = luaL_checkinteger(L, 2);
  e = luaL_checkinteger(L, 3);
  t = luaL_checkinteger(L, 4);
  check_moved(L, 1, 0);
  check_moved(L, dst, 1);
  if (e >= f) {
    luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3,
                  "too many elements to move");
    n = e - f + 1;
    luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4,
                  "destination wrap around");
    /* copy upwards unless the ranges overlap with t inside (f, e] */
    up = t > e || t <= f || (dst != 1 && !lua_compare(L, 1, dst, LUA_OPEQ));
    meter_init(&mt, L, m);
    mt.weight = nat_table_move_weight(L);
    for (k = 0; k < n; k++) {
      lua_Integer i = up ? k : n - 1 - k;
      pay(&mt, n - k);
      lua_geti(L, 1, f + i);
      lua_seti(L, dst, t + i);
    }
  }
  lua_pushvalue(L, dst);
  return 1;
}

/* Only without an explicit end: with one, the model sized the call. */
int nat_table_unpack(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  lua_Integer i, e;
  lua_Unsigned n;
  meter mt;
  if (nat_table_plain(L) || !lua_isnoneornil(L, 3)) return stock(L);
  i = luaL_optinteger(L, 2, 1);
  e = luaL_len(L, 1);
  if (i > e) return 0;
  n = (lua_Unsigned)e - (lua_Unsigned)i;
  if (n >= (unsigned int)INT_MAX || !lua_checkstack(L, (int)(++n)))
    return luaL_error(L, "too many results to unpack");
  meter_init(&mt, L, m);
  mt.weight = move_weight(L, 0);
  for (; i < e; i++) {
    pay(&mt, e - i + 1);
    lua_geti(L, 1, i);
  }
  pay(&mt, 1);
  lua_geti(L, 1, e);
  return (int)n;
}

/* concat: the bytes of the elements, paid for every CONCAT_SLICE bytes
   (a bounded slice: at most that many are copied before they are). */
#define CONCAT_SLICE 65536

static void add_field(lua_State *L, luaL_Buffer *b, lua_Integer i,
                      int64_t *owed, int w, const nat_model *m) {
  lua_geti(L, 1, i);
  if (!lua_isstring(L, -1))
    luaL_error(L, "invalid value (%s) at index %I in table for 'concat'",
               luaL_typename(L, -1), (LUAI_UACINT)i);
  /* the access, and the bytes (a number's are formatted: 24) */
  *owed += w + (lua_type(L, -1) == LUA_TSTRING ? (int64_t)lua_rawlen(L, -1)
                                                : 24);
  if (*owed >= CONCAT_SLICE) {
    nat_steps(L, m, *owed);
    *owed = 0;
  }
  luaL_addvalue(b);
}

int nat_table_concat(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  luaL_Buffer b;
  lua_Integer last, i;
  size_t lsep;
  const char *sep;
  int64_t owed = 0;
  int w;
  if (nat_table_plain(L)) return stock(L);
  check_tab(L, 0);
  w = chain_weight(L, 1, "__index");
  last = luaL_len(L, 1);
  sep = luaL_optlstring(L, 2, "", &lsep);
  i = luaL_optinteger(L, 3, 1);
  last = luaL_optinteger(L, 4, last);
  luaL_buffinit(L, &b);
  for (; i < last; i++) {
    add_field(L, &b, i, &owed, w, m);
    owed += (int64_t)lsep;
    luaL_addlstring(&b, sep, lsep);
  }
  if (i == last) add_field(L, &b, i, &owed, w, m);
  luaL_pushresult(&b);
  nat_steps(L, m, owed);
  return 1;
}

/* The comparator sort gets: pays for each comparison, then asks the
   program's comparator (upvalue 1) or '<'. */
static int compare(lua_State *L) {
  meter *mt = lua_touserdata(L, lua_upvalueindex(2));
  pay(mt, SLICE);
  if (lua_isnil(L, lua_upvalueindex(1))) {
    lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 2, 1);
  return 1;
}

int nat_table_sort(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  meter *mt;
  if (nat_table_plain(L) ||
      (!lua_isnoneornil(L, 2) && lua_type(L, 2) != LUA_TFUNCTION))
    return stock(L);
  lua_settop(L, 2);
  lua_pushvalue(L, 2);
  mt = lua_newuserdatauv(L, sizeof *mt, 0);
  meter_init(mt, L, m);
  mt->weight = move_weight(L, 1);  /* a comparison moves about one */
  lua_pushcclosure(L, compare, 2);
  lua_replace(L, 2);
  return stock(L);
}
