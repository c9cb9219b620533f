/*
** tutil_bb.h - a byte builder for hand-made binary chunks (the tests of
** bytecode/bc_read.c): Lua 5.4's header, lua_dump's varints and
** strings, and splicing bytes in place, so that a test knows the
** offset of every byte it writes.
*/
#ifndef TUTIL_BB_H
#define TUTIL_BB_H

#include <stddef.h>
#include <stdint.h>

#define TUTIL_BB_MARKS 2048

typedef struct tutil_bb {
  uint8_t *d;          /* malloc'ed; free it */
  size_t n, cap;       /* bytes written, bytes allocated */
  size_t mark[TUTIL_BB_MARKS];  /* offsets the user records (e.g. where
                                   each function starts) */
  int nmark;
} tutil_bb;

/* An empty builder over cap zero-filled bytes (cap exactly). */
void tutil_bb_init(tutil_bb *b, size_t cap);
/* Room for len more bytes (the buffer grows). */
void tutil_bb_reserve(tutil_bb *b, size_t len);
void tutil_bb_put(tutil_bb *b, const void *p, size_t len);
void tutil_bb_byte(tutil_bb *b, unsigned c);
/* v as lua_dump's minimal varint (7 bits a byte, most significant
   first, the high bit on the last) into buf; its length. */
size_t tutil_bb_encode(uint8_t *buf, uint64_t v);
void tutil_bb_varint(tutil_bb *b, uint64_t v);
/* A string as lua_dump writes it: size + 1, then the bytes; NULL is a
   size of 0. */
void tutil_bb_str(tutil_bb *b, const char *s);
/* Lua 5.4's chunk header (31 bytes: signature, version, format, data,
   sizes, the test integer and float). */
void tutil_bb_header(tutil_bb *b);
/* Replace oldlen bytes at off with the newlen bytes at p. */
void tutil_bb_splice(tutil_bb *b, size_t off, size_t oldlen, const void *p,
                     size_t newlen);
/* Replace the varint at off with the minimal encoding of v. */
void tutil_bb_set_varint(tutil_bb *b, size_t off, uint64_t v);

#endif
