/*
** tutil_fuzz.h - the per-input work of the libFuzzer targets in
** tests/fuzz/, shared with the cmocka test that replays the inputs they
** found (tests/fuzz/regress/).
**
** Each function takes arbitrary bytes.  Bad input must be refused with
** an error value; the functions return 0 then, and also when the input
** was processed.  They return -1 and fill why only when an invariant of
** lraf is broken (a round trip that changes bytes, a rewrite that does
** not verify, ...).  Crashes, leaks and undefined behaviour are found by
** the sanitizers the targets are built with.
*/
#ifndef TUTIL_FUZZ_H
#define TUTIL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* bc_read; when it accepts, bc_write must give back the same bytes, and
   the listing and line lookups must run. */
int tutil_fuzz_read(const uint8_t *data, size_t size, char *why, size_t n);

/* bc_read, then for several rewriter options rw_rewrite, rw_verify
   (which must accept whatever rw_rewrite produced), bc_write,
   bc_read_rewritten (which must read it back) and lua_load of the
   result (not run: Lua does not check bytecode).  On the lraf VM, the
   chunk loaded by Lua and rewritten in memory (rt_pipeline_in_place)
   must dump to the same bytes as the lraf VM's targets gave. */
int tutil_fuzz_rewrite(const uint8_t *data, size_t size, char *why,
                       size_t n);

/* The bytes as Lua source: compiled, rewritten and loaded by an lraf
   sandbox state, then run under a small instruction quota and a memory
   cap.  On the lraf VM, bit 1 of the first byte chooses the stock
   target's code (LRAF_VM_STOCK) over rewriting in memory. */
int tutil_fuzz_source(const uint8_t *data, size_t size, char *why,
                      size_t n);

/* The bytes as operations on an SQLite ledger in a file of its own in
   dir (tutil_fuzz_ledger.c says which and what is checked). */
int tutil_fuzz_ledger(const char *dir, const uint8_t *data, size_t size,
                      char *why, size_t n);

/* The bytes as one HTTP request to lraf serve on 127.0.0.1:port, then
   a good request (tutil_fuzz_http.c says how and what is checked). */
int tutil_fuzz_http(int port, const uint8_t *data, size_t size, char *why,
                    size_t n);

/* The bytes as Lua source run under lraf_profile_start/stop, and every
   output format of the profile checked (tutil_fuzz_profile.c). */
int tutil_fuzz_profile(const uint8_t *data, size_t size, char *why,
                       size_t n);

/* Samples decoded from the bytes through the timeline's analysis and
   both writers (tutil_fuzz_timeline.c). */
int tutil_fuzz_timeline(const uint8_t *data, size_t size, char *why,
                        size_t n);

/* The billing parsers: a quota with its period, times, a window and a
   period word, each accepted one read back the same
   (tutil_fuzz_billing.c). */
int tutil_fuzz_billing(const uint8_t *data, size_t size, char *why,
                       size_t n);

/* The bytes as a ledger journal read back, and as records encoded,
   damaged and read back (tutil_fuzz_journal.c). */
int tutil_fuzz_journal(const uint8_t *data, size_t size, char *why,
                       size_t n);

#endif
