/*
** nat_table.h - nat_table.c: table functions on tables with metatables,
** charged by the length __len reports, element by element.
*/
#ifndef NAT_TABLE_H
#define NAT_TABLE_H

#include "nat_units.h"

/* 1 when argument 1 has no metatable: a table (the stock function runs,
   sized by the raw length) or a value the stock function refuses. */
int nat_table_plain(lua_State *L);
/* Units of size an element moved by table.move(a1, f, e, t [, a2])
   weighs: 1 between tables without metatables, more through their
   __index/__newindex chains (a C metamethod counts nothing itself). */
int nat_table_move_weight(lua_State *L);
int nat_table_insert(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int nat_table_remove(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int nat_table_unpack(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
/* table.move between values with metatables, paid as it goes. */
int nat_table_move(lua_State *L, lua_CFunction stock,
                   const nat_model *m);
int nat_table_concat(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int nat_table_sort(lua_State *L, lua_CFunction stock,
                    const nat_model *m);

#endif
