/*
** sv_dl_pg.c - libpq, opened on the first PostgreSQL ledger: the table
** sv_pq of the functions sv_pg.c calls (sv_dl.h).  The soname comes
** from the Makefile, read from libpq-dev's libpq.so; LRAF_LIBPQ names
** another file to open instead.
*/
#include <pthread.h>
#include <stdio.h>

#include "sv_dl.h"

#ifndef SV_PG_SONAME
/* the Makefile reads it from libpq.so with objdump -p */
#error "no SONAME of libpq.so found at build time: install libpq-dev"
#endif

sv_dl_pg sv_pq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[400];
static int loaded;

/* sizeof: a compile-time check that member f has PQf's type */
#define GET(f) ((void)sizeof(sv_pq.f = PQ##f), \
  sv_dl_sym(h, "PQ" #f, &sv_pq.f, sizeof sv_pq.f, why, sizeof why))

static void load(void) {
  void *h = sv_dl_open("LRAF_LIBPQ", SV_PG_SONAME, "PostgreSQL's libpq", why,
                       sizeof why);
  if (h == NULL) return;
  loaded = GET(connectdb) && GET(status) && GET(reset) && GET(finish) &&
           GET(errorMessage) && GET(exec) && GET(execParams) &&
           GET(resultStatus) && GET(ntuples) && GET(getvalue) && GET(clear);
}

int sv_dl_pg_load(const char **whyp) {
  pthread_once(&once, load);
  *whyp = why;
  return loaded;
}
