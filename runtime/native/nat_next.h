/*
** nat_next.h - nat_next.c: next by the slots it scans; pairs hands out
** that next.
*/
#ifndef NAT_NEXT_H
#define NAT_NEXT_H

#include "nat_units.h"

int64_t nat_next_size(lua_State *L, const nat_model *m);
int nat_next_pairs(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
/* Check the table layout and set up the scan cache (after wrapping). */
void nat_next_open(lua_State *L);
/* Forget where scans ended (lraf_deterministic_restart). */
void nat_next_forget(lraf_state *S);

#endif
