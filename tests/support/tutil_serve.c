/*
** tutil_serve.c - starting and stopping lraf serve, and a minimal
** HTTP/1.1 client for the tests (127.0.0.1 only).  A server that a
** test leaves running (a failed assertion skips its own stop) is killed
** when the test process exits, or dies with it.
*/
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tutil_serve.h"

static void nap(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Servers started and not yet stopped. */
#define MAX_SERVERS 16
static pid_t running[MAX_SERVERS];

static void kill_left(void) {
  int i;
  for (i = 0; i < MAX_SERVERS; i++)
    if (running[i] > 0) {
      fprintf(stderr, "   (stopping lraf serve %d, left running)\n",
              (int)running[i]);
      tutil_serve_stop(running[i], SIGKILL);
    }
}

static void remember(pid_t pid) {
  static int registered;
  int i;
  if (!registered) registered = atexit(kill_left) == 0;
  for (i = 0; i < MAX_SERVERS; i++)
    if (running[i] <= 0) {
      running[i] = pid;
      return;
    }
}

static void forget(pid_t pid) {
  int i;
  for (i = 0; i < MAX_SERVERS; i++)
    if (running[i] == pid) running[i] = 0;
}

pid_t tutil_serve_start(const char *const *args, const char *log, int *port) {
  const char *lraf = getenv("LRAF");
  const char *argv[64];
  pid_t pid, parent;
  int n = 0, i;
  *port = 0;
  argv[n++] = lraf ? lraf : "build/lraf";
  argv[n++] = "serve";
  for (i = 0; args[i] != NULL && n < 62; i++) argv[n++] = args[i];
  argv[n] = NULL;
  unlink(log);   /* no old "listening" line */
  parent = getpid();
  pid = fork();
  if (pid < 0) return 0;
  if (pid == 0) {
    int fd;
    /* dies with the test, even one killed by a signal */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
      _exit(127);
    fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  remember(pid);
  for (i = 0; i < 400; i++) {
    char buf[4096];
    FILE *f = fopen(log, "r");
    int status;
    if (f != NULL) {
      size_t k = fread(buf, 1, sizeof buf - 1, f);
      const char *p;
      buf[k] = '\0';
      fclose(f);
      p = strstr(buf, "listening on http://127.0.0.1:");
      if (p != NULL) {
        *port = atoi(p + strlen("listening on http://127.0.0.1:"));
        return pid;
      }
    }
    if (waitpid(pid, &status, WNOHANG) == pid) {
      forget(pid);
      return 0;
    }
    nap(50);
  }
  tutil_serve_stop(pid, SIGKILL);
  return 0;
}

int tutil_serve_stop(pid_t pid, int sig) {
  int status = -1;
  if (pid <= 0) return -1;
  kill(pid, sig);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  forget(pid);
  return status;
}

int tutil_http_connect(int port) {
  struct sockaddr_in a;
  int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  if (fd < 0) return -1;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static int send_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return -1;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

const char *tutil_http_header(const tutil_http *r, const char *name,
                              char *buf, size_t size) {
  const char *p = strstr(r->head, "\r\n");
  size_t n = strlen(name);
  while (p != NULL && p[2] != '\0') {
    p += 2;
    if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
      const char *v = p + n + 1, *e;
      size_t k;
      while (*v == ' ') v++;
      e = strstr(v, "\r\n");
      k = e ? (size_t)(e - v) : strlen(v);
      if (k >= size) k = size - 1;
      memcpy(buf, v, k);
      buf[k] = '\0';
      return buf;
    }
    p = strstr(p, "\r\n");
  }
  return NULL;
}

int tutil_http_do(int fd, const char *method, const char *target,
                  const char *extra, const char *body, tutil_http *r) {
  char req[8192], cl[32];
  size_t blen = body ? strlen(body) : 0, have = 0, want;
  char *end;
  int n;
  memset(r, 0, sizeof *r);
  n = snprintf(req, sizeof req,
               "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Length: %zu"
               "\r\n\r\n", method, target, extra ? extra : "", blen);
  if (n < 0 || (size_t)n >= sizeof req || send_all(fd, req, (size_t)n) != 0 ||
      (blen > 0 && send_all(fd, body, blen) != 0))
    return -1;
  /* the head; the server sends nothing beyond this response, so what
     follows the blank line is the body's start */
  char *sep = NULL, first[sizeof r->head];
  size_t extra_len = 0;
  for (;;) {
    ssize_t k;
    if (have + 1 >= sizeof r->head) return -1;
    k = recv(fd, r->head + have, sizeof r->head - 1 - have, 0);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return -1;
    }
    have += (size_t)k;
    r->head[have] = '\0';
    if ((sep = strstr(r->head, "\r\n\r\n")) != NULL) break;
  }
  extra_len = have - (size_t)(sep + 4 - r->head);
  memcpy(first, sep + 4, extra_len);
  sep[2] = '\0';   /* the head ends with its last header line */
  if (sscanf(r->head, "HTTP/1.%*d %d", &r->status) != 1) return -1;
  want = tutil_http_header(r, "Content-Length", cl, sizeof cl)
             ? (size_t)strtoul(cl, &end, 10) : 0;
  if (extra_len > want) return -1;
  r->body = malloc(want + 1);
  if (r->body == NULL) return -1;
  memcpy(r->body, first, extra_len);
  r->len = extra_len;
  while (r->len < want) {
    ssize_t k = recv(fd, r->body + r->len, want - r->len, 0);
    if (k <= 0) {
      if (k < 0 && errno == EINTR) continue;
      return -1;
    }
    r->len += (size_t)k;
  }
  r->body[r->len] = '\0';
  return 0;
}

void tutil_http_free(tutil_http *r) {
  free(r->body);
  r->body = NULL;
}

int tutil_http_once(int port, const char *method, const char *target,
                    const char *extra, const char *body, tutil_http *r) {
  int fd = tutil_http_connect(port), st;
  if (fd < 0) {
    memset(r, 0, sizeof *r);
    return -1;
  }
  st = tutil_http_do(fd, method, target, extra, body, r);
  close(fd);
  return st;
}

pid_t tutil_serve_start_in(const char *dir, const char *spec,
                           const char *const *args, int *port) {
  const char *a[32];
  char log[512];
  int n = 0, i;
  if (spec != NULL) {
    a[n++] = "--ledger";
    a[n++] = spec;
  }
  for (i = 0; args != NULL && args[i] != NULL; i++) {
    if (i == 24) return 0;
    a[n++] = args[i];
  }
  a[n++] = "--port";
  a[n++] = "0";
  a[n++] = dir;
  a[n] = NULL;
  snprintf(log, sizeof log, "%s/serve.log", dir);
  return tutil_serve_start(a, log, port);
}

void tutil_ledger_fresh(const char *dir, const char *name, char *path,
                        size_t psize, char *spec, size_t ssize) {
  static const char *const more[] = {"", "-wal", "-shm"};
  char p[600];
  size_t i;
  snprintf(path, psize, "%s/%s", dir, name);
  snprintf(spec, ssize, "sqlite:%s", path);
  for (i = 0; i < sizeof more / sizeof more[0]; i++) {
    snprintf(p, sizeof p, "%s%s", path, more[i]);
    unlink(p);
  }
}

int64_t tutil_http_header_int(const tutil_http *r, const char *name) {
  char v[64];
  return tutil_http_header(r, name, v, sizeof v) ? strtoll(v, NULL, 10)
                                                 : -1;
}

int tutil_http_get_as(int port, const char *target, const char *tenant,
                      const char *name, const char *value, tutil_http *r) {
  char extra[1024];
  int n = snprintf(extra, sizeof extra, "X-Tenant: %s\r\n", tenant);
  if (name != NULL && value != NULL)
    snprintf(extra + n, sizeof extra - (size_t)n, "%s: %s\r\n", name, value);
  return tutil_http_once(port, "GET", target, extra, NULL, r);
}

int64_t tutil_serve_usage(int port, const char *extra, const char *tenant,
                          const char *field) {
  char target[160], pat[64];
  tutil_http r;
  const char *p;
  int64_t v = -1;
  snprintf(target, sizeof target, "/usage?tenant=%s", tenant);
  if (tutil_http_once(port, "GET", target, extra, NULL, &r) != 0) {
    tutil_http_free(&r);
    return -1;
  }
  snprintf(pat, sizeof pat, "\"%s\": ", field);
  if (r.status == 200 && r.body != NULL && (p = strstr(r.body, pat)) != NULL)
    v = strtoll(p + strlen(pat), NULL, 10);
  tutil_http_free(&r);
  return v;
}
