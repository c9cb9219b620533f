/*
** bc_proto.c - freeing prototypes and chunks, and mapping an
** instruction to its source line from lineinfo/abslineinfo.
*/
#include <limits.h>
#include <stdlib.h>

#include "bc.h"

static void free_string(bc_string *s) {
  if (!s->shared) free(s->data);
  s->data = NULL;
}

/* Also frees partly built prototypes (as the reader leaves them on
   failure): arrays are zeroed, so unset entries are NULL. */
void bc_proto_free(bc_proto *f) {
  int i;
  if (f == NULL)
    return;
  free_string(&f->source);
  free(f->code);
  if (f->k != NULL) {
    for (i = 0; i < f->sizek; i++)
      free_string(&f->k[i].s);
    free(f->k);
  }
  free(f->upvalues);
  if (f->p != NULL) {
    for (i = 0; i < f->sizep; i++)
      bc_proto_free(f->p[i]);
    free(f->p);
  }
  free(f->lineinfo);
  free(f->abslineinfo);
  free(f->linecosts);
  if (f->locvars != NULL) {
    for (i = 0; i < f->sizelocvars; i++)
      free_string(&f->locvars[i].name);
    free(f->locvars);
  }
  if (f->upnames != NULL) {
    for (i = 0; i < f->sizeupnames; i++)
      free_string(&f->upnames[i]);
    free(f->upnames);
  }
  free(f->ahead);
  free(f);
}

void bc_chunk_free(bc_chunk *chunk) {
  if (chunk == NULL)
    return;
  bc_proto_free(chunk->main);
  free(chunk);
}

/* The last abslineinfo entry at or before pc, or -1 when none. */
static int base_entry(const bc_proto *f, int pc) {
  int lo = 0, hi = f->sizeabslineinfo - 1, found = -1;
  if (f->abslineinfo == NULL)
    return -1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (f->abslineinfo[mid].pc <= pc) {
      found = mid;
      lo = mid + 1;
    }
    else
      hi = mid - 1;
  }
  return found;
}

/* As Lua's luaG_getfuncline: start from the nearest absolute line at or
   before pc (or from linedefined, before pc 0) and add the deltas.
   The sum is kept wide so that absurd line numbers cannot overflow. */
int bc_getline(const bc_proto *f, int pc) {
  int e, basepc;
  long long line;
  if (f == NULL || f->lineinfo == NULL || pc < 0 || pc >= f->sizelineinfo)
    return -1;
  e = base_entry(f, pc);
  if (e < 0) {
    basepc = -1;
    line = f->linedefined;
  }
  else {
    basepc = f->abslineinfo[e].pc;
    line = f->abslineinfo[e].line;
    if (basepc < 0)
      return -1;
  }
  while (basepc++ < pc)
    line += f->lineinfo[basepc];
  return (line < INT_MIN || line > INT_MAX) ? -1 : (int)line;
}

/* bc_getline for every pc in one pass: the running sum restarts at each
   absolute entry, which is what the search in bc_getline finds. */
void bc_getlines(const bc_proto *f, int *lines) {
  int pc, e = -1, next = 0, bad = 0, n = f->sizecode, nli;
  int nabs = f->abslineinfo != NULL ? f->sizeabslineinfo : 0;
  long long line = f->linedefined;
  nli = f->lineinfo == NULL ? 0 : f->sizelineinfo < n ? f->sizelineinfo : n;
  for (pc = nli; pc < n; pc++)
    lines[pc] = -1;
  for (pc = 0; pc < nli; ) {
    int stop = nli;
    if (next < nabs && f->abslineinfo[next].pc <= pc) {
      int basepc;
      while (next < nabs && f->abslineinfo[next].pc <= pc)
        e = next++;
      /* restart from the entry, as bc_getline would */
      basepc = f->abslineinfo[e].pc;
      bad = basepc < 0;
      line = f->abslineinfo[e].line;
      while (!bad && basepc++ < pc)
        line += f->lineinfo[basepc];
      lines[pc] = (bad || line < INT_MIN || line > INT_MAX) ? -1 : (int)line;
      pc++;
      continue;
    }
    if (next < nabs && f->abslineinfo[next].pc < stop)
      stop = f->abslineinfo[next].pc;  /* the deltas up to the next entry */
    if (!bad && line >= INT_MIN + 128LL * (stop - pc) &&
        line <= INT_MAX - 127LL * (stop - pc)) {
      int l = (int)line;  /* no delta of the run (-128..127) can take l
                             out of int's range: nothing to check */
      for (; pc < stop; pc++) {
        l += f->lineinfo[pc];
        lines[pc] = l;
      }
      line = l;
    }
    for (; pc < stop; pc++) {
      line += f->lineinfo[pc];
      lines[pc] = (bad || line < INT_MIN || line > INT_MAX) ? -1 : (int)line;
    }
  }
}
