/*
** rt_stop.c - what a host reports when a call fails: where the script
** was when the error was raised or a limit stopped it (the innermost
** Lua function, as a traceback line), and how many units of the count
** were native work.
**
** The place is recorded once per outermost call: by the message
** handler for Lua errors, by the first raise of the quota error, and by
** the allocator's last refusal for the memory limit (the memory error
** itself reaches no handler).  Only lua_getstack and lua_getinfo("Sln")
** are used, which allocate nothing, so the allocator may call them.
*/
#include <stdio.h>
#include <string.h>

#include "rt.h"

/* "FILE:LINE: in WHAT" for the innermost Lua function of L at or above
   level; "" when none runs. */
static void describe(lua_State *L, int level, char *buf, size_t size) {
  lua_Debug ar;
  buf[0] = '\0';
  for (; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sln", &ar) || ar.what[0] == 'C') continue;
    if (ar.namewhat[0] != '\0' && ar.name != NULL)
      snprintf(buf, size, "%s:%d: in %s '%s'", ar.short_src, ar.currentline,
               ar.namewhat, ar.name);
    else if (ar.what[0] == 'm')
      snprintf(buf, size, "%s:%d: in main chunk", ar.short_src,
               ar.currentline);
    else
      snprintf(buf, size, "%s:%d: in function <%s:%d>", ar.short_src,
               ar.currentline, ar.short_src, ar.linedefined);
    return;
  }
}

void rt_stop_clear(lraf_state *S) {
  S->where[0] = '\0';
  S->mem_where[0] = '\0';
  S->where_noted = 0;
}

void rt_stop_error(lua_State *L) {
  lraf_state *S = rt_state(L);
  if (S->where_noted) return;
  S->where_noted = 1;
  describe(L, 1, S->where, sizeof S->where);
}

void rt_stop_limit(lraf_state *S, lua_State *L, int memory) {
  if (S->where_noted) return;
  S->where_noted = 1;
  if (memory || S->memerr)
    memcpy(S->where, S->mem_where, sizeof S->where);
  else if (L != NULL)
    describe(L, 0, S->where, sizeof S->where);
}

void rt_stop_refused(lraf_state *S) {
  if (S->quota || S->running == NULL || S->depth == 0) return;
  describe(S->running, 0, S->mem_where, sizeof S->mem_where);
}

const char *lraf_last_where(const lraf_state *S) {
  return S ? S->where : "";
}

int64_t lraf_native_units(const lraf_state *S) {
  if (S == NULL) return 0;
  return S->native_units + (S->L != NULL ? rt_vm_work(S->L) : 0);
}
