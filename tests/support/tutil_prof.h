/*
** tutil_prof.h - test helpers for the profilers' collectors: run a
** source under a profile in a new state and find its functions.
*/
#ifndef TUTIL_PROF_H
#define TUTIL_PROF_H

#include <stdint.h>

#include "lraf.h"

/* Load and run src (chunk name name) in a new state made with opt
   (NULL: the defaults) between lraf_profile_start and lraf_profile_stop; *counted
   (may be NULL) gets what the state counted meanwhile.  Fails the test
   when anything fails.  Free the profile with lraf_profile_free. */
lraf_profile *tutil_prof_run(const lraf_options *opt, const char *src,
                             const char *name, int64_t *counted);
/* The function of P with this name (and line, unless line is 0); 0
   when there is none. */
int tutil_prof_find(const lraf_profile *P, const char *name, int line,
                    lraf_profile_func *out);
/* P written in format (malloc'ed, NUL-terminated). */
char *tutil_prof_text(const lraf_profile *P, const char *format);

#endif
