/*
** sv_journal.c - the ledger's journal: a file the group commit appends
** its records to, made durable by one write and one fdatasync, before
** the store holds them.
**
** A record on file, little-endian, 8-byte aligned:
**   u32 magic "LRJ1", u32 size (header and payload, padded to 8),
**   u32 CRC-32 of the bytes after the header's first 16, u32 0,
**   u64 sequence number (strictly increasing in one file),
**   i64 instructions, native, memory_peak, reserved, i32 status, u32 0,
**   f64 wall, cpu, started, ended, event_time, ingest_time,
**   then key, request_id, tenant, handler, model, outcome and note, each
**   a u32 length, its bytes and a NUL; zeros up to the size.
** The file is written from offset 0 and grown a chunk of zeros at a
** time, so that an append overwrites allocated blocks and its fdatasync
** has no size to write.  Once the store has every record, the next
** append starts over at offset 0.  Reading stops at the first record
** that is not whole (a torn write, zeros) or whose number is not above
** the one before (an older pass of the file).
**
** Another process may use the store while one holds the journal: it
** reads the journal (a view) and copies into the store the records the
** store lacks.  The holder appends under a lock on the file's first
** byte (an open file description's lock, F_OFD_SETLKW) that such a
** reader takes shared when it must see no append go by.
*/
#define _GNU_SOURCE   /* F_OFD_SETLKW */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sv.h"

#define JR_MAGIC 0x314a524cu   /* "LRJ1" read little-endian */
#define JR_HEAD 24             /* magic, size, crc, 0, sequence */
#define JR_FIXED (4 * 8 + 8 + 6 * 8)
#define JR_CHUNK (1 << 20)     /* the file grows by this much */

struct sv_journal {
  int fd;
  char *path;
  int64_t pos;        /* where the next append goes */
  int64_t allocated;  /* bytes of the file written (records or zeros) */
  uint64_t seq;       /* the last record's number */
  unsigned char *buf; /* an append's encoding */
  size_t cap;
};

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  uint32_t i, c;
  int k;
  for (i = 0; i < 256; i++) {
    for (c = i, k = 0; k < 8; k++)
      c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint32_t crc32_of(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  pthread_once(&crc_once, crc_init);
  while (n-- > 0) c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

static void put_u32(unsigned char *p, uint32_t v) {
  int i;
  for (i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v) {
  int i;
  for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p) {
  uint32_t v = 0;
  int i;
  for (i = 3; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static uint64_t get_u64(const unsigned char *p) {
  uint64_t v = 0;
  int i;
  for (i = 7; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}

static uint64_t bits_of(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static double double_of(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

size_t sv_journal_encode(const lraf_record *r, uint64_t seq,
                         unsigned char *out, size_t cap) {
  lraf_record c = *r;
  const char **f[SV_TEXTS], *s[SV_TEXTS];
  size_t len[SV_TEXTS], size = JR_HEAD + JR_FIXED, at;
  int i;
  sv_record_texts(&c, f);
  for (i = 0; i < SV_TEXTS; i++) {
    s[i] = *f[i];   /* NULL (a note) is written as "" */
    len[i] = s[i] != NULL ? strlen(s[i]) : 0;
    if (len[i] > 0xffffffu) return 0;   /* far above any record's limit */
    size += 4 + len[i] + 1;
  }
  size = (size + 7) & ~(size_t)7;
  if (out == NULL || size > cap) return size;
  memset(out, 0, size);
  put_u32(out, JR_MAGIC);
  put_u32(out + 4, (uint32_t)size);
  put_u64(out + 16, seq);
  at = JR_HEAD;
  put_u64(out + at, (uint64_t)r->instructions), at += 8;
  put_u64(out + at, (uint64_t)r->native), at += 8;
  put_u64(out + at, (uint64_t)r->memory_peak), at += 8;
  put_u64(out + at, (uint64_t)r->reserved), at += 8;
  put_u32(out + at, (uint32_t)r->status), at += 8;
  put_u64(out + at, bits_of(r->wall)), at += 8;
  put_u64(out + at, bits_of(r->cpu)), at += 8;
  put_u64(out + at, bits_of(r->started)), at += 8;
  put_u64(out + at, bits_of(r->ended)), at += 8;
  put_u64(out + at, bits_of(r->event_time)), at += 8;
  put_u64(out + at, bits_of(r->ingest_time)), at += 8;
  for (i = 0; i < SV_TEXTS; i++) {
    put_u32(out + at, (uint32_t)len[i]), at += 4;
    if (len[i] > 0) memcpy(out + at, s[i], len[i]);
    at += len[i] + 1;
  }
  put_u32(out + 8, crc32_of(out + 16, size - 16));
  return size;
}

size_t sv_journal_decode(const unsigned char *p, size_t n, uint64_t *seq,
                         lraf_record *r) {
  const char **s[SV_TEXTS];
  size_t size, at;
  int i;
  if (n < JR_HEAD + JR_FIXED || get_u32(p) != JR_MAGIC) return 0;
  size = get_u32(p + 4);
  if (size < JR_HEAD + JR_FIXED || size > n || size % 8 != 0 ||
      get_u32(p + 12) != 0 || crc32_of(p + 16, size - 16) != get_u32(p + 8))
    return 0;
  memset(r, 0, sizeof *r);
  *seq = get_u64(p + 16);
  at = JR_HEAD;
  r->instructions = (int64_t)get_u64(p + at), at += 8;
  r->native = (int64_t)get_u64(p + at), at += 8;
  r->memory_peak = (int64_t)get_u64(p + at), at += 8;
  r->reserved = (int64_t)get_u64(p + at), at += 8;
  r->status = (int)(int32_t)get_u32(p + at);
  if (get_u32(p + at + 4) != 0) return 0;   /* the word after it is 0 */
  at += 8;
  r->wall = double_of(get_u64(p + at)), at += 8;
  r->cpu = double_of(get_u64(p + at)), at += 8;
  r->started = double_of(get_u64(p + at)), at += 8;
  r->ended = double_of(get_u64(p + at)), at += 8;
  r->event_time = double_of(get_u64(p + at)), at += 8;
  r->ingest_time = double_of(get_u64(p + at)), at += 8;
  sv_record_texts(r, s);
  for (i = 0; i < SV_TEXTS; i++) {
    size_t len;
    if (size - at < 4) return 0;
    len = get_u32(p + at), at += 4;
    if (len >= size - at || p[at + len] != '\0' ||
        memchr(p + at, '\0', len) != NULL)
      return 0;
    *s[i] = (const char *)(p + at);
    at += len + 1;
  }
  for (; at < size; at++)
    if (p[at] != 0) return 0;
  return size;
}

lraf_status sv_journal_read(const unsigned char *p, size_t n,
                            sv_journal_fn f, void *ud) {
  size_t at = 0, used;
  uint64_t seq, last = 0;
  lraf_record r;
  while ((used = sv_journal_decode(p + at, n - at, &seq, &r)) > 0 &&
         seq > last) {
    lraf_status st = f(ud, &r);
    if (st != LRAF_OK) return st;
    last = seq;
    at += used;
  }
  return f(ud, NULL);
}

/* The journal at path cannot do what (errno says why). */
static lraf_status path_fail(const char *path, lraf_error *err,
                             const char *what) {
  return sv_fail(err, LRAF_EIO, "ledger journal %s: cannot %s: %s", path,
                 what, strerror(errno));
}

static lraf_status io_fail(sv_journal *j, lraf_error *err, const char *what) {
  return path_fail(j->path, err, what);
}

/* Open j->path and lock it, st its status; *busy 1 when another
   process holds it.  A holder that stops removes the file before it
   lets go of the lock: the file locked must be the one the path still
   names, or an open of the path made anew after that. */
static lraf_status lock_named(sv_journal *j, struct stat *st, int *busy,
                              lraf_error *err) {
  for (;;) {
    struct stat named;
    j->fd = open(j->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (j->fd < 0) return io_fail(j, err, "open it");
    if (flock(j->fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        *busy = 1;
        return LRAF_OK;
      }
      return io_fail(j, err, "lock it");
    }
    if (fstat(j->fd, st) != 0) return io_fail(j, err, "read its size");
    if (stat(j->path, &named) == 0 && named.st_dev == st->st_dev &&
        named.st_ino == st->st_ino)
      return LRAF_OK;
    close(j->fd);   /* removed since: open what the path names now */
    j->fd = -1;
  }
}

lraf_status sv_journal_open(const char *path, sv_journal **out, int *busy,
                            sv_journal_fn f, void *ud, lraf_error *err) {
  sv_journal *j;
  struct stat st;
  unsigned char *data = NULL;
  lraf_status code = LRAF_OK;
  *out = NULL;
  *busy = 0;
  j = calloc(1, sizeof *j);
  if (j == NULL || (j->path = sv_strdup(path)) == NULL) {
    free(j);
    return sv_fail(err, LRAF_EMEM, "out of memory");
  }
  if ((code = lock_named(j, &st, busy, err)) != LRAF_OK || *busy) goto fail;
  if (st.st_size > 0) {   /* records of a run that stopped: to the store */
    size_t n = (size_t)st.st_size;
    data = mmap(NULL, n, PROT_READ, MAP_PRIVATE, j->fd, 0);
    if (data == MAP_FAILED) {
      data = NULL;
      code = io_fail(j, err, "map it");
      goto fail;
    }
    code = sv_journal_read(data, n, f, ud);
    munmap(data, n);
    if (code != LRAF_OK) goto fail;
    if (ftruncate(j->fd, 0) != 0 || fdatasync(j->fd) != 0) {
      code = io_fail(j, err, "empty it");
      goto fail;
    }
  }
  *out = j;
  return LRAF_OK;
fail:
  if (j->fd >= 0) close(j->fd);
  free(j->path);
  free(j);
  return code;
}

/* Write n bytes at off, whole. */
static int write_at(int fd, const unsigned char *p, size_t n, int64_t off) {
  while (n > 0) {
    ssize_t k = pwrite(fd, p, n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, n -= (size_t)k, off += k;
  }
  return 0;
}

/* Zeros from j->allocated until at least end. */
static int grow(sv_journal *j, int64_t end) {
  static const unsigned char zeros[65536];
  while (j->allocated < end) {
    int64_t stop = j->allocated + JR_CHUNK;
    while (j->allocated < stop) {
      if (write_at(j->fd, zeros, sizeof zeros, j->allocated) != 0) return -1;
      j->allocated += (int64_t)sizeof zeros;
    }
  }
  return 0;
}

lraf_status sv_journal_append(sv_journal *j, const lraf_record *const *r,
                              int n, int sync, lraf_error *err) {
  size_t need = 0, at = 0;
  int i;
  for (i = 0; i < n; i++) {
    size_t k = sv_journal_encode(r[i], 0, NULL, 0);
    if (k == 0)
      return sv_fail(err, LRAF_EARG, "ledger journal: a record's field is "
                     "over 16 MiB");
    need += k;
  }
  if (need > j->cap) {
    unsigned char *b = realloc(j->buf, need);
    if (b == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
    j->buf = b, j->cap = need;
  }
  for (i = 0; i < n; i++)
    at += sv_journal_encode(r[i], j->seq + 1 + (uint64_t)i, j->buf + at,
                            need - at);
  /* zeros after the records too: a read stops there */
  if (grow(j, j->pos + (int64_t)need + JR_HEAD) != 0)
    return io_fail(j, err, "grow it");
  if (write_at(j->fd, j->buf, need, j->pos) != 0)
    return io_fail(j, err, "write to it");
  if (sync && fdatasync(j->fd) != 0) return io_fail(j, err, "fdatasync it");
  j->pos += (int64_t)need;
  j->seq += (uint64_t)n;
  return LRAF_OK;
}

int64_t sv_journal_size(const sv_journal *j) { return j->pos; }

void sv_journal_restart(sv_journal *j) { j->pos = 0; }

/* Lock (type F_WRLCK or F_RDLCK) or unlock (F_UNLCK) the first byte of
   fd's file for its open file description, waiting for it. */
static int lock_first(int fd, short type) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 1;
  while (fcntl(fd, F_OFD_SETLKW, &fl) != 0)
    if (errno != EINTR) return -1;
  return 0;
}

lraf_status sv_journal_hold(sv_journal *j, lraf_error *err) {
  if (lock_first(j->fd, F_WRLCK) != 0) return io_fail(j, err, "lock it");
  return LRAF_OK;
}

void sv_journal_let_go(sv_journal *j) { lock_first(j->fd, F_UNLCK); }

void sv_journal_close(sv_journal *j, int remove) {
  if (j == NULL) return;
  if (remove) unlink(j->path);   /* the store has every record */
  close(j->fd);
  free(j->buf);
  free(j->path);
  free(j);
}

/* ---- the journal of another process ---- */

struct sv_journal_view {
  char *path;
  int fd;                          /* open from a held read until let go */
  int known;                       /* next and seq go on in that file: */
  dev_t dev;
  ino_t ino;
  unsigned char first[JR_HEAD];    /* the head of its first record then */
  int64_t next;                    /* where reading goes on */
  uint64_t seq;                    /* the last record's number */
  unsigned char *buf;
  size_t cap;
};

sv_journal_view *sv_journal_view_new(const char *path) {
  sv_journal_view *v = calloc(1, sizeof *v);
  if (v == NULL || (v->path = sv_strdup(path)) == NULL) {
    free(v);
    return NULL;
  }
  v->fd = -1;
  return v;
}

static lraf_status view_fail(sv_journal_view *v, lraf_error *err,
                             const char *what) {
  return path_fail(v->path, err, what);
}

/* Read n bytes at off into p; *got the bytes read (fewer at the end). */
static int read_at(int fd, unsigned char *p, size_t n, int64_t off,
                   size_t *got) {
  *got = 0;
  while (*got < n) {
    ssize_t k = pread(fd, p + *got, n - *got, (off_t)(off + (int64_t)*got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) break;
    *got += (size_t)k;
  }
  return 0;
}

/* Open the file the path names (v->fd -1: there is none), with its
   first byte locked shared when hold.  A held view makes the file when
   there is none, so that a holder that comes meanwhile waits for it
   before its first key check. */
static lraf_status view_open(sv_journal_view *v, int hold, lraf_error *err) {
  for (;;) {
    struct stat opened, named;
    v->fd = open(v->path, O_RDONLY | O_CLOEXEC | (hold ? O_CREAT : 0), 0600);
    if (v->fd < 0) {
      if (errno == ENOENT) return LRAF_OK;
      return view_fail(v, err, "open it");
    }
    if (!hold) return LRAF_OK;
    if (lock_first(v->fd, F_RDLCK) != 0) return view_fail(v, err, "lock it");
    /* a holder that stops removes the file: the one locked must be the
       one the path names */
    if (fstat(v->fd, &opened) != 0) return view_fail(v, err, "read it");
    if (stat(v->path, &named) == 0 && named.st_dev == opened.st_dev &&
        named.st_ino == opened.st_ino)
      return LRAF_OK;
    close(v->fd);
    v->fd = -1;
  }
}

lraf_status sv_journal_view_read(sv_journal_view *v, int hold,
                                 sv_journal_fn f, void *ud,
                                 lraf_error *err) {
  struct stat st;
  unsigned char head[JR_HEAD];
  lraf_status code;
  size_t got, at = 0, used;
  int64_t from = 0;
  uint64_t seq, last = 0;
  lraf_record r;
  sv_journal_view_let_go(v);
  if ((code = view_open(v, hold, err)) != LRAF_OK) goto done;
  if (v->fd < 0) {   /* no journal: no records held */
    v->known = 0;
    return f(ud, NULL);
  }
  if (fstat(v->fd, &st) != 0) {
    code = view_fail(v, err, "read its size");
    goto done;
  }
  if (read_at(v->fd, head, sizeof head, 0, &got) != 0) {
    code = view_fail(v, err, "read it");
    goto done;
  }
  /* the same file, not started over since (its first record would be
     another): go on after the last record read */
  if (v->known && got == sizeof head && v->dev == st.st_dev &&
      v->ino == st.st_ino && memcmp(head, v->first, sizeof head) == 0) {
    from = v->next;
    last = v->seq;
  } else {
    v->known = 1;
    v->dev = st.st_dev, v->ino = st.st_ino;
    memset(v->first, 0, sizeof v->first);
    if (got == sizeof head) memcpy(v->first, head, sizeof head);
    v->next = 0, v->seq = 0;
  }
  if (st.st_size > from) {
    size_t n = (size_t)(st.st_size - from);
    if (n > v->cap) {
      unsigned char *b = realloc(v->buf, n);
      if (b == NULL) {
        code = sv_fail(err, LRAF_EMEM, "out of memory");
        goto done;
      }
      v->buf = b, v->cap = n;
    }
    if (read_at(v->fd, v->buf, n, from, &got) != 0) {
      code = view_fail(v, err, "read it");
      goto done;
    }
    while ((used = sv_journal_decode(v->buf + at, got - at, &seq, &r)) > 0 &&
           seq > last) {
      if ((code = f(ud, &r)) != LRAF_OK) goto done;
      last = seq;
      at += used;
      v->next = from + (int64_t)at, v->seq = seq;
    }
  }
  code = f(ud, NULL);
done:
  if (code != LRAF_OK) {
    v->known = 0;   /* read it all again next time */
    sv_journal_view_let_go(v);
  } else if (!hold) {
    sv_journal_view_let_go(v);
  }
  return code;
}

void sv_journal_view_let_go(sv_journal_view *v) {
  if (v->fd >= 0) close(v->fd);   /* and its lock with it */
  v->fd = -1;
}

void sv_journal_view_free(sv_journal_view *v) {
  if (v == NULL) return;
  sv_journal_view_let_go(v);
  free(v->buf);
  free(v->path);
  free(v);
}
