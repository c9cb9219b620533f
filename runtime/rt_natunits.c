/*
** rt_natunits.c - the units of native work: what a model charges for a
** size, and charging a dry run's steps as it goes.  Below every file
** that sizes native work (rt_natcost.c and the rt_nat*.c beside it).
*/
#include <math.h>

#include "rt.h"
#include "rt_natcost.h"

int64_t rt_native_units(const rt_native_model *m, int64_t size) {
  double u;
  if (size <= 0) return m->per_call;
  if (size < ((int64_t)1 << 40))  /* per_k < 2^20: no overflow */
    return m->per_call + (size * m->per_k + 1023) / 1024;
  u = ceil((double)m->per_call + (double)size * (double)m->per_k / 1024.0);
  return u >= (double)RT_CHARGE_MAX ? RT_CHARGE_MAX : (int64_t)u;
}

void rt_native_steps(lua_State *L, const rt_native_model *m,
                     int64_t steps) {
  if (steps > 0) rt_charge(L, rt_native_units(m, steps) - m->per_call);
}
