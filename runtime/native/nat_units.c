/*
** nat_units.c - the units a model of native work charges: for a size
** (nat_units, saturating at RT_CHARGE_MAX), and for the steps of a dry
** run charged as it goes (nat_steps: the size functions of nat_cost.c,
** nat_audit.c, nat_hidden.c, nat_next.c and nat_table.c).
*/
#include <math.h>

#include "rt.h"
#include "nat_units.h"

int64_t nat_units(const nat_model *m, int64_t size) {
  double u;
  if (size <= 0) return m->per_call;
  if (size < ((int64_t)1 << 40))  /* per_k < 2^20: no overflow */
    return m->per_call + (size * m->per_k + 1023) / 1024;
  u = ceil((double)m->per_call + (double)size * (double)m->per_k / 1024.0);
  return u >= (double)RT_CHARGE_MAX ? RT_CHARGE_MAX : (int64_t)u;
}

void nat_steps(lua_State *L, const nat_model *m, int64_t steps) {
  if (steps > 0) rt_charge(L, nat_units(m, steps) - m->per_call);
}
