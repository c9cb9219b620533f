/*
** err.c - filling an lraf_error with a formatted message, and the
** names of the public status codes.
*/
#include <stdarg.h>
#include <stdio.h>

#include "err.h"

lraf_status err_fail(lraf_error *err, lraf_status code, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

const char *lraf_status_name(lraf_status code) {
  switch (code) {
    case LRAF_OK: return "ok";
    case LRAF_EMEM: return "out-of-memory";
    case LRAF_EFORMAT: return "format";
    case LRAF_ELIMIT: return "limit";
    case LRAF_EREWRITE: return "rewrite";
    case LRAF_EVERIFY: return "verify";
    case LRAF_ESYNTAX: return "syntax";
    case LRAF_ERUN: return "runtime";
    case LRAF_EQUOTA: return "quota";
    case LRAF_EMEMLIMIT: return "memory";
    case LRAF_EIO: return "io";
    case LRAF_EARG: return "argument";
  }
  return "unknown";
}
