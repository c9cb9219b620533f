/*
** tutil_fuzz_http.c - what fuzz_http does with one input: the bytes
** made into one HTTP request (a small grammar, so that most inputs are
** nearly valid; or sent raw), sent on a connection of its own to lraf
** serve on 127.0.0.1:port, then a good request on another:
**   - whatever comes back is one well-formed response: a status line
**     of HTTP/1.x and a status 100..599, header lines, and as many body
**     bytes as its Content-Length says; a status >= 400 has a message;
**   - a well-framed request (what frame() says) gets a response, from
**     lraf (X-Lraf-Instructions) or one of libmicrohttpd's own refusals
**     of a request too big for it (413, 414, 431);
**     (of a request the server stopped reading, with a reset, only that
**     it is not refused);
**   - a request of ambiguous framing (byte 0's low bits 1: two
**     Content-Lengths, Content-Length with Transfer-Encoding, a coding
**     other than chunked, a length that is no plain number, then a
**     second request after the body) gets refusals only (400, or
**     libmicrohttpd's 413, 414, 431), nothing from a handler, and never
**     an answer to the request after it; when a header line before the
**     framing starts with a NUL byte or a colon (no name),
**     libmicrohttpd 0.9.75 ends the header block there and never sees
**     the framing (docs/service.md leaves that to the gateway), so only
**     the last holds;
**   - no answer takes longer than 10 s, and the good request afterwards
**     gets 200: the server is alive and serving.
** Traffic goes to 127.0.0.1 only.
*/
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tutil_fuzz.h"

#define WAIT_MS 10000
#define MAXRESP (4u << 20)

static int broken(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why != NULL && n > 0) vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return -1;
}

typedef struct buf {
  char *p;
  size_t len, cap;
} buf;

static void put(buf *b, const void *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = (b->len + n + 1) * 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) abort();
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Send req on a new connection, close our side, read until the server
   closes.  0 with the answer in resp; 1 when it took over WAIT_MS; -1
   when no connection could be made.  *reset: the connection was reset
   (the server closed it with part of the request unread, so TCP may
   have dropped part of its answer). */
/* errno of the last connect that failed (for the message) */
static int connect_errno;

/* A socket connected to the front, or -1 with connect_errno set.  A
   client that opens a thousand connections a second can run out of
   local ports (EADDRNOTAVAIL) while closed ones wait out TIME_WAIT: that
   is this client's limit, not the server's, so it waits and tries again
   until the deadline.  A refused connection is the server's failure. */
static int connect_front(int port, long deadline) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (;;) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      connect_errno = errno;
      return -1;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return fd;
    connect_errno = errno;
    close(fd);
    if ((connect_errno != EADDRNOTAVAIL && connect_errno != EINTR) ||
        now_ms() >= deadline)
      return -1;
    {
      struct timespec pause = {0, 20 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
  }
}

static int exchange(int port, const buf *req, buf *resp, int *reset) {
  size_t off = 0;
  long deadline = now_ms() + WAIT_MS;
  int fd = connect_front(port, deadline);
  *reset = 0;
  if (fd < 0) return -1;
  /* the server may answer and close before it has read everything */
  while (off < req->len) {
    ssize_t k = send(fd, req->p + off, req->len - off, MSG_NOSIGNAL);
    if (k <= 0) break;
    off += (size_t)k;
  }
  shutdown(fd, SHUT_WR);
  for (;;) {
    char tmp[8192];
    struct pollfd pf;
    long left = deadline - now_ms();
    ssize_t k;
    if (left <= 0) {
      close(fd);
      return 1;
    }
    pf.fd = fd;
    pf.events = POLLIN;
    if (poll(&pf, 1, (int)left) <= 0) continue;
    k = recv(fd, tmp, sizeof tmp, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && errno == ECONNRESET) *reset = 1;
    if (k <= 0) break;
    if (resp->len < MAXRESP) put(resp, tmp, (size_t)k);
  }
  close(fd);
  return 0;
}

/* The first occurrence of the n bytes of what in s[0..len), or NULL. */
static const char *find(const char *s, size_t len, const char *what,
                        size_t n) {
  size_t i;
  for (i = 0; i + n <= len; i++)
    if (memcmp(s + i, what, n) == 0) return s + i;
  return NULL;
}

/* A response's parts. */
typedef struct parsed {
  int status;
  size_t head;        /* bytes of the status line and headers, CRLFCRLF in */
  long length;        /* Content-Length, or -1 */
  int lraf;           /* X-Lraf-Instructions present */
} parsed;

/* Check that r holds one well-formed response; NULL or what is wrong. */
static const char *parse(const buf *r, int head_only, parsed *p) {
  const char *s = r->p, *end, *line;
  memset(p, 0, sizeof *p);
  p->length = -1;
  if (r->len < 12 || (strncmp(s, "HTTP/1.1 ", 9) != 0 &&
                      strncmp(s, "HTTP/1.0 ", 9) != 0))
    return "no HTTP/1.x status line";
  if (!isdigit((unsigned char)s[9]) || !isdigit((unsigned char)s[10]) ||
      !isdigit((unsigned char)s[11]))
    return "no three-digit status";
  p->status = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
  if (p->status < 100 || p->status > 599) return "a status out of 100..599";
  end = find(s, r->len, "\r\n\r\n", 4);
  if (end == NULL) return "headers without their closing empty line";
  p->head = (size_t)(end - s) + 4;
  line = (const char *)memchr(s, '\n', r->len) + 1;
  while (line < end + 2) {
    const char *eol = find(line, (size_t)(end + 2 - line), "\r\n", 2);
    const char *colon = memchr(line, ':', (size_t)(eol - line));
    if (colon == NULL || colon == line) return "a header line without a name";
    if ((size_t)(colon - line) == 14 &&
        strncasecmp(line, "Content-Length", 14) == 0)
      p->length = strtol(colon + 1, NULL, 10);
    if ((size_t)(colon - line) == 19 &&
        strncasecmp(line, "X-Lraf-Instructions", 19) == 0)
      p->lraf = 1;
    line = eol + 2;
  }
  if (!head_only && p->length >= 0 &&
      r->len - p->head < (size_t)p->length)
    return "a body shorter than its Content-Length";
  if (!head_only && p->status >= 400 &&
      (p->length == 0 || r->len == p->head))
    return "an error status without a message";
  return NULL;
}

/* ---- the grammar ---- */

static int token_char(int c) {
  return c > 32 && c < 127 && strchr("()<>@,;:\\\"/[]?={}", c) == NULL;
}

/* Whether a header line is "Name: value" of a token and visible bytes
   (and no framing header of its own). */
static int plain_header(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && token_char((unsigned char)s[i])) i++;
  if (i == 0 || i >= n || s[i] != ':') return 0;
  if ((i == 14 && strncasecmp(s, "Content-Length", 14) == 0) ||
      (i == 17 && strncasecmp(s, "Transfer-Encoding", 17) == 0) ||
      (i == 4 && strncasecmp(s, "Host", 4) == 0) ||
      (i == 10 && strncasecmp(s, "Connection", 10) == 0) ||
      (i == 6 && strncasecmp(s, "Expect", 6) == 0))
    return 0;
  for (i++; i < n; i++)
    if ((unsigned char)s[i] < 32 && s[i] != '\t') return 0;
    else if (s[i] == 127) return 0;
  return 1;
}

static int plain_target(const char *s, size_t n) {
  size_t i;
  if (n == 0 || s[0] != '/') return 0;
  for (i = 0; i < n; i++)
    if ((unsigned char)s[i] <= 32 || (unsigned char)s[i] >= 127) return 0;
  return 1;
}

/* The framing header lines of ambiguous request k (its selector byte)
   for a body of n bytes. */
static void ambiguity(buf *req, unsigned k, size_t n) {
  char line[160];
  size_t other = n + 1 + (k >> 3);
  switch (k & 7) {
    case 0: snprintf(line, sizeof line, "Content-Length: %zu\r\n"
                     "Content-Length: %zu\r\n", n, other); break;
    case 1: snprintf(line, sizeof line, "Content-Length: %zu\r\n"
                     "Content-Length: %zu\r\n", other, n); break;
    case 2: snprintf(line, sizeof line, "Content-Length: %zu\r\n"
                     "Transfer-Encoding: chunked\r\n", n); break;
    case 3: snprintf(line, sizeof line, "Transfer-Encoding: chunked\r\n"
                     "Content-Length: %zu\r\n", n); break;
    case 4: snprintf(line, sizeof line, "Transfer-Encoding: %s\r\n",
                     k & 8 ? "gzip, chunked" : "identity"); break;
    case 5: snprintf(line, sizeof line, "Transfer-Encoding: chunked\r\n"
                     "Transfer-Encoding: chunked\r\n"); break;
    case 6: snprintf(line, sizeof line, "Content-Length: %zu\r\n"
                     "Content-Length: %zu\r\n", n, n); break;
    default: snprintf(line, sizeof line, "Content-Length: %s%zu\r\n",
                      k & 8 ? "0x" : "+", n); break;
  }
  puts_(req, line);
}

/* The request a smuggler hides after the body. */
static const char hidden[] = "GET /echo?v=smuggled HTTP/1.1\r\n"
                             "Host: 127.0.0.1\r\nX-Tenant: fuzz\r\n"
                             "Content-Length: 0\r\n\r\n";

/* The request for an input: byte 0 chooses the method, the version,
   whether X-Tenant and a correct Content-Length are added, or that the
   rest is sent raw, or (low bits 1) that byte 1 chooses an ambiguous
   framing; the rest is "TARGET\nHEADER\n...\n\nBODY".  Sets *framed
   when the request is well-framed HTTP/1.x, *ambiguous when its framing
   is ambiguous, *cut when a header line before it starts with a NUL
   byte or a colon. */
static void build(const uint8_t *data, size_t size, buf *req, int *framed,
                  int *head, int *ambiguous, int *cut) {
  static const char *const methods[] = {"GET", "POST", "GET", "POST",
                                        "HEAD", "PUT", "DELETE", NULL};
  unsigned f = data[0];
  const char *p = (const char *)data + 1, *end = (const char *)data + size;
  const char *nl, *method = methods[(f >> 2) & 7];
  char line[64];
  unsigned k = 0;
  *framed = 1;
  *head = 0;
  *ambiguous = 0;
  *cut = 0;
  if ((f & 3) == 1 && p < end) {  /* ambiguous framing */
    *ambiguous = 1;
    *framed = 0;
    k = (unsigned char)*p++;
  }
  if ((f & 3) == 3) {           /* raw */
    put(req, p, (size_t)(end - p));
    *framed = 0;
    return;
  }
  if (method == NULL) {         /* the method from the input */
    nl = memchr(p, ' ', (size_t)(end - p));
    if (nl == NULL) nl = end;
    put(req, p, (size_t)(nl - p));
    *framed = 0;
    p = nl < end ? nl + 1 : end;
  } else {
    puts_(req, method);
    *head = strcmp(method, "HEAD") == 0;
  }
  puts_(req, " ");
  nl = memchr(p, '\n', (size_t)(end - p));
  if (nl == NULL) nl = end;
  if (nl == p) {
    puts_(req, "/echo");
  } else {
    if (!plain_target(p, (size_t)(nl - p))) *framed = 0;
    put(req, p, (size_t)(nl - p));
  }
  p = nl < end ? nl + 1 : end;
  puts_(req, f & 0x80 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
  puts_(req, "Host: 127.0.0.1\r\nConnection: close\r\n");
  if (f & 0x20) puts_(req, "X-Tenant: fuzz\r\n");
  while (p < end) {             /* header lines up to an empty one */
    nl = memchr(p, '\n', (size_t)(end - p));
    if (nl == NULL) nl = end;
    if (nl == p) {
      p++;
      break;
    }
    if (*p == '\0' || *p == ':') *cut = 1;
    if ((f & 3) == 2) {         /* as given */
      put(req, p, (size_t)(nl - p + (nl < end)));
      *framed = 0;
    } else {
      if (!plain_header(p, (size_t)(nl - p))) *framed = 0;
      put(req, p, (size_t)(nl - p));
      puts_(req, "\r\n");
    }
    p = nl < end ? nl + 1 : end;
  }
  if (*ambiguous) {
    ambiguity(req, k, (size_t)(end - p));
  } else if (!(f & 0x40)) {
    snprintf(line, sizeof line, "Content-Length: %zu\r\n", (size_t)(end - p));
    puts_(req, line);
  } else if (end > p) {
    *framed = 0;                /* a body without its length */
  }
  puts_(req, "\r\n");
  put(req, p, (size_t)(end - p));
  if (*ambiguous) puts_(req, hidden);
}

/* NULL when every response in r is a refusal and none came from a
   handler; else what is wrong. */
static const char *refusals_only(const buf *r) {
  const char *s = r->p, *end;
  int n = 0;
  if (r->len == 0) return NULL;   /* closed without an answer */
  end = r->p + r->len;
  if (find(s, r->len, "X-Request-Id", 12) != NULL)   /* run's answers */
    return "a handler ran for a request of ambiguous framing";
  while ((s = find(s, (size_t)(end - s), "HTTP/1.", 7)) != NULL) {
    int st = end - s >= 12 ? atoi(s + 9) : 0;
    if (st != 400 && st != 413 && st != 414 && st != 431)
      return "a request of ambiguous framing got a status other than "
             "400, 413, 414 or 431";
    n++;
    s += 7;
  }
  return n > 0 ? NULL : "an answer to a request of ambiguous framing "
                        "without a status line";
}

/* NULL unless the request hidden after the body was answered. */
static const char *hidden_unanswered(const buf *r) {
  if (r->len > 0 && find(r->p, r->len, "X-Echo: smuggled", 16) != NULL)
    return "the request hidden after the body of a request of ambiguous "
           "framing was answered";
  return NULL;
}

static int alive(int port, char *why, size_t n) {
  static const char good[] = "GET /echo?v=alive HTTP/1.1\r\n"
                             "Host: 127.0.0.1\r\nX-Tenant: fuzz\r\n"
                             "Connection: close\r\n\r\n";
  buf req = {0}, resp = {0};
  parsed p;
  const char *bad;
  int rc, ok, reset;
  put(&req, good, sizeof good - 1);
  rc = exchange(port, &req, &resp, &reset);
  free(req.p);
  if (rc != 0) {
    free(resp.p);
    if (rc > 0)
      return broken(why, n, "the server did not answer a good request "
                    "afterwards in 10 s");
    return broken(why, n, "a good request afterwards could not connect: %s",
                  strerror(connect_errno));
  }
  bad = resp.len ? parse(&resp, 0, &p) : "nothing";
  ok = bad == NULL && p.status == 200 && p.lraf;
  if (!ok)
    rc = broken(why, n, "a good request afterwards got %s (%.60s)",
                bad ? bad : "a status other than 200",
                resp.p ? resp.p : "");
  free(resp.p);
  return rc;
}

int tutil_fuzz_http(int port, const uint8_t *data, size_t size, char *why,
                    size_t n) {
  buf req = {0}, resp = {0};
  parsed p;
  const char *bad = NULL;
  int framed = 0, head = 0, ambiguous = 0, cut = 0, rc, reset;
  if (size > 0) {
    build(data, size, &req, &framed, &head, &ambiguous, &cut);
    rc = exchange(port, &req, &resp, &reset);
    free(req.p);
    if (rc != 0) {
      free(resp.p);
      if (rc > 0) return broken(why, n, "no answer in 10 s");
      return broken(why, n, "cannot connect to 127.0.0.1:%d: %s", port,
                    strerror(connect_errno));
    }
    if (ambiguous)
      bad = cut ? hidden_unanswered(&resp) : refusals_only(&resp);
    if (reset && !framed) resp.len = 0;   /* what came may be cut */
    if (bad == NULL && resp.len > 0) bad = parse(&resp, head, &p);
    else if (framed) bad = "no response to a well-framed request";
    if (bad == NULL && resp.len > 0 && framed && !p.lraf &&
        p.status != 413 && p.status != 414 && p.status != 431)
      bad = "a response to a well-framed request without "
            "X-Lraf-Instructions";
    if (bad != NULL) {
      rc = broken(why, n, "%s: %.200s", bad, resp.p ? resp.p : "");
      free(resp.p);
      return rc;
    }
    free(resp.p);
  }
  return alive(port, why, n);
}
