/*
** test_cli_outcome.c - what the lraf command says when a run is over
** (cli/cli_outcome.c: stop messages, the report, the summary), met as
** a new user meets it in the first hour: every case a new user tripped
** over gives the documented exit status (cli.h, lraf(1)) and a message
** that says what happened.
**   - bench stops runaway scripts (--limit, --memory-limit), treats
**     os.exit as what it is, shows progress only on a terminal;
**   - a memory limit that is hit is 4 with the limit; one too small to
**     start a state is 2 and says so; both write the report;
**   - an unwritable --report is refused before the script runs; Ctrl-C
**     stops the script as in lua5.4 and the report is still written;
**   - help, hints and file errors with their reasons;
**   - --limit does not change what is counted; a quota stop names the
**     place and native charging; the report carries the error, where
**     the run stopped, "collected", and the unit of the cost model;
**   - stderr is lua5.4's, traceback included, but for the program name;
**   - the README's command reference is the code's (lraf help --markdown).
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

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

/* A file's contents, NUL-terminated (free it); NULL when unreadable. */
static char *slurp(const char *path) {
  size_t len;
  return tutil_run_slurp(path, &len);
}

static const tutil_file scripts[] = {
  {"ok.lua", "local s = 0\nfor i = 1, 100 do s = s + i end\nprint(s)\n"},
  {"spin.lua", "while true do end\n"},
  {"spinf.lua", "local function f()\n  while true do end\nend\nf()\n"},
  {"bomb.lua", "local t = {}\nwhile true do t[#t + 1] = ('x'):rep(1000) .. "
               "#t end\n"},
  {"exit5.lua", "print('out')\nos.exit(5)\n"},
  {"exit0.lua", "local s = 0\nfor i = 1, 100 do s = s + i end\n"
                "os.exit(0)\nerror('not reached')\n"},
  {"pexit.lua", "print(pcall(os.exit, 3))\n"},
  {"fail.lua", "local function f() error('failed here') end\nf()\n"},
  {"strings.lua", "local t = {}\nfor i = 1, 200 do t[i] = ('ab'):rep(500) "
                  "end\nlocal s = table.concat(t)\nprint(#s)\n"},
  {"co.lua", "local keep = coroutine.create(function() coroutine.yield() "
             "end)\ncoroutine.resume(keep)\ncoroutine.resume(keep)\n"
             "do local gone = coroutine.create(function() end)\n"
             "coroutine.resume(gone) end\ncollectgarbage()\n"
             "collectgarbage()\nprint(coroutine.status(keep))\n"},
  {"w.txt", "ADD 10\nFORLOOP 3\n"},
};

static int setup(void **state) {
  (void)state;
  return tutil_sh_setup(&sh, "status", scripts,
                        sizeof scripts / sizeof scripts[0]);
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static int quick(void) {
  return getenv("LRAF_QUICK") != NULL;
}

static char *file(const char *name) {
  char path[256];
  char *s;
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  s = slurp(path);
  if (s == NULL) fail_msg("cannot read %s", path);
  return s;
}

/* The last command's stderr holds text; its stdout is text. */
static void err_has(const char *text) {
  tutil_sh_expect(sh.err, text);
}

static void out_is(const char *text) {
  char *o = slurp(sh.out);
  assert_non_null(o);
  if (strcmp(o, text) != 0) fail_msg("stdout '%s', not '%s'", o, text);
  free(o);
}

/* The report r.json contains text. */
static void report_has(const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  tutil_sh_expect(path, text);
}

/* A number after "label" in the file or the last stderr. */
static long long number_after(const char *text, const char *label) {
  const char *p = strstr(text, label);
  if (p == NULL) fail_msg("'%s' lacks '%s'", text, label);
  return strtoll(p + strlen(label), NULL, 10);
}

/* `lraf bench inf.lua` hung: --limit and --memory-limit stop each run
   (3 and 4, with the limit, the run and the place); the default limit
   is in the help; no progress when stderr is not a terminal, progress
   when it is. */
static void test_bench_stops(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 2 --limit 100k "
                                     "spin.lua"), 3);
  err_has("lraf: spin.lua: quota exceeded (limit 100000 units) in "
          "run 1 at spin.lua:1: in main chunk; native charging was on and "
          "added 0 units\n");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 2 --limit 100k "
                                     "--no-native spin.lua"), 3);
  err_has("lraf: spin.lua: quota exceeded (limit 100000 instructions) in "
          "run 1 at spin.lua:1: in main chunk; native charging was off\n");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 2 --memory-limit 1M "
                                     "bomb.lua"), 4);
  err_has("lraf: bomb.lua: memory limit exceeded (limit 1000000 bytes) in "
          "run 1 at bomb.lua:2: in main chunk\n");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench --memory-limit 1000 "
                                     "ok.lua"), 2);
  err_has("too small to start a Lua state");
  /* a script that reads its input does not wait for it: stdin is a
     FIFO that never ends (opened read-write), yet bench finishes */
  assert_int_equal(tutil_sh_write(&sh, "reads.lua", "print(io.read('l'))\n"),
                   0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f in.fifo && mkfifo "
                                "in.fifo", sh.dir), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && timeout 20 %s%s bench -n 2 "
                                "reads.lua 0<> in.fifo", sh.dir,
                                tutil_sh_lraf()[0] == '/' ? "" : "$OLDPWD/",
                                tutil_sh_lraf()), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench --help"), 0);
  {
    char *o = slurp(sh.out);
    assert_non_null(o);
    assert_non_null(strstr(o, "--limit\n(default 1G)"));
    assert_non_null(strstr(o, "  3  the instruction quota"));
    assert_non_null(strstr(o, "  4  the memory limit"));
    free(o);
  }
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 3 ok.lua"), 0);
  {
    char *e = slurp(sh.err);
    assert_non_null(e);
    assert_string_equal(e, "");  /* not a terminal: no progress */
    free(e);
  }
  if (tutil_sh_run(&sh, "command -v script > /dev/null") != 0) skip();
  assert_int_equal(tutil_sh_run(&sh, "cd %s && script -qec '%s%s bench -n 3 "
                                "ok.lua' /dev/null", sh.dir,
                                tutil_sh_lraf()[0] == '/' ? "" : "$OLDPWD/",
                                tutil_sh_lraf()), 0);
  {
    char *o = slurp(sh.out);
    assert_non_null(o);
    assert_non_null(strstr(o, "ok.lua: run 3/3"));
    free(o);
  }
}

/* os.exit(5) made bench exit 5 after its header: now a failure status
   is bench's status 1, named; os.exit(0) ends a run normally with the
   count up to it (the same as lraf run's, in exact mode); pcall does
   not catch it. */
static void test_bench_os_exit(void **state) {
  long long bench, run;
  char *o, *r;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 2 exit5.lua"), 1);
  err_has("lraf: exit5.lua called os.exit(5) in run 1 of 2: bench counts "
          "only scripts that return (or exit with a success status)\n");
  out_is("lraf bench: 2 runs each, model " TUTIL_VM "/original\n");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 1 pexit.lua"), 1);
  err_has("called os.exit(3)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 3 --exact exit0.lua"),
                   0);
  o = slurp(sh.out);
  assert_non_null(o);
  assert_non_null(strstr(o, "(the same in all 3 runs)"));
  bench = number_after(o, "instructions  ");
  free(o);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --exact --report r.json "
                                     "exit0.lua"), 0);
  r = file("r.json");
  assert_non_null(strstr(r, "\"status\": \"exit\""));
  run = number_after(r, "\"count\": ");
  free(r);
  assert_int_equal(bench, run);
  assert_true(bench > 200);  /* the loop ran */
}

/* --memory-limit 10000 said "memory limit exceeded" (2) and 1000
   "cannot create a Lua state" (1), and wrote no report: a limit below
   an empty state is a usage error that says how much one takes; a limit
   that is hit is 4 with the limit and the place; both write a report. */
static void test_memory_limits(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 10000 "
                                     "--report r.json ok.lua"), 2);
  err_has("lraf: --memory-limit 10000 bytes is too small to start a Lua "
          "state (an empty state takes ");
  report_has("\"status\": \"usage\"");
  report_has("\"exit_code\": 2");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 1000 "
                                     "ok.lua"), 2);
  err_has("too small to start a Lua state");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 300k "
                                     "--report r.json bomb.lua"), 4);
  err_has("lraf: memory limit exceeded (limit 300000 bytes) at "
          "bomb.lua:2: in main chunk\n");
  report_has("\"status\": \"memory\"");
  report_has("\"exit_code\": 4");
  report_has("\"memory_limit\": 300000");
  report_has("\"stopped_at\": \"bomb.lua:2: in main chunk\"");
  /* a size suffix */
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 10M "
                                     "--report r.json ok.lua"), 0);
  report_has("\"memory_limit\": 10000000");
  /* a limit a little above an empty state stops the loading of a big
     script: the message says so */
  {
    char *e, big[64 * 1024];
    long long empty;
    size_t n = 0;
    assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 1000 "
                                       "ok.lua"), 2);
    e = slurp(sh.err);
    assert_non_null(e);
    empty = number_after(e, "an empty state takes ");
    free(e);
    while (n + 32 < sizeof big)
      n += (size_t)snprintf(big + n, sizeof big - n, "v%zu = %zu\n",
                            n, n);
    assert_int_equal(tutil_sh_write(&sh, "big.lua", big), 0);
    assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit %lld "
                                       "big.lua", empty + 4000), 4);
    err_has(" bytes) while loading big.lua\n");
  }
}

/* --report /nonexistent/r.json ran the script and exited 0: now it is
   refused before anything runs. */
static void test_report_unwritable(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report /nonexistent/r.json "
                                     "ok.lua"), 2);
  err_has("lraf: cannot write the report /nonexistent/r.json: No such file "
          "or directory\n");
  out_is("");
  /* nor may it overwrite the script */
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report ./ok.lua ok.lua"), 2);
  err_has("lraf: the report ./ok.lua would overwrite the script\n");
  out_is("");
  {
    char *s = file("ok.lua");
    assert_string_equal(s, scripts[0].text);
    free(s);
  }
}

/* Ctrl-C stops the script as lua5.4 does ("interrupted!", status 1),
   and the report is written; a lost signal would let the script end by
   itself after 10 s of CPU, with status 0. */
static void test_interrupt(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "busy.lua", "local t0 = os.clock()\n"
                                  "while os.clock() - t0 < 10 do end\n"), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && { %s%s run --report r.json "
                                "busy.lua 2> int.err & pid=$!; sleep 1; "
                                "kill -INT $pid; wait $pid; }", sh.dir,
                                tutil_sh_lraf()[0] == '/' ? "" : "$OLDPWD/",
                                tutil_sh_lraf()), 1);
  {
    char *e = file("int.err");
    /* "interrupted!" with the position when the hook caught a call, as
       lua5.4 has it */
    assert_memory_equal(e, "lraf: ", 6);
    assert_non_null(strstr(e, "interrupted!\nstack traceback:\n"));
    free(e);
  }
  report_has("\"status\": \"error\"");
  report_has("interrupted!\\nstack traceback:");
  report_has("\"stopped_at\": \"busy.lua:2: in main chunk\"");
}

/* Help, hints and file errors with their reasons: `lraf ARGS` exits
   with status and says what on stderr. */
static const struct message {
  const char *args;
  int status;
  const char *what;
} messages[] = {
  {"ok.lua", 2, "did you mean `lraf run ok.lua`?"},
  {"rewrite ok.lua", 2, "-o OUT"},
  {"rewrite missing.lua -o x.luac", 2,
   "cannot open missing.lua: No such file or directory"},
  {"disasm missing.lua", 2,
   "cannot open missing.lua: No such file or directory"},
  {"run --weights missing.txt ok.lua", 2,
   "cannot open missing.txt: No such file or directory"},
  /* binary bytes, as in a file of random bytes */
  {"run --weights rnd.w ok.lua", 2,
   "rnd.w: weights line 1: expected an opcode name, found byte 0x83"},
  {"run --limit 99999999999999999999 ok.lua", 2, "too large"},
};

static void test_messages(void **state) {
  static const char *const cmds[] = {"run", "bench", "rewrite", "disasm"};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    char *o;
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --help", cmds[i]), 0);
    o = slurp(sh.out);
    assert_non_null(o);
    assert_non_null(strstr(o, "\noptions:\n"));
    assert_non_null(strstr(o, "\nexit status:\n"));
    free(o);
  }
  assert_int_equal(tutil_sh_write(&sh, "rnd.w", "\x83\xf1\x9a\x07" "ADD\xc4 1"
                                  "\n\x8e\x02"), 0);
  for (i = 0; i < sizeof messages / sizeof messages[0]; i++) {
    int st = tutil_sh_lraf_run(&sh, "%s", messages[i].args);
    if (st != messages[i].status)
      fail_msg("lraf %s: status %d, not %d", messages[i].args, st,
               messages[i].status);
    err_has(messages[i].what);
  }
}

/* A count of N under lraf run is not stopped by --limit N: the limit
   does not turn native charging on; --native does, and its stop says
   so with the units it added.  Quota stops name the function and line. */
static void test_limit_and_native(void **state) {
  long long n;
  char *r;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report r.json "
                                     "strings.lua"), 0);
  r = file("r.json");
  n = number_after(r, "\"count\": ");
  assert_non_null(strstr(r, "\"units\": \"instructions\""));
  assert_non_null(strstr(r, "\"native\": false"));
  free(r);
  /* a limit turns native charging on, and its message says so and why */
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit %lld strings.lua", n),
                   3);
  err_has("; native charging was on (--limit, --memory-limit and --sandbox "
          "turn it on; --no-native turns it off) and added ");
  /* --no-native keeps the limit in instructions: the plain count fits */
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --no-native --limit %lld "
                                     "strings.lua", n), 0);
  out_is("200000\n");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --native --limit %lld "
                                     "--report r.json strings.lua", n), 3);
  err_has("lraf: quota exceeded (limit ");
  err_has(" units) at strings.lua:");
  err_has("; native charging was on (--native) and added ");
  report_has("\"units\": \"instructions+native\"");
  report_has("\"status\": \"quota\"");
  r = file("r.json");
  assert_true(number_after(r, "\"native_units\": ") > 0);
  free(r);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --no-native --limit 5000 "
                                     "spinf.lua"), 3);
  err_has("lraf: quota exceeded (limit 5000 instructions) at spinf.lua:2: "
          "in local 'f'; native charging was off\n");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --sandbox --limit 5000 "
                                     "spin.lua"), 3);
  err_has("native charging was on (--limit, --memory-limit and --sandbox "
          "turn it on; --no-native turns it off)");
}

/* The report carries the error and where the run stopped; "collected"
   says which coroutines were garbage collected (a dead coroutine still
   referenced is not); the summary names the unit. */
static const struct summary {
  const char *args;
  const char *says[3];  /* what the summary on stderr holds */
} summaries[] = {
  {"ok.lua", {" instructions (" TUTIL_VM "/original), status ok\n"}},
  {"--weights w.txt ok.lua", {" weighted units (" TUTIL_VM "/weighted/"}},
  {"--native strings.lua", {" units (" TUTIL_VM "/original/native-",
                            " instructions + ", " native), status ok\n"}},
};

static void test_report_fields(void **state) {
  size_t i;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report r.json fail.lua"), 1);
  report_has("\"error\": \"fail.lua:1: failed here\\nstack traceback:\\n\\t"
             "[C]: in function 'error'\\n");
  report_has("\"stopped_at\": \"fail.lua:1: in local 'f'\"");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report r.json co.lua"), 0);
  out_is("dead\n");
  report_has("{\"id\": 1, \"count\": ");
  report_has("\"collected\": false}");
  report_has("\"collected\": true}");
  report_has("\"error\": null");
  for (i = 0; i < sizeof summaries / sizeof summaries[0]; i++) {
    size_t k;
    assert_int_equal(tutil_sh_lraf_run(&sh, "run --report - %s",
                                       summaries[i].args), 0);
    for (k = 0; k < 3 && summaries[i].says[k] != NULL; k++)
      err_has(summaries[i].says[k]);
  }
  /* bench names them too */
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 1 --weights w.txt "
                                     "ok.lua"), 0);
  {
    char *o = slurp(sh.out);
    assert_non_null(o);
    assert_non_null(strstr(o, "\n  weighted units  "));
    free(o);
  }
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 1 --native ok.lua "
                                     "strings.lua"), 0);
  {
    char *o = slurp(sh.out);
    assert_non_null(o);
    assert_non_null(strstr(o, "\n  units  "));
    assert_non_null(strstr(o, "\ncomparison (units)\n"));
    free(o);
  }
}

/* Stderr and exit status as lua5.4 gives them, program name aside. */
static void test_stderr_like_lua(void **state) {
  static const struct {
    const char *name, *src;
  } cases[] = {
    {"e1.lua", "local function f() error('boom') end\n"
               "local function g() f() end\ng()\n"},
    {"e2.lua", "error(setmetatable({}, {__tostring = function() "
               "return 'custom' end}))\n"},
    {"e3.lua", "print('before')\nerror({})\n"},
    {"e4.lua", "local t = {}\nreturn t.x + 1\n"},
    {"e5.lua", "local w = coroutine.wrap(function() error('in co') end)\n"
               "w()\n"},
    {"e6.lua", "x = = 1\n"},
    {"e7.lua", "error()\n"},
    {"e8.lua", "error('level 2', 2)\n"},
    {"e9.lua", "local function r(n) return r(n + 1) + 1 end\nr(1)\n"},
    {"e10.lua", "string.rep()\n"},
  };
  size_t i;
  (void)state;
  if (tutil_sh_run(&sh, "command -v lua5.4 > /dev/null") != 0) skip();
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int want, got;
    char *a, *b;
    if (quick() && i == 8) continue;  /* the deep recursion */
    assert_int_equal(tutil_sh_write(&sh, cases[i].name, cases[i].src), 0);
    want = tutil_sh_run(&sh, "cd %s && lua5.4 %s 2> lua.err", sh.dir,
                        cases[i].name);
    got = tutil_sh_lraf_run(&sh, "run %s", cases[i].name);
    assert_int_equal(tutil_sh_run(&sh, "sed 's/^lua5.4: /lraf: /' %s/lua.err "
                                  "> %s/lua.err2", sh.dir, sh.dir), 0);
    a = file("lua.err2");
    b = slurp(sh.err);
    assert_non_null(b);
    if (got != want || strcmp(a, b) != 0)
      fail_msg("%s: lraf exit %d, stderr\n%s\nlua5.4 exit %d, stderr\n%s",
               cases[i].name, got, b, want, a);
    free(a);
    free(b);
  }
}

/* The README's command reference is what `lraf help --markdown` prints
   (headings one level down), so the tables come from the code. */
static void test_readme_reference(void **state) {
  char *md, *readme, *p;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "help --markdown"), 0);
  md = slurp(sh.out);
  assert_non_null(md);
  readme = slurp("README.md");
  assert_non_null(readme);
  for (p = strstr(md, "### "); p != NULL; p = strstr(p + 1, "\n### ")) {
    char section[8192], *end;
    size_t n;
    if (*p == '\n') p++;
    end = strstr(p + 4, "\n### ");
    n = end ? (size_t)(end - p) : strlen(p);
    assert_true(n < sizeof section);
    snprintf(section, sizeof section, "#%.*s", (int)n, p);
    if (strstr(readme, section) == NULL)
      fail_msg("README.md lacks this section of lraf help --markdown:\n%s",
               section);
  }
  free(md);
  free(readme);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bench_stops),
    cmocka_unit_test(test_bench_os_exit),
    cmocka_unit_test(test_memory_limits),
    cmocka_unit_test(test_report_unwritable),
    cmocka_unit_test(test_interrupt),
    cmocka_unit_test(test_messages),
    cmocka_unit_test(test_limit_and_native),
    cmocka_unit_test(test_report_fields),
    cmocka_unit_test(test_stderr_like_lua),
    cmocka_unit_test(test_readme_reference),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
