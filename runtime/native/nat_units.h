/*
** nat_units.h - what a model of native work is, and the units it
** charges: the model's type, the units for a size, and the charging of
** a dry run's steps as it goes.  Every nat_ file that sizes or runs a
** built-in's work builds on this; the table of models is nat_cost.h.
** Internal to runtime/ (and read by tests and the calibration bench).
*/
#ifndef NAT_UNITS_H
#define NAT_UNITS_H

#include <stdint.h>

#include <lua.h>

#include "lraf.h"

typedef struct nat_model nat_model;

/* The size of the work a call is about to do (bytes, elements, pattern
   steps), from its arguments at L's stack.  It must not change the
   stack's values or raise errors, except that a pattern function may
   charge the steps of its dry run as it goes (rt_charge).  Invalid
   arguments give a small size: the built-in then raises its own error. */
typedef int64_t (*nat_size_fn)(lua_State *L, const nat_model *m);

/* Runs the call in place of the stock function (given as stock), for
   built-ins whose work cannot be sized from their arguments alone: it
   charges as it goes (nat_steps with its model m) and returns the
   number of results. */
typedef int (*nat_run_fn)(lua_State *L, lua_CFunction stock,
                         const nat_model *m);

struct nat_model {
  const char *lib;   /* "_G", "string", ..., "lpeg"; "file": io's files */
  const char *name;
  nat_size_fn size;   /* NULL: size 0 */
  int64_t per_call;  /* units charged per call */
  int64_t per_k;     /* units per 1024 units of size */
  nat_run_fn run;     /* NULL: the stock function runs */
};

/* Charges larger than this are clamped (they exceed any quota anyway). */
#define RT_CHARGE_MAX ((int64_t)1 << 60)

/* Units for a call of size n (saturating). */
int64_t nat_units(const nat_model *m, int64_t size);

/* Charge the units of size steps of m's work, less its per-call part
   (for size functions that charge their dry run as they go). */
void nat_steps(lua_State *L, const nat_model *m, int64_t steps);

#endif
