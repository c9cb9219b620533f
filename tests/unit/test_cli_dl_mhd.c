/*
** test_cli_dl_mhd.c - cli/cli_dl_mhd.c, libmicrohttpd opened at run
** time: the library found, its table serves a real daemon on a port of
** the system's choosing; LRAF_LIBMICROHTTPD naming a missing file, or
** a library without libmicrohttpd's functions, is refused with a
** message naming the library (or the function) and dlerror's text; the
** answer is the same on every later call.  The library is opened once
** per process, so each case runs in a child of its own.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_dl_mhd.h"

/* The daemon's request handler (no request comes). */
static enum MHD_Result refuse(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *data,
                              size_t *size, void **con_cls) {
  (void)cls; (void)c; (void)url; (void)method; (void)version; (void)data;
  (void)size; (void)con_cls;
  return MHD_NO;
}

/* In a child with LRAF_LIBMICROHTTPD set to lib (NULL: unset): what
   cli_dl_mhd_load returned, then its message, written to fd; in the
   child, a daemon is also started and stopped when it loaded. */
static void child(const char *lib, int fd) {
  const char *why, *again;
  char out[600];
  int ok, n;
  if (lib != NULL) setenv("LRAF_LIBMICROHTTPD", lib, 1);
  else unsetenv("LRAF_LIBMICROHTTPD");
  ok = cli_dl_mhd_load(&why);
  /* a second call gives the same answer and the same message */
  if (cli_dl_mhd_load(&again) != ok || again != why) ok = 2;
  if (ok == 1) {
    struct MHD_Daemon *d = cli_mhd.start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, refuse, NULL,
        MHD_OPTION_END);
    const union MHD_DaemonInfo *info =
        d ? cli_mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    if (info == NULL || info->port == 0) ok = 3;
    if (d != NULL) cli_mhd.stop_daemon(d);
  }
  n = snprintf(out, sizeof out, "%d %s", ok, why);
  if (write(fd, out, (size_t)n) != n) _exit(1);
  _exit(0);
}

/* Run child(lib) and read what it wrote into out. */
static void in_child(const char *lib, char *out, size_t size) {
  int fd[2], status;
  ssize_t n, len = 0;
  pid_t pid;
  assert_int_equal(pipe(fd), 0);
  fflush(NULL);
  assert_true((pid = fork()) >= 0);
  if (pid == 0) {
    close(fd[0]);
    child(lib, fd[1]);
  }
  close(fd[1]);
  while ((n = read(fd[0], out + len, size - 1 - (size_t)len)) > 0) len += n;
  out[len] = '\0';
  close(fd[0]);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_loads(void **state) {
  char out[600];
  (void)state;
  in_child(NULL, out, sizeof out);
  assert_string_equal(out, "1 ");
  in_child("", out, sizeof out);  /* empty: the default library */
  assert_string_equal(out, "1 ");
}

static void test_missing(void **state) {
  static const char want[] = "0 cannot load /nonexistent/libmicrohttpd.so"
                             " (libmicrohttpd): ";
  char out[600];
  (void)state;
  in_child("/nonexistent/libmicrohttpd.so", out, sizeof out);
  assert_memory_equal(out, want, sizeof want - 1);
  /* dlerror's text follows */
  assert_non_null(strstr(out + sizeof want - 1, "No such file"));
}

/* A library that is there but is not libmicrohttpd: its first missing
   function is named. */
static void test_not_mhd(void **state) {
  static const char want[] = "0 cannot find MHD_start_daemon: ";
  char out[600];
  (void)state;
  in_child("libm.so.6", out, sizeof out);
  assert_memory_equal(out, want, sizeof want - 1);
  assert_non_null(strstr(out, "undefined symbol"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_loads),
    cmocka_unit_test(test_missing),
    cmocka_unit_test(test_not_mhd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
