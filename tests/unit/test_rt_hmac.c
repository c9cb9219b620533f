/*
** test_rt_hmac.c - rt_hmac is HMAC-SHA-256: the test cases of RFC 4231
** (short key, short key and data, a key longer than the block), a
** message spanning blocks, and the constant-time comparison.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "rt.h"

static void hex(const unsigned char *mac, char *out) {
  int i;
  for (i = 0; i < RT_MAC_LEN; i++) sprintf(out + 2 * i, "%02x", mac[i]);
}

static void check(const void *key, size_t klen, const char *data,
                  const char *want) {
  unsigned char mac[RT_MAC_LEN];
  char got[2 * RT_MAC_LEN + 1];
  rt_hmac(key, klen, data, strlen(data), mac);
  hex(mac, got);
  assert_string_equal(got, want);
}

static void test_rfc4231(void **state) {
  unsigned char k1[20], k6[131];
  (void)state;
  memset(k1, 0x0b, sizeof k1);
  memset(k6, 0xaa, sizeof k6);
  check(k1, sizeof k1, "Hi There",
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  check("Jefe", 4, "what do ya want for nothing?",
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  check(k6, sizeof k6, "Test Using Larger Than Block-Size Key - Hash Key First",
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  check(k6, sizeof k6,
        "This is a test using a larger than block-size key and a larger "
        "than block-size data. The key needs to be hashed before being "
        "used by the HMAC algorithm.",
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

static void test_equal(void **state) {
  unsigned char a[RT_MAC_LEN], b[RT_MAC_LEN];
  (void)state;
  rt_hmac("k", 1, "x", 1, a);
  memcpy(b, a, sizeof b);
  assert_true(rt_hmac_equal(a, b));
  b[RT_MAC_LEN - 1] ^= 1;
  assert_false(rt_hmac_equal(a, b));
  rt_hmac("k", 1, "y", 1, b);
  assert_false(rt_hmac_equal(a, b));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rfc4231),
    cmocka_unit_test(test_equal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
