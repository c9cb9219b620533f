/* embed.c - the README's embedding example: run untrusted Lua with a quota. */
#include <stdio.h>
#include "lraf.h"

int main(void) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *quota = lraf_limit_new(1000000);  /* 1M instructions */
  lraf_default_options(&opt);
  opt.env = LRAF_ENV_SANDBOX;                /* no io, os.exit, debug */
  opt.manager = quota;                       /* the state takes a reference */
  if (lraf_new(&opt, &S, &err) != LRAF_OK) return 1;
  if (lraf_run_string(S, "print(coroutine.wrap(function() local s = 0\n"
                         "  for i = 1, 100 do s = s + i end return s end)())",
                      "=demo", &err) != LRAF_OK)
    fprintf(stderr, "%s: %s\n", lraf_status_name(err.code), err.message);
  /* everything the state ran, in every coroutine (the main thread's
     account alone, lraf_consumed(S, lraf_main_account(S)), misses the
     loop): the sandbox charges C functions' work too, as native units;
     the quota's manager saw the same */
  printf("%lld units: %lld instructions + %lld native (quota left %lld)\n",
         (long long)lraf_total(S),
         (long long)(lraf_total(S) - lraf_native_units(S)),
         (long long)lraf_native_units(S),
         (long long)lraf_limit_remaining(quota));
  lraf_close(S);
  lraf_manager_release(quota);
  return 0;
}
