/*
** fuzz_journal.c - libFuzzer target: the ledger's journal
** (service/sv_journal.c).  The bytes as a journal file read by
** sv_journal_read, each record delivered encoded and decoded again; and
** as records encoded, damaged (cut, a byte changed, an older pass, the
** callback failing) and read back.  What is checked:
** tests/support/tutil_fuzz_journal.c.
*/
#include <stdio.h>
#include <stdlib.h>

#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[512];
  if (tutil_fuzz_journal(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_journal: %s\n", why);
    abort();
  }
  return 0;
}
