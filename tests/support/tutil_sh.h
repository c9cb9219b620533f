/*
** tutil_sh.h - running shell commands from tests: a temporary
** directory per suite, a command's exit status with its stdout and
** stderr kept in files there, and the lraf binary under test ($LRAF).
*/
#ifndef TUTIL_SH_H
#define TUTIL_SH_H

#include <stddef.h>

typedef struct tutil_sh {
  char dir[64];   /* the temporary directory */
  char out[128];  /* stdout of the last command (a file in dir) */
  char err[128];  /* its stderr */
} tutil_sh;

/* Make a new directory /tmp/lraf-TAG-XXXXXX.  Returns 0, or -1. */
int tutil_sh_init(tutil_sh *sh, const char *tag);
/* Remove the directory and everything in it.  Returns 0, or -1. */
int tutil_sh_cleanup(tutil_sh *sh);

/* The lraf binary under test: $LRAF, or build/lraf. */
const char *tutil_sh_lraf(void);

/* Run the shell command cmd with its stdout and stderr going to the
   files out and err.  Returns its exit status, or -1 when it did not
   exit (e.g. killed by a signal). */
int tutil_sh_exec(const char *cmd, const char *out, const char *err);
/* Run the printf-formatted shell command, its stdout and stderr going
   to sh->out and sh->err.  Returns its exit status, or -1 when it did
   not exit (e.g. killed by a signal). */
int tutil_sh_run(tutil_sh *sh, const char *fmt, ...);
/* Run `lraf ARGS` (ARGS printf-formatted) in sh->dir the same way. */
int tutil_sh_lraf_run(tutil_sh *sh, const char *fmt, ...);
/* Run `lraf ARGS` the same way from the directory the test runs in
   (the repository's root), so that ARGS name its files. */
int tutil_sh_lraf_here(tutil_sh *sh, const char *fmt, ...);

/* Write text to the file name in sh->dir.  Returns 0, or -1.  (Read
   files back with tutil_run_slurp.) */
int tutil_sh_write(tutil_sh *sh, const char *name, const char *text);

/* tutil_sh_write, failing the running cmocka test when it cannot. */
void tutil_sh_put(tutil_sh *sh, const char *name, const char *text);
/* The file at path, malloc'ed and NUL-terminated; fails the running
   cmocka test when it cannot be read. */
char *tutil_sh_read(const char *path);
/* The file name in sh->dir (out.txt, err.txt: the last command's),
   malloc'ed and NUL-terminated; fails the running cmocka test when it
   cannot be read. */
char *tutil_sh_slurp(tutil_sh *sh, const char *name);

/* A file a suite writes into sh->dir: its name and text. */
typedef struct tutil_file {
  const char *name, *text;
} tutil_file;

/* tutil_sh_init, then write the n files.  Returns 0, or -1. */
int tutil_sh_setup(tutil_sh *sh, const char *tag, const tutil_file *files,
                   size_t n);
/* Fail the running cmocka test unless the file at path (sh->out,
   sh->err, a report) holds text; the message shows what it holds. */
void tutil_sh_expect(const char *path, const char *text);

#endif
