/*
** tutil_serve.h - test helpers for lraf serve: start the command in the
** background on a free port of 127.0.0.1 and stop it, and a small
** HTTP/1.1 client over plain sockets (keep-alive, Content-Length
** bodies) that talks to 127.0.0.1 only.
*/
#ifndef TUTIL_SERVE_H
#define TUTIL_SERVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Start `LRAF serve ARGS...` (args ends with NULL) with stdout and
   stderr in log; waits up to 20 s for its "listening" line.  Returns
   the pid (0 on failure) and sets *port. */
pid_t tutil_serve_start(const char *const *args, const char *log, int *port);
/* Start `LRAF serve --ledger SPEC ARGS... --port 0 DIR` (spec NULL: no
   --ledger; at most 24 args, ending with NULL) with its log in
   DIR/serve.log: tutil_serve_start's pid and port. */
pid_t tutil_serve_start_in(const char *dir, const char *spec,
                           const char *const *args, int *port);
/* A fresh SQLite ledger file NAME in dir: its path and "sqlite:PATH"
   spec; an old one there, with its -wal and -shm, is removed. */
void tutil_ledger_fresh(const char *dir, const char *name, char *path,
                        size_t psize, char *spec, size_t ssize);
/* Send sig to pid and reap it; returns its wait status. */
int tutil_serve_stop(pid_t pid, int sig);

typedef struct tutil_http {
  int status;
  char head[4096];   /* the status line and headers */
  char *body;        /* malloc'ed, NUL-terminated */
  size_t len;
} tutil_http;

/* A connection to 127.0.0.1:port; -1 on failure. */
int tutil_http_connect(int port);
/* One request on fd (extra: more "Name: value\r\n" lines or NULL; body
   may be NULL).  0 when a whole response was read into r. */
int tutil_http_do(int fd, const char *method, const char *target,
                  const char *extra, const char *body, tutil_http *r);
/* A header's value in r (copied into buf), or NULL. */
const char *tutil_http_header(const tutil_http *r, const char *name,
                              char *buf, size_t size);
/* A header's value in r as an integer, or -1 when r has none. */
int64_t tutil_http_header_int(const tutil_http *r, const char *name);
void tutil_http_free(tutil_http *r);
/* Connect, one request, close.  0 on success. */
int tutil_http_once(int port, const char *method, const char *target,
                    const char *extra, const char *body, tutil_http *r);

/* GET target as tenant (X-Tenant: tenant), with one more header
   "name: value" unless name or value is NULL; tutil_http_once's
   result. */
int tutil_http_get_as(int port, const char *target, const char *tenant,
                      const char *name, const char *value, tutil_http *r);
/* The number after "field": in the body of GET /usage?tenant=tenant
   (extra: more header lines, such as an admin token's, or NULL); -1
   unless the answer is 200 with that field. */
int64_t tutil_serve_usage(int port, const char *extra, const char *tenant,
                          const char *field);

#endif
