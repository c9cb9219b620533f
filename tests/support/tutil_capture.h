/*
** tutil_capture.h - capturing what a Lua state's print and io.write
** write, for the test helpers that run Lua (tutil_run.c, tutil_rt.c).
*/
#ifndef TUTIL_CAPTURE_H
#define TUTIL_CAPTURE_H

#include <stddef.h>

#include <lua.h>

/* Replace print and io.write (when io is loaded) in L's globals by
   functions that append what they would write to *data, a malloc'ed
   NUL-terminated buffer of *len bytes (start with NULL and 0; free it
   after the state is closed).  data and len must outlive the state. */
void tutil_capture(lua_State *L, char **data, size_t *len);

#endif
