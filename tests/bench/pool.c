/*
** pool.c - make bench: the request pool's own cost, without HTTP.  One
** worker runs the same handler 20,000 times metered and then plain (no
** rewriting, no accounting), in one run; reported per request: the
** worker thread's CPU time and the caller's wall time (queue hand-off
** included), and their ratios.
**
**   usage: pool [N]   (the handler sums 1..N; default 100)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lraf.h"

#define REQUESTS 20000

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  static const char src[] =
    "return function(req)\n"
    "  local s = 0\n"
    "  for i = 1, tonumber(req.query.n) do s = s + i end\n"
    "  return 200, tostring(s)\n"
    "end\n";
  const char *query[] = {"n", argc > 1 ? argv[1] : "100", NULL};
  double cpu[2], wall[2];
  int plain, i;
  for (plain = 0; plain < 2; plain++) {
    lraf_pool_options o;
    lraf_pool *p;
    lraf_error err;
    lraf_manager *t = lraf_total_new();
    lraf_request rq;
    double t0, c = 0;
    lraf_pool_default_options(&o);
    o.workers = 1;
    o.plain = plain;
    if (t == NULL || lraf_pool_new(&o, &p, &err) != LRAF_OK) return 1;
    memset(&rq, 0, sizeof rq);
    rq.tenant = "bench";
    rq.tenant_manager = t;
    rq.limit = -1;
    rq.handler = "sum";
    rq.source = src;
    rq.source_len = strlen(src);
    rq.query = query;
    t0 = now();
    for (i = 0; i < REQUESTS; i++) {
      lraf_response r;
      lraf_pool_run(p, &rq, &r);
      if (r.status != 200) return 1;
      c += r.cpu;
      lraf_response_free(&r);
    }
    wall[plain] = (now() - t0) / REQUESTS * 1e6;
    cpu[plain] = c / REQUESTS * 1e6;
    lraf_pool_close(p);
    lraf_manager_release(t);
  }
  printf("request pool, sum 1..%s, %d requests, 1 worker (us per request)\n",
         query[1], REQUESTS);
  printf("  worker cpu: metered %.2f, plain %.2f, ratio %.2f\n", cpu[0],
         cpu[1], cpu[0] / cpu[1]);
  printf("  caller wall: metered %.2f, plain %.2f, ratio %.2f\n", wall[0],
         wall[1], wall[0] / wall[1]);
  return 0;
}
