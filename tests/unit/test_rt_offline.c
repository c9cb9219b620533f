/*
** test_rt_offline.c - rewriting offline (rt_offline.c): lraf_rewrite
** writes LRAF_OFFLINE_MAGIC, the cost-model id and the rewritten chunk
** (then, with a key, the HMAC of all that); source text and the same
** code as a binary chunk give the same bytes; a state loads the result
** and counts what it counts of the source; rt_offline_header reads the
** header and names what is wrong with anything else; bad input is
** refused with a message.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "tutil_rt.h"

static const char src[] =
  "local s = 0\n"
  "for i = 1, 300 do if i % 3 == 0 then s = s + i end end\n"
  "print(s)\n";

static void rewrite(const lraf_options *o, const char *code, size_t len,
                    unsigned char **out, size_t *size) {
  lraf_error err;
  if (lraf_rewrite(o, code, len, "=off", (void **)out, size, &err) !=
      LRAF_OK)
    fail_msg("%s", err.message);
}

/* The header, and the model id of the options. */
static void test_header(void **state) {
  static const struct { lraf_mode mode; int exact; } cases[] = {
    {LRAF_MODE_ORIGINAL, 0}, {LRAF_MODE_ORIGINAL, 1},
    {LRAF_MODE_OVERHEAD, 0},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options o;
    rw_options rw;
    uint32_t w[LRAF_NUM_OPCODES];
    char model[96];
    unsigned char *out;
    size_t size, mlen, skip;
    const char *m;
    lraf_error err;
    lraf_default_options(&o);
    o.mode = cases[i].mode;
    o.exact = cases[i].exact;
    assert_int_equal(rt_rw_options(&o, &rw, w, model, sizeof model, &err),
                     LRAF_OK);
    rewrite(&o, src, strlen(src), &out, &size);
    assert_memory_equal(out, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN);
    assert_int_equal(rt_offline_header(out, size, &m, &mlen, &skip, &err),
                     LRAF_OK);
    assert_int_equal(mlen, strlen(model));
    assert_memory_equal(m, model, mlen);
    assert_int_equal(skip, LRAF_OFFLINE_MAGIC_LEN + 1 + mlen);
    assert_memory_equal(out + skip, "\x1bLua", 4);
    free(out);
  }
}

/* Source and its binary chunk rewrite to the same bytes; a host key
   appends the HMAC of everything before it. */
static void test_inputs_and_key(void **state) {
  static const unsigned char key[] = "a host's key";
  lraf_options o;
  unsigned char *a, *b, *signed_, mac[RT_MAC_LEN];
  size_t asize, bsize, ssize, dsize;
  char *dump;
  lraf_error err;
  (void)state;
  lraf_default_options(&o);
  rewrite(&o, src, strlen(src), &a, &asize);
  assert_int_equal(rt_compile(src, strlen(src), "=off", 0, &dump, &dsize,
                              &err), LRAF_OK);
  rewrite(&o, dump, dsize, &b, &bsize);
  assert_int_equal(asize, bsize);
  assert_memory_equal(a, b, asize);
  o.offline_key = key;
  o.offline_key_len = sizeof key - 1;
  rewrite(&o, src, strlen(src), &signed_, &ssize);
  assert_int_equal(ssize, asize + RT_MAC_LEN);
  assert_memory_equal(signed_, a, asize);
  rt_hmac(key, sizeof key - 1, a, asize, mac);
  assert_memory_equal(signed_ + asize, mac, RT_MAC_LEN);
  free(signed_);
  free(dump);
  free(a);
  free(b);
}

/* Loaded back: the source's output and count. */
static void test_counts_like_source(void **state) {
  static const int exact[] = {0, 1};
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    lraf_options o;
    lraf_state *on, *off;
    unsigned char *out;
    size_t size;
    lraf_error err;
    lraf_default_options(&o);
    o.exact = exact[i];
    o.allow_offline = 1;
    rewrite(&o, src, strlen(src), &out, &size);
    on = tutil_rt_new(&o);
    off = tutil_rt_new(&o);
    assert_int_equal(tutil_rt_run(on, src, &err), LRAF_OK);
    assert_int_equal(lraf_load_rewritten(off, out, size, &err),
                     LRAF_OK);
    assert_int_equal(lraf_call(off, 0, 0, &err), LRAF_OK);
    assert_string_equal(tutil_rt_output(off, NULL),
                        tutil_rt_output(on, NULL));
    assert_int_equal(lraf_total(off), lraf_total(on));
    tutil_rt_close(on);
    tutil_rt_close(off);
    free(out);
  }
}

static void test_refused(void **state) {
  static const struct {
    const char *data;
    size_t size;
    const char *msg;
  } headers[] = {
    {"\x1bLua\x54\x00", 6, "a plain Lua binary chunk is not"},
    {"print(1)", 8, "no lraf marker"},
    {"", 0, "no lraf marker"},
    {LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN, "truncated"},
    {LRAF_OFFLINE_MAGIC "\x20lua5.4", LRAF_OFFLINE_MAGIC_LEN + 7,
     "truncated"},
  };
  lraf_error err;
  void *out;
  size_t size, i, mlen, skip;
  const char *m;
  (void)state;
  for (i = 0; i < sizeof headers / sizeof headers[0]; i++) {
    assert_int_equal(rt_offline_header(headers[i].data, headers[i].size, &m,
                                       &mlen, &skip, &err), LRAF_EFORMAT);
    if (strstr(err.message, headers[i].msg) == NULL)
      fail_msg("case %zu: %s", i, err.message);
  }
  assert_int_equal(lraf_rewrite(NULL, NULL, 0, "=x", &out, &size, &err),
                   LRAF_EARG);
  assert_int_equal(lraf_rewrite(NULL, "\x1bxyz", 4, "in.bin", &out, &size,
                                &err), LRAF_EFORMAT);
  assert_string_equal(err.message, "in.bin is not Lua source nor a Lua 5.4 "
                                   "binary chunk");
  assert_int_equal(lraf_rewrite(NULL, "x = = 1", 7, "=bad", &out, &size,
                                &err), LRAF_ESYNTAX);
  assert_non_null(strstr(err.message, "bad:1:"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_header),
    cmocka_unit_test(test_inputs_and_key),
    cmocka_unit_test(test_counts_like_source),
    cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
