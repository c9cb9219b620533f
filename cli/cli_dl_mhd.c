/*
** cli_dl_mhd.c - libmicrohttpd, opened when `lraf serve` starts its
** HTTP front: the table cli_mhd of the functions cli_serve_http.c calls
** (cli_dl_mhd.h).  The soname comes from the Makefile, read from
** libmicrohttpd-dev's libmicrohttpd.so; LRAF_LIBMICROHTTPD names
** another file to open instead (tests point it at a missing one).
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_dl_mhd.h"

#ifndef CLI_MHD_SONAME
/* the Makefile reads it from libmicrohttpd.so with objdump -p */
#error "no SONAME of libmicrohttpd.so found: install libmicrohttpd-dev"
#endif

/* POSIX (dlsym) guarantees that a void * holds a function's address. */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "function and object pointers differ in size");

cli_dl_mhd cli_mhd;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[400];
static int loaded;

/* Store symbol name of h in the function pointer at slot. */
static int sym(void *h, const char *name, void *slot) {
  void *p;
  dlerror();
  p = dlsym(h, name);
  if (p == NULL) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot find %s: %s", name,
             e != NULL ? e : "not a function");
    return 0;
  }
  memcpy(slot, &p, sizeof p);
  return 1;
}

/* sizeof: a compile-time check that member f has MHD_f's type */
#define GET(f) ((void)sizeof(cli_mhd.f = MHD_##f), \
  sym(h, "MHD_" #f, &cli_mhd.f))

static void load(void) {
  const char *name = getenv("LRAF_LIBMICROHTTPD");
  void *h;
  if (name == NULL || name[0] == '\0') name = CLI_MHD_SONAME;
  h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load %s (libmicrohttpd): %s", name,
             e != NULL ? e : "unknown error");
    return;
  }
  loaded = GET(start_daemon) && GET(stop_daemon) && GET(get_daemon_info) &&
           GET(lookup_connection_value) && GET(get_connection_values) &&
           GET(create_response_from_buffer) && GET(add_response_header) &&
           GET(queue_response) && GET(destroy_response);
}

int cli_dl_mhd_load(const char **whyp) {
  pthread_once(&once, load);
  *whyp = why;
  return loaded;
}
