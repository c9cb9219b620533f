/*
** test_install.c - `make install PREFIX=<temporary directory>` installs
** the command, the libraries, lraf.h, lraf.pc and the man pages, and
** examples/embed.c builds against the installed tree with
** `pkg-config --cflags --libs lraf` alone and runs; `make uninstall`
** removes what was installed.  Installs the build of $LRAF (its
** directory); skipped in a sanitizer build, whose library a plain
** compiler cannot link.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_run.h"

/* which build this test belongs to, for make's LRAF_VM */
#ifdef LRAF_VM
#define BUILT_VM 1
#else
#define BUILT_VM 0
#endif

static char prefix[64];

static int sh(const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  int st;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *rel) {
  char path[256];
  struct stat sb;
  snprintf(path, sizeof path, "%s/%s", prefix, rel);
  return stat(path, &sb) == 0;
}

static const char *const installed[] = {
  "bin/lraf", "lib/liblraf.a", "lib/liblraf.so", "include/lraf.h",
  "lib/pkgconfig/lraf.pc", "share/man/man1/lraf.1", "share/man/man3/lraf.3",
  "share/man/man1/lraf-lua.1", "lib/liblraf.so.0",
#if BUILT_VM
  "include/lraf/lua.h", "include/lraf/luaconf.h", "include/lraf/lauxlib.h",
#endif
};

static void test_install_and_embed(void **state) {
  char lraf_path[256], build[256], log[128], *out;
  const char *lraf = getenv("LRAF") ? getenv("LRAF") : "build/lraf";
  size_t i, len;
  (void)state;
#if defined(__SANITIZE_ADDRESS__)
  skip();
#endif
  if (sh("command -v pkg-config > /dev/null") != 0) skip();
  snprintf(lraf_path, sizeof lraf_path, "%s", lraf);
  snprintf(build, sizeof build, "%s", dirname(lraf_path));
  snprintf(prefix, sizeof prefix, "/tmp/lraf-install-XXXXXX");
  assert_non_null(mkdtemp(prefix));
  snprintf(log, sizeof log, "%s/make.log", prefix);
  /* a make of its own, not a part of the make that runs the tests */
  assert_int_equal(sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
                      "--no-print-directory install PREFIX=%s BUILD=%s "
                      "LRAF_VM=%d > %s 2>&1", prefix, build, BUILT_VM, log),
                   0);
  for (i = 0; i < sizeof installed / sizeof installed[0]; i++)
    if (!exists(installed[i])) fail_msg("not installed: %s", installed[i]);
  assert_int_equal(sh("%s/bin/lraf --version > /dev/null", prefix), 0);
  /* the shared library has a versioned SONAME, and the links */
  assert_int_equal(sh("readelf -d %s/lib/liblraf.so | grep -q "
                      "'SONAME.*\\[liblraf\\.so\\.0\\]' && "
                      "test -L %s/lib/liblraf.so && test -L %s/lib/liblraf.so.0",
                      prefix, prefix, prefix), 0);
  /* the lraf VM build carries its own Lua: lraf.pc requires no lua5.4 */
  assert_int_equal(sh("grep -q lua5.4 %s/lib/pkgconfig/lraf.pc", prefix),
                   BUILT_VM ? 1 : 0);
  /* embed.c built in the prefix with pkg-config's flags and nothing
     else, and run against the installed shared library */
  assert_int_equal(sh("cp examples/embed.c %s/ && cd %s && "
                      "PKG_CONFIG_PATH=%s/lib/pkgconfig cc -std=c11 -o embed "
                      "embed.c $(PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config "
                      "--cflags --libs lraf) >> make.log 2>&1", prefix,
                      prefix, prefix, prefix), 0);
  assert_int_equal(sh("cd %s && LD_LIBRARY_PATH=%s/lib ./embed > embed.out "
                      "2>&1", prefix, prefix), 0);
  {
    char path[128];
    snprintf(path, sizeof path, "%s/embed.out", prefix);
    out = tutil_run_slurp(path, &len);
  }
  assert_non_null(out);
  assert_non_null(strstr(out, "5050\n"));
  assert_non_null(strstr(out, " native (quota left "));
  free(out);
  /* the program really uses the installed library */
  assert_int_equal(sh("cd %s && LD_LIBRARY_PATH=%s/lib ldd ./embed | "
                      "grep -q '%s/lib/liblraf.so'", prefix, prefix, prefix),
                   0);
  assert_int_equal(sh("env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "
                      "--no-print-directory uninstall PREFIX=%s BUILD=%s "
                      "LRAF_VM=%d >> %s 2>&1", prefix, build, BUILT_VM, log),
                   0);
  for (i = 0; i < sizeof installed / sizeof installed[0]; i++)
    if (exists(installed[i])) fail_msg("not uninstalled: %s", installed[i]);
  assert_int_equal(sh("rm -rf %s", prefix), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_install_and_embed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
