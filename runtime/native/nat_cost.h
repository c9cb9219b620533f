/*
** nat_cost.h - the cost model of native work: for each C built-in
** lraf charges, how to read the size of its work from its arguments,
** and the calibrated units per call and per 1024 units of size.
** Internal to runtime/ (and read by tests and the calibration bench).
*/
#ifndef NAT_COST_H
#define NAT_COST_H

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

/* The models, ended by an entry with lib NULL. */
extern const nat_model nat_models[];

/* The model for lib.name, or NULL. */
const nat_model *nat_find(const char *lib, const char *name);
/* Units for a call of size n (saturating). */
int64_t nat_units(const nat_model *m, int64_t size);
/* fnv1a of the models' ratios, for the cost-model id. */
uint32_t nat_hash(void);

/* Charge the units of size steps of m's work, less its per-call part
   (for size functions that charge their dry run as they go). */
void nat_steps(lua_State *L, const nat_model *m, int64_t steps);

/* nat_wrap.c: replace the function at idx by one charged by model m
   (for functions a built-in returns); 0 when it is not a function. */
int nat_wrap_model(lua_State *L, int idx, const nat_model *m);

/* nat_next.c: next by the slots it scans; pairs hands out that next. */
int64_t nat_next_size(lua_State *L, const nat_model *m);
int nat_next_pairs(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
/* Check the table layout and set up the scan cache (after wrapping). */
void nat_next_open(lua_State *L);
/* Forget where scans ended (lraf_deterministic_restart). */
void nat_next_forget(lraf_state *S);

/* nat_table.c: table functions on tables with metatables, charged by
   the length __len reports, element by element. */
/* 1 when argument 1 has no metatable: a table (the stock function runs,
   sized by the raw length) or a value the stock function refuses. */
int nat_table_plain(lua_State *L);
/* Units of size an element moved by table.move(a1, f, e, t [, a2])
   weighs: 1 between tables without metatables, more through their
   __index/__newindex chains (a C metamethod counts nothing itself). */
int nat_table_move_weight(lua_State *L);
int nat_table_insert(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int nat_table_remove(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int nat_table_unpack(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
/* table.move between values with metatables, paid as it goes. */
int nat_table_move(lua_State *L, lua_CFunction stock,
                   const nat_model *m);
int nat_table_concat(lua_State *L, lua_CFunction stock,
                    const nat_model *m);
int nat_table_sort(lua_State *L, lua_CFunction stock,
                    const nat_model *m);

/* nat_audit.c: sizes of the other built-ins the audit found. */
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

/* nat_hidden.c: frames walked, names copied, digits converted. */
int64_t nat_hidden_error(lua_State *L, const nat_model *m);
int64_t nat_hidden_traceback(lua_State *L, const nat_model *m);
int64_t nat_hidden_dblevel(lua_State *L, const nat_model *m);
int64_t nat_hidden_tostring(lua_State *L, const nat_model *m);
int64_t nat_hidden_strarith(lua_State *L, const nat_model *m);
int64_t nat_hidden_sortweight(lua_State *L, int64_t n);
int64_t nat_hidden_fmtweight(lua_State *L, int arg);
int nat_hidden_collect(lua_State *L, lua_CFunction stock,
                      const nat_model *m);

/* Charges larger than this are clamped (they exceed any quota anyway). */
#define RT_CHARGE_MAX ((int64_t)1 << 60)

#endif
