/*
** tutil_pool.h - test helpers for the request pool (lraf_pool_*):
** one request built from a handler's source and run on a pool, and the
** handler most suites run.
*/
#ifndef TUTIL_POOL_H
#define TUTIL_POOL_H

#include <stdint.h>

#include "lraf.h"

/* A handler: the sum 1..query n, as its body. */
extern const char tutil_sum_src[];

/* Run src as handler name for tenant on p: its manager m, its own
   limit (< 0: none), query n=N (NULL: no query), GET /x.  res is
   filled (free it with lraf_response_free). */
void tutil_pool_run(lraf_pool *p, lraf_manager *m, const char *tenant,
                    const char *name, const char *src, int64_t limit,
                    const char *n, lraf_response *res);
/* A pool of workers workers, states_per_worker states each (0: the
   default) and the memory limit (0: none); NULL on failure. */
lraf_pool *tutil_pool_new(int workers, int states_per_worker,
                          size_t memory_limit);

#endif
