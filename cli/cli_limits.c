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
