/*
** sv_dl_sqlite.c - libsqlite3, opened on the first SQLite ledger: the
** table sv_sq of the functions sv_sqlite.c calls (sv_dl.h).  The soname
** comes from the Makefile, read from libsqlite3-dev's libsqlite3.so;
** LRAF_LIBSQLITE3 names another file to open instead.
*/
#include <pthread.h>
#include <stdio.h>

#include "sv_dl.h"

#ifndef SV_SQLITE_SONAME
/* the Makefile reads it from libsqlite3.so with objdump -p */
#error "no SONAME of libsqlite3.so found at build time: install libsqlite3-dev"
#endif

sv_dl_sqlite sv_sq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[400];
static int loaded;

/* sizeof: a compile-time check that member f has sqlite3_f's type */
#define GET(f) ((void)sizeof(sv_sq.f = sqlite3_##f), \
  sv_dl_sym(h, "sqlite3_" #f, &sv_sq.f, sizeof sv_sq.f, why, sizeof why))

static void load(void) {
  void *h = sv_dl_open("LRAF_LIBSQLITE3", SV_SQLITE_SONAME, "SQLite", why,
                       sizeof why);
  if (h == NULL) return;
  loaded = GET(open_v2) && GET(close) && GET(busy_timeout) && GET(exec) &&
           GET(errmsg) && GET(prepare_v2) && GET(bind_text) &&
           GET(bind_int) && GET(bind_int64) && GET(bind_null) && GET(step) &&
           GET(column_int) && GET(column_int64) && GET(column_text) &&
           GET(reset) &&
           GET(finalize) && GET(changes) && GET(wal_checkpoint_v2);
}

int sv_dl_sqlite_load(const char **whyp) {
  pthread_once(&once, load);
  *whyp = why;
  return loaded;
}
