/*
** rw_sync.h - where the scratch register r of a rewritten function holds
** the counter, so that an increment needs no GETUPVAL, and where r may
** run ahead of the counter cell, so that it needs no SETUPVAL either.
*/
#ifndef RW_SYNC_H
#define RW_SYNC_H

#include "rw_cfg.h"

typedef struct rw_sync {
  unsigned char *synced;  /* per block: r holds the counter at its start */
  unsigned char *flush;   /* per block: its accounting code writes r back */
  unsigned char *lazy;    /* per block: r holds the counter all through it
                             and may be ahead of the cell */
} rw_sync;

/* Analyse the blocks of f.  emits[b]: b has accounting code of its own;
   adds[b]: that code adds to r.  allow_lazy is 0 in the overhead mode,
   whose charges count every SETUPVAL.  s's arrays live in a.  Returns 0
   when out of memory. */
int rw_sync_find(const bc_proto *f, const rw_cfg *cfg,
                 const unsigned char *emits, const unsigned char *adds,
                 int allow_lazy, rw_arena *a, rw_sync *s);

#endif
