/*
** test_cli_options.c - cli/cli_options.c, the one option parser of the
** lraf command: every subcommand's --help comes from the same table as
** `lraf help --markdown` and accepts each option it lists; an option
** means the same in every subcommand; numbers take k/M/G (KiB/MiB/GiB
** for bytes) and say "too large"; a script name in place of a command
** gets a hint; a missing operand is named.
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
static const char *const commands[] = {"run", "bench", "rewrite", "disasm"};
#define NCOMMANDS 4

/* A file's contents (free it); NULL when it cannot be read. */
static char *slurp(const char *path) {
  size_t len;
  return tutil_run_slurp(path, &len);
}

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "opts") != 0) return -1;
  if (tutil_sh_write(&sh, "ok.lua", "local s = 0\nfor i = 1, 100 do "
                     "s = s + i end\nprint(s)\n") != 0 ||
      tutil_sh_write(&sh, "spin.lua", "while true do end\n") != 0 ||
      tutil_sh_write(&sh, "w.txt", "ADD 3\nCALL 7\n") != 0 ||
      tutil_sh_write(&sh, "key.txt", "a key") != 0 ||
      tutil_sh_write(&sh, "contract.txt", "f 1000\n") != 0)
    return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static char *out(void) {
  char *s = slurp(sh.out);
  assert_non_null(s);
  return s;
}

static char *err(void) {
  char *s = slurp(sh.err);
  assert_non_null(s);
  return s;
}

/* stderr of the last command contains text. */
static void err_has(const char *text) {
  tutil_sh_expect(sh.err, text);
}

/* The option names a help text lists: the first word of each line that
   starts with "  -" (--help) or with "| `-" (Markdown), as one string
   "-n --exact ..." in the order listed. */
static void option_names(const char *text, const char *lead, char *names,
                          size_t size) {
  const char *p = text;
  names[0] = '\0';
  while ((p = strstr(p, lead)) != NULL) {
    size_t n;
    if (p != text && p[-1] != '\n') {
      p++;
      continue;
    }
    p += strlen(lead) - 1;
    n = strcspn(p, " `\n");
    snprintf(names + strlen(names), size - strlen(names), "%s%.*s",
             names[0] ? " " : "", (int)n, p);
    p += n;
  }
}

/* `lraf X --help` and `lraf help X` print the same, list the same
   options as X's Markdown table, and name the exit statuses. */
static void test_help_from_one_table(void **state) {
  char *markdown, *help, *again;
  int i;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "help --markdown"), 0);
  markdown = out();
  for (i = 0; i < NCOMMANDS; i++) {
    char head[64], from_help[512], from_md[512];
    const char *section, *next;
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --help", commands[i]), 0);
    help = out();
    assert_int_equal(tutil_sh_lraf_run(&sh, "help %s", commands[i]), 0);
    again = out();
    assert_string_equal(help, again);
    assert_non_null(strstr(help, "\nexit status:\n  0  success\n"));
    {  /* one line per option, none wider than 79 columns */
      const char *line = strstr(help, "\noptions:\n") + 10;
      const char *end = strstr(help, "\n\nexit status:");
      while (line < end) {
        size_t n = strcspn(line, "\n");
        if (strncmp(line, "  -", 3) != 0 || n > 79)
          fail_msg("lraf %s --help: '%.*s'", commands[i], (int)n, line);
        line += n + 1;
      }
    }
    assert_non_null(strstr(help, "  2  bad usage or bad input\n"));
    snprintf(head, sizeof head, "### lraf %s\n", commands[i]);
    section = strstr(markdown, head);
    assert_non_null(section);
    next = strstr(section + 1, "### lraf ");
    {
      char *part = strndup(section, next ? (size_t)(next - section)
                                         : strlen(section));
      assert_non_null(part);
      option_names(help, "  -", from_help, sizeof from_help);
      option_names(part, "| `-", from_md, sizeof from_md);
      free(part);
    }
    assert_true(strlen(from_help) > 0);
    assert_string_equal(from_help, from_md);
    assert_non_null(strstr(from_help, "--help"));
    free(help);
    free(again);
  }
  free(markdown);
}

/* A valid value for each option that takes one. */
static const char *value_for(const char *opt) {
  static const struct { const char *opt, *value; } values[] = {
    {"-n", "2"}, {"-o", "out.luac"}, {"--limit", "1M"}, {"--rate", "1G"},
    {"--memory-limit", "64MiB"}, {"--granularity", "1k"},
    {"--mode", "overhead"}, {"--weights", "w.txt"}, {"--report", "-"},
    {"--vm", "stock"},
    {"--allow-dir", "."}, {"--allow-module", "lpeg"}, {"--key-file", "key.txt"},
    {"--timeline", "tl.json"}, {"--expect-share", "1"},
    {"--contract", "contract.txt"},
    {"--threshold", "5"}, {"--min-change", "10"}, {"--fail-on", "change"},
    {"--max-count", "1G"},
    {"--format", "json"}, {"--runs", "2"}, {"--warmup", "1"},
    {"--save-baseline", "b"}, {"--baseline", "b"}, {"--baseline-dir", "bd"},
    {"--suite", "suite.txt"}, {"--export-json", "e.json"},
    {"--export-markdown", "e.md"},
  };
  size_t i;
  for (i = 0; i < sizeof values / sizeof values[0]; i++)
    if (strcmp(opt, values[i].opt) == 0) return values[i].value;
  return NULL;  /* a flag */
}

/* Every option a subcommand's help lists is accepted by it. */
static void test_every_listed_option_works(void **state) {
  int i;
  (void)state;
  for (i = 0; i < NCOMMANDS; i++) {
    char names[512], *p, *help;
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --help", commands[i]), 0);
    help = out();
    option_names(help, "  -", names, sizeof names);
    free(help);
    for (p = strtok(names, " "); p != NULL; p = strtok(NULL, " ")) {
      const char *v = value_for(p);
      char args[256];
      int rc;
      if (strcmp(p, "--help") == 0) continue;
      snprintf(args, sizeof args, "%s %s %s", p, v ? v : "",
               strcmp(commands[i], "rewrite") == 0 && strcmp(p, "-o") != 0
                   ? "-o out.luac" : "");
      if (strcmp(commands[i], "bench") == 0) {  /* a baseline b, a suite */
        int gate = strstr(p, "-fail-on") || strstr(p, "-thres") ||
                   strstr(p, "-min-ch") || strstr(p, "-allow-mis");
        assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 1 --save-baseline "
                                           "b ok.lua"), 0);
        assert_int_equal(tutil_sh_write(&sh, "suite.txt", "ok.lua\n"), 0);
        rc = tutil_sh_lraf_run(&sh, "bench -n 1 %s %s %s", args,
                               gate ? "--baseline b" : "",
                               strcmp(p, "--suite") == 0 ? "" : "ok.lua");
      }
      else
        rc = tutil_sh_lraf_run(&sh, "%s %s ok.lua", commands[i], args);
      if (rc != 0) {
        char *e = err();
        fail_msg("lraf %s %s ok.lua: exit %d: %s", commands[i], args, rc, e);
      }
    }
  }
}

/* --weights with another mode is refused alike by every command that
   takes it; --mode weighted without weights too. */
static void test_same_meaning_everywhere(void **state) {
  static const char *const counting[] = {
    "run", "bench -n 1", "rewrite -o out.luac"
  };
  int i;
  (void)state;
  for (i = 0; i < 3; i++) {
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --weights w.txt --mode "
                                       "overhead ok.lua", counting[i]), 2);
    err_has("--weights needs --mode weighted");
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --mode weighted ok.lua",
                                       counting[i]), 2);
    err_has("--mode weighted needs --weights FILE");
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --weights w.txt --mode "
                                       "weighted ok.lua", counting[i]), 0);
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --mode fast ok.lua",
                                       counting[i]), 2);
    err_has("unknown mode 'fast'");
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --frobnicate ok.lua",
                                       counting[i]), 2);
    err_has("unknown option '--frobnicate'");
  }
  /* an option a command does not take is unknown to it, and named */
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite --limit 5 ok.lua -o x"),
                   2);
  err_has("unknown option '--limit' for lraf rewrite");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit"), 2);
  err_has("--limit needs a value (N)");
}

/* k, M, G, KiB, MiB, GiB; "too large"; what is not a number. */
static void test_numbers(void **state) {
  char report[160], *o;
  (void)state;
  snprintf(report, sizeof report, "%s/r.json", sh.dir);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 2k spin.lua"), 3);
  err_has("(limit 2000 units)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --no-native --limit 1M "
                                     "spin.lua"), 3);
  err_has("(limit 1000000 instructions)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 64MiB "
                                     "--report r.json ok.lua"), 0);
  o = slurp(report);
  assert_non_null(o);
  assert_non_null(strstr(o, "\"memory_limit\": 67108864,"));
  free(o);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --memory-limit 1G "
                                     "--report r.json ok.lua"), 0);
  o = slurp(report);
  assert_non_null(o);
  assert_non_null(strstr(o, "\"memory_limit\": 1000000000,"));
  free(o);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit "
                                     "99999999999999999999 ok.lua"), 2);
  err_has("--limit 99999999999999999999 is too large (at most "
          "9223372036854775807)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 9223372036854775807 "
                                     "ok.lua"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 9223372036854775808 "
                                     "ok.lua"), 2);
  err_has("is too large");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 9999999999G ok.lua"),
                   2);
  err_has("--limit 9999999999G is too large");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 200k ok.lua"), 2);
  err_has("-n 200k is too large (at most 100000)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 0 ok.lua"), 2);
  err_has("-n needs a positive integer");
  /* binary suffixes are for byte sizes only */
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit 4KiB ok.lua"), 2);
  err_has("--limit needs a non-negative integer (k, M, G allowed), not "
          "'4KiB'");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --granularity 1.5 ok.lua"),
                   2);
  err_has("--granularity needs a positive integer");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --limit -5 ok.lua"), 2);
  err_has("not '-5'");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --rate 2k ok.lua"), 0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --rate 1e999 ok.lua"), 2);
  err_has("--rate 1e999 is too large");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --rate 0 ok.lua"), 2);
  err_has("--rate needs a positive number");
}

/* What is missing is named. */
static void test_missing_operands(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "ok.lua"), 2);
  err_has("did you mean `lraf run ok.lua`?");
  assert_int_equal(tutil_sh_lraf_run(&sh, "fib.lua"), 2);
  err_has("did you mean `lraf run fib.lua`?");
  assert_int_equal(tutil_sh_lraf_run(&sh, "frobnicate"), 2);
  err_has("unknown command 'frobnicate' (try lraf --help)");
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite ok.lua"), 2);
  err_has("no output file");
  err_has("-o OUT");
  assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite -o x.luac"), 2);
  err_has("no input file");
  assert_int_equal(tutil_sh_lraf_run(&sh, "run"), 2);
  err_has("no script");
  assert_int_equal(tutil_sh_lraf_run(&sh, "disasm"), 2);
  err_has("no file to list");
  assert_int_equal(tutil_sh_lraf_run(&sh, "disasm missing.lua"), 2);
  err_has("cannot open missing.lua: No such file or directory");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_help_from_one_table),
    cmocka_unit_test(test_every_listed_option_works),
    cmocka_unit_test(test_same_meaning_everywhere),
    cmocka_unit_test(test_numbers),
    cmocka_unit_test(test_missing_operands),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
