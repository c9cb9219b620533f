/*
** nat_cost.h - the table of models of native work: for each C built-in
** lraf charges, how to read the size of its work from its arguments
** (nat_cost.c's sizes and those of nat_audit.c, nat_hidden.c,
** nat_next.c and nat_table.c) and the calibrated units per call and per
** 1024 units of size (the model's type and its units: nat_units.h).
** Internal to runtime/ (and read by tests and the calibration bench).
*/
#ifndef NAT_COST_H
#define NAT_COST_H

#include <stdint.h>

#include "nat_units.h"

/* The models, ended by an entry with lib NULL. */
extern const nat_model nat_models[];

/* The model for lib.name, or NULL. */
const nat_model *nat_find(const char *lib, const char *name);
/* fnv1a of the models' ratios, for the cost-model id. */
uint32_t nat_hash(void);

#endif
