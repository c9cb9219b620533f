/*
** serve.c - make bench: lraf serve's throughput and latency with
** metering and the SQLite ledger (group commit, synchronous=FULL),
** with metering and no ledger, and with metering off (plain Lua), on
** the same handler, clients and machine, side by side in one run.
** Each configuration runs ROUNDS times, interleaved; the median of
** each figure is reported with its ratio to metering off.  Before each
** timed run, 60 requests warm the server up (states made, handlers
** rewritten and loaded).
**
**   usage: serve HANDLER_DIR [HANDLER QUERY]   ($LRAF: the command)
**   env: CLIENTS (16), REQUESTS per client (1000), ROUNDS (3)
** Traffic goes to 127.0.0.1 only.
*/
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tutil_serve.h"

#define NCONF 3

static const char *const conf_name[NCONF] = {
  "metering off", "metering", "metering + ledger"
};

static int clients, per_client, port;
static const char *target;
static double *lat;   /* seconds, per request */
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *client(void *arg) {
  int id = (int)(long)arg, i, fd = tutil_http_connect(port);
  for (i = 0; i < per_client; i++) {
    char extra[64];
    tutil_http r;
    double t0 = now();
    snprintf(extra, sizeof extra, "X-Tenant: t%d\r\n", id % 3);
    if (fd < 0 || tutil_http_do(fd, "GET", target, extra, NULL, &r) != 0 ||
        r.status != 200) {
      pthread_mutex_lock(&lock);
      failures++;
      pthread_mutex_unlock(&lock);
      tutil_http_free(&r);
      break;
    }
    lat[id * per_client + i] = now() - t0;
    tutil_http_free(&r);
  }
  if (fd >= 0) close(fd);
  return NULL;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One run of configuration c: requests/s, p50 and p99 in ms. */
static int measure(int c, const char *dir, const char *tmp, double *rps,
                   double *p50, double *p99) {
  char spec[160], log[160];
  const char *args[16];
  pthread_t th[256];
  int n = 0, i, total = clients * per_client;
  double t0, t1;
  pid_t pid;
  snprintf(spec, sizeof spec, "sqlite:%s/ledger.db", tmp);
  snprintf(log, sizeof log, "%s/serve.log", tmp);
  args[n++] = "--port";
  args[n++] = "0";
  args[n++] = "--workers";
  args[n++] = "2";
  if (c == 0) args[n++] = "--no-metering";
  args[n++] = "--ledger";
  args[n++] = c == 2 ? spec : "none";
  args[n++] = dir;
  args[n] = NULL;
  pid = tutil_serve_start(args, log, &port);
  if (pid <= 0) return -1;
  memset(lat, 0, (size_t)total * sizeof *lat);
  failures = 0;
  /* warm up: every worker makes its states and loads the handler */
  for (i = 0; i < 60; i++) {
    char extra[64];
    tutil_http r;
    snprintf(extra, sizeof extra, "X-Tenant: t%d\r\n", i % 3);
    if (tutil_http_once(port, "GET", target, extra, NULL, &r) != 0 ||
        r.status != 200)
      failures++;
    tutil_http_free(&r);
  }
  t0 = now();
  for (i = 0; i < clients; i++)
    pthread_create(&th[i], NULL, client, (void *)(long)i);
  for (i = 0; i < clients; i++) pthread_join(th[i], NULL);
  t1 = now();
  tutil_serve_stop(pid, SIGTERM);
  if (failures > 0) return -1;
  qsort(lat, (size_t)total, sizeof *lat, by_value);
  *rps = total / (t1 - t0);
  *p50 = lat[total / 2] * 1e3;
  *p99 = lat[(int)(total * 0.99)] * 1e3;
  return 0;
}

static double median3(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return v[n / 2];
}

int main(int argc, char **argv) {
  static char buf[256];
  char tmp[] = "/tmp/lraf-bench-serve-XXXXXX", cmd[128];
  int rounds, r, c;
  double rps[NCONF][16], p50[NCONF][16], p99[NCONF][16], m[NCONF][3];
  if (argc < 2) {
    fprintf(stderr, "usage: serve HANDLER_DIR [HANDLER QUERY]\n");
    return 2;
  }
  snprintf(buf, sizeof buf, "/%s?%s", argc > 2 ? argv[2] : "hello",
           argc > 3 ? argv[3] : "n=100");
  target = buf;
  clients = getenv("CLIENTS") ? atoi(getenv("CLIENTS")) : 16;
  per_client = getenv("REQUESTS") ? atoi(getenv("REQUESTS")) : 1000;
  rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : 3;
  if (clients < 1 || clients > 256 || per_client < 10 || rounds < 1 ||
      rounds > 16 || mkdtemp(tmp) == NULL)
    return 2;
  lat = malloc((size_t)clients * (size_t)per_client * sizeof *lat);
  if (lat == NULL) return 1;
  printf("lraf serve: %s, %d clients x %d requests, 2 workers, %d rounds\n",
         target, clients, per_client, rounds);
  for (r = 0; r < rounds; r++)
    for (c = 0; c < NCONF; c++)
      if (measure(c, argv[1], tmp, &rps[c][r], &p50[c][r], &p99[c][r]) != 0) {
        fprintf(stderr, "serve bench: %s failed\n", conf_name[c]);
        return 1;
      }
  for (c = 0; c < NCONF; c++) {
    m[c][0] = median3(rps[c], rounds);
    m[c][1] = median3(p50[c], rounds);
    m[c][2] = median3(p99[c], rounds);
  }
  printf("%-20s %10s %9s %9s   %s\n", "", "req/s", "p50 ms", "p99 ms",
         "ratios to metering off (req/s, p50, p99)");
  for (c = 0; c < NCONF; c++)
    printf("%-20s %10.0f %9.3f %9.3f   %.2f %.2f %.2f\n", conf_name[c],
           m[c][0], m[c][1], m[c][2], m[c][0] / m[0][0], m[c][1] / m[0][1],
           m[c][2] / m[0][2]);
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  free(lat);
  return system(cmd) == 0 ? 0 : 1;
}
