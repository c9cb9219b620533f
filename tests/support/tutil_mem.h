/*
** tutil_mem.h - what code under test writes to a FILE *, caught in
** memory as a string (open_memstream).
*/
#ifndef TUTIL_MEM_H
#define TUTIL_MEM_H

#include <stddef.h>
#include <stdio.h>

typedef struct tutil_mem {
  char *buf;
  size_t len;
  FILE *f;
} tutil_mem;

/* A new stream writing into m; fails the test when it cannot. */
FILE *tutil_mem_start(tutil_mem *m);
/* Close m's stream: what was written, NUL-terminated (free it). */
char *tutil_mem_done(tutil_mem *m);

#endif
