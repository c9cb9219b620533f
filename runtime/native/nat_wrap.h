/*
** nat_wrap.h - nat_wrap.c: the charging wrapper of a C function (and
** rt.h: rt_is_wrapper).
*/
#ifndef NAT_WRAP_H
#define NAT_WRAP_H

#include "nat_units.h"

/* Replace the function at idx by a wrapper that charges model's units
   (NULL: none), per_call units and what cost(L, ud) returns (NULL:
   nothing), then runs it; 0 when it is not a function. */
int nat_wrap_at(lua_State *L, int idx, const nat_model *model,
                int64_t per_call, lraf_native_cost cost, void *ud);
/* Replace the function at idx by one charged by model m (for functions
   a built-in returns); 0 when it is not a function. */
int nat_wrap_model(lua_State *L, int idx, const nat_model *m);
/* When the function at idx is a charging wrapper, push the function it
   charges for and return 1; else 0. */
int nat_wrap_original(lua_State *L, int idx);

#endif
