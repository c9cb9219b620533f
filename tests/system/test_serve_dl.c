/*
** test_serve_dl.c - libsqlite3, libpq and libmicrohttpd are opened at
** run time, only when a ledger or lraf serve needs them: metering (in
** this process, and `lraf run`) maps none of them, and when one cannot
** be loaded (LRAF_LIBSQLITE3, LRAF_LIBPQ, LRAF_LIBMICROHTTPD name a
** missing file, or a library without its functions) the ledger open or
** lraf serve fails with a message naming the library and dlerror's
** text.  The tests run in order: each library is loaded once a process.
** lraf serve runs under timeout(1), so that one that listens fails.
*/
#define _GNU_SOURCE   /* dladdr */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

#define MISSING "/nonexistent/lraf-test-missing.so"

/* The first line of this process's maps that names one of the three
   libraries, or NULL (malloc'ed). */
static char *mapped_service_lib(void) {
  char line[1024];
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  while (fgets(line, sizeof line, f) != NULL)
    if (strstr(line, "libsqlite3") || strstr(line, "libpq.") ||
        strstr(line, "libmicrohttpd")) {
      fclose(f);
      return strdup(line);
    }
  fclose(f);
  return NULL;
}

static void test_metering_loads_none(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  char *out, *lib;
  (void)state;
  /* in this process, through the library's API */
  lraf_default_options(&opt);
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(lraf_run_string(S, "local s = 0 for i = 1, 100 do "
                                   "s = s + i end", "=sum", &err), LRAF_OK);
  lraf_close(S);
  lib = mapped_service_lib();
  if (lib != NULL) fail_msg("metering mapped %s", lib);
  /* lraf run: the script reads its own process's maps */
  assert_int_equal(tutil_sh_write(&sh, "maps.lua",
    "local n = 0\n"
    "for l in io.lines('/proc/self/maps') do\n"
    "  if l:find('libsqlite3', 1, true) or l:find('libpq.', 1, true) or\n"
    "     l:find('libmicrohttpd', 1, true) then print(l) end\n"
    "  n = n + 1\n"
    "end\n"
    "print(n > 0 and 'read' or 'empty')\n"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run maps.lua"), 0);
  out = tutil_sh_read(sh.out);
  assert_string_equal(out, "read\n");
  free(out);
}

/* err's message has the library's name and dlerror's text for it. */
static void check_missing(const lraf_error *err, lraf_status code,
                          const char *what) {
  char want[256];
  assert_int_equal(code, LRAF_EIO);
  assert_int_equal(err->code, LRAF_EIO);
  snprintf(want, sizeof want, "ledger: cannot load " MISSING " (%s): ",
           what);
  if (strncmp(err->message, want, strlen(want)) != 0 ||
      strstr(err->message, "cannot open shared object file") == NULL)
    fail_msg("message: %s (expected '%s' and dlerror's text)",
             err->message, want);
}

static void test_sqlite_missing(void **state) {
  lraf_ledger *l = NULL;
  lraf_error err;
  char spec[160], path[128];
  int i;
  (void)state;
  setenv("LRAF_LIBSQLITE3", MISSING, 1);
  snprintf(path, sizeof path, "%s/l.db", sh.dir);
  snprintf(spec, sizeof spec, "sqlite:%s", path);
  /* the same error every time: the library is tried once */
  for (i = 0; i < 2; i++) {
    memset(&err, 0, sizeof err);
    check_missing(&err, lraf_ledger_open(spec, &l, &err), "SQLite");
    assert_null(l);
  }
  assert_int_not_equal(access(path, F_OK), 0);   /* nothing was made */
  unsetenv("LRAF_LIBSQLITE3");
}

static void test_pg_missing(void **state) {
  lraf_ledger *l = NULL;
  lraf_error err;
  (void)state;
  setenv("LRAF_LIBPQ", MISSING, 1);
  memset(&err, 0, sizeof err);
  check_missing(&err, lraf_ledger_open("postgresql:///x?host=/nonexistent",
                                       &l, &err),
                "PostgreSQL's libpq");
  assert_null(l);
  unsetenv("LRAF_LIBPQ");
}

static void test_serve_mhd_missing(void **state) {
  char *err, *out;
  int st;
  (void)state;
  st = tutil_sh_run(&sh, "cd '%s' && LRAF_LIBMICROHTTPD=" MISSING
                    " timeout 30 %s%s serve --port 0 --ledger sqlite:serve.db .",
                    sh.dir, tutil_sh_lraf()[0] == '/' ? "" : "\"$OLDPWD\"/",
                    tutil_sh_lraf());
  err = tutil_sh_read(sh.err);
  out = tutil_sh_read(sh.out);
  if (st != 1 ||
      strncmp(err, "lraf: cannot load " MISSING " (libmicrohttpd): ",
              strlen("lraf: cannot load " MISSING " (libmicrohttpd): ")) !=
        0 ||
      strstr(err, "cannot open shared object file") == NULL ||
      strstr(out, "listening") != NULL)
    fail_msg("status %d, stdout:\n%sstderr:\n%s", st, out, err);
  free(err);
  free(out);
}

/* A library that loads but has none of SQLite's functions: cmocka's. */
static void test_serve_sqlite_wrong(void **state) {
  Dl_info info;
  char *err;
  int st;
  (void)state;
  assert_int_not_equal(dladdr((void *)&_cmocka_run_group_tests, &info), 0);
  assert_non_null(info.dli_fname);
  assert_non_null(strstr(info.dli_fname, "libcmocka"));
  st = tutil_sh_run(&sh, "cd '%s' && LRAF_LIBSQLITE3='%s' timeout 30 %s%s "
                    "serve "
                    "--port 0 --ledger sqlite:wrong.db .", sh.dir,
                    info.dli_fname,
                    tutil_sh_lraf()[0] == '/' ? "" : "\"$OLDPWD\"/",
                    tutil_sh_lraf());
  err = tutil_sh_read(sh.err);
  if (st != 2 ||
      strncmp(err, "lraf: ledger: cannot find sqlite3_open_v2: ", 43) != 0 ||
      strstr(err, "undefined symbol") == NULL)
    fail_msg("status %d, stderr:\n%s", st, err);
  free(err);
}

static int setup(void **state) {
  (void)state;
  unsetenv("LRAF_LIBSQLITE3");
  unsetenv("LRAF_LIBPQ");
  unsetenv("LRAF_LIBMICROHTTPD");
  return tutil_sh_init(&sh, "serve-dl");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_metering_loads_none),
    cmocka_unit_test(test_sqlite_missing),
    cmocka_unit_test(test_pg_missing),
    cmocka_unit_test(test_serve_mhd_missing),
    cmocka_unit_test(test_serve_sqlite_wrong),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
