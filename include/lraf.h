/*
** lraf.h - the public interface of lraf, the Lua Resource Accounting
** Framework.  This is the only header a host includes.
**
** Everything that can fail returns an lraf_status and, where the caller
** passes one, fills an lraf_error with a message that says what was wrong
** and where.  Nothing in the library calls exit() or prints.
*/
#ifndef LRAF_H
#define LRAF_H

#include <stddef.h>
#include <stdint.h>

#define LRAF_VERSION "0.1.0"

/* Result codes.  Every failing call returns one of these. */
typedef enum lraf_status {
  LRAF_OK = 0,
  LRAF_EMEM,      /* out of memory */
  LRAF_EFORMAT,   /* malformed or unsupported binary chunk */
  LRAF_ELIMIT,    /* input exceeds a documented resource limit */
  LRAF_EREWRITE,  /* a function cannot be rewritten (e.g. too many registers) */
  LRAF_EVERIFY,   /* rewritten code failed verification (an lraf bug) */
  LRAF_ESYNTAX,   /* Lua source did not compile */
  LRAF_ERUN,      /* a Lua error escaped the script */
  LRAF_EQUOTA,    /* an instruction quota was exhausted */
  LRAF_EMEMLIMIT, /* a memory limit was exceeded */
  LRAF_EIO,       /* a file could not be read or written */
  LRAF_EARG       /* the caller passed an invalid argument */
} lraf_status;

/* A failure: the code and a message naming what was wrong and where. */
typedef struct lraf_error {
  lraf_status code;
  char message[512];
} lraf_error;

/* A short constant name for a status code, e.g. "format" for LRAF_EFORMAT. */
const char *lraf_status_name(lraf_status code);

#endif
