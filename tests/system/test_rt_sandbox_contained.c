/*
** test_rt_sandbox_contained.c - the sandbox contains: whatever a
** script does to package (path, cpath, searchers' inputs), it reads no
** file outside the directories the host allowed (--allow-dir), creates or removes none,
** and loads no C module the host did not allow (--allow-module; LPeg
** always).  A refused path gives the same answer whether or not the
** file exists.  A C module that would create a file when opened is
** built in the test's directory, next to the default package.cpath
** entry "./?.so".  Runs the command named by $LRAF.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static const char evil_c[] =
  "#include <stdio.h>\n"
  "#include <lua.h>\n"
  "int luaopen_evil(lua_State *L) {\n"
  "  FILE *f = fopen(\"PWNED\", \"w\");\n"
  "  if (f) fclose(f);\n"
  "  lua_pushliteral(L, \"evil loaded\");\n"
  "  return 1;\n"
  "}\n";

/* Everything a script might try; each line prints what it got. */
static const char attack[] =
  "local function try(what, f, ...) print(what, pcall(f, ...)) end\n"
  "try('require evil', require, 'evil')\n"
  "package.cpath = './?.so;' .. (package.cpath or '')\n"
  "try('require evil via cpath', require, 'evil')\n"
  "try('loadlib', function() return package.loadlib('./evil.so', 'luaopen_evil') end)\n"
  "try('loadfile secret', loadfile, 'outside/secret.lua')\n"
  "try('dofile secret', dofile, 'outside/secret.lua')\n"
  "try('loadfile missing', loadfile, 'outside/missing.lua')\n"
  "try('loadfile via dotdot', loadfile, 'allowed/../outside/secret.lua')\n"
  "try('loadfile via link', loadfile, 'allowed/link.lua')\n"
  "package.path = './outside/?.lua;./?.lua;/etc/?'\n"
  "try('require secret', require, 'secret')\n"
  "try('require passwd', require, 'passwd')\n"
  "try('searchpath', package.searchpath, 'secret', './outside/?.lua')\n"
  "try('io', function() return io.open('CREATED', 'w') end)\n"
  "try('os.remove', function() return os.remove('outside/secret.lua') end)\n"
  "try('os.rename', function() return os.rename('outside/secret.lua', 'x') end)\n"
  "try('os.execute', function() return os.execute('touch CREATED') end)\n"
  "package.path = './allowed/?.lua'\n"
  "try('require allowed', require, 'good')\n"
  "try('lpeg', function() return type(require 'lpeg') end)\n";

static int exists(const char *name) {
  char path[160];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  return stat(path, &st) == 0;
}

static char *slurp_out(void) {
  size_t len;
  char *s = tutil_run_slurp(sh.out, &len);
  assert_non_null(s);
  return s;
}

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "sandbox") != 0) return -1;
  if (tutil_sh_write(&sh, "evil.c", evil_c) != 0 ||
      tutil_sh_write(&sh, "attack.lua", attack) != 0 ||
      tutil_sh_run(&sh, "cd %s && mkdir -p outside allowed && "
                   "printf 'print(\"TOPSECRET\") TOPSECRET = = 1' > outside/secret.lua && "
                   "printf 'return \"good module\"' > allowed/good.lua && "
                   "ln -s ../outside/secret.lua allowed/link.lua", sh.dir) != 0)
    return -1;
  return tutil_sh_run(&sh, "cd %s && cc -shared -fPIC $(pkg-config --cflags "
                      "lua5.4) -o evil.so evil.c", sh.dir) == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The C module works outside the sandbox: the test can see an escape. */
static void test_module_is_live(void **state) {
  char *out;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run attack.lua"), 0);
  out = slurp_out();
  assert_non_null(strstr(out, "require evil\ttrue\tevil loaded"));
  assert_true(exists("PWNED"));
  free(out);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f PWNED CREATED x && "
                                "printf 'print(\"TOPSECRET\") TOPSECRET = = 1'"
                                " > outside/secret.lua", sh.dir), 0);
}

static void check_contained(const char *out) {
  assert_false(exists("PWNED"));
  assert_false(exists("CREATED"));
  assert_true(exists("outside/secret.lua"));
  assert_null(strstr(out, "TOPSECRET"));
  assert_null(strstr(out, "root:"));
  assert_null(strstr(out, "evil loaded"));
  assert_non_null(strstr(out, "require evil\tfalse"));
  assert_non_null(strstr(out, "require evil via cpath\tfalse"));
  assert_non_null(strstr(out, "loadlib\tfalse"));
  assert_non_null(strstr(out, "lpeg\ttrue\ttable"));
  /* refused the same way whether or not the file exists */
  assert_non_null(strstr(out, "loadfile secret\ttrue\tnil\tcannot open "
                              "outside/secret.lua (not allowed in the "
                              "sandbox)"));
  assert_non_null(strstr(out, "loadfile missing\ttrue\tnil\tcannot open "
                              "outside/missing.lua (not allowed in the "
                              "sandbox)"));
  assert_non_null(strstr(out, "searchpath\ttrue\tnil\tfile "
                              "'./outside/secret.lua' not allowed in the "
                              "sandbox"));
}

static void test_contained(void **state) {
  char *out;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox attack.lua"), 0);
  out = slurp_out();
  check_contained(out);
  assert_non_null(strstr(out, "require allowed\tfalse"));
  free(out);
}

static void test_allowed_dir(void **state) {
  char *out;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --allow-dir "
                                     "allowed attack.lua"), 0);
  out = slurp_out();
  check_contained(out);
  assert_non_null(strstr(out, "require allowed\ttrue\tgood module"));
  assert_non_null(strstr(out, "loadfile via link\ttrue\tnil\tcannot open"));
  assert_non_null(strstr(out, "loadfile via dotdot\ttrue\tnil\tcannot open"));
  free(out);
}

static void test_allowed_module(void **state) {
  char *out;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --allow-module evil "
                                     "attack.lua"), 0);
  out = slurp_out();
  assert_non_null(strstr(out, "require evil\ttrue\tevil loaded"));
  free(out);
  assert_int_equal(tutil_sh_run(&sh, "rm -f %s/PWNED", sh.dir), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --allow-dir "
                                     "nonexistent attack.lua"), 2);
}

/* Chunks rewritten offline: both environments refuse unsigned ones
   unless allowed; a copied marker on foreign bytecode (no accounting at
   all) and a chunk of the other mode are refused even then
   (test_rt_host_load_forged edits the accounting itself). */
static void test_offline_chunks(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "spin.lua",
                                  "local x = 0 while true do x = x + 1 end\n"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite spin.lua -o spin.luac"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --limit 100000 "
                                     "spin.luac"), 2);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --allow-offline "
                                     "--limit 100000 spin.luac"), 3);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 100000 spin.luac"), 2);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --allow-offline --limit 100000 "
                                     "spin.luac"), 3);
  /* the default mode's chunk in an exact state */
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --allow-offline --exact "
                                     "--limit 100000 spin.luac"), 2);
  /* lraf's header (magic, model id) copied onto lua5.4's bytecode */
  assert_int_equal(tutil_sh_run(&sh, "cd %s && lua5.4 -e \"local f = "
      "io.open('spin.luac', 'rb') local d = f:read('a') f:close() "
      "local n = d:find('\\27Lua', 2, true) local g = io.open('forged.luac', "
      "'wb') g:write(d:sub(1, n - 1), string.dump(loadfile('spin.lua'))) "
      "g:close()\"", sh.dir), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 100000 forged.luac"), 2);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --allow-offline --limit 100000 "
                                     "forged.luac"), 2);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --allow-offline "
                                     "--limit 100000 forged.luac"), 2);
}

/* Signed offline chunks (--key-file): a chunk loads only with a valid
   HMAC-SHA-256 under the host's key, in both environments; any edited
   byte (an increment, a check, the model id, the signature itself) is
   refused; the sandbox takes signed chunks without --allow-offline. */
static void test_offline_signed(void **state) {
  int n, refused = 0;
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "key", "a host's secret key"), 0);
  assert_int_equal(tutil_sh_write(&sh, "key2", "another key"), 0);
  assert_int_equal(tutil_sh_write(&sh, "spin.lua",
                                  "local x = 0 while true do x = x + 1 end\n"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite --key-file key spin.lua "
                                     "-o signed.luac"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --key-file key --limit 100000 "
                                     "signed.luac"), 3);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --key-file key "
                                     "--limit 100000 signed.luac"), 3);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --key-file key2 --limit 100000 "
                                     "signed.luac"), 2);
  /* an unsigned chunk where a key is held */
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite spin.lua -o plain.luac"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --key-file key --limit 100000 "
                                     "plain.luac"), 2);
  /* every 5th byte changed in turn, in both environments */
  for (n = 0; n < 400; n += 5) {
    int rc = tutil_sh_run(&sh, "cd %s && lua5.4 -e \"local f = io.open("
        "'signed.luac', 'rb') local d = f:read('a') f:close() if %d >= #d "
        "then os.exit(9) end local g = io.open('forged.luac', 'wb') "
        "g:write(d:sub(1, %d), string.char((d:byte(%d + 1) + 1) %% 256), "
        "d:sub(%d + 2)) g:close()\"", sh.dir, n, n, n, n);
    if (rc == 9) break;
    assert_int_equal(rc, 0);
    /* refused: 2, or 1 where the change unmade the marker and the
       bytes were read as (bad) source */
    rc = tutil_sh_lraf_run(&sh, "run --key-file key --limit 100000 "
                           "forged.luac");
    if (rc != 2 && !(n == 0 && rc == 1)) fail_msg("byte %d: exit %d", n, rc);
    rc = tutil_sh_lraf_run(&sh, "run --sandbox --key-file key --limit "
                           "100000 forged.luac");
    if (rc != 2 && !(n == 0 && rc == 1)) fail_msg("byte %d: exit %d", n, rc);
    refused++;
  }
  printf("  %d edited signed chunks refused in both environments\n", refused);
  assert_true(refused >= 20);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_offline_signed),
    cmocka_unit_test(test_offline_chunks),
    cmocka_unit_test(test_module_is_live),
    cmocka_unit_test(test_contained),
    cmocka_unit_test(test_allowed_dir),
    cmocka_unit_test(test_allowed_module),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
