/*
** nat_audit.h - nat_audit.c: the sizes of the other built-ins the audit
** found (the model table, nat_cost.c, points at them).
*/
#ifndef NAT_AUDIT_H
#define NAT_AUDIT_H

#include "nat_units.h"

int64_t nat_audit_collect(lua_State *L, const nat_model *m);
int64_t nat_audit_nargs(lua_State *L, const nat_model *m);
int64_t nat_audit_rawequal(lua_State *L, const nat_model *m);
int64_t nat_audit_rawkey(lua_State *L, const nat_model *m);
int64_t nat_audit_print(lua_State *L, const nat_model *m);
int64_t nat_audit_write(lua_State *L, const nat_model *m);
int nat_audit_read(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int64_t nat_audit_offset(lua_State *L, const nat_model *m);
int nat_audit_codes(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
/* The model of a step of utf8.codes's iterator ("utf8", "codes (step)":
   no function of utf8 has that name; nat_find finds it). */
extern const nat_model nat_audit_codes_step;
int64_t nat_audit_dump(lua_State *L, const nat_model *m);
int64_t nat_audit_date(lua_State *L, const nat_model *m);
int64_t nat_audit_fmtlen(lua_State *L, const nat_model *m);
int64_t nat_audit_searchpath(lua_State *L, const nat_model *m);
/* The size of a search for a name of name bytes on the path p. */
int64_t nat_audit_searchsize(int64_t name, const char *p, size_t lp);
/* Steps of a search for the special-free p in s from init (0-based):
   each start tried and each byte compared, charged to m as it goes. */
int64_t nat_audit_plain(lua_State *L, const nat_model *m,
                         const char *s, size_t ls, const char *p,
                         size_t lp, size_t init, int find);

#endif
