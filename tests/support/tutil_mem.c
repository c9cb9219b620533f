/*
** tutil_mem.c - output caught in memory (see tutil_mem.h).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "tutil_mem.h"

FILE *tutil_mem_start(tutil_mem *m) {
  m->f = open_memstream(&m->buf, &m->len);
  assert_non_null(m->f);
  return m->f;
}

char *tutil_mem_done(tutil_mem *m) {
  assert_int_equal(fclose(m->f), 0);
  return m->buf;
}
