/*
** vm_error.c - filling an lraf_error with a formatted message.
*/
#include <stdarg.h>
#include <stdio.h>

#include "vm.h"

lraf_status vm_fail(lraf_error *err, lraf_status code, const char *fmt, ...) {
  if (err != NULL) {
    va_list ap;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}
