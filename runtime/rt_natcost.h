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

#include "lraf.h"

typedef struct rt_native_model rt_native_model;

/* The size of the work a call is about to do (bytes, elements, pattern
   steps), from its arguments at L's stack.  It must not change the
   stack's values or raise errors, except that a pattern function may
   charge the steps of its dry run as it goes (rt_charge).  Invalid
   arguments give a small size: the built-in then raises its own error. */
typedef int64_t (*rt_size_fn)(lua_State *L, const rt_native_model *m);

/* Runs the call in place of the stock function (given as stock), for
   built-ins whose work cannot be sized from their arguments alone: it
   charges as it goes (rt_native_steps with its model m) and returns the
   number of results. */
typedef int (*rt_run_fn)(lua_State *L, lua_CFunction stock,
                         const rt_native_model *m);

struct rt_native_model {
  const char *lib;   /* "_G", "string", ..., "lpeg"; "file": io's files */
  const char *name;
  rt_size_fn size;   /* NULL: size 0 */
  int64_t per_call;  /* units charged per call */
  int64_t per_k;     /* units per 1024 units of size */
  rt_run_fn run;     /* NULL: the stock function runs */
};

/* The models, ended by an entry with lib NULL. */
extern const rt_native_model rt_native_models[];

/* The model for lib.name, or NULL. */
const rt_native_model *rt_native_find(const char *lib, const char *name);
/* rt_natunits.c: units for a call of size n (saturating). */
int64_t rt_native_units(const rt_native_model *m, int64_t size);
/* fnv1a of the models' ratios, for the cost-model id. */
uint32_t rt_native_hash(void);

/* Charge the units of size steps of m's work, less its per-call part
   (for size functions that charge their dry run as they go). */
void rt_native_steps(lua_State *L, const rt_native_model *m, int64_t steps);

/* rt_natnext.c: next by the slots it scans; pairs hands out that next. */
int64_t rt_natnext_size(lua_State *L, const rt_native_model *m);
int rt_natnext_pairs(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
/* Check the table layout and set up the scan cache (after wrapping). */
void rt_natnext_open(lua_State *L);
/* Forget where scans ended (lraf_deterministic_restart). */
void rt_natnext_forget(lraf_state *S);

/* rt_nattab.c: table functions on tables with metatables, charged by
   the length __len reports, element by element. */
/* 1 when argument 1 has no metatable: a table (the stock function runs,
   sized by the raw length) or a value the stock function refuses. */
int rt_nattab_plain(lua_State *L);
/* Units of size an element moved by table.move(a1, f, e, t [, a2])
   weighs: 1 between tables without metatables, more through their
   __index/__newindex chains (a C metamethod counts nothing itself). */
int rt_nattab_move_weight(lua_State *L);
int rt_nattab_insert(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
int rt_nattab_remove(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
int rt_nattab_unpack(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
/* table.move between values with metatables, paid as it goes. */
int rt_nattab_move(lua_State *L, lua_CFunction stock,
                   const rt_native_model *m);
int rt_nattab_concat(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
int rt_nattab_sort(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);

/* rt_natmore.c: sizes of the other built-ins the audit found. */
int64_t rt_natmore_collect(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_nargs(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_rawequal(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_rawkey(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_print(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_write(lua_State *L, const rt_native_model *m);
int rt_natmore_read(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
int64_t rt_natmore_offset(lua_State *L, const rt_native_model *m);
int rt_natmore_codes(lua_State *L, lua_CFunction stock,
                    const rt_native_model *m);
/* The model of a step of utf8.codes's iterator ("utf8", "codes (step)":
   no function of utf8 has that name; rt_native_find finds it). */
extern const rt_native_model rt_natmore_codes_step;
int64_t rt_natmore_dump(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_date(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_fmtlen(lua_State *L, const rt_native_model *m);
int64_t rt_natmore_searchpath(lua_State *L, const rt_native_model *m);
/* The size of a search for a name of name bytes on the path p. */
int64_t rt_natmore_searchsize(int64_t name, const char *p, size_t lp);
/* Steps of a search for the special-free p in s from init (0-based):
   each start tried and each byte compared, charged to m as it goes. */
int64_t rt_natmore_plain(lua_State *L, const rt_native_model *m,
                         const char *s, size_t ls, const char *p,
                         size_t lp, size_t init, int find);

/* rt_natamp.c: frames walked, names copied, digits converted. */
int64_t rt_natamp_error(lua_State *L, const rt_native_model *m);
int64_t rt_natamp_traceback(lua_State *L, const rt_native_model *m);
int64_t rt_natamp_dblevel(lua_State *L, const rt_native_model *m);
int64_t rt_natamp_tostring(lua_State *L, const rt_native_model *m);
int64_t rt_natamp_strarith(lua_State *L, const rt_native_model *m);
int64_t rt_natamp_sortweight(lua_State *L, int64_t n);
int64_t rt_natamp_fmtweight(lua_State *L, int arg);
int rt_natamp_collect(lua_State *L, lua_CFunction stock,
                      const rt_native_model *m);

/* Charges larger than this are clamped (they exceed any quota anyway). */
#define RT_CHARGE_MAX ((int64_t)1 << 60)

#endif
