/*
** test_sv_keys.c - API keys (service/sv_keys.c) through the public
** API: a key's hash as a key file holds it; key files read (comments,
** blank lines, CRLF, several keys per tenant), their errors naming file
** and line; the lookup of a key.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_sh.h"

static tutil_sh sh;

static void expect_hash(const char *msg, size_t len, const char *hex) {
  char h[LRAF_KEY_HASH_SIZE], want[LRAF_KEY_HASH_SIZE];
  snprintf(want, sizeof want, "sha256:%s", hex);
  lraf_key_hash(msg, len, h);
  assert_string_equal(h, want);
  assert_int_equal(lraf_key_matches(msg, len, want), 1);
}

/* The hash as a key file holds it: "sha256:" and the digest in
   lowercase hex (the digests themselves: test_sv_sha256). */
static void test_key_hash(void **state) {
  (void)state;
  expect_hash("abc", 3, "ba7816bf8f01cfea414140de5dae2223"
                        "b00361a396177a9cb410ff61f20015ad");
  expect_hash("", 0, "e3b0c44298fc1c149afbf4c8996fb924"
                     "27ae41e4649b934ca495991b7852b855");
  expect_hash("a\0b", 3, "59b271ae1bbcb1d31d41929817f4b16f"
                         "b439eb4f31520b5ad1d5ce98920a7138");
}

static lraf_keys *parse(const char *text, lraf_error *err) {
  lraf_keys *k = NULL;
  memset(err, 0, sizeof *err);
  if (lraf_keys_parse(text, strlen(text), "t.keys", &k, err) != LRAF_OK)
    return NULL;
  return k;
}

static void test_keys_lookup(void **state) {
  char a[LRAF_KEY_HASH_SIZE], b[LRAF_KEY_HASH_SIZE], c[LRAF_KEY_HASH_SIZE];
  char text[1024];
  lraf_keys *k;
  lraf_error err;
  (void)state;
  lraf_key_hash("key-of-acme", 11, a);
  lraf_key_hash("second-key-of-acme", 18, b);
  lraf_key_hash("key-of-globex", 13, c);
  snprintf(text, sizeof text,
           "# tenants\n\n  acme\t%s  \r\n"
           "acme %s\n"
           "   # indented comment\n"
           "globex.eu-1 %s", a, b, c);
  k = parse(text, &err);
  if (k == NULL) fail_msg("%s", err.message);
  assert_int_equal(lraf_keys_count(k), 3);
  assert_string_equal(lraf_keys_tenant(k, "key-of-acme", 11), "acme");
  assert_string_equal(lraf_keys_tenant(k, "second-key-of-acme", 18), "acme");
  assert_string_equal(lraf_keys_tenant(k, "key-of-globex", 13),
                      "globex.eu-1");
  assert_null(lraf_keys_tenant(k, "key-of-acm", 10));
  assert_null(lraf_keys_tenant(k, "key-of-acmf", 11));
  assert_null(lraf_keys_tenant(k, "", 0));
  /* the hash itself is not a key */
  assert_null(lraf_keys_tenant(k, a, strlen(a)));
  lraf_keys_free(k);
  /* upper-case hex reads the same */
  for (size_t i = 7; a[i]; i++)
    if (a[i] >= 'a' && a[i] <= 'f') a[i] = (char)(a[i] - 32);
  snprintf(text, sizeof text, "acme %s\n", a);
  k = parse(text, &err);
  if (k == NULL) fail_msg("%s", err.message);
  assert_string_equal(lraf_keys_tenant(k, "key-of-acme", 11), "acme");
  lraf_keys_free(k);
}

/* A bad file is refused with its name and the line. */
static void expect_error(const char *text, const char *where,
                         const char *what) {
  lraf_error err;
  lraf_keys *k = parse(text, &err);
  if (k != NULL) fail_msg("accepted: %s", text);
  assert_int_equal(err.code, LRAF_EFORMAT);
  if (strstr(err.message, where) == NULL || strstr(err.message, what) == NULL)
    fail_msg("'%s' does not say '%s' and '%s'", err.message, where, what);
}

/* Bad key files: text (each @ stands for the hash of "k"), and what
   the error names. */
static const struct bad_file {
  const char *text, *where, *what;
} bad_files[] = {
  {"", "t.keys", "no keys"},
  {"# only a comment\n\n", "t.keys", "no keys"},
  {"a @\nb\n", "t.keys:2:", "two fields"},
  {"a @ extra\n", "t.keys:1:", "two fields"},
  {"\n\nbad/name @\n", "t.keys:3:", "bad tenant name"},
  {"0000000000000000000000000000000000000000000000000000000000000000001 @\n",
   "t.keys:1:", "longer than 64"},
  {"a sha256:abc\n", "t.keys:1:", "64 hex digits"},
  {"a 2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae\n",
   "t.keys:1:", "64 hex digits"},
  {"a @\n# x\nb @\n", "t.keys:3:", "the same key as line 1"},
};

/* text with each @ replaced by hash h */
static void expand(const char *text, const char *h, char *out, size_t size) {
  size_t n = 0;
  for (; *text && n + 80 < size; text++) {
    if (*text == '@') {
      memcpy(out + n, h, strlen(h));
      n += strlen(h);
    } else {
      out[n++] = *text;
    }
  }
  out[n] = '\0';
}

static void test_keys_errors(void **state) {
  char h[LRAF_KEY_HASH_SIZE], text[1024];
  lraf_keys *k = NULL;
  lraf_error err;
  size_t i;
  (void)state;
  lraf_key_hash("k", 1, h);
  for (i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
    expand(bad_files[i].text, h, text, sizeof text);
    expect_error(text, bad_files[i].where, bad_files[i].what);
  }
  /* a hash with a letter past f */
  snprintf(text, sizeof text, "a %s\n", h);
  text[strlen(text) - 2] = 'g';
  expect_error(text, "t.keys:1:", "64 hex digits");
  {
    /* the first repeat in the file is named, whatever the hashes' order */
    char h2[LRAF_KEY_HASH_SIZE], h3[LRAF_KEY_HASH_SIZE];
    lraf_key_hash("k2", 2, h2);
    lraf_key_hash("k3", 2, h3);
    snprintf(text, sizeof text, "a %s\nb %s\nc %s\nd %s\ne %s\nf %s\n",
             h2, h3, h, h3, h2, h3);
    expect_error(text, "t.keys:4:", "the same key as line 2");
    snprintf(text, sizeof text, "a %s\nb %s\nc %s\nd %s\n", h3, h2, h,
             h2);
    expect_error(text, "t.keys:4:", "the same key as line 2");
  }
  /* a NUL byte: not a text file */
  memcpy(text, "a\0b\n", 4);
  memset(&err, 0, sizeof err);
  assert_int_equal(lraf_keys_parse(text, 4, "t.keys", &k, &err),
                   LRAF_EFORMAT);
  assert_null(k);
  assert_non_null(strstr(err.message, "NUL"));
  /* a file that is not there */
  assert_int_equal(lraf_keys_load("/nonexistent/keys", &k, &err), LRAF_EIO);
  assert_non_null(strstr(err.message, "/nonexistent/keys"));
  assert_null(k);
}

/* The file read from disk is the same table. */
static void test_keys_load(void **state) {
  char h[LRAF_KEY_HASH_SIZE], text[256], path[128];
  lraf_keys *k = NULL;
  lraf_error err;
  (void)state;
  lraf_key_hash("s3cret", 6, h);
  snprintf(text, sizeof text, "t1 %s\n", h);
  assert_int_equal(tutil_sh_write(&sh, "tenants", text), 0);
  snprintf(path, sizeof path, "%s/tenants", sh.dir);
  if (lraf_keys_load(path, &k, &err) != LRAF_OK) fail_msg("%s", err.message);
  assert_string_equal(lraf_keys_tenant(k, "s3cret", 6), "t1");
  assert_null(lraf_keys_tenant(k, "s3cre", 5));
  lraf_keys_free(k);
  assert_int_equal(lraf_key_matches("s3cret", 6, h), 1);
  assert_int_equal(lraf_key_matches("s3creT", 6, h), 0);
  assert_int_equal(lraf_key_matches("s3cret", 6, "sha256:00"), 0);
  assert_int_equal(lraf_key_matches("s3cret", 6, NULL), 0);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "keys");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_key_hash),
    cmocka_unit_test(test_keys_lookup),
    cmocka_unit_test(test_keys_errors),
    cmocka_unit_test(test_keys_load),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
