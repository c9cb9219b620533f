/*
** tutil_pool.c - test helpers for the request pool (tutil_pool.h).
*/
#include <string.h>

#include "tutil_pool.h"

const char tutil_sum_src[] =
  "return function(req)\n"
  "  local s = 0\n"
  "  for i = 1, tonumber(req.query.n) do s = s + i end\n"
  "  return 200, tostring(s)\n"
  "end\n";

void tutil_pool_run(lraf_pool *p, lraf_manager *m, const char *tenant,
                    const char *name, const char *src, int64_t limit,
                    const char *n, lraf_response *res) {
  const char *query[] = {"n", n, NULL};
  lraf_request rq;
  memset(&rq, 0, sizeof rq);
  rq.tenant = tenant;
  rq.tenant_manager = m;
  rq.limit = limit;
  rq.handler = name;
  rq.source = src;
  rq.source_len = strlen(src);
  rq.method = "GET";
  rq.path = "/x";
  rq.query = n != NULL ? query : NULL;
  lraf_pool_run(p, &rq, res);
}

lraf_pool *tutil_pool_new(int workers, int states_per_worker,
                          size_t memory_limit) {
  lraf_pool_options o;
  lraf_pool *p;
  lraf_error err;
  lraf_pool_default_options(&o);
  o.workers = workers;
  if (states_per_worker > 0) o.states_per_worker = states_per_worker;
  o.state.memory_limit = memory_limit;
  return lraf_pool_new(&o, &p, &err) == LRAF_OK ? p : NULL;
}
