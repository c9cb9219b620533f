/*
** nat_hidden.h - nat_hidden.c: the sizes of hidden work (frames walked,
** names copied, digits converted) and the collector's parameters.
*/
#ifndef NAT_HIDDEN_H
#define NAT_HIDDEN_H

#include "nat_units.h"

int64_t nat_hidden_error(lua_State *L, const nat_model *m);
int64_t nat_hidden_traceback(lua_State *L, const nat_model *m);
int64_t nat_hidden_dblevel(lua_State *L, const nat_model *m);
int64_t nat_hidden_tostring(lua_State *L, const nat_model *m);
int64_t nat_hidden_strarith(lua_State *L, const nat_model *m);
int64_t nat_hidden_sortweight(lua_State *L, int64_t n);
int64_t nat_hidden_fmtweight(lua_State *L, int arg);
int nat_hidden_collect(lua_State *L, lua_CFunction stock,
                      const nat_model *m);

#endif
