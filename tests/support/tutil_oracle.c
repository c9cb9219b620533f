/*
** tutil_oracle.c - a program run under the count hook and rewritten, as
** a cmocka check (see tutil_oracle.h).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tutil_oracle.h"

void tutil_oracle_both(const char *src, const char *name,
                       long long granularity, tutil_run *hook,
                       tutil_run *rw) {
  size_t len = strlen(src);
  rw_options opt;
  rw_default_options(&opt);
  tutil_run_hook(src, len, name, hook);
  tutil_run_rewritten(src, len, name, &opt, granularity, 0, rw);
  if (!hook->ok || !rw->ok)
    fail_msg("%s: hook ok=%d (%s), lraf ok=%d (%s)", name, hook->ok,
             hook->error, rw->ok, rw->error);
  if (!tutil_run_same_output(hook, rw))
    fail_msg("%s: output differs after rewriting", name);
}
