/*
** test_sv_journal.c - the ledger's journal file (service/sv_journal.c):
**   - a record encodes and decodes back to every field (negative
**     instructions, empty strings, a 1000-byte note, extreme doubles),
**     in a multiple of 8 bytes; every truncation and every single-byte
**     change of a record is refused; a field over 16 MiB is refused;
**   - sv_journal_read delivers the records in order, then NULL, and
**     stops at a torn record, at zeros, at a record numbered not above
**     the one before (an older pass of the file), and at an error of
**     its callback, which it returns;
**   - on a file: what was appended before a stop comes back at the next
**     open and the file is emptied; after sv_journal_restart only the
**     newer pass comes back; close removes the file when asked; a
**     second open of a held journal says busy and leaves it alone; an
**     unopenable path is an error that names it; a journal whose
**     last holder removes it between an open's open(2) and flock(2)
**     is not the one the next open holds;
**   - a view (another process's reads) gives what was appended since
**     its last read, and all of a newer pass after a restart or of a
**     new file; a torn record not until it is whole; a held view keeps
**     the holder's next append waiting until it lets go, also when
**     there was no journal and the view made it; an unreadable
**     journal is an error that names it.
*/
#define _GNU_SOURCE   /* RTLD_NEXT */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sv.h"
#include "tutil_sh.h"

static tutil_sh sh;
static char note1000[1001];

/* Records with every field set, as a ledger appends them. */
static lraf_record samples[4];

static void make_samples(void) {
  lraf_record *r = samples;
  memset(note1000, 'n', 1000);
  note1000[1000] = '\0';
  memset(samples, 0, sizeof samples);
  r[0].key = "key-1", r[0].request_id = "req-1", r[0].tenant = "acme";
  r[0].handler = "sum.lua", r[0].model = "lraf-cost-1", r[0].outcome = "ok";
  r[0].instructions = 123456789, r[0].native = 42, r[0].memory_peak = 65536;
  r[0].reserved = 200000, r[0].status = 200;
  r[0].wall = 1e-6, r[0].cpu = 0.25, r[0].started = 1764331845.125;
  r[0].ended = 1764331845.5, r[0].event_time = 1764331845.0;
  r[0].ingest_time = 1764331846.75, r[0].note = NULL;
  /* an adjustment: negative instructions, a reason */
  r[1].key = "adj-7", r[1].request_id = "adj-7", r[1].tenant = "t\xc3\xa9";
  r[1].handler = "", r[1].model = "lraf-cost-1", r[1].outcome = "adjustment";
  r[1].instructions = -5000, r[1].status = 0, r[1].wall = 9e12;
  r[1].cpu = 9e12, r[1].started = -9e12, r[1].ended = 9e12;
  r[1].event_time = 1e-6, r[1].ingest_time = 9e12, r[1].note = "refund";
  /* empty strings and zeros everywhere */
  r[2].key = "", r[2].request_id = "", r[2].tenant = "", r[2].handler = "";
  r[2].model = "", r[2].outcome = "", r[2].note = "";
  /* extremes and a long note */
  r[3].key = "k", r[3].request_id = "r", r[3].tenant = "t", r[3].handler = "h";
  r[3].model = "m", r[3].outcome = "memory";
  r[3].instructions = INT64_MIN, r[3].native = INT64_MAX;
  r[3].memory_peak = INT64_MAX - 1, r[3].reserved = -1, r[3].status = -507;
  r[3].wall = 0.1, r[3].cpu = -0.0, r[3].started = 5e-324;
  r[3].ended = 1.7976931348623157e308, r[3].event_time = -1e-6;
  r[3].ingest_time = 123.456, r[3].note = note1000;
}

static const char *str_or_empty(const char *s) { return s != NULL ? s : ""; }

static void same_double(double a, double b, const char *what) {
  if (memcmp(&a, &b, sizeof a) != 0)
    fail_msg("%s: %.17g came back as %.17g", what, a, b);
}

/* Fail unless b holds every field of a (NULL strings read as ""). */
static void same_record(const lraf_record *a, const lraf_record *b) {
  const char *sa[7] = {a->key, a->request_id, a->tenant, a->handler,
                       a->model, a->outcome, a->note};
  const char *sb[7] = {b->key, b->request_id, b->tenant, b->handler,
                       b->model, b->outcome, b->note};
  int i;
  for (i = 0; i < 7; i++) {
    assert_non_null(sb[i]);
    assert_string_equal(str_or_empty(sa[i]), sb[i]);
  }
  assert_true(a->instructions == b->instructions);
  assert_true(a->native == b->native);
  assert_true(a->memory_peak == b->memory_peak);
  assert_true(a->reserved == b->reserved);
  assert_int_equal(a->status, b->status);
  same_double(a->wall, b->wall, "wall");
  same_double(a->cpu, b->cpu, "cpu");
  same_double(a->started, b->started, "started");
  same_double(a->ended, b->ended, "ended");
  same_double(a->event_time, b->event_time, "event_time");
  same_double(a->ingest_time, b->ingest_time, "ingest_time");
}

/* A record encoded into a new buffer numbered seq; its size in *n. */
static unsigned char *encoded(const lraf_record *r, uint64_t seq, size_t *n) {
  unsigned char *p;
  *n = sv_journal_encode(r, seq, NULL, 0);
  assert_true(*n > 0);
  p = malloc(*n);
  assert_non_null(p);
  assert_int_equal(sv_journal_encode(r, seq, p, *n), *n);
  return p;
}

/* ---- what a read delivers: copies of the records, then NULL ---- */
#define MAXREC 16
typedef struct got {
  int n;               /* records delivered */
  int ends;            /* f(ud, NULL) calls */
  int fail_at;         /* f fails on this call (0: never) */
  int calls;
  lraf_record r[MAXREC];
  char *s[MAXREC][7];  /* the copied strings */
} got;

static void got_free(got *g) {
  int i, k;
  for (i = 0; i < g->n; i++)
    for (k = 0; k < 7; k++) free(g->s[i][k]);
  memset(g, 0, sizeof *g);
}

static char *copy(const char *s) {
  char *c = strdup(s != NULL ? s : "(null)");
  assert_non_null(c);
  return c;
}

static lraf_status collect(void *ud, const lraf_record *r) {
  got *g = ud;
  lraf_record *c;
  if (++g->calls == g->fail_at) return LRAF_EIO;
  if (g->ends > 0) fail_msg("a record after the end");
  if (r == NULL) {
    g->ends++;
    return LRAF_OK;
  }
  assert_true(g->n < MAXREC);
  c = &g->r[g->n];
  *c = *r;   /* the strings point into the journal's bytes: copy them */
  c->key = g->s[g->n][0] = copy(r->key);
  c->request_id = g->s[g->n][1] = copy(r->request_id);
  c->tenant = g->s[g->n][2] = copy(r->tenant);
  c->handler = g->s[g->n][3] = copy(r->handler);
  c->model = g->s[g->n][4] = copy(r->model);
  c->outcome = g->s[g->n][5] = copy(r->outcome);
  c->note = g->s[g->n][6] = copy(r->note);
  g->n++;
  return LRAF_OK;
}

/* ---- encoding ---- */

/* CRC-32 (the polynomial of zlib and PNG), bit by bit: the format's
   checksum computed apart from sv_journal.c's table. */
static uint32_t crc32_slow(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  int k;
  while (n-- > 0)
    for (c ^= *p++, k = 0; k < 8; k++)
      c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
  return c ^ 0xffffffffu;
}

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
  p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

/* The header as sv_journal.c's comment gives it: "LRJ1", the size, the
   CRC-32 of the bytes after the first 16, a zero word, the number. */
static void test_header_as_documented(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < 4; i++) {
    size_t n;
    unsigned char *p = encoded(&samples[i], 0x0102030405060708u + i, &n);
    assert_memory_equal(p, "LRJ1", 4);
    assert_int_equal(le32(p + 4), n);
    assert_int_equal(le32(p + 8), crc32_slow(p + 16, n - 16));
    assert_int_equal(le32(p + 12), 0);
    assert_int_equal(le32(p + 16), 0x05060708u + i);
    assert_int_equal(le32(p + 20), 0x01020304u);
    free(p);
  }
}

/* The words the format says are zero (the header's fourth, the one
   after the status, the padding at the end) refused when not, even
   with the checksum made right for them. */
static void test_zero_words_checked(void **state) {
  size_t n, k;
  unsigned char *p = encoded(&samples[0], 9, &n);
  size_t at[3];
  (void)state;
  at[0] = 12;       /* the header's zero word */
  at[1] = 24 + 36;  /* after the i32 status */
  at[2] = n - 1;    /* the last byte of the padding */
  assert_int_equal(p[n - 1], 0);
  for (k = 0; k < 3; k++) {
    unsigned char *q = malloc(n);
    uint64_t seq;
    lraf_record back;
    assert_non_null(q);
    memcpy(q, p, n);
    q[at[k]] = 0x5a;
    put_le32(q + 8, crc32_slow(q + 16, n - 16));
    if (sv_journal_decode(q, n, &seq, &back) != 0)
      fail_msg("a record with byte %zu (zero in the format) set was "
               "accepted", at[k]);
    free(q);
  }
  free(p);
}

static void test_round_trip(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < 4; i++) {
    size_t n, used;
    uint64_t seq = 0;
    lraf_record back;
    unsigned char *p = encoded(&samples[i], 1000 + i, &n);
    assert_int_equal(n % 8, 0);
    used = sv_journal_decode(p, n, &seq, &back);
    assert_int_equal(used, n);
    assert_true(seq == 1000 + i);
    same_record(&samples[i], &back);
    free(p);
  }
}

/* Too small a buffer: the size comes back and nothing is written. */
static void test_encode_small_buffer(void **state) {
  unsigned char buf[2048];
  size_t n = sv_journal_encode(&samples[3], 1, NULL, 0);
  (void)state;
  assert_true(n > 1000 && n < sizeof buf);
  memset(buf, 0xa5, sizeof buf);
  assert_int_equal(sv_journal_encode(&samples[3], 1, buf, n - 1), n);
  assert_int_equal(buf[0], 0xa5);
  assert_int_equal(buf[n - 2], 0xa5);
  assert_int_equal(sv_journal_encode(&samples[3], 1, buf, sizeof buf), n);
  assert_int_equal(buf[n], 0xa5);   /* nothing past the record */
}

static void test_truncation_refused(void **state) {
  size_t i, n, k;
  (void)state;
  for (i = 0; i < 4; i++) {
    unsigned char *p = encoded(&samples[i], 7, &n);
    uint64_t seq;
    lraf_record back;
    for (k = 0; k < n; k++) {
      /* a copy of the first k bytes, so that ASan sees a read past it */
      unsigned char *cut = malloc(k > 0 ? k : 1);
      assert_non_null(cut);
      memcpy(cut, p, k);
      if (sv_journal_decode(cut, k, &seq, &back) != 0)
        fail_msg("record %zu cut to %zu of %zu bytes was accepted", i, k, n);
      free(cut);
    }
    free(p);
  }
}

static void test_byte_change_refused(void **state) {
  static const unsigned char flips[] = {0x01, 0x80, 0xff};
  size_t i, n, k, f;
  (void)state;
  for (i = 0; i < 4; i++) {
    unsigned char *p = encoded(&samples[i], 7, &n);
    uint64_t seq;
    lraf_record back;
    for (k = 0; k < n; k++)
      for (f = 0; f < sizeof flips; f++) {
        p[k] ^= flips[f];
        if (sv_journal_decode(p, n, &seq, &back) != 0)
          fail_msg("record %zu with byte %zu of %zu xor %#x was accepted", i,
                   k, n, flips[f]);
        p[k] ^= flips[f];
      }
    assert_int_equal(sv_journal_decode(p, n, &seq, &back), n);
    free(p);
  }
}

/* A record followed by other bytes: only its own are used. */
static void test_decode_ignores_what_follows(void **state) {
  size_t n;
  unsigned char *p = encoded(&samples[0], 3, &n), *q = malloc(n + 64);
  uint64_t seq;
  lraf_record back;
  (void)state;
  assert_non_null(q);
  memcpy(q, p, n);
  memset(q + n, 0x5a, 64);
  assert_int_equal(sv_journal_decode(q, n + 64, &seq, &back), n);
  same_record(&samples[0], &back);
  free(p);
  free(q);
}

static void test_field_over_16mib_refused(void **state) {
  size_t big = ((size_t)16 << 20) + 1;
  char *s = malloc(big + 1);
  lraf_record r = samples[0];
  lraf_error err;
  sv_journal *j = NULL;
  char path[128];
  int busy;
  const lraf_record *one[1] = {&r};
  (void)state;
  assert_non_null(s);
  memset(s, 'x', big);
  s[big] = '\0';
  r.note = s;
  assert_int_equal(sv_journal_encode(&r, 1, NULL, 0), 0);
  snprintf(path, sizeof path, "%s/big", sh.dir);
  assert_int_equal(sv_journal_open(path, &j, &busy, collect, NULL, &err),
                   LRAF_OK);
  assert_int_equal(sv_journal_append(j, one, 1, 1, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "16 MiB"));
  assert_int_equal(sv_journal_size(j), 0);
  sv_journal_close(j, 1);
  free(s);
}

/* ---- reading a journal's bytes ---- */

/* The samples numbered seq[0..n-1], one after another, then extra
   bytes of value fill; the size in *len and the record ends in end. */
static unsigned char *journal_of(const uint64_t *seq, int n, size_t extra,
                                 int fill, size_t *len, size_t *end) {
  unsigned char *p;
  size_t total = 0, at = 0;
  int i;
  for (i = 0; i < n; i++) total += sv_journal_encode(&samples[i % 4], 0, NULL, 0);
  p = malloc(total + extra + 1);
  assert_non_null(p);
  for (i = 0; i < n; i++) {
    at += sv_journal_encode(&samples[i % 4], seq[i], p + at, total - at);
    if (end != NULL) end[i] = at;
  }
  memset(p + at, fill, extra);
  *len = total + extra;
  return p;
}

/* Fail unless g holds the first n samples, in order, and the end. */
static void expect_samples(got *g, int n) {
  int i;
  if (g->n != n) fail_msg("%d records delivered, expected %d", g->n, n);
  for (i = 0; i < n; i++) same_record(&samples[i % 4], &g->r[i]);
  assert_int_equal(g->ends, 1);
}

static void test_read_all_in_order(void **state) {
  static const uint64_t seq[] = {1, 2, 3, 4, 5, 6};
  size_t len;
  unsigned char *p = journal_of(seq, 6, 0, 0, &len, NULL);
  got g;
  (void)state;
  memset(&g, 0, sizeof g);
  assert_int_equal(sv_journal_read(p, len, collect, &g), LRAF_OK);
  expect_samples(&g, 6);
  got_free(&g);
  free(p);
}

static void test_read_empty(void **state) {
  unsigned char none[1] = {0};
  got g;
  (void)state;
  memset(&g, 0, sizeof g);
  assert_int_equal(sv_journal_read(none, 0, collect, &g), LRAF_OK);
  assert_int_equal(g.n, 0);
  assert_int_equal(g.ends, 1);
}

/* A journal cut anywhere inside a record: the ones before it. */
static void test_read_torn(void **state) {
  static const uint64_t seq[] = {1, 2, 3, 4};
  size_t len, end[4], cut;
  unsigned char *p = journal_of(seq, 4, 0, 0, &len, end);
  (void)state;
  for (cut = 0; cut <= len; cut++) {
    got g;
    unsigned char *q = malloc(cut + 1);
    int whole = 0;
    assert_non_null(q);
    memcpy(q, p, cut);
    while (whole < 4 && end[whole] <= cut) whole++;
    memset(&g, 0, sizeof g);
    assert_int_equal(sv_journal_read(q, cut, collect, &g), LRAF_OK);
    expect_samples(&g, whole);
    got_free(&g);
    free(q);
  }
  free(p);
}

/* Zeros, or a record's bytes half overwritten, after the records. */
static void test_read_stops_at_garbage(void **state) {
  static const uint64_t seq[] = {1, 2, 3};
  static const int fills[] = {0x00, 0xff, 'L'};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof fills / sizeof fills[0]; i++) {
    size_t len;
    unsigned char *p = journal_of(seq, 3, 4096, fills[i], &len, NULL);
    got g;
    memset(&g, 0, sizeof g);
    assert_int_equal(sv_journal_read(p, len, collect, &g), LRAF_OK);
    expect_samples(&g, 3);
    got_free(&g);
    free(p);
  }
}

/* Numbers not increasing: what follows is an older pass of the file
   (the records after a restart's newer ones), or a record twice. */
static void test_read_stops_at_older_pass(void **state) {
  static const struct {
    uint64_t seq[5];
    int delivered;
  } cases[] = {
    {{6, 7, 3, 4, 5}, 2},    /* after a restart: 6, 7 over 1..5 */
    {{6, 7, 7, 8, 9}, 2},    /* a number twice */
    {{1, 2, 3, 4, 5}, 5},
    {{10, 20, 30, 31, 2}, 4},
    {{5, 1, 2, 3, 4}, 1},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t len;
    unsigned char *p = journal_of(cases[i].seq, 5, 64, 0, &len, NULL);
    got g;
    memset(&g, 0, sizeof g);
    assert_int_equal(sv_journal_read(p, len, collect, &g), LRAF_OK);
    expect_samples(&g, cases[i].delivered);
    got_free(&g);
    free(p);
  }
}

/* f's error ends the read at once and comes back; also at the end. */
static void test_read_callback_error(void **state) {
  static const uint64_t seq[] = {1, 2, 3, 4};
  size_t len;
  unsigned char *p = journal_of(seq, 4, 0, 0, &len, NULL);
  int at;
  (void)state;
  for (at = 1; at <= 5; at++) {
    got g;
    memset(&g, 0, sizeof g);
    g.fail_at = at;
    assert_int_equal(sv_journal_read(p, len, collect, &g), LRAF_EIO);
    assert_int_equal(g.calls, at);
    assert_int_equal(g.n, at - 1);
    assert_int_equal(g.ends, 0);
    got_free(&g);
  }
  free(p);
}

/* ---- the journal on file ---- */

static void path_of(char *path, size_t n, const char *name) {
  snprintf(path, n, "%s/%s", sh.dir, name);
}

static off_t file_size(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) fail_msg("%s: %s", path, strerror(errno));
  return st.st_size;
}

static sv_journal *open_ok(const char *path, got *g) {
  sv_journal *j = NULL;
  lraf_error err;
  int busy = -1;
  memset(g, 0, sizeof *g);
  if (sv_journal_open(path, &j, &busy, collect, g, &err) != LRAF_OK)
    fail_msg("sv_journal_open %s: %s", path, err.message);
  assert_int_equal(busy, 0);
  assert_non_null(j);
  return j;
}

/* Append samples[from..from+n-1] (mod 4) in one call. */
static void append_samples(sv_journal *j, int from, int n, int sync) {
  const lraf_record *r[MAXREC];
  lraf_error err;
  int64_t before = sv_journal_size(j), bytes = 0;
  int i;
  for (i = 0; i < n; i++) {
    r[i] = &samples[(from + i) % 4];
    bytes += (int64_t)sv_journal_encode(r[i], 0, NULL, 0);
  }
  if (sv_journal_append(j, r, n, sync, &err) != LRAF_OK)
    fail_msg("sv_journal_append: %s", err.message);
  assert_true(sv_journal_size(j) == before + bytes);
}

/* What a stopped run appended comes back once, and the file empties. */
static void test_reopen_after_stop(void **state) {
  char path[128];
  got g;
  sv_journal *j;
  (void)state;
  path_of(path, sizeof path, "stop");
  j = open_ok(path, &g);
  assert_int_equal(g.calls, 0);   /* a new file: nothing to replay */
  append_samples(j, 0, 3, 1);
  append_samples(j, 3, 2, 0);
  sv_journal_close(j, 0);         /* a stop: the file stays */
  assert_true(file_size(path) > 0);
  j = open_ok(path, &g);
  expect_samples(&g, 5);
  assert_int_equal(file_size(path), 0);
  got_free(&g);
  sv_journal_close(j, 0);
  j = open_ok(path, &g);          /* emptied: nothing twice */
  assert_int_equal(g.n, 0);
  append_samples(j, 0, 1, 1);
  sv_journal_close(j, 0);
  j = open_ok(path, &g);
  expect_samples(&g, 1);
  got_free(&g);
  sv_journal_close(j, 1);
}

/* After a restart only the newer pass comes back: shorter records
   that end inside an older one, and records of the same sizes, which
   end where an older (lower numbered) record begins. */
static void test_restart(void **state) {
  static const struct {
    int from, n;
  } newer[] = {{1, 1}, {0, 2}, {2, 3}, {0, 4}};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof newer / sizeof newer[0]; i++) {
    char path[128];
    got g;
    sv_journal *j;
    int k;
    path_of(path, sizeof path, "restart");
    j = open_ok(path, &g);
    append_samples(j, 0, 4, 1);
    append_samples(j, 0, 4, 1);
    sv_journal_restart(j);
    assert_int_equal(sv_journal_size(j), 0);
    append_samples(j, newer[i].from, newer[i].n, 1);
    sv_journal_close(j, 0);
    j = open_ok(path, &g);
    if (g.n != newer[i].n)
      fail_msg("case %zu: %d records after the restart, %d came back", i,
               newer[i].n, g.n);
    for (k = 0; k < g.n; k++)
      same_record(&samples[(newer[i].from + k) % 4], &g.r[k]);
    assert_int_equal(g.ends, 1);
    got_free(&g);
    sv_journal_close(j, 1);
  }
}

static void test_close_removes(void **state) {
  char path[128];
  got g;
  sv_journal *j;
  (void)state;
  path_of(path, sizeof path, "removed");
  j = open_ok(path, &g);
  append_samples(j, 0, 2, 1);
  sv_journal_close(j, 1);
  assert_int_equal(access(path, F_OK), -1);
  assert_int_equal(errno, ENOENT);
  sv_journal_close(NULL, 1);   /* nothing to close */
}

/* A held journal: a second open says busy, replays nothing and leaves
   the file as it was. */
static void test_busy(void **state) {
  char path[128];
  got g, g2;
  sv_journal *j, *j2 = (sv_journal *)&g2;
  lraf_error err;
  int busy = 0;
  off_t size;
  (void)state;
  path_of(path, sizeof path, "busy");
  j = open_ok(path, &g);
  append_samples(j, 0, 3, 1);
  size = file_size(path);
  memset(&g2, 0, sizeof g2);
  assert_int_equal(sv_journal_open(path, &j2, &busy, collect, &g2, &err),
                   LRAF_OK);
  assert_int_equal(busy, 1);
  assert_null(j2);
  assert_int_equal(g2.calls, 0);
  assert_true(file_size(path) == size);
  append_samples(j, 3, 1, 1);   /* the holder goes on */
  sv_journal_close(j, 0);
  j = open_ok(path, &g);        /* free again: its records come back */
  expect_samples(&g, 4);
  got_free(&g);
  sv_journal_close(j, 1);
}

/* flock(2) as libc's, but the first call after the hook is set runs
   it first: what another process does between an open's open(2) and
   its flock(2). */
static void (*before_flock)(void);

int flock(int fd, int op);
int flock(int fd, int op) {
  static int (*real)(int, int);
  void (*hook)(void) = before_flock;
  if (real == NULL) *(void **)&real = dlsym(RTLD_NEXT, "flock");
  assert_non_null(real);
  before_flock = NULL;
  if (hook != NULL) hook();
  return real(fd, op);
}

static sv_journal *holder;   /* the journal's holder, stopped by the hook */
static void holder_stops(void) { sv_journal_close(holder, 1); }

/* The holder stops cleanly (its file goes) while an open waits for the
   lock: that open must hold the file the path names, not the removed
   one, so that what it appends is found by the next open. */
static void test_holder_removes_during_open(void **state) {
  char path[128];
  got g;
  sv_journal *j;
  (void)state;
  path_of(path, sizeof path, "handover");
  holder = open_ok(path, &g);
  append_samples(holder, 0, 2, 1);
  before_flock = holder_stops;
  j = open_ok(path, &g);
  assert_null(before_flock);   /* the hook ran */
  assert_int_equal(g.n, 0);    /* the holder's store had its records */
  append_samples(j, 2, 2, 1);
  sv_journal_close(j, 0);      /* a stop: its records stay */
  j = open_ok(path, &g);
  if (g.n != 2) fail_msg("%d of 2 records appended came back", g.n);
  same_record(&samples[2], &g.r[0]);
  same_record(&samples[3], &g.r[1]);
  got_free(&g);
  sv_journal_close(j, 1);
}

static void test_unopenable_path(void **state) {
  char missing[160];
  const char *paths[2];
  size_t i;
  (void)state;
  path_of(missing, sizeof missing, "no-such-dir/journal");
  paths[0] = missing;
  paths[1] = sh.dir;   /* a directory */
  for (i = 0; i < 2; i++) {
    sv_journal *j = (sv_journal *)&j;
    lraf_error err;
    int busy = -1;
    got g;
    memset(&g, 0, sizeof g);
    err.message[0] = '\0';
    assert_int_equal(sv_journal_open(paths[i], &j, &busy, collect, &g, &err),
                     LRAF_EIO);
    assert_null(j);
    assert_int_equal(busy, 0);
    assert_int_equal(g.calls, 0);
    if (strstr(err.message, paths[i]) == NULL)
      fail_msg("the error does not name %s: %s", paths[i], err.message);
  }
}

/* The callback fails during the replay: the open fails with its
   status and the records stay for the next open. */
static void test_replay_error_keeps_records(void **state) {
  char path[128];
  got g;
  sv_journal *j = NULL;
  lraf_error err;
  int busy;
  (void)state;
  path_of(path, sizeof path, "replay-error");
  j = open_ok(path, &g);
  append_samples(j, 0, 3, 1);
  sv_journal_close(j, 0);
  memset(&g, 0, sizeof g);
  g.fail_at = 2;
  assert_int_equal(sv_journal_open(path, &j, &busy, collect, &g, &err),
                   LRAF_EIO);
  assert_null(j);
  got_free(&g);
  j = open_ok(path, &g);
  expect_samples(&g, 3);
  got_free(&g);
  sv_journal_close(j, 1);
}

/* ---- the journal seen from another process ---- */

/* A read of v gives samples [from, from + n) (mod 4), then its end. */
static void view_expect(sv_journal_view *v, int from, int n,
                        const char *when) {
  got g;
  lraf_error err;
  int k;
  memset(&g, 0, sizeof g);
  if (sv_journal_view_read(v, 0, collect, &g, &err) != LRAF_OK)
    fail_msg("%s: %s", when, err.message);
  if (g.n != n) fail_msg("%s: %d records read, %d expected", when, g.n, n);
  for (k = 0; k < n; k++) same_record(&samples[(from + k) % 4], &g.r[k]);
  assert_int_equal(g.ends, 1);
  got_free(&g);
}

/* Each read gives what was appended since the one before; after a
   restart, another file, or none, what there is now. */
static void test_view_reads_on(void **state) {
  char path[128];
  got g;
  sv_journal *j;
  sv_journal_view *v;
  (void)state;
  path_of(path, sizeof path, "view");
  v = sv_journal_view_new(path);
  assert_non_null(v);
  view_expect(v, 0, 0, "no file");
  j = open_ok(path, &g);
  view_expect(v, 0, 0, "an empty file");
  append_samples(j, 0, 3, 1);
  view_expect(v, 0, 3, "three appended");
  view_expect(v, 0, 0, "nothing since");
  append_samples(j, 3, 2, 0);
  view_expect(v, 3, 2, "two more");
  sv_journal_restart(j);
  append_samples(j, 1, 1, 1);
  view_expect(v, 1, 1, "after a restart");
  append_samples(j, 2, 3, 1);
  view_expect(v, 2, 3, "after a restart, more");
  sv_journal_close(j, 1);
  view_expect(v, 0, 0, "removed");
  j = open_ok(path, &g);   /* another holder, another file */
  append_samples(j, 3, 2, 1);
  view_expect(v, 3, 2, "a new file");
  sv_journal_close(j, 0);
  view_expect(v, 0, 0, "a stopped holder's file");
  sv_journal_view_free(v);
  j = open_ok(path, &g);
  got_free(&g);
  sv_journal_close(j, 1);
}

/* Writes a journal's bytes to path, whole. */
static void write_file(const char *path, const unsigned char *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

/* A record being written is not read, and is read once whole. */
static void test_view_torn_then_whole(void **state) {
  static const uint64_t seq[] = {1, 2, 3};
  char path[128];
  size_t n, end[3];
  unsigned char *p;
  sv_journal_view *v;
  (void)state;
  path_of(path, sizeof path, "view-torn");
  p = journal_of(seq, 3, 64, 0, &n, end);
  v = sv_journal_view_new(path);
  assert_non_null(v);
  write_file(path, p, end[1] + 40);
  view_expect(v, 0, 2, "a torn third record");
  write_file(path, p, n);
  view_expect(v, 2, 1, "the third one whole");
  view_expect(v, 0, 0, "nothing since");
  sv_journal_view_free(v);
  free(p);
  unlink(path);
}

typedef struct appender {
  sv_journal *j;
  atomic_int held;
} appender;

static void *hold_journal(void *ud) {
  appender *a = ud;
  lraf_error err;
  assert_int_equal(sv_journal_hold(a->j, &err), LRAF_OK);
  atomic_store(&a->held, 1);
  sv_journal_let_go(a->j);
  return NULL;
}

/* The holder a->j waits to append until the held view v lets go; then
   both are closed. */
static void expect_append_waits(sv_journal_view *v, appender *a) {
  pthread_t th;
  atomic_init(&a->held, 0);
  assert_int_equal(pthread_create(&th, NULL, hold_journal, a), 0);
  usleep(100000);
  assert_int_equal(atomic_load(&a->held), 0);
  sv_journal_view_let_go(v);
  pthread_join(th, NULL);
  assert_int_equal(atomic_load(&a->held), 1);
  sv_journal_view_free(v);
  sv_journal_close(a->j, 1);
}

/* A held read keeps the holder from appending until it lets go. */
static void test_view_hold(void **state) {
  char path[128];
  got g;
  lraf_error err;
  sv_journal_view *v;
  appender a;
  (void)state;
  path_of(path, sizeof path, "view-hold");
  a.j = open_ok(path, &g);
  append_samples(a.j, 0, 2, 1);
  v = sv_journal_view_new(path);
  assert_non_null(v);
  memset(&g, 0, sizeof g);
  assert_int_equal(sv_journal_view_read(v, 1, collect, &g, &err), LRAF_OK);
  assert_int_equal(g.n, 2);
  got_free(&g);
  expect_append_waits(v, &a);
}

/* A held view of no journal makes the file: a holder that opens it
   then waits for the view before its first append. */
static void test_view_hold_makes_file(void **state) {
  char path[128];
  got g;
  lraf_error err;
  sv_journal_view *v;
  appender a;
  (void)state;
  path_of(path, sizeof path, "view-makes");
  v = sv_journal_view_new(path);
  assert_non_null(v);
  memset(&g, 0, sizeof g);
  assert_int_equal(sv_journal_view_read(v, 1, collect, &g, &err), LRAF_OK);
  assert_int_equal(g.n, 0);
  assert_int_equal(g.ends, 1);
  assert_int_equal(file_size(path), 0);
  a.j = open_ok(path, &g);
  assert_int_equal(g.calls, 0);
  expect_append_waits(v, &a);
}

/* A journal that cannot be read: an error that names it. */
static void test_view_unreadable(void **state) {
  sv_journal_view *v;
  lraf_error err;
  got g;
  (void)state;
  v = sv_journal_view_new(sh.dir);   /* a directory */
  assert_non_null(v);
  memset(&g, 0, sizeof g);
  err.message[0] = '\0';
  assert_int_equal(sv_journal_view_read(v, 0, collect, &g, &err), LRAF_EIO);
  assert_int_equal(g.calls, 0);
  if (strstr(err.message, sh.dir) == NULL)
    fail_msg("the error does not name %s: %s", sh.dir, err.message);
  sv_journal_view_free(v);
}

static int setup(void **state) {
  (void)state;
  make_samples();
  return tutil_sh_init(&sh, "journal");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_encode_small_buffer),
    cmocka_unit_test(test_header_as_documented),
    cmocka_unit_test(test_zero_words_checked),
    cmocka_unit_test(test_truncation_refused),
    cmocka_unit_test(test_byte_change_refused),
    cmocka_unit_test(test_decode_ignores_what_follows),
    cmocka_unit_test(test_field_over_16mib_refused),
    cmocka_unit_test(test_read_all_in_order),
    cmocka_unit_test(test_read_empty),
    cmocka_unit_test(test_read_torn),
    cmocka_unit_test(test_read_stops_at_garbage),
    cmocka_unit_test(test_read_stops_at_older_pass),
    cmocka_unit_test(test_read_callback_error),
    cmocka_unit_test(test_reopen_after_stop),
    cmocka_unit_test(test_restart),
    cmocka_unit_test(test_close_removes),
    cmocka_unit_test(test_busy),
    cmocka_unit_test(test_unopenable_path),
    cmocka_unit_test(test_holder_removes_during_open),
    cmocka_unit_test(test_replay_error_keeps_records),
    cmocka_unit_test(test_view_reads_on),
    cmocka_unit_test(test_view_torn_then_whole),
    cmocka_unit_test(test_view_hold),
    cmocka_unit_test(test_view_hold_makes_file),
    cmocka_unit_test(test_view_unreadable),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
