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

void tutil_oracle_check(const char *name, const tutil_run *hook,
                        const tutil_run *rw) {
  if (!hook->ok || !rw->ok)
    fail_msg("%s: hook ok=%d (%s), lraf ok=%d (%s)", name, hook->ok,
             hook->error, rw->ok, rw->error);
  if (!tutil_run_same_output(hook, rw))
    fail_msg("%s: output differs after rewriting", name);
}

void tutil_oracle_both(const char *src, const char *name,
                       const rw_options *opt, long long granularity,
                       tutil_run *hook, tutil_run *rw) {
  size_t len = strlen(src);
  rw_options defaults;
  if (opt == NULL) {
    rw_default_options(&defaults);
    opt = &defaults;
  }
  tutil_run_hook(src, len, name, hook);
  tutil_run_rewritten(src, len, name, opt, granularity, 0, rw);
  tutil_oracle_check(name, hook, rw);
}
