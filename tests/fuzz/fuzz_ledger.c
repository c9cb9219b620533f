/*
** fuzz_ledger.c - libFuzzer target: the bytes as a sequence of
** operations on an SQLite usage ledger (append records with odd
** strings and figures, duplicate keys, usage, find, close and reopen)
** in a temporary directory ($TMPDIR, else /dev/shm or /tmp), each
** checked against what was accepted (tests/support/tutil_fuzz_ledger.c).
*/
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tutil_fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];

static void cleanup(void) {
  char p[300];
  snprintf(p, sizeof p, "%s/fuzz-ledger.db", dir);
  unlink(p);
  rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *tmp = getenv("TMPDIR");
  (void)argc, (void)argv;
  if (tmp == NULL) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/lraf-fuzz-ledger-XXXXXX", tmp);
  if (mkdtemp(dir) == NULL) {
    perror("fuzz_ledger: mkdtemp");
    exit(1);
  }
  atexit(cleanup);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[600];
  if (tutil_fuzz_ledger(dir, data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_ledger: %s\n", why);
    abort();
  }
  return 0;
}
