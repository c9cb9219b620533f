/*
** test_sv_sha256.c - SHA-256 (service/sv_sha256.c), called directly:
**   - FIPS 180-4's examples (one block, the two-block 448- and 896-bit
**     messages) and a million bytes of 'a';
**   - the padding's edges: 55 bytes (the length fits the last block),
**     56 (it does not: one block more), 63, 64 (a whole block, then one
**     of padding alone), 65, 119, 120 and 128;
**   - every length from 0 to 300 bytes of every byte value, from an
**     odd address, against Python's hashlib (one process for all).
** The digests of the table are those the standard (and Python's
** hashlib) gives, not this file's output.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv_sha256.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static void hex(const uint8_t d[SV_SHA256_SIZE], char out[65]) {
  int i;
  for (i = 0; i < SV_SHA256_SIZE; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static const struct vector {
  const char *msg;   /* NULL: len bytes of 'a' */
  size_t len;
  const char *digest;
} vectors[] = {
  {"abc", 3, "ba7816bf8f01cfea414140de5dae2223"
             "b00361a396177a9cb410ff61f20015ad"},
  {"", 0, "e3b0c44298fc1c149afbf4c8996fb924"
          "27ae41e4649b934ca495991b7852b855"},
  {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
   "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 112,
   "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
  {NULL, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
  {NULL, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
  {NULL, 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
  {NULL, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
  {NULL, 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
  {NULL, 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
  {NULL, 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  {NULL, 128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
  {NULL, 1000000,
   "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
};

static void test_vectors(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
    const struct vector *v = &vectors[i];
    uint8_t d[SV_SHA256_SIZE];
    char got[65];
    char *as = NULL;
    if (v->msg == NULL) {
      as = malloc(v->len);
      assert_non_null(as);
      memset(as, 'a', v->len);
    }
    sv_sha256(v->msg != NULL ? v->msg : as, v->len, d);
    hex(d, got);
    if (strcmp(got, v->digest) != 0)
      fail_msg("vector %zu (%zu bytes): %s, want %s", i, v->len, got,
               v->digest);
    free(as);
  }
}

/* Every length to 300 bytes (one to six blocks, every padding edge),
   of bytes 0-255, at an odd address, against hashlib. */
static void test_lengths_against_hashlib(void **state) {
  unsigned char buf[302], *msg = buf + 1;
  char path[128], got[65], *out;
  size_t n, len;
  (void)state;
  for (n = 0; n < 300; n++) msg[n] = (unsigned char)(n * 131 + 7);
  snprintf(path, sizeof path, "%s/m", sh.dir);
  {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(msg, 1, 300, f), 300);
    fclose(f);
  }
  /* one run: a digest per prefix length */
  assert_int_equal(tutil_sh_run(&sh, "python3 -c 'import hashlib, sys\n"
                   "m = open(sys.argv[1], \"rb\").read()\n"
                   "for n in range(301): print(hashlib.sha256(m[:n])"
                   ".hexdigest())' %s", path), 0);
  out = tutil_run_slurp(sh.out, &len);
  assert_non_null(out);
  assert_true(len >= 301 * 65);
  for (n = 0; n <= 300; n++) {
    uint8_t d[SV_SHA256_SIZE];
    const char *line = out;
    size_t k;
    for (k = 0; k < n; k++) line = strchr(line, '\n') + 1;
    sv_sha256(msg, n, d);
    hex(d, got);
    if (memcmp(got, line, 64) != 0)
      fail_msg("length %zu: %s, hashlib %.64s", n, got, line);
  }
  free(out);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "sv-sha256");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vectors),
    cmocka_unit_test(test_lengths_against_hashlib),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
