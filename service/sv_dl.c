/*
** sv_dl.c - libsqlite3 and libpq, opened at run time on the first
** ledger that needs one: dlopen by soname (or by the file an
** environment variable names), dlsym into the typed tables sv_sq and
** sv_pq (sv_dl.h), with errors as messages that name the library and
** carry dlerror's text.  The sonames come from the Makefile, read from
** the -dev packages' libsqlite3.so and libpq.so; LRAF_LIBSQLITE3 and
** LRAF_LIBPQ name other files to open instead.
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_dl.h"

#ifndef SV_SQLITE_SONAME
/* the Makefile reads it from libsqlite3.so with objdump -p */
#error "no SONAME of libsqlite3.so found at build time: install libsqlite3-dev"
#endif
#ifndef SV_PG_SONAME
/* the Makefile reads it from libpq.so with objdump -p */
#error "no SONAME of libpq.so found at build time: install libpq-dev"
#endif

/* POSIX (dlsym) guarantees that a void * holds a function's address. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "function and object pointers differ in size");

void *sv_dl_open(const char *env, const char *soname, const char *what,
                 char *why, size_t size) {
  const char *name = getenv(env);
  void *h;
  if (name == NULL || name[0] == '\0') name = soname;
  h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(why, size, "cannot load %s (%s): %s", name, what,
             e != NULL ? e : "unknown error");
  }
  return h;
}

int sv_dl_sym(void *h, const char *name, void *slot, size_t size, char *why,
              size_t whysize) {
  void *p;
  dlerror();
  p = dlsym(h, name);
  if (p == NULL || size != sizeof p) {
    const char *e = dlerror();
    snprintf(why, whysize, "cannot find %s: %s", name,
             e != NULL ? e : "not a function");
    return 0;
  }
  memcpy(slot, &p, sizeof p);
  return 1;
}

/* ---- libsqlite3 ---- */

sv_dl_sqlite sv_sq;

static pthread_once_t sq_once = PTHREAD_ONCE_INIT;
static char sq_why[400];
static int sq_loaded;

/* sizeof: a compile-time check that member f has sqlite3_f's type */
#define SQ(f) ((void)sizeof(sv_sq.f = sqlite3_##f), \
  sv_dl_sym(h, "sqlite3_" #f, &sv_sq.f, sizeof sv_sq.f, sq_why, \
            sizeof sq_why))

static void sq_load(void) {
  void *h = sv_dl_open("LRAF_LIBSQLITE3", SV_SQLITE_SONAME, "SQLite",
                       sq_why, sizeof sq_why);
  if (h == NULL) return;
  sq_loaded = SQ(open_v2) && SQ(close) && SQ(busy_timeout) && SQ(exec) &&
              SQ(errmsg) && SQ(prepare_v2) && SQ(bind_text) &&
              SQ(bind_int) && SQ(bind_int64) && SQ(bind_null) && SQ(step) &&
              SQ(column_int) && SQ(column_int64) && SQ(column_text) &&
              SQ(reset) && SQ(finalize) && SQ(changes) &&
              SQ(wal_checkpoint_v2);
}

int sv_dl_sqlite_load(const char **whyp) {
  pthread_once(&sq_once, sq_load);
  *whyp = sq_why;
  return sq_loaded;
}

/* ---- libpq ---- */

sv_dl_pg sv_pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static char pq_why[400];
static int pq_loaded;

/* sizeof: a compile-time check that member f has PQf's type */
#define PQ(f) ((void)sizeof(sv_pq.f = PQ##f), \
  sv_dl_sym(h, "PQ" #f, &sv_pq.f, sizeof sv_pq.f, pq_why, sizeof pq_why))

static void pq_load(void) {
  void *h = sv_dl_open("LRAF_LIBPQ", SV_PG_SONAME, "PostgreSQL's libpq",
                       pq_why, sizeof pq_why);
  if (h == NULL) return;
  pq_loaded = PQ(connectdb) && PQ(status) && PQ(reset) && PQ(finish) &&
              PQ(errorMessage) && PQ(exec) && PQ(execParams) &&
              PQ(resultStatus) && PQ(resultErrorField) && PQ(ntuples) &&
              PQ(getvalue) && PQ(clear);
}

int sv_dl_pg_load(const char **whyp) {
  pthread_once(&pq_once, pq_load);
  *whyp = pq_why;
  return pq_loaded;
}
