/*
** sv_dl.c - what the run-time loaders of libsqlite3 and libpq share:
** dlopen by soname (or by an environment variable's file name), and
** dlsym into a typed function pointer, with errors as messages that
** name the library and carry dlerror's text.
*/
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_dl.h"

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
