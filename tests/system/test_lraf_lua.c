/*
** test_lraf_lua.c - lraf-lua takes lua5.4's command line: arg as
** lua5.4 fills it (arg[-1] naming the interpreter), -e -l -v -E -W - --,
** LUA_INIT; metering options come from LRAF_OPTIONS, so a script that
** runs arg[-1] again with -e and -v starts a child that is metered too;
** -i edits lines with libreadline on a terminal when it is there.
** The binary is build/lraf-lua next to $LRAF.
*/
#define _XOPEN_SOURCE 700  /* realpath */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;
static char lraf_lua_bin[512];

static int setup(void **state) {
  char buf[512];
  (void)state;
  char *real;
  snprintf(buf, sizeof buf, "%s/lraf-lua", dirname(strcpy(lraf_lua_bin,
                                                         tutil_sh_lraf())));
  real = realpath(buf, NULL);
  if (real == NULL) return -1;
  snprintf(lraf_lua_bin, sizeof lraf_lua_bin, "%s", real);
  free(real);
  if (tutil_sh_init(&sh, "lraf-lua") != 0) return -1;
  return tutil_sh_write(&sh, "args.lua",
                        "print(#arg, arg[0], arg[1], arg[2], arg[-2], ...)\n"
                        "print(type(lpeg), type(x))\n");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* stderr, then stdout (both with the interpreter's own name made
   lua5.4's, and without the line of -v that names lraf), and the exit
   status of a command line. */
static int run_both(const char *interp, const char *env, const char *args,
                    char **out) {
  int rc = tutil_sh_run(&sh, "{ cd %s && { %s %s %s > o.txt 2> e.txt; "
                        "rc=$?; cat e.txt o.txt; exit $rc; } | "
                        "sed -e 's|[^\\t ]*lraf-lua|lua5.4|g' "
                        "-e '/^lraf [0-9.]* on /d'; "
                        "exit $(cd %s && %s %s %s > /dev/null 2>&1; "
                        "echo $?); }",
                        sh.dir, env, interp, args, sh.dir, env, interp, args);
  *out = tutil_sh_read(sh.out);
  return rc;
}

/* The same command line under lua5.4 and lraf-lua prints the same
   (stderr and stdout, tracebacks included) and exits the same way. */
static void same_as_lua(const char *env, const char *args) {
  char *a, *b;
  int ra = run_both("lua5.4", env, args, &a);
  int rb = run_both(lraf_lua_bin, env, args, &b);
  if (ra != rb || strcmp(a, b) != 0)
    fail_msg("%s %s: lraf-lua printed\n%s(exit %d), lua5.4\n%s(exit %d)",
             env, args, b, rb, a, ra);
  free(a);
  free(b);
}

static void test_command_line_like_lua(void **state) {
  (void)state;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  same_as_lua("", "args.lua a b");
  same_as_lua("", "-e 'x = 1' -l lpeg args.lua a");
  same_as_lua("", "-- args.lua -e");
  same_as_lua("", "-e 'print(arg[-1], arg[0], #arg)'");
  same_as_lua("", "-v -e 'print(1)'");
  same_as_lua("LUA_INIT='x = 5'", "args.lua");
  same_as_lua("LUA_INIT='x = 5'", "-E args.lua");
  same_as_lua("", "- a b < args.lua");
  same_as_lua("", "-e 'error(\"boom\")'");
}

/* A script relaunches arg[-1] with -e and -v: the child inherits
   LRAF_OPTIONS and is stopped by the quota (exit 3). */
static void test_child_is_metered(void **state) {
  char *out, *err;
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "parent.lua",
      "local cmd = string.format('%q -v -e %q', arg[-1], 'while true do end')\n"
      "print('child', os.execute(cmd))\n"
      "print('child2', os.execute(string.format('%q -e %q', arg[-1], "
      "'print(1 + 1)')))\n"), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='--limit 1e6 "
                                "--report -' %s parent.lua", sh.dir,
                                lraf_lua_bin), 0);
  out = tutil_sh_read(sh.out);
  err = tutil_sh_read(sh.err);
  assert_non_null(strstr(out, "Lua 5.4"));         /* the child's -v */
  assert_non_null(strstr(out, "child\tnil\texit\t3"));
  assert_non_null(strstr(out, "2\nchild2\ttrue\texit\t0"));
  assert_non_null(strstr(err, "quota exceeded (limit 1000000 units) at "));
  assert_non_null(strstr(err, "status quota"));    /* the child's report */
  assert_non_null(strstr(err, "status ok"));       /* the parent's */
  free(out);
  free(err);
  /* and unmetered children without LRAF_OPTIONS would spin: the same
     parent stopped itself instead of hanging, as the line above shows */
  assert_int_equal(tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='--limit 1000' "
                                "%s -e 'while true do end'", sh.dir,
                                lraf_lua_bin), 3);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='--bogus 1' "
                                "%s -e ''", sh.dir, lraf_lua_bin), 1);
}

/* -i: lines from a pipe are read plainly; on a terminal (a pty from
   script(1)) libreadline's editing and history are used when it can be
   opened, and the plain reader when LRAF_READLINELIB names nothing:
   Ctrl-A moves to the line's start, the up arrow recalls "x = 5". */
static void test_interactive(void **state) {
  static const char *const keys = "(40+2)\\001print\\nx = 5\\n"
                                  "\\033[A + 1\\nprint(x)\\n";
  char *out;
  void *h;
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "cd %s && printf 'x = 6\\nprint(x)\\n' "
                                "| %s -i", sh.dir, lraf_lua_bin), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "> > 6\n"));
  free(out);
  if (system("command -v script > /dev/null") != 0) {
    printf("  no script(1): the terminal cases are not run\n");
    skip();
  }
  /* the plain reader on a terminal: ^A and the arrow are text */
  assert_int_equal(tutil_sh_run(&sh, "cd %s && printf '%s' | "
                                "LRAF_READLINELIB= script -qc %s' -i' "
                                "/dev/null", sh.dir, keys, lraf_lua_bin), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "syntax error"));
  assert_null(strstr(out, "42"));
  assert_null(strstr(out, "x = 5 + 1"));
  free(out);
  h = dlopen("libreadline.so.8", RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    printf("  no libreadline.so.8: the editing case is not run\n");
    skip();
  }
  dlclose(h);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && printf '%s' | "
                                "script -qc %s' -i' /dev/null", sh.dir, keys,
                                lraf_lua_bin), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "print(40+2)"));
  assert_non_null(strstr(out, "42\r\n"));
  assert_non_null(strstr(out, "x = 5 + 1"));
  assert_non_null(strstr(out, "6\r\n"));
  assert_null(strstr(out, "syntax error"));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_command_line_like_lua),
    cmocka_unit_test(test_child_is_metered),
    cmocka_unit_test(test_interactive),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
