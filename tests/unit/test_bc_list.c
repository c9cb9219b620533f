/*
** test_bc_list.c - `lraf disasm FILE` must list the same functions,
** in the same order, with the same instructions (index, line, opcode,
** operands, comment) and the same constants, locals and upvalues as
** `luac5.4 -l -l -p FILE`, for every .lua file under tests/corpus/ and
** /usr/share/lua/5.4/.  Header lines and addresses may differ.  And
** bc_list itself on a chunk read here.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tutil_vm.h"
#include "bc.h"

#define MIN_FILES 10
#define MIN_INSTRUCTIONS 5000

typedef struct strvec {
  char **v;
  int n, cap;
} strvec;

static void push(strvec *s, const char *str) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v);
    assert_non_null(s->v);
  }
  s->v[s->n] = strdup(str);
  assert_non_null(s->v[s->n]);
  s->n++;
}

static void clear(strvec *s) {
  int n;
  for (n = 0; n < s->n; n++) free(s->v[n]);
  free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.lua under dir, recursively, sorted. */
static void find_lua(const char *dir, strvec *out) {
  DIR *d = opendir(dir);
  struct dirent *e;
  if (d == NULL) return;
  while ((e = readdir(d)) != NULL) {
    char path[4096];
    struct stat st;
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode))
      find_lua(path, out);
    else if (len > 4 && strcmp(e->d_name + len - 4, ".lua") == 0)
      push(out, path);
  }
  closedir(d);
}

/* ------------------------------------------------------------------ */
/* Normalized listings                                                  */
/* ------------------------------------------------------------------ */

/* Replace every 0x... address (and "(nil)") by "ADDR". */
static void mask_addresses(const char *in, char *out, size_t size) {
  size_t o = 0;
  while (*in && o + 5 < size) {
    if (in[0] == '0' && in[1] == 'x' && isxdigit((unsigned char)in[2])) {
      in += 2;
      while (isxdigit((unsigned char)*in)) in++;
      memcpy(out + o, "ADDR", 4);
      o += 4;
    } else if (strncmp(in, "(nil)", 5) == 0) {
      in += 5;
      memcpy(out + o, "ADDR", 4);
      o += 4;
    } else {
      out[o++] = *in++;
    }
  }
  out[o] = '\0';
}

/* Split an instruction line "\t<n>\t[<line>]\t<NAME>\t<ops>[\t; <c>]"
   into a canonical record; returns 0 when line is not one. */
static int instruction(const char *line, int fn, char *out, size_t size) {
  char idx[32], where[32], name[32], ops[128];
  const char *comment;
  int n;
  if (sscanf(line, "\t%31[0-9]\t%31[^\t]\t%31[^\t]", idx, where, name) != 3)
    return 0;
  if (where[0] != '[' || where[strlen(where) - 1] != ']') return 0;
  for (n = (int)strlen(name); n > 0 && name[n - 1] == ' '; n--) name[n - 1] = '\0';
  for (n = 0; n < 4 && line != NULL; n++)  /* past the 4th tab */
    line = strchr(line + (n > 0), '\t');
  if (line == NULL) return 0;
  line++;
  comment = strstr(line, "\t; ");
  n = comment ? (int)(comment - line) : (int)strlen(line);
  snprintf(ops, sizeof ops, "%.*s", n, line);
  /* CLOSURE comments are addresses */
  if (comment == NULL || strcmp(name, "CLOSURE") == 0) comment = "";
  snprintf(out, size, "I fn=%d idx=%s line=%s %s [%s]%s", fn, idx, where,
           name, ops, comment);
  return 1;
}

/* Run cmd; collect the normalized records of its output.  Returns the
   exit status, or -1 when the command could not run. */
static int listing(const char *cmd, strvec *recs, int *ninstr) {
  FILE *p = popen(cmd, "r");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int fn = -1, status;
  static char rec[70000];
  if (p == NULL) return -1;
  while ((len = getline(&line, &cap, p)) >= 0) {
    if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
    if (len == 0) continue;
    if (strncmp(line, "main <", 6) == 0 || strncmp(line, "function <", 10) == 0) {
      snprintf(rec, sizeof rec, "FUNCTION %d", ++fn);
      push(recs, rec);
    } else if (strstr(line, " param") != NULL && line[0] != '\t') {
      continue;  /* second header line */
    } else if (instruction(line, fn, rec, sizeof rec)) {
      push(recs, rec);
      ++*ninstr;
    } else {
      mask_addresses(line, rec, sizeof rec);
      push(recs, rec);
    }
  }
  free(line);
  status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ------------------------------------------------------------------ */
/* The comparison                                                       */
/* ------------------------------------------------------------------ */

static int files_compared, instructions_compared, files_skipped;

static void compare_file(const char *lraf, const char *path) {
  char cmd[8400];
  strvec want = {0}, got = {0};
  int nwant = 0, ngot = 0, swant, sgot, n;
  if (strchr(path, '\'') != NULL || strchr(lraf, '\'') != NULL) {
    files_skipped++;
    return;
  }
  snprintf(cmd, sizeof cmd, "luac5.4 -l -l -p '%s' 2>/dev/null", path);
  swant = listing(cmd, &want, &nwant);
  snprintf(cmd, sizeof cmd, "'%s' disasm '%s' 2>/dev/null", lraf, path);
  sgot = listing(cmd, &got, &ngot);
  if (swant != 0) {  /* luac rejects it: lraf must too */
    if (sgot == 0) fail_msg("%s: luac fails but lraf disasm succeeds", path);
    files_skipped++;
  } else {
    if (sgot != 0) fail_msg("%s: lraf disasm exits with %d", path, sgot);
    for (n = 0; n < want.n && n < got.n; n++)
      if (strcmp(want.v[n], got.v[n]) != 0)
        fail_msg("%s: listing differs at record %d\n  luac: %s\n  lraf: %s",
                 path, n, want.v[n], got.v[n]);
    if (want.n != got.n)
      fail_msg("%s: luac lists %d records, lraf %d", path, want.n, got.n);
    files_compared++;
    instructions_compared += nwant;
  }
  clear(&want);
  clear(&got);
}

static void test_listing_matches_luac(void **state) {
  const char *lraf = getenv("LRAF");
  strvec files = {0};
  int n;
  (void)state;
  if (lraf == NULL) lraf = "build/lraf";
  find_lua("tests/corpus", &files);
  find_lua("/usr/share/lua/5.4", &files);
  qsort(files.v, (size_t)files.n, sizeof *files.v, cmp_str);
  for (n = 0; n < files.n; n++) compare_file(lraf, files.v[n]);
  print_message("compared %d files (%d instructions), skipped %d\n",
                files_compared, instructions_compared, files_skipped);
  clear(&files);
  assert_true(files_compared >= MIN_FILES);
  assert_true(instructions_compared >= MIN_INSTRUCTIONS);
}

/* The parser itself: one real luac line of each shape. */
static void test_record_parser(void **state) {
  char rec[256];
  (void)state;
  assert_true(instruction("\t3\t[2]\tGETTABUP \t0 0 1\t; _ENV \"print\"", 0,
                          rec, sizeof rec));
  assert_string_equal(rec, "I fn=0 idx=3 line=[2] GETTABUP [0 0 1]\t; _ENV \"print\"");
  assert_true(instruction("\t9\t[-]\tRETURN0  \t", 2, rec, sizeof rec));
  assert_string_equal(rec, "I fn=2 idx=9 line=[-] RETURN0 []");
  assert_true(instruction("\t4\t[7]\tCLOSURE  \t1 0\t; 0x55d0c0", 1, rec, sizeof rec));
  assert_string_equal(rec, "I fn=1 idx=4 line=[7] CLOSURE [1 0]");
  assert_false(instruction("\t0\tS\t\"print\"", 0, rec, sizeof rec));
  assert_false(instruction("\t0\tx\t3\t9", 0, rec, sizeof rec));
  mask_addresses("constants (2) for 0x5581f0a2:", rec, sizeof rec);
  assert_string_equal(rec, "constants (2) for ADDR:");
}

/* bc_list itself, on a chunk read here: each function (pre-order) gets
   one line per instruction with its 1-based index, its line and its
   opcode's name, in order; full adds the constants, locals and
   upvalues with their counts. */
static char *listed(const bc_proto *f, int full) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  assert_non_null(out);
  bc_list(out, f, full);
  fclose(out);
  return text;
}

static const char *expect_code(const bc_proto *f, const char *at) {
  char want[128];
  int pc, n;
  for (pc = 0; pc < f->sizecode; pc++) {
    snprintf(want, sizeof want, "\t%d\t[%d]\t%s", pc + 1, bc_getline(f, pc),
             bc_opname(bc_op(f->code[pc])));
    at = strstr(at, want);
    if (at == NULL) fail_msg("no line '%s' in order", want + 1);
    at += strlen(want);
  }
  for (n = 0; n < f->sizep; n++) at = expect_code(f->p[n], at);
  return at;
}

static int count(const char *text, const char *word) {
  int n = 0;
  for (; (text = strstr(text, word)) != NULL; text++) n++;
  return n;
}

static void test_bc_list_direct(void **state) {
  static const char src[] =
    "local t = {1, 'two', 3.5}\n"
    "local function f(a, ...)\n"
    "  local g = function() return a end\n"
    "  return g() + select('#', ...)\n"
    "end\n"
    "for i = 1, 2 do t[i] = f(i, t) end\n"
    "return t\n";
  bc_chunk *c = tutil_vm_read(src, "@listed.lua");
  char *brief = listed(c->main, 0), *full = listed(c->main, 1), hdr[64];
  (void)state;
  expect_code(c->main, brief);
  expect_code(c->main, full);
  assert_int_equal(count(brief, "instructions at"), 3);
  assert_int_equal(count(brief, "constants ("), 0);
  assert_int_equal(count(full, "constants ("), 3);
  snprintf(hdr, sizeof hdr, "constants (%d) for", c->main->sizek);
  assert_non_null(strstr(full, hdr));
  snprintf(hdr, sizeof hdr, "locals (%d) for", c->main->sizelocvars);
  assert_non_null(strstr(full, hdr));
  assert_non_null(strstr(full, "\t\"two\""));
  assert_non_null(strstr(full, "main <listed.lua:0,0>"));
  assert_non_null(strstr(full, "function <listed.lua:2,5>"));
  free(brief);
  free(full);
  brief = listed(NULL, 1);
  assert_true(brief == NULL || brief[0] == '\0');
  free(brief);
  bc_chunk_free(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_record_parser),
    cmocka_unit_test(test_bc_list_direct),
    cmocka_unit_test(test_listing_matches_luac),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
