/*
** cli_limits.c - what `lraf run` and `lraf bench` say when a limit
** makes a state impossible: a memory limit below what an empty state
** takes is a usage error, not a memory stop.
*/
#include <stdio.h>

#include "cli.h"

int cli_new_failed(const lraf_options *opt, const lraf_error *err) {
  lraf_options o = *opt;
  lraf_state *probe;
  lraf_error e;
  size_t in_use, peak;
  if (opt->memory_limit == 0 ||
      (err->code != LRAF_EMEMLIMIT && err->code != LRAF_EMEM))
    return cli_report(err);
  o.memory_limit = 0;
  o.manager = NULL;
  if (lraf_new(&o, &probe, &e) != LRAF_OK) return cli_report(err);
  lraf_memory(probe, &in_use, &peak);
  lraf_close(probe);
  return cli_error("--memory-limit %zu bytes is too small to start a Lua "
                   "state (an empty state takes %zu bytes)",
                   opt->memory_limit, peak);
}

lraf_manager *cli_manager_new(int64_t limit, double rate) {
  lraf_manager *r = NULL, *m;
  if (rate > 0 && (r = lraf_rate_new(rate, 0.1, NULL)) == NULL) return NULL;
  if (limit >= 0) {
    m = lraf_hier_new(r, limit);
    lraf_manager_release(r);
    return m;
  }
  return r ? r : lraf_total_new();
}

int cli_native(const cli_args *a, const char **why) {
  if (a->native >= 0) {
    *why = "--native";
    return a->native;
  }
  /* a limit is a defence only if no C call does unbounded work for one
     unit (docs/cost-model.md) */
  *why = "--limit, --memory-limit and --sandbox turn it on; --no-native "
         "turns it off";
  return a->opt.env == LRAF_ENV_SANDBOX || a->limit >= 0 || a->memory > 0;
}
