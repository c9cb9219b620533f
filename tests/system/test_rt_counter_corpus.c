/*
** test_rt_counter_corpus.c - the corpus through the embedding API: every
** program's output equals plain Lua's and the sum of all accounts equals
** the count-hook oracle (exactly in exact mode, at least in the default
** mode for programs that abandon blocks); the corpus' coroutine program
** counts per coroutine what a per-thread count-hook oracle counts.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_corpus.h"
#include "tutil_rt.h"
#include "tutil_run.h"

static const char *const loads_binary[] = {NULL};
/* Under the sanitizers only these run to the end; the others stop at a
   quota, which must be the only way they fail. */
static const char *const quick_full[] = {"errors.lua", "coroutines.lua",
                                         NULL};

/* Run src through the API; returns the status, fills total/output. */
static lraf_status run_api(const char *src, size_t len, const char *name,
                           int exact, int64_t quota, lraf_state **out,
                           lraf_error *err) {
  lraf_options opt;
  lraf_state *S;
  lraf_status st;
  lraf_manager *m = quota > 0 ? lraf_limit_new(quota) : NULL;
  lraf_default_options(&opt);
  opt.exact = exact;
  opt.keep_accounts = 100000;
  opt.manager = m;
  S = tutil_rt_new(&opt);
  lraf_manager_release(m);
  st = lraf_load_string(S, src, len, name, err);
  if (st == LRAF_OK) st = lraf_call(S, 0, 0, err);
  *out = S;
  return st;
}

static void check_file(const tutil_corpus_file *cf, int exact, int *compared) {
  size_t len, outlen;
  char *src = tutil_run_slurp(cf->path, &len);
  tutil_run hook;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  int64_t total;
  const char *out;
  assert_non_null(src);
  if (tutil_corpus_quick() && !tutil_corpus_listed(quick_full, cf->name)) {
    st = run_api(src, len, cf->name, exact, 200000, &S, &err);
    if (st != LRAF_OK && st != LRAF_EQUOTA &&
        !tutil_corpus_listed(loads_binary, cf->name))
      fail_msg("%s: %s", cf->name, err.message);
    tutil_rt_close(S);
    free(src);
    (*compared)++;
    return;
  }
  tutil_run_hook(src, len, cf->name, &hook);
  st = run_api(src, len, cf->name, exact, 0, &S, &err);
  total = tutil_rt_total(S);
  out = tutil_rt_output(S, &outlen);
  if (tutil_corpus_listed(loads_binary, cf->name)) {
    assert_int_equal(st, LRAF_ERUN);
    assert_non_null(strstr(err.message, "binary"));
  } else {
    if (!hook.ok || st != LRAF_OK)
      fail_msg("%s: hook ok=%d (%s), lraf %s (%s)", cf->name, hook.ok,
               hook.error, lraf_status_name(st), err.message);
    if (outlen != hook.outlen || memcmp(out, hook.output, outlen) != 0)
      fail_msg("%s: output differs from plain Lua", cf->name);
    if (tutil_corpus_listed(tutil_corpus_has_finalizers, cf->name) ||
        (!exact &&
         tutil_corpus_listed(tutil_corpus_abandons_blocks, cf->name))) {
      if (total < hook.count)
        fail_msg("%s: lraf %lld < hook %lld", cf->name, (long long)total,
                 hook.count);
    } else if (total != hook.count) {
      fail_msg("%s (%s): the API counted %lld, the hook %lld", cf->name,
               exact ? "exact" : "default", (long long)total, hook.count);
    }
    (*compared)++;
  }
  printf("  %-18s %-7s hook %10lld  api %10lld\n", cf->name,
         exact ? "exact" : "default", hook.count, (long long)total);
  tutil_run_free(&hook);
  tutil_rt_close(S);
  free(src);
}

static void test_corpus_default(void **state) {
  (void)state;
  tutil_corpus_check_all(0, check_file);
}

static void test_corpus_exact(void **state) {
  (void)state;
  tutil_corpus_check_all(1, check_file);
}

/* Each coroutine's account against the per-thread hook oracle (more
   programs in test_rt_coro). */
static void test_attribution(void **state) {
  size_t len;
  char *src = tutil_run_slurp(TUTIL_CORPUS "/coroutines.lua", &len);
  (void)state;
  assert_non_null(src);
  tutil_rt_agree(NULL, src, len, "coroutines.lua");
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_corpus_default),
    cmocka_unit_test(test_corpus_exact),
    cmocka_unit_test(test_attribution),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
