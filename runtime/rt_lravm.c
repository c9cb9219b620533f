/*
** rt_lravm.c - the lraf VM's side of the runtime: its ACCT counter and
** consume function (lua_acctcounter, lua_setacctconsume in the patched
** lua.h, lravm/patches/lua-acct-opcodes.patch).  Built against stock Lua these do not
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

int64_t rt_vm_ahead(lua_State *L) {
  return (int64_t)lua_acctahead(L);
}

/* Units per 1024 bytes compared and per 1024 values moved, measured
   with tests/bench/bc_rates.lua on the lraf VM (a simple instruction
   1.07 ns; 1024 bytes: 77 instructions for ==, 110 for <; 1024 values
   through VARARG and a call: 4900) and rounded up. */
#define BYTE_RATE 112
#define VALUE_RATE 4096
/* Units per 1024 bytes that CONCAT copies and per 1024 tables of an
   __index/__newindex chain (lua_setacctwalkrates), measured the same
   way: a 32 MB result costs 430 to 850 simple instructions per 1024
   bytes (a new mapping's page faults; 19 at 64 KB), 0.55 mean
   instruction times per unit at most; a table of a chain 6.3. */
#define COPY_RATE 512
#define CHAIN_RATE 7168

void rt_vm_bind(lua_State *L, lua_CFunction consume, const rw_options *opt,
                int native) {
  lua_setacctconsume(L, consume);
  lua_setacctmmbin(L, rw_op_cost(BC_OP_MMBIN, opt),
                   rw_op_cost(BC_OP_MMBINI, opt),
                   rw_op_cost(BC_OP_MMBINK, opt));
  lua_setacctfetched(L, rw_op_cost(BC_OP_TFORLOOP, opt),
                     rw_op_cost(BC_OP_JMP, opt));
  lua_setacctrates(L, native ? BYTE_RATE : 0, native ? VALUE_RATE : 0);
  lua_setacctwalkrates(L, native ? COPY_RATE : 0, native ? CHAIN_RATE : 0);
}

int64_t rt_vm_work(lua_State *L) {
  return (int64_t)lua_acctwork(L);
}

#else

int lraf_vm_builtin(void) {
  return 0;
}

int64_t rt_vm_ahead(lua_State *L) {
  (void)L;
  return 0;
}

/* never reached: rt_rw_options refuses the target on stock Lua */
lua_Integer *rt_vm_counter(lua_State *L) {
  static lua_Integer none;
  (void)L;
  return &none;
}

void rt_vm_bind(lua_State *L, lua_CFunction consume, const rw_options *opt,
                int native) {
  (void)L;
  (void)consume;
  (void)opt;
  (void)native;
}

int64_t rt_vm_work(lua_State *L) {
  (void)L;
  return 0;
}

#endif
