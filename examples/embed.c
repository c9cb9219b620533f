/* embed.c - the README's embedding example: run untrusted Lua with a quota. */
#include <stdio.h>
#include "lraf.h"

int main(void) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_default_options(&opt);
  opt.env = LRAF_ENV_SANDBOX;                /* no io, os.exit, debug */
  opt.manager = lraf_limit_new(1000000);     /* a quota of 1M instructions */
  if (lraf_new(&opt, &S, &err) != LRAF_OK) return 1;
  lraf_manager_release(opt.manager);         /* the state holds it now */
  if (lraf_run_string(S, "local s = 0 for i = 1, 100 do s = s + i end print(s)",
                      "=demo", &err) != LRAF_OK)
    fprintf(stderr, "%s: %s\n", lraf_status_name(err.code), err.message);
  printf("%lld instructions\n", (long long)lraf_consumed(S, lraf_main_account(S)));
  lraf_close(S);
  return 0;
}
