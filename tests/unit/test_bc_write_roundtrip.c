/*
** test_bc_write_roundtrip.c - bc_read then bc_write must give back lua_dump's
** bytes exactly, stripped and not, for inline snippets, every .lua file
** under tests/corpus/ and every .lua file under /usr/share/lua/5.4/.
** The written bytes must load again, and bc_getline must agree with
** Lua's own line information.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tutil_run.h"
#include "tutil_vm.h"
#include "bc.h"

#define MIN_CORPUS_FILES 1   /* tests/corpus/ */
#define MIN_SYSTEM_FILES 1   /* /usr/share/lua/5.4/ (re.lua from lua-lpeg) */

/* Constant tags seen over all chunks checked, to prove coverage. */
static int seen_tag[256];
static int seen_abslineinfo;
static int seen_kind[4];

static void note_proto(const bc_proto *f) {
  int i;
  for (i = 0; i < f->sizek; i++)
    seen_tag[f->k[i].tag & 0xff] = 1;
  for (i = 0; i < f->sizeupvalues; i++)
    seen_kind[f->upvalues[i].kind & 3] = 1;
  if (f->sizeabslineinfo > 0)
    seen_abslineinfo = 1;
  for (i = 0; i < f->sizep; i++)
    note_proto(f->p[i]);
}

/* Read, write, compare, reload one dump.  Returns 1 when all is well. */
static int roundtrip(const tutil_vm_buf *in, const char *label, int strip,
                     bc_chunk **keep) {
  bc_chunk *c = NULL;
  lraf_error err;
  void *out = NULL;
  size_t outsize = 0, i;
  char msg[512];
  lraf_status st = bc_read(in->data, in->size, NULL, &c, &err);
  if (st != LRAF_OK) {
    print_error("%s (strip=%d): bc_read failed: %s\n", label, strip,
                err.message);
    return 0;
  }
  note_proto(c->main);
  st = bc_write(c, &out, &outsize, &err);
  if (st != LRAF_OK) {
    print_error("%s (strip=%d): bc_write failed: %s\n", label, strip,
                err.message);
    bc_chunk_free(c);
    return 0;
  }
  if (outsize != in->size || memcmp(out, in->data, outsize) != 0) {
    for (i = 0; i < outsize && i < in->size; i++)
      if (((uint8_t *)out)[i] != in->data[i])
        break;
    print_error("%s (strip=%d): written %zu bytes, read %zu; first "
                "difference at offset %zu\n", label, strip, outsize,
                in->size, i);
    free(out);
    bc_chunk_free(c);
    return 0;
  }
  if (!tutil_vm_load(out, outsize, msg, sizeof msg)) {
    print_error("%s (strip=%d): lua_load rejects the written bytes: %s\n",
                label, strip, msg);
    free(out);
    bc_chunk_free(c);
    return 0;
  }
  free(out);
  if (keep != NULL)
    *keep = c;
  else
    bc_chunk_free(c);
  return 1;
}

/* The number of keys of the table at index idx. */
static int count_keys(lua_State *L, int idx) {
  int n = 0;
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    n++;
    lua_pop(L, 1);
  }
  return n;
}

/* The set of lines of main that Lua reports (debug.getinfo "L") must be
   the set bc_getline gives for the same instructions. */
static int lines_agree(const char *src, size_t len, const char *name,
                       const bc_proto *f, const char *label) {
  lua_State *L = luaL_newstate();
  lua_Debug ar;
  int pc, ok = 1, nlua, nours;
  if (luaL_loadbuffer(L, src, len, name) != LUA_OK) {
    lua_close(L);
    return 0;
  }
  lua_getinfo(L, ">L", &ar);  /* pops the function, pushes the line set */
  lua_newtable(L);            /* the lines bc_getline gives */
  for (pc = f->is_vararg ? 1 : 0; pc < f->sizecode; pc++) {
    int line = bc_getline(f, pc);
    if (lua_rawgeti(L, -2, line) != LUA_TBOOLEAN) {
      print_error("%s: bc_getline(pc %d) = %d is not an active line\n",
                  label, pc, line);
      ok = 0;
    }
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
    lua_rawseti(L, -2, line);
  }
  nours = count_keys(L, -1);
  nlua = count_keys(L, -2);
  if (nours != nlua) {
    print_error("%s: Lua has %d active lines, bc_getline gives %d\n", label,
                nlua, nours);
    ok = 0;
  }
  lua_close(L);
  return ok;
}

/* bc_getlines gives what bc_getline gives at every pc of f and of the
   functions inside it. */
static int getlines_agree(const bc_proto *f) {
  int *lines = malloc(((size_t)f->sizecode + 1) * sizeof(int));
  int pc, i, ok = lines != NULL;
  if (ok) bc_getlines(f, lines);
  for (pc = 0; ok && pc < f->sizecode; pc++)
    ok = lines[pc] == bc_getline(f, pc);
  free(lines);
  for (i = 0; ok && i < f->sizep; i++)
    ok = getlines_agree(f->p[i]);
  return ok;
}

/* Dump src both ways and round-trip it.  Returns 1 when checked, 0 when
   it does not compile (with a note), and fails the test on a mismatch. */
static int check_source(const char *src, size_t len, const char *name,
                        const char *label) {
  int strip;
  char msg[512];
  for (strip = 0; strip <= 1; strip++) {
    tutil_vm_buf b;
    bc_chunk *c = NULL;
    if (!tutil_vm_dump(src, len, name, strip, &b, msg, sizeof msg)) {
      printf("note: skipping %s: does not compile: %s\n", label, msg);
      return 0;
    }
    if (!roundtrip(&b, label, strip, strip ? NULL : &c)) {
      free(b.data);
      fail_msg("round trip failed for %s", label);
    }
    free(b.data);
    if (c != NULL) {
      int ok = lines_agree(src, len, name, c->main, label);
      if (!getlines_agree(c->main))
        fail_msg("bc_getlines disagrees with bc_getline for %s", label);
      bc_chunk_free(c);
      if (!ok)
        fail_msg("bc_getline disagrees with Lua for %s", label);
    }
  }
  return 1;
}

static int check_file(const char *path) {
  char name[1024], *src = NULL;
  size_t len;
  int r;
  if (snprintf(name, sizeof name, "@%s", path) >= (int)sizeof name ||
      (src = tutil_run_slurp(path, &len)) == NULL) {
    printf("note: skipping %s: cannot read it\n", path);
    return 0;
  }
  r = check_source(src, len, name, path);
  free(src);
  return r;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Check every .lua file under dir, recursively; returns how many. */
static int check_tree(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (d == NULL)
    return 0;
  while ((e = readdir(d)) != NULL) {
    char path[1024];
    struct stat st;
    if (e->d_name[0] == '.')
      continue;
    if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
            (int)sizeof path || stat(path, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode))
      n += check_tree(path);
    else if (S_ISREG(st.st_mode) && ends_with(path, ".lua"))
      n += check_file(path);
  }
  closedir(d);
  return n;
}

/* ---------------------------------------------------------------- */
/* A growing string for generated snippets                            */
/* ---------------------------------------------------------------- */

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) {
  va_list ap;
  int len;
  va_start(ap, fmt);
  len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  assert_true(len >= 0);
  if (b->n + (size_t)len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (b->n + (size_t)len + 1 > cap)
      cap *= 2;
    b->s = realloc(b->s, cap);
    assert_non_null(b->s);
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)len;
}

static void check_generated(sbuf *b, const char *label) {
  assert_int_equal(check_source(b->s, b->n, "=generated", label), 1);
  free(b->s);
  b->s = NULL;
  b->n = b->cap = 0;
}

/* ---------------------------------------------------------------- */
/* Tests                                                              */
/* ---------------------------------------------------------------- */

static const char *const snippets[] = {
  /* every constant type, integer and float edges, short/long strings */
  "local x = ...\n"
  "if x == nil then x = 1 end\n"
  "if x == true then x = 2 end\n"
  "if x == false then x = 3 end\n"
  "local i1, i2, i3 = 1234567890123, 9223372036854775807, "
  "-0x8000000000000000\n"
  "local i4, i5 = 0x7fffffffffffffff, math.mininteger\n"
  "local f1, f2, f3, f4 = 3.25, 1e309, -1e309, 5e-324\n"
  "local f5, f6, f7 = 9223372036854775808, 2^53, 0.1\n"
  "local s1, s2 = '', 'short'\n"
  "local s40 = '0123456789012345678901234567890123456789'\n"
  "local s41 = '01234567890123456789012345678901234567890'\n"
  "local long = [[a long string constant well over forty bytes, so "
  "that it is dumped with the long string tag]]\n"
  "local zeros = 'a\\0b\\0c'\n"
  "return x, i1, i2, i3, i4, i5, f1, f2, f3, f4, f5, f6, f7, s1, s2, s40,"
  " s41, long, zeros\n",
  /* varargs */
  "local function v(...)\n"
  "  local a, b = ...\n"
  "  local t = {...}\n"
  "  return select('#', ...), a, b, t, ...\n"
  "end\n"
  "return v(1, nil, 3)\n",
  /* goto and nested loops */
  "local n = 0\n"
  "for i = 1, 3 do\n"
  "  for j = 1, 3 do\n"
  "    if j == 2 then goto continue end\n"
  "    n = n + i * j\n"
  "  end\n"
  "  ::continue::\n"
  "end\n"
  "do goto done end\n"
  "n = -1\n"
  "::done::\n"
  "for k, v in pairs({a = 1}) do n = n + v end\n"
  "return n\n",
  /* upvalue kinds: register, const, to-be-closed */
  "local c <const> = os.time()\n"
  "local h <close> = setmetatable({}, {__close = function() end})\n"
  "local r = 0\n"
  "return function() r = r + 1; return c, h, r end\n",
  /* methods, closures, numeric edge arithmetic */
  "local Account = {}\n"
  "Account.__index = Account\n"
  "function Account.new(b) return setmetatable({balance = b}, Account) end\n"
  "function Account:deposit(v) self.balance = self.balance + v end\n"
  "local a = Account.new(100)\n"
  "a:deposit(5.5)\n"
  "local x = a.balance // 3 % 7 ^ 2 & 0xff | 1 ~ 2 << 3 >> 1\n"
  "return a.balance, x, #'abc' .. 'd', not x, -x, ~1\n",
  /* the empty chunk */
  "",
};

static void test_snippets(void **state) {
  size_t i;
  char label[32];
  (void)state;
  for (i = 0; i < sizeof snippets / sizeof snippets[0]; i++) {
    snprintf(label, sizeof label, "snippet %zu", i + 1);
    assert_int_equal(check_source(snippets[i], strlen(snippets[i]),
                                  "@snippet.lua", label), 1);
  }
  /* the source itself as the chunk name: a long, present source */
  assert_int_equal(check_source(snippets[1], strlen(snippets[1]),
                                snippets[1], "source as name"), 1);
}

static void test_nested_20(void **state) {
  sbuf b = {0};
  int i;
  (void)state;
  for (i = 1; i <= 20; i++)
    sb_add(&b, "local function f%d(a%d, ...)\n", i, i);
  sb_add(&b, "return a1 + a20\n");
  for (i = 20; i >= 1; i--)
    sb_add(&b, "end\nreturn f%d\n", i);
  check_generated(&b, "nested 20 deep");
}

/* More than 128 instructions and line gaps over 127 lines, at the top
   level and in a nested function, so that abslineinfo appears. */
static void test_big_and_gaps(void **state) {
  sbuf b = {0};
  int i, j;
  (void)state;
  sb_add(&b, "local t = {}\n");
  for (i = 0; i < 400; i++) {
    sb_add(&b, "t[%d] = %d * 2\n", i, i);
    if (i % 97 == 0)
      for (j = 0; j < 150; j++)
        sb_add(&b, "\n");
  }
  sb_add(&b, "local function g(x)\n");
  for (i = 0; i < 200; i++)
    sb_add(&b, "  x = x + %d\n%s", i, i % 50 == 0 ? "\n\n\n\n\n\n\n\n\n\n"
           "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
           "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
           "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
           "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n"
           "\n\n\n\n\n\n\n\n\n\n" : "");
  sb_add(&b, "  return x\nend\nreturn t, g\n");
  check_generated(&b, "big function with line gaps");
  assert_true(seen_abslineinfo);
}

/* Over 2^17 constants: LOADKX, three-byte varints, SETLIST+EXTRAARG. */
static void test_many_constants(void **state) {
  sbuf b = {0};
  int i;
  (void)state;
  sb_add(&b, "local t = {\n");
  for (i = 0; i < 140000; i++)
    sb_add(&b, "'k%d',%s", i, i % 10 == 9 ? "\n" : "");
  sb_add(&b, "}\nreturn t\n");
  check_generated(&b, "140000 constants");
}

/* Many upvalues and many registers. */
static void test_many_upvalues(void **state) {
  sbuf b = {0};
  int i;
  (void)state;
  for (i = 0; i < 180; i++)
    sb_add(&b, "local v%d = %d\n", i, i);
  sb_add(&b, "return function()\n  return 0");
  for (i = 0; i < 180; i += 3)
    sb_add(&b, " + v%d", i);
  sb_add(&b, "\nend\n");
  check_generated(&b, "many upvalues");
}

static void test_coverage(void **state) {
  static const int tags[] = {BC_TNIL, BC_TFALSE, BC_TTRUE, BC_TINT, BC_TFLT,
                             BC_TSHRSTR, BC_TLNGSTR};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    if (!seen_tag[tags[i]])
      fail_msg("no constant with tag 0x%02x was round-tripped", tags[i]);
  }
  assert_true(seen_kind[0] && seen_kind[1] && seen_kind[2]);
}

static void test_files(void **state) {
  int ncorpus, nsystem;
  (void)state;
  ncorpus = check_tree("tests/corpus");
  nsystem = check_tree("/usr/share/lua/5.4");
  printf("round-tripped %d files from tests/corpus and %d from "
         "/usr/share/lua/5.4 (stripped and not)\n", ncorpus, nsystem);
  if (ncorpus < MIN_CORPUS_FILES || nsystem < MIN_SYSTEM_FILES)
    fail_msg("too few files checked: %d in tests/corpus (need %d), %d in "
             "/usr/share/lua/5.4 (need %d); run from the repository root",
             ncorpus, MIN_CORPUS_FILES, nsystem, MIN_SYSTEM_FILES);
}

/* bc_getline on a hand-made prototype: deltas from linedefined, then
   from an absolute entry, as Lua computes it. */
static void test_getline(void **state) {
  int8_t li[6] = {1, 0, 2, BC_ABSLINEINFO, -3, 1};
  bc_absline abs[1] = {{3, 500}};
  bc_proto f;
  (void)state;
  memset(&f, 0, sizeof f);
  f.linedefined = 10;
  f.sizecode = f.sizelineinfo = 6;
  f.lineinfo = li;
  assert_int_equal(bc_getline(&f, 0), 11);
  assert_int_equal(bc_getline(&f, 1), 11);
  assert_int_equal(bc_getline(&f, 2), 13);
  f.sizeabslineinfo = 1;
  f.abslineinfo = abs;
  assert_int_equal(bc_getline(&f, 2), 13);
  assert_int_equal(bc_getline(&f, 3), 500);
  assert_int_equal(bc_getline(&f, 4), 497);
  assert_int_equal(bc_getline(&f, 5), 498);
  assert_int_equal(bc_getline(&f, 6), -1);
  assert_int_equal(bc_getline(&f, -1), -1);
  assert_true(getlines_agree(&f));
  abs[0].pc = -2;  /* malformed: every line from it is unknown */
  assert_int_equal(bc_getline(&f, 4), -1);
  assert_true(getlines_agree(&f));
  abs[0].pc = 3;
  f.sizelineinfo = 4;  /* shorter than the code */
  assert_int_equal(bc_getline(&f, 5), -1);
  assert_true(getlines_agree(&f));
  f.lineinfo = NULL;
  f.sizelineinfo = 0;
  assert_int_equal(bc_getline(&f, 0), -1);
  assert_true(getlines_agree(&f));
}

/* The writer refuses models it cannot encode, with EARG and a reason. */
static void test_write_invalid(void **state) {
  bc_instr code[1] = {0};
  bc_const k[1];
  bc_proto f, *kids[1] = {NULL};
  bc_chunk c = {0, &f};
  lraf_error err;
  void *out = (void *)&err;
  size_t n = 7;
  (void)state;
  memset(&f, 0, sizeof f);
  memset(k, 0, sizeof k);
  assert_int_equal(bc_write(NULL, &out, &n, &err), LRAF_EARG);
  f.sizecode = -1;
  f.code = code;
  assert_int_equal(bc_write(&c, &out, &n, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "code has size -1"));
  f.sizecode = 1;
  f.sizek = 1;
  f.k = k;
  k[0].tag = 0x07;
  assert_int_equal(bc_write(&c, &out, &n, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "unknown constant tag 0x07"));
  k[0].tag = BC_TSHRSTR;
  assert_int_equal(bc_write(&c, &out, &n, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "NULL string constant"));
  f.sizek = 0;
  f.sizep = 1;
  f.p = kids;
  assert_int_equal(bc_write(&c, &out, &n, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "nested function 0 is missing"));
  f.sizep = 0;
  f.linedefined = -5;
  assert_int_equal(bc_write(&c, &out, &n, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "negative linedefined -5"));
  /* outputs untouched on failure */
  assert_ptr_equal(out, (void *)&err);
  assert_int_equal(n, 7);
  f.linedefined = 0;
  assert_int_equal(bc_write(&c, &out, &n, &err), LRAF_OK);
  assert_int_equal(n, 32 + 14 + 4);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_snippets),
    cmocka_unit_test(test_nested_20),
    cmocka_unit_test(test_big_and_gaps),
    cmocka_unit_test(test_many_constants),
    cmocka_unit_test(test_many_upvalues),
    cmocka_unit_test(test_files),
    cmocka_unit_test(test_coverage),
    cmocka_unit_test(test_getline),
    cmocka_unit_test(test_write_invalid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
