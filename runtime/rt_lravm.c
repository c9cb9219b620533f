/*
** rt_lravm.c - the lraf VM's side of the runtime: its ACCT counter and
** consume function (lua_acctcounter, lua_setacctconsume in the patched
** lua.h, vm/lravm/lua-acct.patch).  Built against stock Lua these do not
** exist: lraf_vm_builtin says 0 and rt_rw_options refuses the target, so
** the functions below are never reached there.
*/
#include "rt.h"

#ifdef LUA_ACCT_VM

int lraf_vm_builtin(void) {
  return 1;
}

lua_Integer *rt_vm_counter(lua_State *L) {
  return lua_acctcounter(L);
}

void rt_vm_bind(lua_State *L, lua_CFunction consume) {
  lua_setacctconsume(L, consume);
}

#else

int lraf_vm_builtin(void) {
  return 0;
}

/* never reached: rt_rw_options refuses the target on stock Lua */
lua_Integer *rt_vm_counter(lua_State *L) {
  static lua_Integer none;
  (void)L;
  return &none;
}

void rt_vm_bind(lua_State *L, lua_CFunction consume) {
  (void)L;
  (void)consume;
}

#endif
