/*
** test_cli_json.c - cli/cli_json.c, the strict JSON reader of the files
** the command reads back: every refusal names the file, the byte
** offset where it went wrong and what was expected there; the values it
** accepts come back with their kinds, integers, escapes (surrogate
** pairs too) and members in order; nesting stops at 32; and random
** bytes give a tree or an error, never a crash or a leak.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"

/* Parse text (its whole length) as "f.json". */
static lraf_status parse(const char *text, cli_json **v, lraf_error *err) {
  memset(err, 0, sizeof *err);
  *v = NULL;
  return cli_json_parse(text, strlen(text), "f.json", v, err);
}

/* ---- refusals: where and what ---- */

/* where: a '^' under the byte of text the error must name, so that each
   case shows its offset. */
static const struct bad {
  const char *text, *where, *what;
} bads[] = {
  {"",                   "^",                  "expected a value, found the end"},
  {"   ",                "   ^",               "expected a value, found the end"},
  {"{\"a\" 1}",          "     ^",             "expected ':'"},
  {"{\"a\":1,}",         "       ^",           "expected a member name"},
  {"{a:1}",              " ^",                 "expected a member name"},
  {"[1 2]",              "   ^",               "expected ',' or ']'"},
  {"{\"a\":1 \"b\":2}",  "       ^",           "expected ',' or '}'"},
  {"[1,]",               "   ^",               "expected a value"},
  {"01",                 " ^",                 "text after the value"},
  {"1.",                 "  ^",                "expected a digit after '.'"},
  {"1e+",                "   ^",               "expected a digit in the exponent"},
  {"-",                  " ^",                 "expected a value"},
  {"+1",                 "^",                  "expected a value"},
  {"tru",                "^",                  "expected a value"},
  {"nul",                "^",                  "expected a value"},
  {"\"abc",              "    ^",              "unterminated string"},
  {"\"a\tb\"",           "  ^",                "control character in a string"},
  {"\"a\\qb\"",          "   ^",               "bad escape '\\q'"},
  {"\"\\u12G4\"",        "     ^",             "expected 4 hex digits after \\u"},
  {"\"\\ud800x\"",       "       ^",           "a high surrogate without its low one"},
  {"\"\\ud800\\u0041\"", "             ^",     "a high surrogate without its low one"},
  {"\"\\udc00\"",        "       ^",           "a low surrogate without its high one"},
  {"\"\\u0000\"",        "       ^",           "\\u0000 in a string"},
  {"[1] [2]",            "    ^",              "text after the value"},
  {"{\"a\":[1,{\"b\":}]}", "             ^",   "expected a value"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    const struct bad *b = &bads[k];
    cli_json *v;
    lraf_error err;
    char want[300];
    size_t at = (size_t)(strchr(b->where, '^') - b->where);
    snprintf(want, sizeof want, "f.json: byte %zu: %s", at, b->what);
    if (parse(b->text, &v, &err) != LRAF_EFORMAT || v != NULL ||
        err.code != LRAF_EFORMAT || strcmp(err.message, want) != 0)
      fail_msg("'%s': got '%s', want '%s'", b->text, err.message, want);
  }
}

/* A NUL inside the length is a byte like any other: not a blank. */
static void test_nul_byte(void **state) {
  cli_json *v = NULL;
  lraf_error err;
  (void)state;
  memset(&err, 0, sizeof err);
  assert_int_equal(cli_json_parse("[1]\0", 4, "n.json", &v, &err),
                   LRAF_EFORMAT);
  assert_null(v);
  assert_string_equal(err.message, "n.json: byte 3: text after the value");
}

/* ---- what it accepts ---- */

static void test_values(void **state) {
  static const char text[] =
    " {\"n\": null, \"t\": true, \"f\": false, \"i\": -42, \"z\": 0,"
    " \"big\": 9007199254740993, \"d\": 2.5e-1, \"e\": 1E3,"
    " \"s\": \"a\\\"\\\\\\/\\b\\f\\n\\r\\tz\", \"u\": \"\\u00e9\\u20ac\","
    " \"p\": \"\\ud83d\\ude00\", \"a\": [1, [], {}, \"x\"], \"o\": {} }\n";
  static const char *const order[] = {"n", "t", "f", "i", "z", "big", "d",
                                      "e", "s", "u", "p", "a", "o"};
  cli_json *v;
  const cli_json *m;
  lraf_error err;
  size_t k;
  (void)state;
  assert_int_equal(parse(text, &v, &err), LRAF_OK);
  assert_int_equal(v->kind, CLI_JSON_OBJECT);
  assert_int_equal(v->count, (int)(sizeof order / sizeof order[0]));
  for (k = 0, m = v->child; m != NULL; m = m->next, k++)
    assert_string_equal(m->key, order[k]);
  assert_int_equal(cli_json_get(v, "n")->kind, CLI_JSON_NULL);
  assert_int_equal(cli_json_get(v, "t")->kind, CLI_JSON_BOOL);
  assert_int_equal(cli_json_get(v, "t")->integer, 1);
  assert_int_equal(cli_json_get(v, "f")->integer, 0);
  m = cli_json_get(v, "i");
  assert_true(m->kind == CLI_JSON_NUMBER && m->is_integer && m->integer == -42);
  /* an integer keeps all 64 bits where a double would round it */
  m = cli_json_get(v, "big");
  assert_true(m->is_integer);
  assert_true(m->integer == INT64_C(9007199254740993));
  m = cli_json_get(v, "d");
  assert_false(m->is_integer);
  assert_true(m->number == 0.25);
  assert_true(cli_json_get(v, "e")->number == 1000.0);
  assert_false(cli_json_get(v, "e")->is_integer);
  assert_string_equal(cli_json_get(v, "s")->string, "a\"\\/\b\f\n\r\tz");
  assert_string_equal(cli_json_get(v, "u")->string, "\xc3\xa9\xe2\x82\xac");
  assert_string_equal(cli_json_get(v, "p")->string, "\xf0\x9f\x98\x80");
  m = cli_json_get(v, "a");
  assert_int_equal(m->kind, CLI_JSON_ARRAY);
  assert_int_equal(m->count, 4);
  assert_int_equal(m->child->next->kind, CLI_JSON_ARRAY);
  assert_int_equal(m->child->next->count, 0);
  assert_int_equal(m->child->next->next->kind, CLI_JSON_OBJECT);
  assert_null(cli_json_get(v, "missing"));
  assert_null(cli_json_get(m, "a"));  /* not an object */
  cli_json_free(v);
}

/* Members of one name are all kept, in order; cli_json_get finds the
   first. */
static void test_duplicate_keys(void **state) {
  cli_json *v;
  lraf_error err;
  (void)state;
  assert_int_equal(parse("{\"k\": 1, \"k\": 2}", &v, &err), LRAF_OK);
  assert_int_equal(v->count, 2);
  assert_int_equal(cli_json_get(v, "k")->integer, 1);
  cli_json_free(v);
}

/* Nesting: 33 brackets (32 levels below the top) are read; the 34th
   is refused where it opens. */
static void test_depth(void **state) {
  char text[200];
  int depth;
  (void)state;
  for (depth = 31; depth <= 34; depth++) {
    cli_json *v;
    lraf_error err;
    lraf_status st;
    memset(text, '[', (size_t)depth + 1);
    memset(text + depth + 1, ']', (size_t)depth + 1);
    text[2 * depth + 2] = '\0';
    st = parse(text, &v, &err);
    if (depth <= 32) {
      assert_int_equal(st, LRAF_OK);
      cli_json_free(v);
    } else {
      char want[100];
      assert_int_equal(st, LRAF_EFORMAT);
      snprintf(want, sizeof want, "f.json: byte 33: nested deeper than 32");
      assert_string_equal(err.message, want);
    }
  }
}

/* Random bytes drawn from JSON's alphabet: a tree or an error that
   names the file, never a crash (the sanitizers watch the rest). */
static void test_random(void **state) {
  static const char alpha[] = "{}[]:,\"\\u0123456789abcdefE.+- \ntrue"
                              "nullfalse\x01\xc3\xa9";
  unsigned seed = 12345;
  int k, ok = 0;
  (void)state;
  for (k = 0; k < 3000; k++) {
    char text[64];
    size_t n, j;
    cli_json *v = NULL;
    lraf_error err;
    seed = seed * 1103515245u + 12345u;
    n = (seed >> 16) % sizeof text;
    for (j = 0; j < n; j++) {
      seed = seed * 1103515245u + 12345u;
      text[j] = alpha[(seed >> 16) % (sizeof alpha - 1)];
    }
    memset(&err, 0, sizeof err);
    if (cli_json_parse(text, n, "r.json", &v, &err) == LRAF_OK) {
      assert_non_null(v);
      cli_json_free(v);
      ok++;
    } else {
      assert_null(v);
      assert_memory_equal(err.message, "r.json: byte ", 13);
    }
  }
  /* some were valid: the drawing reaches the reader's accepting paths */
  assert_true(ok > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_nul_byte),
    cmocka_unit_test(test_values),
    cmocka_unit_test(test_duplicate_keys),
    cmocka_unit_test(test_depth),
    cmocka_unit_test(test_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
