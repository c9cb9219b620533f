/*
** test_cli_util.c - cli/cli_util.c, what every subcommand shares: an
** error is one line with the command's prefix and status 2 (1 when out
** of memory); a file that cannot be read, or is longer than its most
** (/dev/zero too), is said with its name and why; a script's '#' first
** line and UTF-8 BOM are blanked with its line numbers kept, standard
** input is named "=stdin", an offline chunk is known by its marker and
** each loads; the version names the VM; Ctrl-C raises "interrupted!"
** in the running script and puts SIGINT back.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "cli.h"
#include "tutil_sh.h"
#include "tutil_stderr.h"

static tutil_sh sh;
static char path[256];

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "util");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* sh.dir/name (in the static path). */
static const char *at(const char *name) {
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  return path;
}

static void test_error(void **state) {
  static const struct {
    const char *prefix;  /* NULL: the default */
    lraf_status code;
    int status;
    const char *printed;
  } rows[] = {
    {NULL, LRAF_EIO, CLI_EUSAGE, "lraf: bad 7\n"},
    {NULL, LRAF_EMEM, CLI_EFAIL, "lraf: bad 7\n"},
    {"lraf-lua: LRAF_OPTIONS: ", LRAF_EFORMAT, CLI_EUSAGE,
     "lraf-lua: LRAF_OPTIONS: bad 7\n"},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    tutil_stderr c;
    lraf_error err;
    char *text;
    int st;
    if (rows[k].prefix != NULL) cli_set_prefix(rows[k].prefix);
    err.code = rows[k].code;
    snprintf(err.message, sizeof err.message, "bad %d", 7);
    assert_int_equal(tutil_stderr_begin(&c), 0);
    st = cli_report(&err);
    text = tutil_stderr_end(&c);
    cli_set_prefix("lraf: ");
    assert_int_equal(st, rows[k].status);
    assert_string_equal(text, rows[k].printed);
    free(text);
  }
  /* cli_error itself: printf-formatted, status 2 */
  {
    tutil_stderr c;
    char *text;
    assert_int_equal(tutil_stderr_begin(&c), 0);
    assert_int_equal(cli_error("%s needs %d", "--x", 3), CLI_EUSAGE);
    text = tutil_stderr_end(&c);
    assert_string_equal(text, "lraf: --x needs 3\n");
    free(text);
  }
}

static void test_read_file(void **state) {
  char *data, want[400];
  size_t size;
  lraf_error err;
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "ten", "0123456789"), 0);
  assert_int_equal(tutil_sh_write(&sh, "empty", ""), 0);
  assert_int_equal(cli_read_file(at("ten"), &data, &size, &err), LRAF_OK);
  assert_int_equal(size, 10);
  assert_memory_equal(data, "0123456789", 10);
  free(data);
  assert_int_equal(cli_read_file(at("empty"), &data, &size, &err), LRAF_OK);
  assert_int_equal(size, 0);
  free(data);
  /* at most 10 bytes: 10 is fine, 9 is not */
  assert_int_equal(cli_read_file_max(at("ten"), 10, &data, &size, &err),
                   LRAF_OK);
  free(data);
  assert_int_equal(cli_read_file_max(at("ten"), 9, &data, &size, &err),
                   LRAF_ELIMIT);
  snprintf(want, sizeof want, "cannot read %s: longer than 9 bytes, the "
           "most this file may have", at("ten"));
  assert_string_equal(err.message, want);
  /* a file without end stops near its most */
  assert_int_equal(cli_read_file_max("/dev/zero", CLI_KEY_MAX, &data, &size,
                                     &err), LRAF_ELIMIT);
  assert_non_null(strstr(err.message, "cannot read /dev/zero: longer than"));
  /* one that is not there, and a directory */
  assert_int_equal(cli_read_file(at("none"), &data, &size, &err), LRAF_EIO);
  snprintf(want, sizeof want, "cannot open %s: No such file or directory",
           at("none"));
  assert_string_equal(err.message, want);
  assert_int_equal(cli_read_file(sh.dir, &data, &size, &err), LRAF_EIO);
  snprintf(want, sizeof want, "cannot read %s: Is a directory", sh.dir);
  assert_string_equal(err.message, want);
}

/* A script that fails on its third line; the error must still say
   line 3 after its first line or BOM is blanked. */
static const struct script_case {
  const char *file, *text;
} scripts[] = {
  {"plain.lua", "local a = 1\nlocal b = 2\nerror('three')\n"},
  {"shebang.lua", "#!/usr/bin/env lua\nlocal b = 2\nerror('three')\n"},
  {"bom.lua", "\xEF\xBB\xBFlocal a = 1\nlocal b = 2\nerror('three')\n"},
  {"both.lua", "\xEF\xBB\xBF#!lua\n\nerror('three')\n"},
};

/* Run s in a fresh state: the error message it stops with. */
static void run_script(const cli_script *s, char *msg, size_t size) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_default_options(&opt);
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(cli_script_load(S, s, &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_ERUN);
  snprintf(msg, size, "%s", err.message);
  lraf_close(S);
}

static void test_scripts(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof scripts / sizeof scripts[0]; k++) {
    cli_script s;
    lraf_error err;
    char msg[600], want[300], *data, *name;
    size_t size;
    assert_int_equal(tutil_sh_write(&sh, scripts[k].file, scripts[k].text),
                     0);
    assert_int_equal(cli_script_read(at(scripts[k].file), &s, &err),
                     LRAF_OK);
    assert_int_equal(s.size, strlen(scripts[k].text));
    assert_false(s.offline);
    snprintf(want, sizeof want, "@%s", path);
    assert_string_equal(s.name, want);
    run_script(&s, msg, sizeof msg);
    snprintf(want, sizeof want, "%s:3: three", path);
    if (strstr(msg, want) == NULL)
      fail_msg("%s: '%s', want '%s'", scripts[k].file, msg, want);
    cli_script_free(&s);
    /* cli_read_script: the '#' line (not the BOM) blanked the same way */
    assert_int_equal(cli_read_script(at(scripts[k].file), &data, &size,
                                     &name, &err), LRAF_OK);
    assert_int_equal(size, strlen(scripts[k].text));
    assert_int_equal(data[0] == '#', 0);
    snprintf(want, sizeof want, "@%s", path);
    assert_string_equal(name, want);
    free(data);
    free(name);
  }
}

/* Standard input is "=stdin"; an offline chunk keeps its first bytes
   and loads through lraf_load_rewritten. */
static void test_stdin_and_offline(void **state) {
  static const char src[] = "#!x\nreturn 6 * 7\n";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  cli_script s;
  void *chunk;
  size_t size;
  FILE *f;
  (void)state;
  lraf_default_options(&opt);
  assert_int_equal(lraf_rewrite(&opt, "return 6 * 7\n", 13, "=r", &chunk,
                                &size, &err), LRAF_OK);
  assert_non_null(f = fopen(at("r.luac"), "wb"));
  assert_int_equal(fwrite(chunk, 1, size, f), size);
  fclose(f);
  free(chunk);
  assert_int_equal(cli_script_read(at("r.luac"), &s, &err), LRAF_OK);
  assert_true(s.offline);
  assert_memory_equal(s.data, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN);
  opt.allow_offline = 1;
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(cli_script_load(S, &s, &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  assert_int_equal(lua_tointeger(lraf_lua(S), -1), 42);
  lraf_close(S);
  cli_script_free(&s);
  /* the same source from standard input */
  assert_int_equal(tutil_sh_write(&sh, "in.lua", src), 0);
  assert_non_null(freopen(at("in.lua"), "rb", stdin));
  assert_int_equal(cli_script_read(NULL, &s, &err), LRAF_OK);
  assert_string_equal(s.name, "=stdin");
  assert_int_equal(s.size, sizeof src - 1);
  assert_memory_equal(s.data, "   \n", 4);
  cli_script_free(&s);
  assert_non_null(freopen("/dev/null", "rb", stdin));
  assert_int_equal(cli_script_read(at("none"), &s, &err), LRAF_EIO);
  assert_non_null(strstr(err.message, "cannot open "));
}

static void test_version(void **state) {
  char *text;
  size_t len;
  FILE *f;
  (void)state;
  assert_non_null(f = open_memstream(&text, &len));
  cli_version(f);
  fclose(f);
  assert_memory_equal(text, "lraf " LRAF_VERSION " on ",
                      strlen("lraf " LRAF_VERSION " on "));
  assert_non_null(strstr(text, LUA_RELEASE));
  assert_int_equal(strstr(text, "on the lraf VM") != NULL, lraf_vm_builtin());
  assert_int_equal(strstr(text, "on stock Lua") != NULL, !lraf_vm_builtin());
  assert_int_equal(text[len - 1], '\n');
  free(text);
}

/* A host function that sends SIGINT to the process, as Ctrl-C would. */
static int ctrl_c(lua_State *L) {
  (void)L;
  raise(SIGINT);
  return 0;
}

static void test_interrupt(void **state) {
  static const char src[] = "ctrl_c()\nlocal n = 0\n"
                            "for i = 1, 1e5 do n = n + i end\nreturn n\n";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  struct sigaction now;
  (void)state;
  lraf_default_options(&opt);
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  lua_register(lraf_lua(S), "ctrl_c", ctrl_c);
  assert_int_equal(lraf_load_string(S, src, sizeof src - 1, "=i", &err),
                   LRAF_OK);
  assert_int_equal(cli_call_interruptible(S, 0, 1, &err), LRAF_ERUN);
  assert_non_null(strstr(err.message, "interrupted!"));
  /* the script ran again is not interrupted: the hook was put back */
  assert_int_equal(lraf_load_string(S, src + 9, sizeof src - 10, "=j", &err),
                   LRAF_OK);
  assert_int_equal(cli_call_interruptible(S, 0, 1, &err), LRAF_OK);
  lraf_close(S);
  assert_int_equal(sigaction(SIGINT, NULL, &now), 0);
  assert_ptr_equal(now.sa_handler, SIG_DFL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_error),
    cmocka_unit_test(test_read_file),
    cmocka_unit_test(test_scripts),
    cmocka_unit_test(test_stdin_and_offline),
    cmocka_unit_test(test_version),
    cmocka_unit_test(test_interrupt),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
