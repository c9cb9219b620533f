/*
** test_cli_disasm.c - cli/cli_disasm.c, `lraf disasm FILE`: a source
** file and the chunk luac5.4 makes of it list as `luac5.4 -l -l` lists
** them ('#' first line skipped, line numbers kept); a chunk of `lraf
** rewrite` lists with its cost model and accounting code; each usage
** error and each file that cannot be listed is status 2 with one line.
** Runs the command named by $LRAF.
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

static int setup(void **state) {
  (void)state;
  if (tutil_sh_init(&sh, "disasm") != 0) return -1;
  return tutil_sh_write(&sh, "p.lua",
                        "#!/usr/bin/env lua\n"
                        "local t = {}\n"
                        "for i = 1, 10 do t[i] = i end\n"
                        "local function f(x) return x * 2 end\n"
                        "print(#t, f(21), 'a string', 1.5)\n") ||
         tutil_sh_write(&sh, "empty.lua", "");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* s with each address ("0x" and hex digits) made "0x?", in place. */
static char *no_addresses(char *s) {
  char *r = s, *w = s;
  while (*r) {
    if (r[0] == '0' && r[1] == 'x') {
      r += 2;
      while ((*r >= '0' && *r <= '9') || (*r >= 'a' && *r <= 'f')) r++;
      *w++ = '0';
      *w++ = 'x';
      *w++ = '?';
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
  return s;
}

/* lraf disasm FILE against luac5.4 -l -l of SOURCE, byte for byte but
   for the addresses of functions. */
static void test_like_luac(void **state) {
  static const struct { const char *file, *source; } rows[] = {
    {"p.lua", "p.lua"}, {"p.bin", "p.bin"}, {"empty.lua", "empty.lua"},
  };
  size_t k;
  (void)state;
  if (system("command -v luac5.4 >/dev/null") != 0) skip();
  assert_int_equal(tutil_sh_run(&sh, "cd %s && luac5.4 -o p.bin p.lua",
                                sh.dir), 0);
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    char *mine, *theirs;
    assert_int_equal(tutil_sh_lraf_run(&sh, "disasm %s", rows[k].file), 0);
    mine = tutil_sh_read(sh.out);
    assert_int_equal(tutil_sh_run(&sh, "cd %s && luac5.4 -l -l -p %s",
                                  sh.dir, rows[k].source), 0);
    theirs = tutil_sh_read(sh.out);
    if (strcmp(no_addresses(mine), no_addresses(theirs)) != 0)
      fail_msg("%s:\n%s\nluac5.4:\n%s", rows[k].file, mine, theirs);
    free(mine);
    free(theirs);
  }
}

/* A rewritten chunk: its model on the first line, then the code with
   its accounting. */
static void test_rewritten(void **state) {
  static const char *const modes[] = {"original", "overhead"};
  size_t k;
  (void)state;
  for (k = 0; k < sizeof modes / sizeof modes[0]; k++) {
    char *out, want[100];
    assert_int_equal(tutil_sh_lraf_run(&sh, "rewrite --mode %s p.lua -o "
                                       "r.luac", modes[k]), 0);
    assert_int_equal(tutil_sh_lraf_run(&sh, "disasm r.luac"), 0);
    out = tutil_sh_read(sh.out);
    snprintf(want, sizeof want, "cost model %s/%s", TUTIL_VM, modes[k]);
    if (strstr(out, want) == NULL || strchr(out, '\n') < strstr(out, want))
      fail_msg("no '%s' on the first line:\n%s", want, out);
    assert_non_null(strstr(out, TUTIL_ACCT_CODE));
    assert_non_null(strstr(out, "FORLOOP"));
    free(out);
  }
}

static const struct bad { const char *file, *text, *args, *err; } bads[] = {
  {NULL, NULL, "", "lraf: no file to list\n"},
  {NULL, NULL, "p.lua p.lua", "lraf: one file only\n"},
  {NULL, NULL, "missing.lua", "lraf: cannot open missing.lua: No such file "
   "or directory\n"},
  {"syntax.lua", "local = 1\n", "syntax.lua", "lraf: syntax.lua:1: "},
  {"cut.luac", "\x1bLRAF\x01" "\x30" "abc", "cut.luac",
   "lraf: truncated lraf-rewritten chunk"},
  {"junk.luac", "\x1bLua\x54junk", "junk.luac", "lraf: "},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    char *out, *err;
    int st;
    if (bads[k].file != NULL)
      assert_int_equal(tutil_sh_write(&sh, bads[k].file, bads[k].text), 0);
    st = tutil_sh_lraf_run(&sh, "disasm %s", bads[k].args);
    out = tutil_sh_read(sh.out);
    err = tutil_sh_read(sh.err);
    if (st != 2 || out[0] != '\0' ||
        strncmp(err, bads[k].err, strlen(bads[k].err)) != 0)
      fail_msg("lraf disasm %s: %d '%s'", bads[k].args, st, err);
    free(out);
    free(err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_luac),
    cmocka_unit_test(test_rewritten),
    cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
