/*
** rt_hmac.c - HMAC-SHA-256 (FIPS 180-4, RFC 2104) for chunks rewritten
** offline: a host that holds a key signs what `lraf rewrite` makes and
** loads only what carries its signature, so a chunk whose accounting
** was edited is refused (rt_offline.c, rt_host_load.c).
*/
#include <string.h>

#include "rt.h"

typedef struct sha256 {
  uint32_t h[8];
  uint64_t len;          /* bytes hashed */
  unsigned char buf[64];
  size_t n;              /* bytes in buf */
} sha256;

static const uint32_t K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
  0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t ror(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

static void block(sha256 *s, const unsigned char *p) {
  uint32_t w[64], v[8], t1, t2;
  int i;
  for (i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
  for (i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  memcpy(v, s->h, sizeof v);
  for (i = 0; i < 64; i++) {
    uint32_t e = v[4], a = v[0];
    t1 = v[7] + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) +
         ((e & v[5]) ^ (~e & v[6])) + K[i] + w[i];
    t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) +
         ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));
    memmove(v + 1, v, 7 * sizeof *v);
    v[4] += t1;
    v[0] = t1 + t2;
  }
  for (i = 0; i < 8; i++) s->h[i] += v[i];
}

static void init(sha256 *s) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, h0, sizeof h0);
  s->len = 0;
  s->n = 0;
}

static void update(sha256 *s, const void *data, size_t len) {
  const unsigned char *p = data;
  s->len += len;
  while (len > 0) {
    size_t k = 64 - s->n < len ? 64 - s->n : len;
    memcpy(s->buf + s->n, p, k);
    s->n += k;
    p += k;
    len -= k;
    if (s->n == 64) {
      block(s, s->buf);
      s->n = 0;
    }
  }
}

static void final(sha256 *s, unsigned char out[32]) {
  uint64_t bits = s->len * 8;
  unsigned char pad = 0x80, len[8];
  int i;
  update(s, &pad, 1);
  pad = 0;
  while (s->n != 56) update(s, &pad, 1);
  for (i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
  update(s, len, 8);
  for (i = 0; i < 8; i++) {
    out[4 * i] = (unsigned char)(s->h[i] >> 24);
    out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
    out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
    out[4 * i + 3] = (unsigned char)s->h[i];
  }
}

void rt_hmac(const void *key, size_t keylen, const void *data, size_t len,
             unsigned char out[RT_MAC_LEN]) {
  unsigned char k[64], pad[64], inner[32];
  sha256 s;
  int i;
  memset(k, 0, sizeof k);
  if (keylen > 64) {
    init(&s);
    update(&s, key, keylen);
    final(&s, k);
  } else if (keylen > 0) {
    memcpy(k, key, keylen);
  }
  for (i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
  init(&s);
  update(&s, pad, 64);
  update(&s, data, len);
  final(&s, inner);
  for (i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
  init(&s);
  update(&s, pad, 64);
  update(&s, inner, 32);
  final(&s, out);
}

int rt_hmac_equal(const unsigned char *a, const unsigned char *b) {
  unsigned char d = 0;
  int i;
  for (i = 0; i < RT_MAC_LEN; i++) d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0;
}
