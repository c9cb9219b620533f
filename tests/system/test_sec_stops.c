/*
** test_sec_stops.c - a stop stays a stop, and what lraf writes about a
** run is what happened: found by a security review of the lraf command.
**   - os.exit as a __close handler (debug.setmetatable(0, {__close =
**     os.exit}), `local x <close> = 0`) or called by one turned a quota
**     or memory stop into exit 0 with "status": "exit".
**   - a report that could not be written (/dev/full) exited 0;
**   - bytes of an error message that are not UTF-8 made the report
**     invalid JSON: they are U+FFFD now;
**   - --key-file /dev/zero (and --weights /dev/zero) read forever;
**   - a weight of 0 for the opcodes that close loops made them free
**     (JMP, FORLOOP; TEST with the uncounted JMP after it);
**   - lraf bench --limit never ended a C call's own work (native
**     charging was off): --limit turns it on, as in lraf run;
**   - lraf profile --memory-limit 64MiB reached 592 MB: the profile's
**     calling-context tree counts against the limit now.
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
#include <sys/wait.h>
#include <unistd.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static const tutil_file scripts[] = {
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
  {"w_forloop0.txt", "FORLOOP 0\n"},
  {"w_jmp0.txt", "# free jumps\nJMP 0\nMOVE 0\n"},
  {"w_test0.txt", "TEST 0\n"},
  {"repspin.lua", "local x = false\nrepeat until x\n"},
  {"w_move0.txt", "MOVE 0\nADD 0\n"},
  {"spin.lua", "while true do end\n"},
  {"forspin.lua", "for i = 1, math.maxinteger do end\n"},
  {"catastrophic.lua", "local s = ('a'):rep(5e4)\n"
                       "while true do string.find(s, '.-.-.-.-b') end\n"},
  {"cct.lua", "local f, seed, N = {}, 1, 200\n"
              "local src = 'local f, rnd = ... return function(d) if d == 0 "
              "then return end return (f[rnd()])(d - 1), 0 end'\n"
              "local function rnd() seed = (seed * 1103515245 + 12345) % "
              "2147483648 return seed % N + 1 end\n"
              "for i = 1, N do f[i] = load(src, '=f' .. i)(f, rnd) end\n"
              "for r = 1, tonumber(arg[1]) do f[1](60) end\n"},
  {"exit7.lua", "local x <close> = setmetatable({}, {__close = "
                "function() end})\nos.exit(7)\n"},
};

static int setup(void **state) {
  (void)state;
  return tutil_sh_setup(&sh, "secstop", scripts,
                        sizeof scripts / sizeof scripts[0]);
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The report r.json in sh's directory contains text. */
static void report_has(const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  tutil_sh_expect(path, text);
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

/* The same through the C API, whose os.exit is the library's: run in a
   child, since os.exit there ended the process with 0 (a stop) before;
   the child exits 42 when the call returned the stop. */
static int api_child(const char *src, lraf_status want) {
  pid_t pid = fork();
  int st;
  if (pid == 0) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_default_options(&opt);
    opt.native = 1;
    opt.manager = lraf_limit_new(want == LRAF_EMEMLIMIT ? INT64_C(1) << 50
                                                        : 1000000);
    opt.memory_limit = 20u << 20;
    if (lraf_new(&opt, &S, &err) != LRAF_OK) _exit(1);
    _exit(lraf_run_string(S, src, "=api", &err) == want ? 42 : 1);
  }
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_close_exit_api(void **state) {
  (void)state;
  assert_int_equal(api_child("debug.setmetatable(0, {__close = os.exit}) "
                             "local x <close> = 0 while true do end",
                             LRAF_EQUOTA), 42);
  assert_int_equal(api_child("debug.setmetatable(0, {__close = os.exit}) "
                             "local x <close> = 0 local t = {} for i = 1, "
                             "1e9 do t[i] = ('x'):rep(100) .. i end",
                             LRAF_EMEMLIMIT), 42);
  /* outside a stop os.exit is lua5.4's, messages included */
  assert_int_equal(api_child("local ok, e = pcall(os.exit, {}) assert(e:find("
                             "\"bad argument #1 to 'os.exit'\", 1, true)) "
                             "os.exit(42)", LRAF_OK), 42);
}

/* The last command's stderr contains text. */
static void err_has(const char *text) {
  tutil_sh_expect(sh.err, text);
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

/* The lraf under test as an absolute path (for commands that cd). */
static const char *lraf_abs(void) {
  static char path[4096];
  char cwd[2048];
  const char *l = tutil_sh_lraf();
  if (l[0] == '/') return l;
  if (getcwd(cwd, sizeof cwd) == NULL) fail_msg("getcwd failed");
  snprintf(path, sizeof path, "%s/%s", cwd, l);
  return path;
}

/* Files that never end (/dev/zero) are refused after a bounded read.
   Fed 100 MB through a pipe instead (an address-space limit would stop
   ASan's build too), a key or weights file that long was read whole and
   accepted before: exit 0. */
static void test_unbounded_files(void **state) {
  const char *opts[] = {"--key-file /dev/stdin", "--mode weighted --weights "
                        "/dev/stdin"};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof opts / sizeof opts[0]; i++) {
    assert_int_equal(tutil_sh_run(&sh, "head -c 100000000 /dev/zero | "
                                  "timeout 60 %s run %s %s/ok.lua",
                                  lraf_abs(), opts[i], sh.dir), 2);
    err_has("lraf: cannot read /dev/stdin: longer than ");
  }
  assert_int_equal(tutil_sh_run(&sh, "head -c 100000000 /dev/zero | "
                                "timeout 60 %s rewrite --key-file /dev/stdin "
                                "%s/ok.lua", lraf_abs(), sh.dir), 2);
  err_has("lraf: cannot read /dev/stdin: longer than 65536 bytes");
  assert_int_equal(tutil_sh_run(&sh, "timeout 60 %s run --key-file "
                                "/dev/zero %s/ok.lua", lraf_abs(), sh.dir), 2);
  err_has("lraf: cannot read /dev/zero: longer than 65536 bytes");
}

/* A weight of 0 for JMP or FORLOOP let a loop run free under --limit
   (it never ended); such weights are refused with the reason, other
   zeros are accepted. */
static void test_zero_weights(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "cd %s && timeout 60 %s run --limit 1M "
                                "--mode weighted --weights w_jmp0.txt "
                                "spin.lua", sh.dir, lraf_abs()), 2);
  err_has("weights line 2: JMP 0; the opcodes that close loops or make "
          "calls (JMP, FORLOOP, TFORCALL, TFORLOOP, the tests");
  assert_int_equal(tutil_sh_run(&sh, "cd %s && timeout 60 %s run --limit 1M "
                                "--mode weighted --weights w_forloop0.txt "
                                "forspin.lua", sh.dir, lraf_abs()), 2);
  err_has("weights line 1: FORLOOP 0; ");
  assert_int_equal(tutil_sh_run(&sh, "cd %s && timeout 60 %s run --limit 1M "
                                "--mode weighted --weights w_test0.txt "
                                "repspin.lua", sh.dir, lraf_abs()), 2);
  err_has("weights line 1: TEST 0; ");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 1M --mode weighted "
                                     "--weights w_move0.txt spin.lua"), 3);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --mode weighted --weights "
                                     "w_move0.txt ok.lua"), 0);
}

/* The C API refuses the same weights in lraf_new. */
static void test_zero_weights_api(void **state) {
  static uint32_t w[LRAF_NUM_OPCODES];
  const char *must[] = {"JMP", "FORLOOP", "TFORCALL", "TFORLOOP", "CALL",
                        "TAILCALL", "EQ", "LT", "LE", "EQK", "EQI", "LTI",
                        "LEI", "GTI", "GEI", "TEST", "TESTSET"};
  char line[64];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof must / sizeof must[0]; i++) {
    lraf_options opt;
    lraf_state *S = NULL;
    lraf_error err;
    snprintf(line, sizeof line, "%s 2\n", must[i]);
    assert_int_equal(lraf_parse_weights(line, strlen(line), w, &err),
                     LRAF_OK);
    lraf_default_options(&opt);
    opt.mode = LRAF_MODE_WEIGHTED;
    opt.weights = w;
    assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
    lraf_close(S);
    snprintf(line, sizeof line, "%s 0\n", must[i]);
    assert_int_equal(lraf_parse_weights(line, strlen(line), w, &err),
                     LRAF_EARG);
    assert_non_null(strstr(err.message, must[i]));
    memset(w, 0, sizeof w);
    w[0] = 1;
    assert_int_equal(lraf_new(&opt, &S, &err), LRAF_EARG);
    assert_non_null(strstr(err.message, "weighs 0"));
  }
}

/* bench -n 1 --limit 1M on a pattern search that takes O(n^5) steps in
   one C call: stopped (3) with native charging, as lraf run is; it ran
   on until the timeout (124).  --no-native keeps it off. */
static void test_bench_limit_native(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "cd %s && timeout 120 %s bench -n 1 "
                                "--limit 1M catastrophic.lua", sh.dir,
                                lraf_abs()), 3);
  err_has("native charging was on");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 1 --limit 1M "
                                     "--no-native ok.lua"), 0);
}

/* Random call chains 60 deep over 200 functions: a calling-context tree
   of about 10^6 nodes, which took 150 MB beside a 16 MiB limit.  It
   counts against the limit: exit 4, saying so; a small run profiles. */
static void test_profile_memory_limit(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "profile --memory-limit 16MiB "
                                     "-o p.txt cct.lua 20000"), 4);
  err_has("the profile reached the state's memory limit (16777216 bytes)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "profile --memory-limit 16MiB "
                                     "-o p.txt cct.lua 20"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_close_exit),
    cmocka_unit_test(test_close_exit_api),
    cmocka_unit_test(test_report_full),
    cmocka_unit_test(test_report_utf8),
    cmocka_unit_test(test_unbounded_files),
    cmocka_unit_test(test_zero_weights),
    cmocka_unit_test(test_zero_weights_api),
    cmocka_unit_test(test_bench_limit_native),
    cmocka_unit_test(test_profile_memory_limit),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
