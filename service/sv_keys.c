/*
** sv_keys.c - API keys mapped to tenants (lraf_keys_*): a file of
** "TENANT sha256:HEX" lines, the keys kept only as their SHA-256, and
** the lookup of a presented key, which compares its hash with every
** entry in constant time (no early exit, no branch on the bytes).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv.h"
#include "sv_sha256.h"

#define KEYS_MAX_FILE (64 << 20)
#define PREFIX "sha256:"
#define PREFIX_LEN 7

typedef struct key_entry {
  uint8_t hash[SV_SHA256_SIZE];
  char tenant[65];
  int line;
} key_entry;

struct lraf_keys {
  key_entry *v;
  int n, cap;
  uint64_t *words;   /* the hashes packed, 4 words each, for the lookup */
};

static const char hexdigits[] = "0123456789abcdef";

void lraf_key_hash(const char *key, size_t len, char out[LRAF_KEY_HASH_SIZE]) {
  uint8_t h[SV_SHA256_SIZE];
  int i;
  sv_sha256(key, len, h);
  memcpy(out, PREFIX, PREFIX_LEN);
  for (i = 0; i < SV_SHA256_SIZE; i++) {
    out[PREFIX_LEN + 2 * i] = hexdigits[h[i] >> 4];
    out[PREFIX_LEN + 2 * i + 1] = hexdigits[h[i] & 15];
  }
  out[PREFIX_LEN + 2 * SV_SHA256_SIZE] = '\0';
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* "sha256:" and 64 hex digits, n bytes at s, into h; 0 when not. */
static int parse_hash(const char *s, size_t n, uint8_t h[SV_SHA256_SIZE]) {
  int i;
  if (n != PREFIX_LEN + 2 * SV_SHA256_SIZE || memcmp(s, PREFIX, PREFIX_LEN))
    return 0;
  for (i = 0; i < SV_SHA256_SIZE; i++) {
    int hi = hexval(s[PREFIX_LEN + 2 * i]), lo = hexval(s[PREFIX_LEN + 2 * i + 1]);
    if (hi < 0 || lo < 0) return 0;
    h[i] = (uint8_t)(hi << 4 | lo);
  }
  return 1;
}

/* 1 when a and b are equal, in a time that depends on neither. */
static unsigned same(const uint8_t *a, const uint8_t *b) {
  unsigned d = 0;
  int i;
  for (i = 0; i < SV_SHA256_SIZE; i++) d |= (unsigned)(a[i] ^ b[i]);
  return ((d - 1) >> 8) & 1;   /* d in 0..255: 1 only for 0 */
}

int lraf_key_matches(const char *key, size_t len, const char *hash) {
  uint8_t want[SV_SHA256_SIZE], got[SV_SHA256_SIZE];
  if (hash == NULL || !parse_hash(hash, strlen(hash), want)) return 0;
  sv_sha256(key, len, got);
  return (int)same(want, got);
}

static int tenant_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

static int blank(char c) { return c == ' ' || c == '\t'; }

/* One line (no '\n'), its number lineno: added to k, or an error. */
static lraf_status parse_line(lraf_keys *k, const char *name, int lineno,
                              const char *s, size_t n, lraf_error *err) {
  const char *f[3];
  size_t flen[3], i;
  int nf = 0;
  key_entry e;
  if (n > 0 && s[n - 1] == '\r') n--;
  for (i = 0; i < n && nf < 3;) {
    while (i < n && blank(s[i])) i++;
    if (i == n) break;
    if (nf == 0 && s[i] == '#') return LRAF_OK;   /* a comment */
    f[nf] = s + i;
    while (i < n && !blank(s[i])) i++;
    flen[nf] = (size_t)(s + i - f[nf]);
    nf++;
  }
  if (nf == 0) return LRAF_OK;                    /* a blank line */
  if (nf != 2)
    return sv_fail(err, LRAF_EFORMAT, "%s:%d: expected TENANT sha256:HASH "
                   "(two fields; lraf key hash TENANT prints the line)",
                   name, lineno);
  if (flen[0] > 64)
    return sv_fail(err, LRAF_EFORMAT, "%s:%d: tenant name longer than 64 "
                   "bytes", name, lineno);
  for (i = 0; i < flen[0]; i++)
    if (!tenant_char(f[0][i]))
      return sv_fail(err, LRAF_EFORMAT, "%s:%d: bad tenant name (1-64 of "
                     "A-Z a-z 0-9 _ - .)", name, lineno);
  if (!parse_hash(f[1], flen[1], e.hash))
    return sv_fail(err, LRAF_EFORMAT, "%s:%d: the key's hash is not "
                   "sha256: and 64 hex digits (lraf key hash TENANT prints "
                   "the line)", name, lineno);
  memcpy(e.tenant, f[0], flen[0]);
  e.tenant[flen[0]] = '\0';
  e.line = lineno;
  if (k->n == k->cap) {
    int cap = k->cap ? 2 * k->cap : 8;
    key_entry *v = realloc(k->v, (size_t)cap * sizeof *v);
    if (v == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
    k->v = v;
    k->cap = cap;
  }
  k->v[k->n++] = e;
  return LRAF_OK;
}

static int by_hash(const void *a, const void *b) {
  const key_entry *x = *(const key_entry *const *)a;
  const key_entry *y = *(const key_entry *const *)b;
  int c = memcmp(x->hash, y->hash, SV_SHA256_SIZE);
  return c != 0 ? c : (x->line > y->line) - (x->line < y->line);
}

/* Refuse a key given twice (the first repeat in the file is named), and
   pack the hashes for the lookup. */
static lraf_status finish(lraf_keys *k, const char *name, lraf_error *err) {
  const key_entry **sorted;
  int i, line = 0, first = 0;
  if (k->n == 0) return LRAF_OK;
  sorted = malloc((size_t)k->n * sizeof *sorted);
  k->words = malloc((size_t)k->n * SV_SHA256_SIZE);
  if (sorted == NULL || k->words == NULL) {
    free(sorted);
    return sv_fail(err, LRAF_EMEM, "out of memory");
  }
  for (i = 0; i < k->n; i++) {
    sorted[i] = &k->v[i];
    memcpy(k->words + 4 * i, k->v[i].hash, SV_SHA256_SIZE);
  }
  qsort(sorted, (size_t)k->n, sizeof *sorted, by_hash);
  for (i = 1; i < k->n; i++)
    if (memcmp(sorted[i - 1]->hash, sorted[i]->hash, SV_SHA256_SIZE) == 0 &&
        (line == 0 || sorted[i]->line < line)) {
      line = sorted[i]->line;
      first = sorted[i - 1]->line;
    }
  free(sorted);
  if (line > 0)
    return sv_fail(err, LRAF_EFORMAT, "%s:%d: the same key as line %d",
                   name, line, first);
  return LRAF_OK;
}

lraf_status lraf_keys_parse(const char *text, size_t len, const char *name,
                            lraf_keys **out, lraf_error *err) {
  lraf_keys *k;
  size_t at = 0;
  int lineno = 0;
  lraf_status st = LRAF_OK;
  *out = NULL;
  if (name == NULL) name = "keys";
  if (text == NULL && len > 0)
    return sv_fail(err, LRAF_EARG, "%s: no text", name);
  if (len > 0 && memchr(text, '\0', len) != NULL)
    return sv_fail(err, LRAF_EFORMAT, "%s: a NUL byte: not a text file",
                   name);
  k = calloc(1, sizeof *k);
  if (k == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
  while (at < len && st == LRAF_OK) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t n = nl != NULL ? (size_t)(nl - (text + at)) : len - at;
    if (++lineno == 1000000000) {
      st = sv_fail(err, LRAF_EFORMAT, "%s: too many lines", name);
      break;
    }
    st = parse_line(k, name, lineno, text + at, n, err);
    at += n + 1;
  }
  if (st == LRAF_OK) st = finish(k, name, err);
  if (st == LRAF_OK && k->n == 0)
    st = sv_fail(err, LRAF_EFORMAT, "%s: no keys (lines TENANT sha256:HASH; "
                 "lraf key hash TENANT prints one)", name);
  if (st != LRAF_OK) {
    lraf_keys_free(k);
    return st;
  }
  *out = k;
  return LRAF_OK;
}

/* The whole of f, at most KEYS_MAX_FILE bytes, in *text (free it). */
static lraf_status slurp(FILE *f, const char *path, char **text,
                         size_t *len, lraf_error *err) {
  size_t cap = 4096, n = 0;
  char *b = malloc(cap), *p;
  while (b != NULL) {
    n += fread(b + n, 1, cap - n, f);
    if (ferror(f)) {
      free(b);
      return sv_fail(err, LRAF_EIO, "cannot read %s", path);
    }
    if (n < cap) {
      *text = b;
      *len = n;
      return LRAF_OK;
    }
    if (cap > KEYS_MAX_FILE) {
      free(b);
      return sv_fail(err, LRAF_EFORMAT, "%s: larger than 64 MiB", path);
    }
    p = realloc(b, cap * 2);
    if (p == NULL) free(b);
    b = p;
    cap *= 2;
  }
  return sv_fail(err, LRAF_EMEM, "out of memory");
}

lraf_status lraf_keys_load(const char *path, lraf_keys **out,
                           lraf_error *err) {
  FILE *f;
  char *text = NULL;
  size_t len = 0;
  lraf_status st;
  *out = NULL;
  if (path == NULL) return sv_fail(err, LRAF_EARG, "no key file given");
  f = fopen(path, "rb");
  if (f == NULL)
    return sv_fail(err, LRAF_EIO, "cannot open %s: %s", path,
                   strerror(errno));
  st = slurp(f, path, &text, &len, err);
  fclose(f);
  if (st != LRAF_OK) return st;
  st = lraf_keys_parse(text, len, path, out, err);
  free(text);
  return st;
}

const char *lraf_keys_tenant(const lraf_keys *k, const char *key,
                             size_t len) {
  uint8_t h[SV_SHA256_SIZE];
  uint64_t w[4], found = UINT64_MAX, i;
  if (k == NULL || key == NULL || k->words == NULL) return NULL;
  sv_sha256(key, len, h);
  memcpy(w, h, sizeof w);
  for (i = 0; i < (uint64_t)k->n; i++) {
    const uint64_t *e = k->words + 4 * i;
    uint64_t d = (e[0] ^ w[0]) | (e[1] ^ w[1]) | (e[2] ^ w[2]) | (e[3] ^ w[3]);
    uint64_t mask = ((d | (0 - d)) >> 63) - 1;   /* all ones on a match */
    found = (found & ~mask) | (i & mask);
  }
  return found != UINT64_MAX ? k->v[found].tenant : NULL;
}

int lraf_keys_count(const lraf_keys *k) { return k != NULL ? k->n : 0; }

void lraf_keys_free(lraf_keys *k) {
  if (k == NULL) return;
  free(k->v);
  free(k->words);
  free(k);
}
