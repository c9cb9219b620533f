/*
** rt_natcost.h - the cost model of native work: for each C built-in
** lraf charges, how to read the size of its work from its arguments,
** and the calibrated units per call and per 1024 units of size.
** Internal to runtime/ (and read by tests and the calibration bench).
*/
#ifndef RT_NATCOST_H
#define RT_NATCOST_H

#include <stdint.h>

#include <lua.h>

typedef struct rt_native_model rt_native_model;

/* The size of the work a call is about to do (bytes, elements, pattern
   steps), from its arguments at L's stack.  It must not change the
   stack's values or raise errors, except that a pattern function may
   charge the steps of its dry run as it goes (rt_charge).  Invalid
   arguments give a small size: the built-in then raises its own error. */
typedef int64_t (*rt_size_fn)(lua_State *L, const rt_native_model *m);

/* Units to charge after a call that returned nres results (on top of
   L's stack, above its nargs arguments), for work whose size shows only
   in the results (e.g. where a linear search matched).  Called only when
   the size function set S->native_after.  May be NULL. */
typedef int64_t (*rt_after_fn)(lua_State *L, int nargs, int nres,
                               const rt_native_model *m);

struct rt_native_model {
  const char *lib;   /* "_G", "string", "table", "utf8", "lpeg" */
  const char *name;
  rt_size_fn size;
  int64_t per_call;  /* units charged per call */
  int64_t per_k;     /* units per 1024 units of size */
  rt_after_fn after; /* charged after the call (units of size), or NULL */
};

/* The models, ended by an entry with lib NULL. */
extern const rt_native_model rt_native_models[];

/* The model for lib.name, or NULL. */
const rt_native_model *rt_native_find(const char *lib, const char *name);
/* Units for a call of size n (saturating). */
int64_t rt_native_units(const rt_native_model *m, int64_t size);
/* fnv1a of the models' ratios, for the cost-model id. */
uint32_t rt_native_hash(void);

/* Charges larger than this are clamped (they exceed any quota anyway). */
#define RT_CHARGE_MAX ((int64_t)1 << 60)

#endif
