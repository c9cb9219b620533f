/*
** test_cli_contract.c - cli/cli_contract.c, the execution contracts of
** lraf run --contract: a contract file's every mistake is status 2 and
** one line naming FILE:LINE; comments, blanks and repeated names (the
** last wins) are read as documented; in a state, a contracted function
** that keeps its declaration runs with the same count as without the
** contract, one that exceeds it stops the script at once with the
** function and what it used, through pcall too, from inside coroutines
** and nested contracted calls; globals with a metatable are left alone.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "cli.h"
#include "tutil_sh.h"
#include "tutil_stderr.h"

static tutil_sh sh;

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "contract");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* Load text as the contract file c.txt: the status, k (malloc'ed; free
   it with cli_contract_free), and what was said on stderr (free it). */
static int load(const char *text, cli_contract **k, char **said) {
  char path[256];
  tutil_stderr c;
  int rc;
  assert_int_equal(tutil_sh_write(&sh, "c.txt", text), 0);
  snprintf(path, sizeof path, "%s/c.txt", sh.dir);
  assert_non_null(*k = malloc(sizeof **k));
  assert_int_equal(tutil_stderr_begin(&c), 0);
  rc = cli_contract_load(path, *k);
  *said = tutil_stderr_end(&c);
  return rc;
}

#define SYNTAX "expected \"FUNCTION MAX_INSTRUCTIONS\" (a whole number " \
               "of at least 0)"

static const struct bad { const char *text; int line; const char *what; }
bads[] = {
  {"f\n", 1, SYNTAX},
  {"f 10\n\ng x\n", 3, SYNTAX},
  {"# c\nf -1\n", 2, SYNTAX},
  {"f 10 20\n", 1, SYNTAX},
  {"f 1e3\n", 1, SYNTAX},
  {"f 99999999999999999999\n", 1, SYNTAX},
  {"f 0x10\n", 1, SYNTAX},
  {"a_function_name_of_sixty_four_bytes_is_one_more_than_a_name_hold 1\n",
   1, "function name longer than 63 bytes"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    cli_contract *c;
    char *said, want[400];
    int rc = load(bads[k].text, &c, &said);
    snprintf(want, sizeof want, "lraf: %s/c.txt:%d: %s\n", sh.dir,
             bads[k].line, bads[k].what);
    if (rc != CLI_EUSAGE || strcmp(said, want) != 0)
      fail_msg("'%s': %d '%s', want '%s'", bads[k].text, rc, said, want);
    free(said);
    cli_contract_free(c);
  }
}

/* More functions than a contract holds; a NUL byte; no file. */
static void test_limits(void **state) {
  char *text = malloc(20 * (CLI_MAX_CONTRACTS + 1)), *said, want[300];
  cli_contract *c;
  size_t len = 0;
  int i;
  (void)state;
  assert_non_null(text);
  for (i = 0; i <= CLI_MAX_CONTRACTS; i++)
    len += (size_t)sprintf(text + len, "f%d %d\n", i, i);
  assert_int_equal(load(text, &c, &said), CLI_EUSAGE);
  snprintf(want, sizeof want, "lraf: %s/c.txt:%d: more than %d functions\n",
           sh.dir, CLI_MAX_CONTRACTS + 1, CLI_MAX_CONTRACTS);
  assert_string_equal(said, want);
  free(said);
  cli_contract_free(c);
  text[len - 1] = '\0';  /* the last line is then CLI_MAX_CONTRACTS's */
  *strrchr(text, '\n') = '\0';
  assert_int_equal(load(text, &c, &said), CLI_OK);
  assert_int_equal(c->n, CLI_MAX_CONTRACTS);
  free(said);
  cli_contract_free(c);
  free(text);
  assert_non_null(c = malloc(sizeof *c));
  {
    tutil_stderr cap;
    assert_int_equal(tutil_stderr_begin(&cap), 0);
    assert_int_equal(cli_contract_load("/nonexistent/c.txt", c), CLI_EUSAGE);
    said = tutil_stderr_end(&cap);
  }
  assert_string_equal(said, "lraf: cannot open /nonexistent/c.txt: No such "
                      "file or directory\n");
  free(said);
  cli_contract_free(c);
}

static void test_find(void **state) {
  static const char text[] =
    "# the contract\n"
    "\n"
    "  f 10   # a comment after\n"
    "\tg\t0\r\n"
    "f 20\n"
    "h 5";
  cli_contract *c;
  char *said;
  int64_t max;
  (void)state;
  assert_int_equal(load(text, &c, &said), CLI_OK);
  assert_string_equal(said, "");
  assert_int_equal(c->n, 4);
  assert_int_equal(cli_contract_find(c, "f", &max), 1);
  assert_int_equal(max, 20);  /* the last line wins */
  assert_int_equal(cli_contract_find(c, "g", &max), 1);
  assert_int_equal(max, 0);
  assert_int_equal(cli_contract_find(c, "h", &max), 1);
  assert_int_equal(max, 5);
  assert_int_equal(cli_contract_find(c, "F", &max), 0);
  free(said);
  cli_contract_free(c);
}

/* ---- in a state ---- */

typedef struct outcome {
  lraf_status st;
  int64_t total;
  int violated, which;
  int64_t used;
  char message[512];
} outcome;

/* Run src under contract text (NULL: none), as lraf run does: a limit
   manager without a quota that the contract stops through. */
static void run(const char *src, const char *text, outcome *o) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *m;
  cli_contract *k = NULL;
  char *said;
  memset(o, 0, sizeof *o);
  if (text != NULL) {
    assert_int_equal(load(text, &k, &said), CLI_OK);
    free(said);
  }
  assert_non_null(m = lraf_hier_new(NULL, -1));
  if (k != NULL) k->stop = m;
  lraf_default_options(&opt);
  opt.manager = m;
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  if (k != NULL) assert_int_equal(cli_contract_install(lraf_lua(S), k), 1);
  assert_int_equal(lraf_load_string(S, src, strlen(src), "=c", &err),
                   LRAF_OK);
  o->st = lraf_call(S, 0, 0, &err);
  snprintf(o->message, sizeof o->message, "%s", err.message);
  o->total = lraf_total(S);
  if (k != NULL && o->st == LRAF_EQUOTA && cli_contract_blame(k, S)) {
    o->violated = 1;
    o->which = k->which;
    o->used = k->used;
  }
  lraf_close(S);
  cli_contract_free(k);
  lraf_manager_release(m);
}

static const char script[] =
  "function f(n) local s = 0 for i = 1, n do s = s + i end return s end\n"
  "function g(n) return f(n) + f(n) end\n"
  "local co = coroutine.wrap(function(n) coroutine.yield(g(n)) end)\n"
  "assert(co(N) == N * (N + 1))\n"
  "assert(pcall(f, N))\n";

/* The script with N set. */
static const char *with_n(int n) {
  static char src[sizeof script + 32];
  snprintf(src, sizeof src, "local N = %d\n%s", n, script);
  return src;
}

static void test_kept(void **state) {
  outcome plain, kept;
  (void)state;
  run(with_n(100), NULL, &plain);
  assert_int_equal(plain.st, LRAF_OK);
  run(with_n(100), "f 100000\ng 100000\n", &kept);
  assert_int_equal(kept.st, LRAF_OK);
  /* the wrapper runs no Lua instruction: the same count */
  assert_true(kept.total == plain.total);
}

/* f's declaration below what one call of f with N = 100 takes: stopped
   inside the coroutine, inside g, and not caught by pcall. */
static void test_broken(void **state) {
  static const struct { const char *text; int which; int64_t max; } rows[] = {
    {"f 50\ng 100000\n", 0, 50},     /* f, called from g in a coroutine */
    {"g 100000\nf 50\n", 1, 50},
    {"f 100000\ng 60\n", 1, 60},     /* g: two calls of f */
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    outcome o;
    run(with_n(100), rows[k].text, &o);
    assert_int_equal(o.st, LRAF_EQUOTA);
    assert_int_equal(o.violated, 1);
    assert_int_equal(o.which, rows[k].which);
    /* past its declaration, and stopped as it passed it: a call of f
       with N = 100 runs some 400 instructions */
    assert_true(o.used > rows[k].max);
    assert_true(o.used < rows[k].max + 100);
  }
}

/* Globals that already have a metatable: nothing installed. */
static void test_metatable(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  cli_contract *k;
  char *said;
  static const char src[] = "setmetatable(_G, {})";
  (void)state;
  assert_int_equal(load("f 1\n", &k, &said), CLI_OK);
  free(said);
  lraf_default_options(&opt);
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(lraf_load_string(S, src, sizeof src - 1, "=m", &err),
                   LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
  assert_int_equal(cli_contract_install(lraf_lua(S), k), 0);
  lraf_close(S);
  cli_contract_free(k);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_limits),
    cmocka_unit_test(test_find),
    cmocka_unit_test(test_kept),
    cmocka_unit_test(test_broken),
    cmocka_unit_test(test_metatable),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
