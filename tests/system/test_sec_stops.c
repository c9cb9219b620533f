/*
** test_sec_stops.c - a stop stays a stop, and what lraf writes about a
** run is what happened: found by a security review of the lraf command.
**   - os.exit as a __close handler (debug.setmetatable(0, {__close =
**     os.exit}), `local x <close> = 0`) or called by one turned a quota
**     or memory stop into exit 0 with "status": "exit".
**   - a report that could not be written (/dev/full) exited 0;
**   - bytes of an error message that are not UTF-8 made the report
**     invalid JSON: they are U+FFFD now.
** Runs the command named by $LRAF (the Makefile sets it).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static const struct {
  const char *name, *text;
} scripts[] = {
  {"close_exit.lua", "debug.setmetatable(0, {__close = os.exit})\n"
                     "local x <close> = 0\nwhile true do end\n"},
  {"close_exit_mem.lua", "debug.setmetatable(0, {__close = os.exit})\n"
                         "local x <close> = 0\nlocal t = {}\n"
                         "for i = 1, 1e9 do t[i] = ('x'):rep(100) .. i end\n"},
  {"close_exit_true.lua", "local x <close> = setmetatable({}, {__close = "
                          "function() os.exit(true, true) end})\n"
                          "while true do end\n"},
  {"ok.lua", "local s = 0\nfor i = 1, 10 do s = s + i end\n"},
  {"exit0.lua", "os.exit(0)\n"},
  {"badutf8.lua", "error('bad \\xff\\xfe byte \\xc3\\xa9 ok "
                  "\\xed\\xa0\\x80 \\xe2\\x82 \\xc0\\xaf end', 0)\n"},
  {"exit7.lua", "local x <close> = setmetatable({}, {__close = "
                "function() end})\nos.exit(7)\n"},
};

static int setup(void **state) {
  size_t i;
  (void)state;
  if (tutil_sh_init(&sh, "secstop") != 0) return -1;
  for (i = 0; i < sizeof scripts / sizeof scripts[0]; i++)
    if (tutil_sh_write(&sh, scripts[i].name, scripts[i].text) != 0)
      return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The report r.json in sh's directory contains text. */
static void report_has(const char *text) {
  char path[256], *r;
  size_t len;
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  r = tutil_run_slurp(path, &len);
  assert_non_null(r);
  if (strstr(r, text) == NULL) fail_msg("report '%s' lacks '%s'", r, text);
  free(r);
}

/* A quota or memory stop stays one through a __close handler that is
   os.exit or calls it; os.exit outside a stop still exits. */
static void test_close_exit(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 1M --report r.json "
                                     "close_exit.lua"), 3);
  report_has("\"status\": \"quota\"");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 1M --report r.json "
                                     "close_exit_true.lua"), 3);
  report_has("\"status\": \"quota\"");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 20MiB "
                                     "--report r.json close_exit_mem.lua"), 4);
  report_has("\"status\": \"memory\"");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 1M --report r.json "
                                     "exit7.lua"), 7);
  report_has("\"status\": \"exit\"");
}

/* The last command's stderr contains text. */
static void err_has(const char *text) {
  size_t len;
  char *e = tutil_run_slurp(sh.err, &len);
  assert_non_null(e);
  if (strstr(e, text) == NULL) fail_msg("stderr '%s' lacks '%s'", e, text);
  free(e);
}

/* A report that cannot be written is an error, not exit 0, whether the
   script ends or calls os.exit(0). */
static void test_report_full(void **state) {
  (void)state;
  if (access("/dev/full", W_OK) != 0) skip();
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report /dev/full "
                                     "ok.lua"), 2);
  err_has("lraf: cannot write the report /dev/full: ");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report /dev/full "
                                     "exit0.lua"), 2);
  err_has("lraf: cannot write the report /dev/full: ");
}

/* Each byte that is not part of valid UTF-8 (a stray byte, a surrogate,
   a cut sequence, an overlong form) is U+FFFD in the report; valid
   sequences stay as they are. */
static void test_report_utf8(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report r.json "
                                     "badutf8.lua"), 1);
  report_has("\"error\": \"bad \\ufffd\\ufffd byte \xc3\xa9 ok "
             "\\ufffd\\ufffd\\ufffd \\ufffd\\ufffd \\ufffd\\ufffd end\\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_close_exit),
    cmocka_unit_test(test_report_full),
    cmocka_unit_test(test_report_utf8),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
