/*
** test_rt_debug_transparency.c - introspection looks as under lua5.4: every
** program in tests/corpus/introspect (nups, upvalue ids and joins,
** getlocal over temporaries, setlocal, hooks, dump and load with and
** without strip, tracebacks, the registry) prints byte for byte what
** lua5.4 prints and exits the same way under `lraf run`, with and
** without --exact (count hooks are exact with --exact only: see
** docs/security.md).  Then the binary-chunk policy both ways: this
** state's own dumps load back and count, anything else is refused, in
** the sandbox even its own dumps.  Runs the command named by $LRAF.
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

#define DIRNAME "tests/corpus/introspect"

/* Exact with --exact only (a count hook's calls, see docs/security.md). */
static const char *const exact_only[] = {"hook_count.lua", NULL};

static const char *lraf(void) {
  const char *p = getenv("LRAF");
  return p ? p : "build/lraf";
}

static int sh(const char *cmd, const char *out) {
  char full[1024];
  int st;
  snprintf(full, sizeof full, "%s > %s 2>&1", cmd, out);
  st = system(full);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

/* The output with the interpreter's name ("lua5.4: ", "lraf: ")
   dropped from the start of lines. */
static char *output(const char *path) {
  size_t len, i, j = 0;
  char *s = tutil_run_slurp(path, &len);
  assert_non_null(s);
  for (i = 0; i < len; i++) {
    int bol = i == 0 || s[i - 1] == '\n';
    if (bol && strncmp(s + i, "lua5.4: ", 8) == 0) i += 8;
    else if (bol && strncmp(s + i, "lraf: ", 6) == 0) i += 6;
    s[j++] = s[i];
  }
  s[j] = '\0';
  return s;
}

static int listed(const char *const *list, const char *name) {
  for (; *list != NULL; list++)
    if (strcmp(*list, name) == 0) return 1;
  return 0;
}

static void compare_all(const char *extra) {
  DIR *d;
  struct dirent *e;
  char o1[64], o2[64], cmd[512];
  int n = 0;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  snprintf(o1, sizeof o1, "/tmp/lraf-tr-%d-a.txt", (int)getpid());
  snprintf(o2, sizeof o2, "/tmp/lraf-tr-%d-b.txt", (int)getpid());
  d = opendir(DIRNAME);
  assert_non_null(d);
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    int want, got;
    char *a, *b;
    if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    if (extra[0] == '\0' && listed(exact_only, e->d_name)) continue;
    snprintf(cmd, sizeof cmd, "cd " DIRNAME " && timeout 60 lua5.4 %s",
             e->d_name);
    want = sh(cmd, o1);
    snprintf(cmd, sizeof cmd, "cd " DIRNAME " && timeout 60 %s%s run %s %s",
             lraf()[0] == '/' ? "" : "\"$OLDPWD\"/", lraf(), extra,
             e->d_name);
    got = sh(cmd, o2);
    a = output(o1);
    b = output(o2);
    if (want != got || strcmp(a, b) != 0)
      fail_msg("%s %s: exit %d (lua5.4 %d); output\n%s\nlua5.4:\n%s",
               e->d_name, extra, got, want, b, a);
    free(a);
    free(b);
    n++;
  }
  closedir(d);
  remove(o1);
  remove(o2);
  printf("  %d introspecting programs identical (%s)\n", n,
         extra[0] ? extra : "default");
  assert_true(n >= 10);
}

static void test_introspect_default(void **state) {
  (void)state;
  compare_all("");
}

static void test_introspect_exact(void **state) {
  (void)state;
  compare_all("--exact");
}

/* Run a script text with `lraf run OPTIONS`; its exit status. */
static int run_text(const char *opts, const char *text, char **out) {
  char path[64], opath[64], cmd[512];
  FILE *f;
  int st;
  snprintf(path, sizeof path, "/tmp/lraf-tr-%d.lua", (int)getpid());
  snprintf(opath, sizeof opath, "/tmp/lraf-tr-%d.out", (int)getpid());
  f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "timeout 60 %s run %s %s", lraf(), opts, path);
  st = sh(cmd, opath);
  *out = output(opath);
  remove(path);
  remove(opath);
  return st;
}

static void test_binary_policy(void **state) {
  char *out;
  (void)state;
  /* accepted: this state's own dump, stripped or not, loads and counts
     like the original (the counts of the two calls are equal) */
  assert_int_equal(run_text("--exact",
      "local lraf = require 'lraf'\n"
      "local function f(n) local s = 0 for i = 1, n do s = s + i end return s end\n"
      "local g, h = load(string.dump(f)), load(string.dump(f, true))\n"
      "local c0 = lraf.count() f(100) local c1 = lraf.count()\n"
      "g(100) local c2 = lraf.count() h(100) local c3 = lraf.count()\n"
      "print(c1 - c0 == c2 - c1, c2 - c1 == c3 - c2, g(10), h(10))\n", &out),
      0);
  assert_string_equal(out, "true\ttrue\t55\t55\n");
  free(out);
  /* refused: one byte changed, bytes appended */
  assert_int_equal(run_text("",
      "local d = string.dump(function() return 1 end)\n"
      "local t = d:sub(1, -2) .. string.char((d:byte(-1) + 1) % 256)\n"
      "print(load(t)) print(load(d .. ' '))\n", &out), 0);
  assert_non_null(strstr(out, "nil\tattempt to load a binary chunk"));
  assert_null(strstr(out, "function:"));
  free(out);
  /* a chunk made elsewhere (luac5.4, or lua5.4's string.dump), read
     from a file */
  assert_int_equal(system("printf 'return 7' > /tmp/lraf-tr-src.lua && "
                          "luac5.4 -o /tmp/lraf-tr.luac /tmp/lraf-tr-src.lua "
                          "2>/dev/null || lua5.4 -e \"local f = io.open("
                          "'/tmp/lraf-tr.luac', 'wb') f:write(string.dump("
                          "load('return 7'))) f:close()\""), 0);
  assert_int_equal(run_text("",
      "local f = io.open('/tmp/lraf-tr.luac', 'rb') local d = f:read('a') f:close()\n"
      "print(load(d)) print(loadfile('/tmp/lraf-tr.luac'))\n", &out), 0);
  assert_null(strstr(out, "function:"));
  assert_non_null(strstr(out, "binary chunk"));
  free(out);
  remove("/tmp/lraf-tr.luac");
  remove("/tmp/lraf-tr-src.lua");
  /* the sandbox refuses even its own dumps */
  assert_int_equal(run_text("--sandbox",
      "print(load(string.dump(function() return 1 end)))\n", &out), 0);
  assert_non_null(strstr(out, "nil\tattempt to load a binary chunk"));
  free(out);
}

/* string.dump of every corpus program's main chunk, with and without
   strip, and of a function it loads back, gives lua5.4's bytes. */
static void test_dump_corpus_like_lua(void **state) {
  static const char script[] =
    "for _, path in ipairs(arg) do\n"
    "  local f = assert(loadfile(path))\n"
    "  local d, s = string.dump(f), string.dump(f, true)\n"
    "  local g = assert(load(d))\n"
    "  io.write(path, '\\n', d, s, string.dump(g), string.dump(g, true))\n"
    "end\n";
  char cmd[512], o1[64], o2[64], sp[64];
  FILE *f;
  size_t n1, n2;
  char *a, *b;
  (void)state;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  snprintf(sp, sizeof sp, "/tmp/lraf-tr-%d-dump.lua", (int)getpid());
  snprintf(o1, sizeof o1, "/tmp/lraf-tr-%d-d1", (int)getpid());
  snprintf(o2, sizeof o2, "/tmp/lraf-tr-%d-d2", (int)getpid());
  f = fopen(sp, "w");
  assert_non_null(f);
  fputs(script, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "lua5.4 %s tests/corpus/*.lua", sp);
  assert_int_equal(sh(cmd, o1), 0);
  snprintf(cmd, sizeof cmd, "%s run %s tests/corpus/*.lua", lraf(), sp);
  assert_int_equal(sh(cmd, o2), 0);
  a = tutil_run_slurp(o1, &n1);
  b = tutil_run_slurp(o2, &n2);
  assert_non_null(a);
  assert_non_null(b);
  assert_true(n1 > 100000);
  if (n1 != n2 || memcmp(a, b, n1) != 0)
    fail_msg("string.dump differs from lua5.4's (%zu and %zu bytes)", n2, n1);
  printf("  %zu bytes of dumps identical\n", n1);
  free(a);
  free(b);
  remove(sp);
  remove(o1);
  remove(o2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dump_corpus_like_lua),
    cmocka_unit_test(test_introspect_default),
    cmocka_unit_test(test_introspect_exact),
    cmocka_unit_test(test_binary_policy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
