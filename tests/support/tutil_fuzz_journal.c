/*
** tutil_fuzz_journal.c - what fuzz_journal does with one input
** (the ledger's journal, service/sv_journal.c).
**
** 1. The bytes as a journal file: sv_journal_read over them.  It must
**    deliver exactly the records that sv_journal_decode finds walking
**    the bytes while their numbers increase, then NULL; each one must
**    encode again (sv_journal_encode under its number) to the very
**    bytes it was read from, and decode from those to the same fields.
** 2. The bytes as a recipe: 1 to 6 records of arbitrary fields (strings
**    of any byte but NUL, any integers, any doubles' bits), encoded one
**    after another, then one damage: none, a cut at any length, one
**    byte changed anywhere, an older pass after them (numbered lower or
**    the same), or the callback failing at one call.  The read must
**    deliver the records before the damage with every field intact,
**    then NULL (or return the callback's error at once).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sv.h"
#include "tutil_fuzz.h"

#define NREC 6
#define NSTR 7

/* ---- comparing records ---- */

static void strings_of(const lraf_record *r, const char *s[NSTR]) {
  s[0] = r->key, s[1] = r->request_id, s[2] = r->tenant;
  s[3] = r->handler, s[4] = r->model, s[5] = r->outcome, s[6] = r->note;
}

/* 0 when b holds every field of a (NULL strings as ""), doubles bit
   for bit; else -1 with the first difference in why. */
static int differ(const lraf_record *a, const lraf_record *b, char *why,
                  size_t n) {
  static const char *names[NSTR] = {"key", "request_id", "tenant", "handler",
                                    "model", "outcome", "note"};
  const char *sa[NSTR], *sb[NSTR];
  const double da[6] = {a->wall, a->cpu, a->started, a->ended,
                        a->event_time, a->ingest_time};
  const double db[6] = {b->wall, b->cpu, b->started, b->ended,
                        b->event_time, b->ingest_time};
  int i;
  strings_of(a, sa);
  strings_of(b, sb);
  for (i = 0; i < NSTR; i++)
    if (sb[i] == NULL || strcmp(sa[i] != NULL ? sa[i] : "", sb[i]) != 0) {
      snprintf(why, n, "%s changed", names[i]);
      return -1;
    }
  if (a->instructions != b->instructions || a->native != b->native ||
      a->memory_peak != b->memory_peak || a->reserved != b->reserved ||
      a->status != b->status) {
    snprintf(why, n, "an integer field changed");
    return -1;
  }
  if (memcmp(da, db, sizeof da) != 0) {
    snprintf(why, n, "a time changed");
    return -1;
  }
  return 0;
}

/* ---- 1. the bytes as a journal ---- */

typedef struct walk {
  const unsigned char *p;   /* the journal */
  size_t n, at;             /* where the next record should be */
  uint64_t last;            /* the number of the one before */
  int ended;                /* f(ud, NULL) seen */
  char *why;
  size_t whyn;
  int broken;
} walk;

static lraf_status walk_one(void *ud, const lraf_record *r) {
  walk *w = ud;
  lraf_record d, again;
  uint64_t seq, seq2;
  size_t used, size;
  unsigned char *enc;
  if (w->broken) return LRAF_EARG;
  used = sv_journal_decode(w->p + w->at, w->n - w->at, &seq, &d);
  if (r == NULL) {   /* the end: the next record must not be readable */
    w->ended = 1;
    if (used > 0 && seq > w->last) {
      snprintf(w->why, w->whyn, "read ended before the record at %zu",
               w->at);
      w->broken = 1;
    }
    return LRAF_OK;
  }
  if (used == 0 || seq <= w->last) {
    snprintf(w->why, w->whyn, "a record delivered where decode finds none "
             "(at %zu)", w->at);
    w->broken = 1;
    return LRAF_EARG;
  }
  if (differ(&d, r, w->why, w->whyn) != 0) {
    w->broken = 1;
    return LRAF_EARG;
  }
  size = sv_journal_encode(r, seq, NULL, 0);
  enc = size > 0 ? malloc(size) : NULL;
  if (size != used || enc == NULL ||
      sv_journal_encode(r, seq, enc, size) != size ||
      memcmp(enc, w->p + w->at, size) != 0) {
    snprintf(w->why, w->whyn, "the record at %zu (%zu bytes) encodes again "
             "to %zu other bytes", w->at, used, size);
    w->broken = 1;
  } else if (sv_journal_decode(enc, size, &seq2, &again) != size ||
             seq2 != seq || differ(r, &again, w->why, w->whyn) != 0) {
    if (seq2 != seq) snprintf(w->why, w->whyn, "a number changed");
    w->broken = 1;
  }
  free(enc);
  w->last = seq;
  w->at += used;
  return w->broken ? LRAF_EARG : LRAF_OK;
}

static int as_journal(const uint8_t *data, size_t size, char *why, size_t n) {
  walk w;
  lraf_status st;
  memset(&w, 0, sizeof w);
  w.p = data, w.n = size, w.why = why, w.whyn = n;
  st = sv_journal_read(data, size, walk_one, &w);
  if (w.broken) return -1;
  if (st != LRAF_OK || !w.ended) {
    snprintf(why, n, "read of %zu bytes: status %d, end %s", size, (int)st,
             w.ended ? "seen" : "not seen");
    return -1;
  }
  return 0;
}

/* ---- 2. the bytes as a recipe ---- */

typedef struct cursor {
  const uint8_t *p;
  size_t n, at;
} cursor;

static unsigned take(cursor *c) { return c->at < c->n ? c->p[c->at++] : 0; }

static uint64_t take64(cursor *c) {
  uint64_t v = 0;
  int i;
  for (i = 0; i < 8; i++) v = (v << 8) | take(c);
  return v;
}

/* A string of the input's bytes, NUL made 1; long when the top bit of
   its length byte is set. */
static char *take_string(cursor *c) {
  unsigned b = take(c);
  size_t len = b & 0x80 ? (size_t)(b & 0x7f) * 37 : b, i;
  char *s = malloc(len + 1);
  if (s == NULL) return NULL;
  for (i = 0; i < len; i++) {
    unsigned ch = c->at < c->n ? take(c) : 'a';
    s[i] = (char)(ch == 0 ? 1 : ch);
  }
  s[len] = '\0';
  return s;
}

static double take_double(cursor *c) {
  uint64_t u = take64(c);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

typedef struct recipe {
  lraf_record r[NREC];
  char *s[NREC][NSTR];
  int n;
} recipe;

static void recipe_free(recipe *rc) {
  int i, k;
  for (i = 0; i < NREC; i++)
    for (k = 0; k < NSTR; k++) free(rc->s[i][k]);
}

static int take_record(cursor *c, lraf_record *r, char *s[NSTR]) {
  int k;
  for (k = 0; k < NSTR; k++)
    if ((s[k] = take_string(c)) == NULL) return -1;
  r->key = s[0], r->request_id = s[1], r->tenant = s[2], r->handler = s[3];
  r->model = s[4], r->outcome = s[5];
  r->note = s[6][0] == '\0' && (take(c) & 1) ? NULL : s[6];
  r->instructions = (int64_t)take64(c), r->native = (int64_t)take64(c);
  r->memory_peak = (int64_t)take64(c), r->reserved = (int64_t)take64(c);
  r->status = (int)(int32_t)(uint32_t)take64(c);
  r->wall = take_double(c), r->cpu = take_double(c);
  r->started = take_double(c), r->ended = take_double(c);
  r->event_time = take_double(c), r->ingest_time = take_double(c);
  return 0;
}

typedef struct expect {
  const recipe *rc;
  int calls, fail_at, delivered, ended;
  char *why;
  size_t whyn;
  int broken;
} expect;

static lraf_status expect_one(void *ud, const lraf_record *r) {
  expect *e = ud;
  if (++e->calls == e->fail_at) return LRAF_ELIMIT;
  if (r == NULL) {
    e->ended++;
    return LRAF_OK;
  }
  if (e->ended || e->delivered >= e->rc->n) {
    snprintf(e->why, e->whyn, "a record after the last");
    e->broken = 1;
    return LRAF_EARG;
  }
  if (differ(&e->rc->r[e->delivered], r, e->why, e->whyn) != 0) {
    e->broken = 1;
    return LRAF_EARG;
  }
  e->delivered++;
  return LRAF_OK;
}

enum { D_NONE, D_CUT, D_FLIP, D_OLDER, D_FAIL, D_KINDS };

static int as_recipe(const uint8_t *data, size_t size, char *why, size_t n) {
  cursor c = {data, size, 0};
  recipe rc;
  expect e;
  unsigned head = take(&c), damage = (head >> 3) % D_KINDS;
  size_t pos = take(&c) << 8, total = 0, end[NREC], len;
  uint64_t seq[NREC], s = 0;
  unsigned char *buf = NULL;
  int i, want, rv = -1;
  lraf_status st, want_st = LRAF_OK;
  pos |= take(&c);
  memset(&rc, 0, sizeof rc);
  rc.n = 1 + (int)(head % NREC);
  for (i = 0; i < rc.n; i++) {
    if (take_record(&c, &rc.r[i], rc.s[i]) != 0) goto done;
    s += 1 + take(&c) % 3;
    seq[i] = s;
    total += sv_journal_encode(&rc.r[i], seq[i], NULL, 0);
  }
  /* room for an older pass of the same records */
  buf = malloc(2 * total + 1);
  if (buf == NULL) goto done;
  for (i = 0, len = 0; i < rc.n; i++) {
    len += sv_journal_encode(&rc.r[i], seq[i], buf + len, total - len);
    end[i] = len;
  }
  want = rc.n;
  memset(&e, 0, sizeof e);
  e.rc = &rc, e.why = why, e.whyn = n;
  switch (damage) {
  case D_CUT:
    len = pos % (total + 1);
    for (want = 0; want < rc.n && end[want] <= len; want++) {}
    break;
  case D_FLIP: {
    unsigned v = take(&c);
    size_t at = pos % total;
    buf[at] ^= (unsigned char)(v != 0 ? v : 1);
    for (want = 0; end[want] <= at; want++) {}
    break;
  }
  case D_OLDER: {   /* numbered from 1, or from the last number again */
    uint64_t from = take(&c) & 1 ? seq[rc.n - 1] : 1;
    for (i = 0; i < rc.n; i++)
      len += sv_journal_encode(&rc.r[i], from + (uint64_t)i, buf + len,
                               2 * total - len);
    break;
  }
  case D_FAIL:
    e.fail_at = 1 + (int)(pos % (size_t)(rc.n + 1));
    want = e.fail_at - 1;
    want_st = LRAF_ELIMIT;
    break;
  }
  st = sv_journal_read(buf, len, expect_one, &e);
  if (e.broken) goto done;
  if (st != want_st || e.delivered != want ||
      e.ended != (want_st == LRAF_OK)) {
    snprintf(why, n, "damage %u: %d of %d records and %d ends, status %d; "
             "expected %d records", damage, e.delivered, rc.n, e.ended,
             (int)st, want);
    goto done;
  }
  rv = 0;
done:
  if (rv != 0 && why[0] == '\0') snprintf(why, n, "out of memory");
  free(buf);
  recipe_free(&rc);
  return rv;
}

int tutil_fuzz_journal(const uint8_t *data, size_t size, char *why,
                       size_t n) {
  why[0] = '\0';
  if (as_journal(data, size, why, n) != 0) return -1;
  return as_recipe(data, size, why, n);
}
