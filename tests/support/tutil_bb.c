/*
** tutil_bb.c - the chunk byte builder of tutil_bb.h.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tutil_bb.h"

void tutil_bb_init(tutil_bb *b, size_t cap) {
  memset(b, 0, sizeof *b);
  b->d = calloc(cap ? cap : 1, 1);
  assert_non_null(b->d);
  b->cap = cap;
}

void tutil_bb_reserve(tutil_bb *b, size_t len) {
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + len) cap *= 2;
    b->d = realloc(b->d, cap);
    assert_non_null(b->d);
    b->cap = cap;
  }
}

void tutil_bb_put(tutil_bb *b, const void *p, size_t len) {
  tutil_bb_reserve(b, len);
  if (len > 0) memcpy(b->d + b->n, p, len);
  b->n += len;
}

void tutil_bb_byte(tutil_bb *b, unsigned c) {
  uint8_t x = (uint8_t)c;
  tutil_bb_put(b, &x, 1);
}

size_t tutil_bb_encode(uint8_t *buf, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0, i;
  do {
    tmp[n++] = (uint8_t)(v & 0x7f);
    v >>= 7;
  } while (v != 0);
  for (i = 0; i < n; i++) buf[i] = tmp[n - 1 - i];
  buf[n - 1] |= 0x80;
  return n;
}

void tutil_bb_varint(tutil_bb *b, uint64_t v) {
  uint8_t buf[10];
  tutil_bb_put(b, buf, tutil_bb_encode(buf, v));
}

void tutil_bb_str(tutil_bb *b, const char *s) {
  if (s == NULL) {
    tutil_bb_varint(b, 0);
  } else {
    tutil_bb_varint(b, strlen(s) + 1);
    tutil_bb_put(b, s, strlen(s));
  }
}

void tutil_bb_header(tutil_bb *b) {
  static const uint8_t head[] = {0x1b, 'L', 'u', 'a', 0x54, 0, 0x19, 0x93,
                                 '\r', '\n', 0x1a, '\n', 4, 8, 8};
  int64_t i = 0x5678;
  double n = 370.5;
  tutil_bb_put(b, head, sizeof head);
  tutil_bb_put(b, &i, 8);
  tutil_bb_put(b, &n, 8);
}

void tutil_bb_splice(tutil_bb *b, size_t off, size_t oldlen, const void *p,
                     size_t newlen) {
  size_t tail = b->n - off - oldlen;
  tutil_bb_reserve(b, newlen);
  memmove(b->d + off + newlen, b->d + off + oldlen, tail);
  memcpy(b->d + off, p, newlen);
  b->n = b->n - oldlen + newlen;
}

void tutil_bb_set_varint(tutil_bb *b, size_t off, uint64_t v) {
  uint8_t buf[10];
  size_t old = 1;
  while ((b->d[off + old - 1] & 0x80) == 0) old++;
  tutil_bb_splice(b, off, old, buf, tutil_bb_encode(buf, v));
}
