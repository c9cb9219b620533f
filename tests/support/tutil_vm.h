/*
** tutil_vm.h - test helpers for the bytecode/ chunk reader and writer:
** compiling Lua source and dumping it to bytes.
*/
#ifndef TUTIL_VM_H
#define TUTIL_VM_H

#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "rw.h"

/* A malloc'ed byte buffer. */
typedef struct tutil_vm_buf {
  uint8_t *data;
  size_t size;
} tutil_vm_buf;

/* Compile src (len bytes, chunk name name) in a fresh state and dump it
   with lua_dump(strip).  Returns 1 and fills *out (free out->data) on
   success; returns 0 and puts Lua's message in msg (if not NULL, msgsize
   bytes) when the source does not compile. */
int tutil_vm_dump(const char *src, size_t len, const char *name, int strip,
                  tutil_vm_buf *out, char *msg, size_t msgsize);

/* src compiled (chunk name name, not stripped) and read into the chunk
   model by bc_read; fails the test when either step fails.  Free the
   result with bc_chunk_free. */
bc_chunk *tutil_vm_read(const char *src, const char *name);

/* src compiled (chunk name name), read into the chunk model, rewritten
   with opt (stats reset first) and verified for opt's target, by the
   loader's pipeline (rt_pipeline); fails the test when any step fails.  Free the result with bc_chunk_free. */
bc_chunk *tutil_vm_rewritten(const char *src, const char *name,
                             const rw_options *opt, rw_stats *stats);

/* A rewriting mode: exact mode, refunds (code rewritten in memory;
   without them, an offline chunk), a profile's lines, the target. */
typedef struct tutil_vm_mode {
  int exact, refunds, lines;
  rw_target target;
} tutil_vm_mode;

/* The lraf VM's default mode for code rewritten in memory, the one that
   uses its own instructions (entry charges, paying jumps). */
extern const tutil_vm_mode tutil_vm_lravm_memory;
/* The modes that keep their code, each one step from it: exact mode, a
   profile's lines, an offline chunk, the stock target. */
#define TUTIL_VM_NKEEP 4
extern const tutil_vm_mode tutil_vm_keep[TUTIL_VM_NKEEP];

/* tutil_vm_rewritten with the default options set to mode. */
bc_chunk *tutil_vm_rewritten_in(const char *src, const char *name,
                                const tutil_vm_mode *mode, rw_stats *stats);

/* The main of a suite of the lraf VM's own code in the stock build: one
   test, test_stock_build, which prints why (the stock target lacks what
   the suite tests) and is skipped.  Returns cmocka's status. */
int tutil_vm_skip_stock(const char *why);

/* Load a binary chunk in a fresh state (mode "b").  Returns 1 when
   lua_load accepts it; otherwise 0 with the message in msg. */
int tutil_vm_load(const void *data, size_t size, char *msg, size_t msgsize);

#endif
