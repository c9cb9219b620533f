/*
** tutil_gen.h - the differential generator (tests/gen/gen.lua) from C:
** the program it writes for a seed, for the tests that run generated
** programs (test_diff_gen, test_pf_profile_paths).
*/
#ifndef TUTIL_GEN_H
#define TUTIL_GEN_H

#include <stddef.h>

#define TUTIL_GEN "tests/gen/gen.lua"

/* Run gen.lua for seed in a fresh state, collecting what it writes.
   Returns the program (malloc'ed, *len bytes) or NULL with gen.lua's
   error in err. */
char *tutil_gen_program(long seed, size_t *len, char *err, size_t errsize);

#endif
