/*
** test_cli_main.c - cli/cli_main.c, the lraf command's dispatcher: no
** arguments print the help on stderr with status 2; --help, -h and
** `lraf help` print it on stdout; --version names lraf's version; every
** subcommand `lraf --help` lists is dispatched (`lraf CMD --help` is
** `lraf help CMD`); an unknown command is status 2 with one line, and
** one that looks like a script suggests `lraf run`.
** Runs the command named by $LRAF.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "main") != 0) return -1;
  return tutil_sh_write(&sh, "prog", "print(1)\n");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* `lraf ARGS`: its status, stdout and stderr (free them). */
static int lraf(const char *args, char **out, char **err) {
  int st = tutil_sh_lraf_run(&sh, "%s", args);
  *out = tutil_sh_read(sh.out);
  *err = tutil_sh_read(sh.err);
  return st;
}

static const struct call {
  const char *args;
  int status;
  const char *out;  /* how stdout starts ("": it is empty) */
  const char *err;  /* stderr */
} calls[] = {
  {"--version", 0, "lraf " LRAF_VERSION " on ", ""},
  {"help nope", 2, "", "lraf: no command 'nope' (try lraf --help)\n"},
  {"frob", 2, "", "lraf: unknown command 'frob' (try lraf --help)\n"},
  {"--frob", 2, "", "lraf: unknown command '--frob' (try lraf --help)\n"},
  {"x.lua", 2, "",
   "lraf: unknown command 'x.lua'; did you mean `lraf run x.lua`?\n"},
  {"x.luac", 2, "",
   "lraf: unknown command 'x.luac'; did you mean `lraf run x.luac`?\n"},
  {"prog", 2, "",
   "lraf: unknown command 'prog'; did you mean `lraf run prog`?\n"},
  {"help --markdown", 0, "Numbers take k, M, G", ""},
};

static void test_calls(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof calls / sizeof calls[0]; k++) {
    const struct call *c = &calls[k];
    char *out, *err;
    int st = lraf(c->args, &out, &err);
    if (st != c->status || strncmp(out, c->out, strlen(c->out)) != 0 ||
        (c->out[0] == '\0' && out[0] != '\0') || strcmp(err, c->err) != 0)
      fail_msg("lraf %s: %d, stdout '%.80s', stderr '%s'", c->args, st, out,
               err);
    free(out);
    free(err);
  }
}

/* The help: on stderr with status 2 when nothing is asked; on stdout
   for --help, -h and help, the same text each time. */
static void test_help(void **state) {
  static const char *const asks[] = {"--help", "-h", "help"};
  char *help, *out, *err;
  size_t k;
  (void)state;
  assert_int_equal(lraf("", &out, &help), 2);
  assert_string_equal(out, "");
  assert_memory_equal(help, "usage: lraf COMMAND", 19);
  free(out);
  for (k = 0; k < sizeof asks / sizeof asks[0]; k++) {
    assert_int_equal(lraf(asks[k], &out, &err), 0);
    assert_string_equal(out, help);
    assert_string_equal(err, "");
    free(out);
    free(err);
  }
  free(help);
}

/* Every command the help lists (its lines "  NAME ..." under
   "commands:") is dispatched: `lraf NAME --help` prints what
   `lraf help NAME` prints, which starts with its usage. */
static void test_every_command(void **state) {
  char *help, *err, *line, *save = NULL;
  int n = 0;
  (void)state;
  assert_int_equal(lraf("--help", &help, &err), 0);
  free(err);
  line = strstr(help, "\ncommands:\n");
  assert_non_null(line);
  for (line = strtok_r(line + 11, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    char name[32], args[64], usage[64], *a, *b, *e1, *e2;
    if (line[0] != ' ' || line[1] != ' ' || line[2] < 'a' || line[2] > 'z')
      continue;
    if (sscanf(line + 2, "%31[a-z]", name) != 1) continue;
    snprintf(args, sizeof args, "%s --help", name);
    assert_int_equal(lraf(args, &a, &e1), 0);
    snprintf(args, sizeof args, "help %s", name);
    assert_int_equal(lraf(args, &b, &e2), 0);
    assert_string_equal(a, b);
    snprintf(usage, sizeof usage, "usage: lraf %s", name);
    if (strncmp(a, usage, strlen(usage)) != 0)
      fail_msg("lraf %s --help: '%.60s'", name, a);
    free(a);
    free(b);
    free(e1);
    free(e2);
    n++;
  }
  free(help);
  /* run, bench, profile, diff, bound, disasm, rewrite, serve, ledger, key */
  assert_true(n >= 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_calls),
    cmocka_unit_test(test_help),
    cmocka_unit_test(test_every_command),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
