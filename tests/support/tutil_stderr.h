/*
** tutil_stderr.h - what a function of the process writes on its
** standard error (the command's files report through cli_error), kept
** in a temporary file while it runs and given back as a string.
*/
#ifndef TUTIL_STDERR_H
#define TUTIL_STDERR_H

typedef struct tutil_stderr {
  int saved;   /* the descriptor 2 was, to put back */
  void *file;  /* the FILE * that holds what was written */
} tutil_stderr;

/* Send stderr to a new temporary file.  Returns 0, or -1. */
int tutil_stderr_begin(tutil_stderr *c);
/* Put stderr back; what was written meanwhile, NUL-terminated (free
   it), or NULL when it cannot be read. */
char *tutil_stderr_end(tutil_stderr *c);

#endif
