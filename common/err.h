/*
** err.h - the error helper every module shares: filling an lraf_error
** (include/lraf.h) with a code and a formatted message.  The bottom
** layer: it knows only lraf.h.
**
** Internal to lraf (prefix err_); lraf_status_name, the public name of
** a code, is defined beside it (common/err.c).
*/
#ifndef ERR_H
#define ERR_H

#include "lraf.h"

/* Fill err (if not NULL) with code and a printf-style message; returns
   code. */
lraf_status err_fail(lraf_error *err, lraf_status code, const char *fmt, ...);

#endif
