/*
** test_rt_debug_escape.c - the full-environment escape suite: every script
** in tests/security/escape tries to reset, join, replace or read the
** accounting (debug library, hooks, registry, string.dump round trips)
** and then runs forever; each must be stopped by the quota (exit 3)
** under `lraf run --limit`, with and without --exact, and nothing it
** prints may name lraf's internals.  Then tests/security/chaos.lua with
** many seeds: random debug operations from the program and from hooks,
** then a loop that only the quota stops; setlocal_slots.lua (the
** writes to Lua's own slots that would corrupt the heap are refused) and
** c_upvalues.lua (no upvalue of a C function can be read or set).
** Runs the command named by $LRAF.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_run.h"

#define ESCAPE_DIR "tests/security/escape"

static const char *lraf(void) {
  const char *p = getenv("LRAF");
  return p ? p : "build/lraf";
}

/* Run one script; returns its exit status (124 on the timeout). */
static int run_script(const char *name, const char *extra, char *out,
                      size_t outsize) {
  char cmd[1024], path[128];
  size_t len;
  char *text;
  int st;
  snprintf(path, sizeof path, "/tmp/lraf-escape-%d.txt", (int)getpid());
  snprintf(cmd, sizeof cmd,
           "timeout 120 %s run --limit %s %s " ESCAPE_DIR "/%s > %s 2>&1",
           lraf(), getenv("LRAF_QUICK") ? "300000" : "2000000", extra, name,
           path);
  st = system(cmd);
  assert_true(WIFEXITED(st));
  text = tutil_run_slurp(path, &len);
  remove(path);
  assert_non_null(text);
  snprintf(out, outsize, "%s", text);
  free(text);
  return WEXITSTATUS(st);
}

/* Blank out every mention of the script's own file name (the quota
   message names it, and some names say "consume"). */
static void blank_name(char *out, const char *name) {
  char *p;
  size_t n = strlen(name);
  while ((p = strstr(out, name)) != NULL) memset(p, '#', n);
}

static void run_all(const char *extra) {
  DIR *d = opendir(ESCAPE_DIR);
  struct dirent *e;
  int n = 0;
  assert_non_null(d);
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    char out[4096];
    int st;
    if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    st = run_script(e->d_name, extra, out, sizeof out);
    if (st != 3)
      fail_msg("%s %s: exit %d, not stopped by the quota:\n%s", e->d_name,
               extra, st, out);
    if (strstr(out, "quota exceeded") == NULL)
      fail_msg("%s %s: no quota message:\n%s", e->d_name, extra, out);
    blank_name(out, e->d_name);
    if (strstr(out, "(lraf ") != NULL || strstr(out, "consume") != NULL)
      fail_msg("%s %s: output names lraf's internals:\n%s", e->d_name,
               extra, out);
    n++;
  }
  closedir(d);
  printf("  %d escape scripts stopped (%s)\n", n, extra[0] ? extra : "default");
  assert_true(n >= 20);
}

static void test_escape_default(void **state) {
  (void)state;
  run_all("");
}

static void test_escape_exact(void **state) {
  (void)state;
  run_all("--exact");
}

/* tests/security/chaos.lua with many seeds: random debug operations
   (from the program and from hooks) on Lua closures, built-ins and C
   closures, to-be-closed values whose __close is a C function, then a
   loop only the quota stops, closed by os.exit or another C function
   (every seed crashed before C closures' upvalues were hidden). */
static void test_chaos(void **state) {
  int seeds = getenv("LRAF_QUICK") ? 6 : 40, seed, m;
  (void)state;
  for (seed = 1; seed <= seeds; seed++) {
    for (m = 0; m < 2; m++) {
      char cmd[512], path[64];
      size_t len;
      char *text;
      int st;
      snprintf(path, sizeof path, "/tmp/lraf-chaos-%d.txt", (int)getpid());
      snprintf(cmd, sizeof cmd, "timeout 120 %s run --limit 3000000 %s "
               "tests/security/chaos.lua %d > %s 2>&1", lraf(),
               m ? "--exact" : "", seed, path);
      st = system(cmd);
      text = tutil_run_slurp(path, &len);
      remove(path);
      assert_non_null(text);
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 3 ||
          strstr(text, "(lraf ") != NULL)
        fail_msg("chaos.lua %d %s: exit %d\n%s", seed, m ? "--exact" : "",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1, text);
      free(text);
    }
  }
  printf("  %d chaos seeds stopped by the quota, both modes\n", seeds);
}

/* tests/security/setlocal_slots.lua: debug.setlocal on the slots Lua's
   VM trusts (a numeric for loop's state, a constructor's table, a C
   function's stack) is refused, and the heap stays intact.  lua5.4
   corrupts its heap with each; so did lraf before, which made chaos.lua
   crash now and then (its hooks set a for loop's count to a table). */
static void test_setlocal_slots(void **state) {
  static const char *const want[] = {
    "for state\tfalse\t", "(integer expected for (for state), got table)",
    "for state int\t(for state)\nloop2\t1\n",
    "stripped\tfalse\t", "(integer expected for (temporary), got table)",
    "temporary\tfalse\t", "(table expected for (temporary), got integer)",
    "C stack\tfalse\t", "(a C function's stack cannot be changed)",
    "\nintact\n",
  };
  char cmd[512], path[64];
  size_t len, i;
  char *text;
  int st;
  (void)state;
  snprintf(path, sizeof path, "/tmp/lraf-slots-%d.txt", (int)getpid());
  snprintf(cmd, sizeof cmd, "timeout 120 %s run --limit 100000000 "
           "tests/security/setlocal_slots.lua > %s 2>&1", lraf(), path);
  st = system(cmd);
  text = tutil_run_slurp(path, &len);
  remove(path);
  assert_non_null(text);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    fail_msg("setlocal_slots.lua: exit %d\n%s",
             WIFEXITED(st) ? WEXITSTATUS(st) : -1, text);
  for (i = 0; i < sizeof want / sizeof want[0]; i++)
    if (strstr(text, want[i]) == NULL)
      fail_msg("setlocal_slots.lua: no \"%s\" in:\n%s", want[i], text);
  free(text);
}

/* tests/security/c_upvalues.lua: no upvalue of a C function can be
   read or set by the debug library (gmatch's iterator, coroutine.wrap's
   function, io.lines' iterator, the native-charging wrappers and
   utf8.codes' iterator): replacing them crashed lraf, and reading the
   iterator's let it run uncharged.  With a limit (wrappers) and
   without. */
static void run_c_upvalues(const char *extra) {
  char cmd[512], path[64];
  size_t len;
  char *text;
  int st;
  snprintf(path, sizeof path, "/tmp/lraf-cup-%d.txt", (int)getpid());
  snprintf(cmd, sizeof cmd, "timeout 120 %s run %s "
           "tests/security/c_upvalues.lua > %s 2>&1", lraf(), extra, path);
  st = system(cmd);
  text = tutil_run_slurp(path, &len);
  remove(path);
  assert_non_null(text);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
      strcmp(text, "intact\n") != 0)
    fail_msg("c_upvalues.lua %s: status %d, printed\n%s", extra, st, text);
  free(text);
}

static void test_c_upvalues(void **state) {
  (void)state;
  run_c_upvalues("");
  run_c_upvalues("--limit 10M");
  run_c_upvalues("--limit 10M --exact");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_setlocal_slots),
    cmocka_unit_test(test_c_upvalues),
    cmocka_unit_test(test_chaos),
    cmocka_unit_test(test_escape_default),
    cmocka_unit_test(test_escape_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
