/*
** rw_names.h - which instructions name the operands of an arithmetic
** op in Lua's error messages, so that the rewriter keeps those names
** right when it moves the op's metamethod call into a stub.
*/
#ifndef RW_NAMES_H
#define RW_NAMES_H

#include "bc.h"

/* For each arithmetic op followed by its MMBIN*, at pc, store in
   setters[2*pc..] the pcs of the instructions that name its operands in
   error messages, as Lua's debug library finds them, and their number
   (0..2) in nsetters[pc].  One pass over f; returns 0 when out of
   memory. */
int rw_name_setters(const bc_proto *f, int *setters, unsigned char *nsetters);

#endif
