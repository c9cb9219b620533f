/*
** test_cli_key.c - cli/cli_key.c, `lraf key hash TENANT`: the key read
** from standard input (its line end dropped) gives the line of a
** --tenants file that lraf_keys reads back to the same tenant, the key
** itself printed nowhere; an empty, too long or unprintable key, a bad
** tenant name and bad usage are status 2 with one line saying which.
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

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "key");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* Keys as printf writes them (the shell's printf: %s, \n, \r, \t) and
   the key's bytes they stand for. */
static const struct good {
  const char *printf_arg, *key, *tenant;
} goods[] = {
  {"s3cr3t-KEY_1", "s3cr3t-KEY_1", "acme"},
  {"s3cr3t-KEY_1\\n", "s3cr3t-KEY_1", "acme"},
  {"s3cr3t-KEY_1\\r\\n", "s3cr3t-KEY_1", "t.e-n_9"},
  {"~!#$%%^&*()[]{}", "~!#$%^&*()[]{}", "x"},
};

static void test_hash(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof goods / sizeof goods[0]; k++) {
    const struct good *g = &goods[k];
    char *out, *err, want[LRAF_KEY_HASH_SIZE + 80];
    lraf_keys *keys;
    lraf_error e;
    assert_int_equal(tutil_sh_run(&sh, "printf '%s' | %s key hash %s",
                                  g->printf_arg, tutil_sh_lraf(), g->tenant),
                     0);
    out = tutil_sh_read(sh.out);
    err = tutil_sh_read(sh.err);
    assert_string_equal(err, "");
    /* the hash is the library's, and the key is not in the output */
    lraf_key_hash(g->key, strlen(g->key), want + snprintf(want, 80, "%s ",
                                                          g->tenant));
    strcat(want, "\n");
    assert_string_equal(out, want);
    assert_null(strstr(out, g->key));
    /* and lraf serve's reader gives the key to the tenant */
    assert_int_equal(lraf_keys_parse(out, strlen(out), "out", &keys, &e),
                     LRAF_OK);
    assert_string_equal(lraf_keys_tenant(keys, g->key, strlen(g->key)),
                        g->tenant);
    lraf_keys_free(keys);
    free(out);
    free(err);
  }
}

static const struct bad {
  const char *input;  /* a shell command writing the key */
  const char *args, *err;
} bads[] = {
  {"printf ''", "hash t",
   "lraf: no key on standard input (printf %s KEY | lraf key hash TENANT)\n"},
  {"printf '\\n'", "hash t",
   "lraf: no key on standard input (printf %s KEY | lraf key hash TENANT)\n"},
  {"printf 'a b'", "hash t", "lraf: the key has a space or control "
   "character at byte 2: keys are one line of printable ASCII without "
   "spaces (they travel in an HTTP header)\n"},
  {"printf 'ab\\ncd\\n'", "hash t", "lraf: the key has a line break at "
   "byte 3: keys are one line of printable ASCII without spaces (they "
   "travel in an HTTP header)\n"},
  {"printf 'k\\303\\251'", "hash t", "lraf: the key has a space or control "
   "character at byte 2: keys are one line of printable ASCII without "
   "spaces (they travel in an HTTP header)\n"},
  {"head -c 4097 /dev/zero | tr '\\0' k", "hash t",
   "lraf: the key is longer than 4096 bytes\n"},
  {"printf k", "hash 'a b'",
   "lraf: bad tenant name (1-64 of A-Z a-z 0-9 _ - .)\n"},
  {"printf k", "hash t/u",
   "lraf: bad tenant name (1-64 of A-Z a-z 0-9 _ - .)\n"},
  {"printf k", "hash '#t'",
   "lraf: bad tenant name (1-64 of A-Z a-z 0-9 _ - .)\n"},
  {"printf k", "hash ''",
   "lraf: bad tenant name (1-64 of A-Z a-z 0-9 _ - .)\n"},
  {"printf k", "hash "
   "t2345678901234567890123456789012345678901234567890123456789012345",
   "lraf: a tenant name is at most 64 bytes\n"},
  {"printf k", "hash", "lraf: lraf key needs: hash TENANT (lraf key --help)\n"},
  {"printf k", "crack t",
   "lraf: lraf key needs: hash TENANT (lraf key --help)\n"},
  {"printf k", "hash t u",
   "lraf: lraf key needs: hash TENANT (lraf key --help)\n"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    char *out, *err;
    int st = tutil_sh_run(&sh, "%s | %s key %s", bads[k].input,
                          tutil_sh_lraf(), bads[k].args);
    out = tutil_sh_read(sh.out);
    err = tutil_sh_read(sh.err);
    if (st != 2 || out[0] != '\0' || strcmp(err, bads[k].err) != 0)
      fail_msg("%s | lraf key %s: %d '%s' '%s'", bads[k].input,
               bads[k].args, st, out, err);
    free(out);
    free(err);
  }
}

/* The longest key taken: 4096 bytes. */
static void test_longest(void **state) {
  char *out;
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "head -c 4096 /dev/zero | tr '\\0' k "
                                "| %s key hash t", tutil_sh_lraf()), 0);
  out = tutil_sh_read(sh.out);
  assert_memory_equal(out, "t sha256:", 9);
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hash),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_longest),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
