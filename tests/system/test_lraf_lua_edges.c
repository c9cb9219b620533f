/*
** test_lraf_lua_edges.c - lraf-lua (cli/lraf_lua.c) and the command line
** as a lua5.4 user meets them: LRAF_OPTIONS takes every `lraf run`
** option with the same values and messages (both routes, option by
** option, from lraf run --help's own list); every subcommand that runs a
** script reads it once (a pipe, /dev/stdin, a FIFO, <(...)); Ctrl-C
** raises "interrupted!" (lraf-lua -i goes back to the prompt, on a pty);
** a report for every ending, os.exit included; `= expr` in -i; -v and
** --version name the VM. Runs $LRAF and the lraf-lua next to it.
*/
#define _XOPEN_SOURCE 700  /* realpath */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;
static char lraf[512], lua_bin[512];

static int setup(void **state) {
  char buf[512], *real;
  (void)state;
  real = realpath(tutil_sh_lraf(), NULL);
  if (real == NULL) return -1;
  snprintf(lraf, sizeof lraf, "%s", real);
  free(real);
  snprintf(buf, sizeof buf, "%s", lraf);
  snprintf(lua_bin, sizeof lua_bin, "%s/lraf-lua", dirname(buf));
  if (tutil_sh_init(&sh, "edges") != 0) return -1;
  return tutil_sh_write(&sh, "x.lua", "local s = 0\n"
                        "for i = 1, 1000 do s = s + i end\nprint(s)\n") |
         tutil_sh_write(&sh, "w.txt", "ADD 2\n") |
         tutil_sh_write(&sh, "key", "secret\n") |
         tutil_sh_write(&sh, "contract.txt", "f 1000\n");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* ---- LRAF_OPTIONS: every lraf run option, both routes ---- */

/* A value each option takes and one it refuses (NULL: a flag, or
   nothing to refuse). */
static const char *const cases[][3] = {
  {"--limit", "1G", "1X"},
  {"--rate", "10M", "fast"},
  {"--memory-limit", "64MiB", "1Q"},
  {"--granularity", "1e4", "0"},
  {"--exact", NULL, NULL},
  {"--mode", "overhead", "fast"},
  {"--weights", "w.txt", "missing.txt"},
  {"--vm", "stock", "jit"},
  {"--sandbox", NULL, NULL},
  {"--native", NULL, NULL},
  {"--no-native", NULL, NULL},
  {"--report", "r.json", "no/such/dir/r.json"},
  {"--allow-dir", ".", NULL},
  {"--allow-module", "lpeg", NULL},
  {"--allow-offline", NULL, NULL},
  {"--key-file", "key", "missing.key"},
  {"--deterministic", NULL, NULL},
  {"--no-deterministic", NULL, NULL},
  {"--timeline", "t.json", "no/such/dir/t.json"},
  {"--expect-share", "50", "0"},
  {"--contract", "contract.txt", "missing.txt"},
  {"--help", NULL, NULL},
};
/* lraf run's alone: lraf-lua refuses them, saying so */
static int run_only(const char *opt) {
  return strcmp(opt, "--timeline") == 0 || strcmp(opt, "--expect-share") == 0 ||
         strcmp(opt, "--contract") == 0;
}
#define NCASES (sizeof cases / sizeof cases[0])

/* The first line of stderr without the program's prefix ("lraf: ",
   "lraf-lua: LRAF_OPTIONS: "). */
static char *first_error(const char *prefix) {
  char *e = tutil_sh_read(sh.err), *nl = strchr(e, '\n');
  size_t n = strlen(prefix);
  if (nl) *nl = '\0';
  if (strncmp(e, prefix, n) != 0) fail_msg("'%s' does not start with '%s'",
                                           e, prefix);
  memmove(e, e + n, strlen(e + n) + 1);
  return e;
}

/* opt [value]: lraf run and lraf-lua agree: both run x.lua (or print
   the help), or both refuse with the same message. */
static void both_routes(const char *opt, const char *value, int good) {
  char words[128];
  int a, b;
  snprintf(words, sizeof words, "%s%s%s", opt, value ? " " : "",
           value ? value : "");
  a = tutil_sh_run(&sh, "cd %s && %s run %s x.lua", sh.dir, lraf, words);
  if (good && a != 0)
    fail_msg("lraf run %s x.lua: exit %d: %s", words, a, tutil_sh_read(sh.err));
  if (good && run_only(opt)) {
    char *e;
    b = tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='%s' %s x.lua", sh.dir,
                     words, lua_bin);
    assert_int_equal(b, 1);
    e = first_error("lraf-lua: LRAF_OPTIONS: ");
    assert_non_null(strstr(e, "is lraf run's alone"));
    free(e);
    return;
  }
  if (!good && run_only(opt)) {  /* lraf run refuses it; see above */
    assert_int_equal(a, 2);
    return;
  }
  if (!good) {
    char *ea = first_error("lraf: "), *eb;
    b = tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='%s' %s x.lua", sh.dir,
                     words, lua_bin);
    assert_int_equal(a, 2);  /* lraf run's usage error */
    assert_int_equal(b, 1);  /* lua5.4's */
    eb = first_error("lraf-lua: LRAF_OPTIONS: ");
    if (strcmp(ea, eb) != 0)
      fail_msg("%s: lraf run said '%s', lraf-lua '%s'", words, ea, eb);
    free(ea);
    free(eb);
    return;
  }
  b = tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='%s' %s x.lua", sh.dir,
                   words, lua_bin);
  if (b != 0)
    fail_msg("LRAF_OPTIONS='%s' lraf-lua x.lua: exit %d: %s", words, b,
             tutil_sh_read(sh.err));
  if (strcmp(opt, "--help") != 0) {
    char *out = tutil_sh_read(sh.out);
    assert_string_equal(out, "500500\n");
    free(out);
  }
}

static void test_options_both_routes(void **state) {
  char *help, *p;
  size_t i;
  int seen = 0;
  (void)state;
  /* every option lraf run --help lists has a case */
  assert_int_equal(tutil_sh_run(&sh, "%s run --help", lraf), 0);
  help = tutil_sh_read(sh.out);
  for (p = strstr(help, "\n  -"); p != NULL; p = strstr(p + 1, "\n  -")) {
    char name[64];
    sscanf(p + 3, "%63s", name);
    for (i = 0; i < NCASES; i++)
      if (strcmp(name, cases[i][0]) == 0) break;
    if (i == NCASES)
      fail_msg("lraf run takes %s: add it to this test's cases", name);
    seen++;
  }
  free(help);
  assert_true(seen >= (int)NCASES);
  for (i = 0; i < NCASES; i++) {
    if (strcmp(cases[i][0], "--vm") == 0 || cases[i][1] == NULL ||
        strcmp(cases[i][0], "--weights") != 0)
      both_routes(cases[i][0], cases[i][1], 1);
    else  /* --weights: weighted mode over w.txt */
      both_routes("--mode weighted --weights", cases[i][1], 1);
    if (cases[i][2] != NULL) both_routes(cases[i][0], cases[i][2], 0);
  }
  both_routes("--bogus", NULL, 0);
  {  /* no value: the same message as lraf run --limit's */
    char *ea, *eb;
    assert_int_equal(tutil_sh_run(&sh, "%s run --limit", lraf), 2);
    ea = first_error("lraf: ");
    assert_int_equal(tutil_sh_run(&sh, "LRAF_OPTIONS=--limit %s -e ''",
                                  lua_bin), 1);
    eb = first_error("lraf-lua: LRAF_OPTIONS: ");
    assert_string_equal(ea, eb);
    assert_string_equal(ea, "--limit needs a value (N)");
    free(ea);
    free(eb);
  }
  /* the user's line: every value with its suffix */
  assert_int_equal(tutil_sh_run(&sh, "{ cd %s && rm -f r.json && "
                                "LRAF_OPTIONS='--limit 1G --memory-limit "
                                "64MiB --report r.json --rate 10M' %s x.lua "
                                "&& grep -q '\"status\": \"ok\"' r.json; }",
                                sh.dir, lua_bin), 0);
}

/* Generated lines of options (pairs from the cases, good values and bad
   ones, in any order and number): both routes agree on each. */
static void test_options_generated(void **state) {
  unsigned seed = 20261128u;
  int k;
  (void)state;
  for (k = 0; k < 40; k++) {
    char words[512] = "";
    int n = 1 + (int)((seed >> 8) % 4), j, a, b;
    for (j = 0; j < n; j++) {
      size_t i;
      const char *v;
      seed = seed * 1103515245u + 12345u;
      i = (seed >> 8) % (NCASES - 1);  /* not --help, the last */
      if (strcmp(cases[i][0], "--report") == 0 || run_only(cases[i][0]))
        continue;
      seed = seed * 1103515245u + 12345u;
      v = cases[i][1 + ((seed >> 8) % 4 == 0 && cases[i][2] != NULL)];
      snprintf(words + strlen(words), sizeof words - strlen(words),
               "%s%s%s%s", j ? " " : "", cases[i][0], v ? " " : "",
               v ? v : "");
    }
    a = tutil_sh_run(&sh, "cd %s && %s run %s x.lua", sh.dir, lraf, words);
    if (a == 0) {
      b = tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='%s' %s x.lua", sh.dir,
                       words, lua_bin);
      if (b != 0) fail_msg("'%s': lraf run 0, lraf-lua %d", words, b);
    } else {
      char *ea = first_error("lraf: "), *eb;
      b = tutil_sh_run(&sh, "cd %s && LRAF_OPTIONS='%s' %s x.lua", sh.dir,
                       words, lua_bin);
      if (a != 2 || b != 1) fail_msg("'%s': exit %d and %d", words, a, b);
      eb = first_error("lraf-lua: LRAF_OPTIONS: ");
      if (strcmp(ea, eb) != 0)
        fail_msg("'%s': lraf run said '%s', lraf-lua '%s'", words, ea, eb);
      free(ea);
      free(eb);
    }
  }
}

/* ---- reading a script once ---- */

/* The number after "key": in text (a JSON report or bench's line). */
static long long number_after(const char *text, const char *key) {
  const char *p = strstr(text, key);
  if (p == NULL) fail_msg("no '%s' in:\n%s", key, text);
  p += strlen(key);
  while (*p == ' ' || *p == ':' || *p == '"') p++;
  return strtoll(p, NULL, 10);
}

/* cmd through route gives what it gives with the file itself: run's
   output and count, profile's total, bench's count. */
static long long through(const char *cmd, const char *route) {
  char *out;
  long long n;
  const char *opts = strcmp(cmd, "run") == 0 ? "--report r.json"
                   : strcmp(cmd, "profile") == 0 ? "--format json -o p.json"
                   : "-n 2";
  const char *file = strcmp(cmd, "run") == 0 ? "r.json"
                   : strcmp(cmd, "profile") == 0 ? "p.json" : NULL;
  char line[512];
  snprintf(line, sizeof line, route, lraf, cmd, opts);
  if (tutil_sh_run(&sh, "cd %s && rm -f r.json p.json && bash -c '%s'",
                   sh.dir, line) != 0)
    fail_msg("%s: %s", line, tutil_sh_read(sh.err));
  if (strcmp(cmd, "run") == 0) {
    out = tutil_sh_read(sh.out);
    if (strcmp(out, "500500\n") != 0) fail_msg("%s printed '%s'", line, out);
    free(out);
  }
  if (file != NULL) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", sh.dir, file);
    out = tutil_sh_read(path);
  } else {
    out = tutil_sh_read(sh.out);
  }
  n = number_after(out, strcmp(cmd, "run") == 0 ? "\"count\""
                        : strcmp(cmd, "profile") == 0 ? "\"total\""
                        : "instructions");
  free(out);
  return n;
}

static void test_read_once(void **state) {
  static const char *const cmds[] = {"run", "profile", "bench"};
  static const char *const routes[] = {
    "cat x.lua | %s %s %s /dev/stdin",
    "rm -f fifo && mkfifo fifo && { cat x.lua > fifo & } && %s %s %s fifo",
    "%s %s %s <(cat x.lua)",
  };
  size_t c, r;
  (void)state;
  for (c = 0; c < 3; c++) {
    long long want = through(cmds[c], "%s %s %s x.lua");
    assert_true(want > 1000);
    for (r = 0; r < 3; r++)
      if (through(cmds[c], routes[r]) != want)
        fail_msg("lraf %s via %s: another count than from the file (%lld)",
                 cmds[c], routes[r], want);
  }
  {  /* lraf-lua's report counts what lraf run's does */
    char path[256], *r;
    long long want = through("run", "%s %s %s x.lua");
    assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f r.json && "
                                  "LRAF_OPTIONS='--report r.json' %s x.lua",
                                  sh.dir, lua_bin), 0);
    snprintf(path, sizeof path, "%s/r.json", sh.dir);
    r = tutil_sh_read(path);
    assert_int_equal(number_after(r, "\"count\""), want);
    free(r);
  }
  /* "-": standard input for run, as lua5.4 - */
  assert_int_equal(tutil_sh_run(&sh, "cd %s && cat x.lua | %s run -", sh.dir,
                                lraf), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && cat x.lua | %s /dev/stdin",
                                sh.dir, lua_bin), 0);
  {
    char *out = tutil_sh_read(sh.out);
    assert_string_equal(out, "500500\n");
    free(out);
  }
}

/* ---- endings ---- */

/* os.exit(3) writes a report saying "exit", which a quota stop (also
   status 3) does not. */
static void test_report_every_ending(void **state) {
  char path[256], *r;
  (void)state;
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f r.json && LRAF_OPTIONS="
                                "'--report r.json' %s -e 'os.exit(3)'",
                                sh.dir, lua_bin), 3);
  r = tutil_sh_read(path);
  assert_non_null(strstr(r, "\"status\": \"exit\""));
  assert_non_null(strstr(r, "\"exit_code\": 3"));
  free(r);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f r.json && LRAF_OPTIONS="
                                "'--limit 1000 --report r.json' %s -e "
                                "'while true do end'", sh.dir, lua_bin), 3);
  r = tutil_sh_read(path);
  assert_non_null(strstr(r, "\"status\": \"quota\""));
  assert_non_null(strstr(r, "\"exit_code\": 3"));
  free(r);
  assert_int_equal(tutil_sh_run(&sh, "LRAF_OPTIONS='--report -' %s -e "
                                "'os.exit(true)'", lua_bin), 0);
  r = tutil_sh_read(sh.err);
  assert_non_null(strstr(r, "status exit"));
  free(r);
  /* the stop message is lraf run's: the limit and the unit */
  assert_int_equal(tutil_sh_run(&sh, "LRAF_OPTIONS='--limit 1000' %s -e "
                                "'while true do end'", lua_bin), 3);
  r = tutil_sh_read(sh.err);
  assert_non_null(strstr(r, "quota exceeded (limit 1000 units) at "));
  free(r);
}

/* Ctrl-C: "interrupted!" in the running code.  A script exits 1 with a
   traceback and its report; lraf-lua -i on a terminal (a pty) goes back
   to the prompt. */
static const char pty_py[] =
  "import os, pty, sys, time, select, signal, subprocess\n"
  "def script(argv):\n"
  "    p = subprocess.Popen(argv, stderr=subprocess.PIPE)\n"
  "    time.sleep(0.5)\n"
  "    p.send_signal(signal.SIGINT)\n"
  "    err = p.communicate(timeout=20)[1].decode()\n"
  "    print('script', p.returncode, 'interrupted!' in err,\n"
  "          'stack traceback' in err)\n"
  "def interactive(argv):\n"
  "    pid, fd = pty.fork()\n"
  "    if pid == 0:\n"
  "        os.execv(argv[0], argv)\n"
  "    out = b''\n"
  "    def until(what, t=10):\n"
  "        nonlocal out\n"
  "        end = time.time() + t\n"
  "        while what not in out and time.time() < end:\n"
  "            r, _, _ = select.select([fd], [], [], 0.2)\n"
  "            if r:\n"
  "                try: out += os.read(fd, 4096)\n"
  "                except OSError: break\n"
  "        return what in out\n"
  "    until(b'> ')\n"
  "    os.write(fd, b'for i = 1, 1e12 do end\\n')\n"
  "    time.sleep(0.5)\n"
  "    os.write(fd, b'\\x03')\n"
  "    a = until(b'interrupted!')\n"
  "    os.write(fd, b'print(\"after\" .. 1)\\n')\n"
  "    b = until(b'after1')\n"
  "    os.write(fd, b'os.exit(7)\\n')\n"
  "    _, st = os.waitpid(pid, 0)\n"
  "    print('interactive', a, b, os.waitstatus_to_exitcode(st))\n"
  "script(sys.argv[1:])\n"
  "interactive([sys.argv[1], '-i'])\n";

static void test_ctrl_c(void **state) {
  char *out, path[256], *r;
  (void)state;
  if (system("command -v python3 > /dev/null") != 0) skip();
  assert_int_equal(tutil_sh_write(&sh, "ctrlc.py", pty_py), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f r.json && "
                                "LRAF_OPTIONS='--report r.json' python3 "
                                "ctrlc.py %s -e 'for i = 1, 1e12 do end'",
                                sh.dir, lua_bin), 0);
  out = tutil_sh_read(sh.out);
  if (strstr(out, "script 1 True True\n") == NULL ||
      strstr(out, "interactive True True 7\n") == NULL)
    fail_msg("Ctrl-C: %s%s", out, tutil_sh_read(sh.err));
  free(out);
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  r = tutil_sh_read(path);  /* the script's report (-i overwrote it: exit) */
  assert_non_null(strstr(r, "\"status\": \"exit\""));
  free(r);
  /* lraf run: exit 1, traceback, and its report */
  assert_int_equal(tutil_sh_write(&sh, "spin.lua",
                                  "for i = 1, 1e12 do end\n"), 0);
  assert_int_equal(tutil_sh_write(&sh, "int.py",
      "import subprocess, signal, sys, time\n"
      "p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE)\n"
      "time.sleep(0.5)\n"
      "p.send_signal(signal.SIGINT)\n"
      "err = p.communicate(timeout=20)[1].decode()\n"
      "print(p.returncode, 'interrupted!' in err)\n"), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && rm -f r.json && python3 "
                                "int.py %s run --report r.json spin.lua",
                                sh.dir, lraf), 0);
  out = tutil_sh_read(sh.out);
  assert_string_equal(out, "1 True\n");
  free(out);
  r = tutil_sh_read(path);
  assert_non_null(strstr(r, "\"status\": \"error\""));
  assert_non_null(strstr(r, "interrupted!"));
  free(r);
}

/* A memory limit hit while a chunk is compiled or rewritten is the
   limit's stop (4, its message), whatever the limit: never a usage
   error with "lraf: lraf:". */
static void test_memory_while_loading(void **state) {
  static const char *const limits[] = {"300KiB", "700KiB", "1MiB", "1500KiB",
                                       "2MiB", "3MiB", "6MiB"};
  char *big = malloc(3000 * 64 + 16), *e;
  size_t i, n = 0;
  int stopped = 0;
  (void)state;
  assert_non_null(big);
  n += (size_t)sprintf(big, "local t = {}\n");
  for (i = 0; i < 3000; i++)
    n += (size_t)sprintf(big + n, "t[%zu] = function(a, b) return a + b * "
                         "%zu end\n", i, i);
  assert_int_equal(tutil_sh_write(&sh, "big.lua", big), 0);
  free(big);
  for (i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    int rc = tutil_sh_run(&sh, "cd %s && %s run --memory-limit %s big.lua",
                          sh.dir, lraf, limits[i]);
    e = tutil_sh_read(sh.err);
    if ((rc != 0 && rc != 4) || strstr(e, "lraf: lraf:") != NULL ||
        (rc == 4 && strstr(e, "memory limit exceeded (limit ") == NULL))
      fail_msg("--memory-limit %s: exit %d: %s", limits[i], rc, e);
    stopped += rc == 4;
    free(e);
  }
  assert_true(stopped >= 3);
}

/* The sandbox's require says a file outside the allowed directories is
   not allowed (exists or not), and "no file" for one missing inside. */
static void test_sandbox_require(void **state) {
  char *e;
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "data.lua", "return 42\n"), 0);
  assert_int_equal(tutil_sh_write(&sh, "req.lua", "print(require(...))\n"),
                   0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && %s run --sandbox req.lua data",
                                sh.dir, lraf), 1);
  e = tutil_sh_read(sh.err);
  assert_non_null(strstr(e, "file './data.lua' not allowed in the sandbox"));
  assert_null(strstr(e, "no file './data.lua'"));
  free(e);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && %s run --sandbox --allow-dir "
                                ". req.lua missing", sh.dir, lraf), 1);
  e = tutil_sh_read(sh.err);
  assert_non_null(strstr(e, "no file './missing.lua'"));
  assert_null(strstr(e, "'./missing.lua' not allowed"));
  free(e);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && %s run --sandbox --allow-dir "
                                ". req.lua data", sh.dir, lraf), 0);
}

/* lraf serve: a port in use is bad usage (2) with a message saying so,
   before anything starts; its help says what its status 1 means. */
static void test_serve_port_in_use(void **state) {
  char *out;
  (void)state;
  if (system("command -v python3 > /dev/null") != 0) skip();
  assert_int_equal(tutil_sh_run(&sh, "cd %s && mkdir -p handlers && "
      "python3 -c 'import socket, subprocess, sys\n"
      "s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen()\n"
      "r = subprocess.run([sys.argv[1], \"serve\", \"--port\", "
      "str(s.getsockname()[1]), \"--ledger\", \"none\", \"handlers\"], "
      "timeout=20)\n"
      "print(\"exit\", r.returncode)' %s", sh.dir, lraf), 0);
  out = tutil_sh_read(sh.out);
  assert_string_equal(out, "exit 2\n");
  free(out);
  out = tutil_sh_read(sh.err);
  assert_non_null(strstr(out, "is already in use"));
  free(out);
  assert_int_equal(tutil_sh_run(&sh, "%s serve --help", lraf), 0);
  out = tutil_sh_read(sh.out);
  assert_null(strstr(out, "the script failed"));
  assert_non_null(strstr(out, "  1  the server could not start"));
  free(out);
}

/* ---- the interactive mode and versions ---- */

static void test_equals_and_version(void **state) {
  char *out;
  int vm;
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "printf '= 1 + 1\\n=\"a\"..\"b\"\\n' | "
                                "%s -i", lua_bin), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "> 2\n"));
  assert_non_null(strstr(out, "> ab\n"));
  free(out);
  /* the VM the lraf command counts on, named by -v and --version alike */
  assert_int_equal(tutil_sh_run(&sh, "LRAF_OPTIONS='--report -' %s -e ''",
                                lua_bin), 0);
  out = tutil_sh_read(sh.err);
  vm = strstr(out, "lravm") != NULL || strstr(out, "lraf-vm") != NULL;
  free(out);
  assert_int_equal(tutil_sh_run(&sh, "%s -v", lua_bin), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "Lua 5.4"));
  assert_non_null(strstr(out, vm ? "on the lraf VM" : "on stock Lua"));
  free(out);
  assert_int_equal(tutil_sh_run(&sh, "%s --version", lraf), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "lraf 0."));
  assert_non_null(strstr(out, "Lua 5.4"));
  assert_non_null(strstr(out, vm ? "on the lraf VM" : "on stock Lua"));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_options_both_routes),
    cmocka_unit_test(test_options_generated),
    cmocka_unit_test(test_read_once),
    cmocka_unit_test(test_report_every_ending),
    cmocka_unit_test(test_ctrl_c),
    cmocka_unit_test(test_memory_while_loading),
    cmocka_unit_test(test_sandbox_require),
    cmocka_unit_test(test_serve_port_in_use),
    cmocka_unit_test(test_equals_and_version),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
