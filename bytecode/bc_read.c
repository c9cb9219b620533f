/*
** bc_read.c - the chunk reader: parses lua_dump output (a Lua 5.4
** binary chunk, stripped or not) into a bc_chunk.
**
** The input is untrusted.  Every read is bounded by the bytes left,
** every count is checked against the bytes left before anything is
** allocated, and every failure names the problem and its byte offset.
** Values are kept exactly as read, so that bc_write gives back the
** same bytes; for the same reason only minimal varints are accepted
** (lua_dump never writes any other kind).
*/
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"

const bc_limits bc_default_limits = {
  64u * 1024u * 1024u,   /* max_input */
  200,                   /* max_depth */
  100000,                /* max_functions */
  1 << 21,               /* max_code */
  1 << 22,               /* max_constants */
  32767,                 /* max_locvars: Lua's parser stops at SHRT_MAX */
  256u * 1024u * 1024u   /* max_memory */
};

/* What a string costs against max_memory beyond its bytes (the NUL and
   a rough allocator overhead). */
#define STRING_OVERHEAD 17

/* The reader recurses once per nesting level; whatever the caller's
   limit says, it never goes deeper than this. */
#define BC_HARD_MAX_DEPTH 1000

/* The smallest encodings, used to bound counts by the bytes left. */
#define MIN_INSTR 4      /* one instruction */
#define MIN_CONST 1      /* a tag */
#define MIN_UPVAL 3      /* instack, idx, kind */
#define MIN_PROTO 14     /* a function of empty strings and zero counts */
#define MIN_ABSLINE 2    /* two varints */
#define MIN_LOCVAR 3     /* a string and two varints */
#define MIN_UPNAME 1     /* a string */

typedef struct reader {
  const uint8_t *b;
  size_t size;
  size_t pos;
  int max_depth;
  int max_functions;
  int nfunctions;
  unsigned check_flags;  /* bc_check_code flags for every function */
  const bc_limits *lim;
  size_t mem;        /* bytes of model allocated so far */
  lraf_error *err;
} reader;

#define TRY(e) do { lraf_status s_ = (e); if (s_ != LRAF_OK) return s_; } while (0)

static size_t left(const reader *r) { return r->size - r->pos; }

static lraf_status bad(reader *r, const char *fmt, ...) {
  if (r->err != NULL) {
    va_list ap;
    r->err->code = LRAF_EFORMAT;
    va_start(ap, fmt);
    vsnprintf(r->err->message, sizeof r->err->message, fmt, ap);
    va_end(ap);
  }
  return LRAF_EFORMAT;
}

/* Fail unless n more bytes are available. */
static lraf_status need(reader *r, size_t n, const char *what) {
  if (n > left(r))
    return bad(r, "truncated chunk: expected %zu bytes of %s at offset %zu, "
                  "%zu left", n, what, r->pos, left(r));
  return LRAF_OK;
}

static lraf_status read_byte(reader *r, const char *what, uint8_t *v) {
  TRY(need(r, 1, what));
  *v = r->b[r->pos++];
  return LRAF_OK;
}

static lraf_status overflow(reader *r, const char *what, size_t at,
                            uint64_t limit) {
  return bad(r, "varint overflow in %s at offset %zu (more than %llu)", what,
             at, (unsigned long long)limit);
}

/* A varint: 7 bits a byte, most significant group first, the high bit
   set on the last byte.  Values above limit are rejected. */
static lraf_status read_varint(reader *r, uint64_t limit, const char *what,
                               uint64_t *v) {
  size_t start = r->pos;
  uint64_t x = 0;
  uint8_t c;
  for (;;) {
    TRY(read_byte(r, what, &c));
    if (r->pos - 1 == start && c == 0x00)
      return bad(r, "non-minimal varint for %s at offset %zu", what, start);
    if (x > (limit >> 7))  /* the shift would pass the limit */
      return overflow(r, what, start, limit);
    x = (x << 7) | (c & 0x7fu);
    if (c & 0x80u)
      break;
  }
  if (x > limit)
    return overflow(r, what, start, limit);
  *v = x;
  return LRAF_OK;
}

static lraf_status read_int(reader *r, const char *what, int *v) {
  uint64_t x;
  TRY(read_varint(r, INT_MAX, what, &x));
  *v = (int)x;
  return LRAF_OK;
}

/* A count of elements that take at least min bytes each. */
static lraf_status read_count(reader *r, size_t min, const char *what,
                              int *n) {
  size_t start = r->pos;
  TRY(read_int(r, what, n));
  if ((uint64_t)*n * min > left(r))
    return bad(r, "count %d of %s at offset %zu exceeds the %zu bytes left "
                  "(truncated chunk or corrupt count)", *n, what, start,
                  left(r));
  return LRAF_OK;
}

/* Count bytes of model against max_memory before allocating them. */
static lraf_status charge(reader *r, size_t bytes, const char *what) {
  if (bytes > r->lim->max_memory - r->mem)
    return err_fail(r->err, LRAF_ELIMIT, "reading %s at offset %zu: the "
                    "chunk model would take more than the limit of %zu bytes "
                    "of memory", what, r->pos, r->lim->max_memory);
  r->mem += bytes;
  return LRAF_OK;
}

/* A count read with read_count that must also stay within limit. */
static lraf_status check_limit(reader *r, int n, int limit, const char *what,
                               size_t at) {
  if (n > limit)
    return err_fail(r->err, LRAF_ELIMIT, "%d %s at offset %zu: a function "
                    "may have at most %d", n, what, at, limit);
  return LRAF_OK;
}

/* A zeroed array of n elements of size sz; *p stays NULL when n is 0. */
static lraf_status alloc_array(reader *r, void *p, int n, size_t sz,
                               const char *what) {
  void *a = NULL;
  if (n > 0) {
    if ((size_t)n > SIZE_MAX / sz)
      return err_fail(r->err, LRAF_ELIMIT, "array of %d elements at offset "
                      "%zu is too large", n, r->pos);
    TRY(charge(r, (size_t)n * sz, what));
    if ((a = calloc((size_t)n, sz)) == NULL)
      return err_fail(r->err, LRAF_EMEM, "out of memory reading chunk at "
                      "offset %zu", r->pos);
  }
  memcpy(p, &a, sizeof a);
  return LRAF_OK;
}

static lraf_status read_string(reader *r, const char *what, bc_string *s) {
  size_t start = r->pos;
  uint64_t n;
  size_t len;
  TRY(read_varint(r, SIZE_MAX, what, &n));
  if (n == 0)
    return LRAF_OK;  /* the NULL string: s stays zeroed */
  len = (size_t)(n - 1);
  if (len > left(r))
    return bad(r, "truncated chunk: string of %zu bytes (%s) at offset %zu, "
                  "%zu left", len, what, start, left(r));
  TRY(charge(r, len + STRING_OVERHEAD, what));
  s->data = malloc(len + 1);
  if (s->data == NULL)
    return err_fail(r->err, LRAF_EMEM, "out of memory reading %s at offset "
                    "%zu", what, start);
  memcpy(s->data, r->b + r->pos, len);
  s->data[len] = '\0';
  s->len = len;
  s->present = 1;
  r->pos += len;
  return LRAF_OK;
}

/* ---------------------------------------------------------------- */
/* Header                                                             */
/* ---------------------------------------------------------------- */

static lraf_status check_literal(reader *r, const char *lit, size_t n,
                                 const char *what, const char *msg) {
  size_t start = r->pos;
  TRY(need(r, n, what));
  if (memcmp(r->b + r->pos, lit, n) != 0)
    return bad(r, "%s at offset %zu", msg, start);
  r->pos += n;
  return LRAF_OK;
}

static lraf_status check_size(reader *r, const char *type, unsigned want) {
  uint8_t c;
  TRY(read_byte(r, "header", &c));
  if (c != want)
    return bad(r, "%s size %u not supported (lraf reads chunks with %u) at "
                  "offset %zu", type, (unsigned)c, want, r->pos - 1);
  return LRAF_OK;
}

static lraf_status read_header(reader *r) {
  uint8_t c;
  int64_t i;
  double n;
  TRY(check_literal(r, "\x1bLua", 4, "signature",
                    "bad signature (not a Lua binary chunk)"));
  TRY(read_byte(r, "version", &c));
  if (c != 0x54)
    return bad(r, "version 0x%02x not supported (lraf reads Lua 5.4 chunks, "
                  "0x54) at offset %zu", (unsigned)c, r->pos - 1);
  TRY(read_byte(r, "format", &c));
  if (c != 0)
    return bad(r, "format %u not supported (lraf reads the official format "
                  "0) at offset %zu", (unsigned)c, r->pos - 1);
  TRY(check_literal(r, "\x19\x93\r\n\x1a\n", 6, "LUAC_DATA",
                    "corrupted chunk: LUAC_DATA mismatch (text-mode "
                    "conversion?)"));
  TRY(check_size(r, "Instruction", 4));
  TRY(check_size(r, "lua_Integer", 8));
  TRY(check_size(r, "lua_Number", 8));
  TRY(need(r, 8, "LUAC_INT"));
  memcpy(&i, r->b + r->pos, 8);
  if (i != 0x5678)
    return bad(r, "integer format mismatch at offset %zu: LUAC_INT reads as "
                  "0x%llx, not 0x5678 (other byte order?)", r->pos,
                  (unsigned long long)i);
  r->pos += 8;
  TRY(need(r, 8, "LUAC_NUM"));
  memcpy(&n, r->b + r->pos, 8);
  if (n != 370.5)
    return bad(r, "float format mismatch at offset %zu: LUAC_NUM is not "
                  "370.5 (other byte order or float format?)", r->pos);
  r->pos += 8;
  return LRAF_OK;
}

/* ---------------------------------------------------------------- */
/* Functions                                                          */
/* ---------------------------------------------------------------- */

static lraf_status read_function(reader *r, bc_proto *f, int depth,
                                 const bc_string *psource);

static lraf_status read_code(reader *r, bc_proto *f) {
  size_t at = r->pos;
  int i;
  TRY(read_count(r, MIN_INSTR, "instructions", &f->sizecode));
  TRY(check_limit(r, f->sizecode, r->lim->max_code, "instructions", at));
  TRY(alloc_array(r, &f->code, f->sizecode,
                  sizeof(bc_instr), "instructions"));
  for (i = 0; i < f->sizecode; i++) {
    memcpy(&f->code[i], r->b + r->pos, 4);
    r->pos += 4;
  }
  return LRAF_OK;
}

static lraf_status read_constant(reader *r, bc_const *k, int idx) {
  size_t start = r->pos;
  uint8_t tag;
  TRY(read_byte(r, "constant tag", &tag));
  k->tag = tag;
  switch (tag) {
    case BC_TNIL: case BC_TFALSE: case BC_TTRUE:
      return LRAF_OK;
    case BC_TINT:
      TRY(need(r, 8, "integer constant"));
      memcpy(&k->i, r->b + r->pos, 8);
      r->pos += 8;
      return LRAF_OK;
    case BC_TFLT:
      TRY(need(r, 8, "float constant"));
      memcpy(&k->n, r->b + r->pos, 8);
      r->pos += 8;
      return LRAF_OK;
    case BC_TSHRSTR: case BC_TLNGSTR:
      TRY(read_string(r, "string constant", &k->s));
      if (!k->s.present)
        return bad(r, "constant %d at offset %zu: string constant is NULL",
                   idx, start);
      return LRAF_OK;
    default:
      return bad(r, "unknown constant tag 0x%02x at offset %zu (constant %d)",
                 (unsigned)tag, start, idx);
  }
}

static lraf_status read_constants(reader *r, bc_proto *f) {
  size_t at = r->pos;
  int i;
  TRY(read_count(r, MIN_CONST, "constants", &f->sizek));
  TRY(check_limit(r, f->sizek, r->lim->max_constants, "constants", at));
  TRY(alloc_array(r, &f->k, f->sizek,
                  sizeof(bc_const), "constants"));
  for (i = 0; i < f->sizek; i++)
    TRY(read_constant(r, &f->k[i], i));
  return LRAF_OK;
}

static lraf_status read_upvalues(reader *r, bc_proto *f) {
  size_t start = r->pos;
  int i;
  TRY(read_count(r, MIN_UPVAL, "upvalues", &f->sizeupvalues));
  if (f->sizeupvalues > BC_MAXUPVALS)
    return bad(r, "%d upvalues at offset %zu: a function has at most %d",
               f->sizeupvalues, start, BC_MAXUPVALS);
  TRY(alloc_array(r, &f->upvalues, f->sizeupvalues,
                  sizeof(bc_upvaldesc), "upvalues"));
  for (i = 0; i < f->sizeupvalues; i++) {
    bc_upvaldesc *u = &f->upvalues[i];
    u->instack = r->b[r->pos];
    u->idx = r->b[r->pos + 1];
    u->kind = r->b[r->pos + 2];
    if (u->instack > 1)
      return bad(r, "upvalue %d at offset %zu: instack %u is not 0 or 1", i,
                 r->pos, (unsigned)u->instack);
    if (u->kind > 3)
      return bad(r, "upvalue %d at offset %zu: kind %u is not 0..3", i,
                 r->pos + 2, (unsigned)u->kind);
    r->pos += 3;
  }
  return LRAF_OK;
}

static lraf_status read_protos(reader *r, bc_proto *f, int depth,
                               const bc_string *source) {
  int i;
  TRY(read_count(r, MIN_PROTO, "nested functions", &f->sizep));
  TRY(alloc_array(r, &f->p, f->sizep, sizeof(bc_proto *),
                  "nested functions"));
  for (i = 0; i < f->sizep; i++) {
    TRY(charge(r, sizeof(bc_proto), "a nested function"));
    f->p[i] = calloc(1, sizeof(bc_proto));
    if (f->p[i] == NULL)
      return err_fail(r->err, LRAF_EMEM, "out of memory reading chunk at "
                      "offset %zu", r->pos);
    TRY(read_function(r, f->p[i], depth + 1, source));
  }
  return LRAF_OK;
}

static lraf_status read_lineinfo(reader *r, bc_proto *f) {
  size_t start = r->pos;
  int i;
  TRY(read_int(r, "lineinfo size", &f->sizelineinfo));
  if (f->sizelineinfo != 0 && f->sizelineinfo != f->sizecode)
    return bad(r, "lineinfo size %d at offset %zu is neither 0 nor the %d "
                  "instructions", f->sizelineinfo, start, f->sizecode);
  TRY(need(r, (size_t)f->sizelineinfo, "lineinfo"));
  TRY(alloc_array(r, &f->lineinfo, f->sizelineinfo, 1, "lineinfo"));
  for (i = 0; i < f->sizelineinfo; i++) {
    int v = r->b[r->pos++];
    f->lineinfo[i] = (int8_t)(v > 127 ? v - 256 : v);
  }
  return LRAF_OK;
}

static lraf_status read_abslineinfo(reader *r, bc_proto *f) {
  size_t at = r->pos;
  int i;
  TRY(read_count(r, MIN_ABSLINE, "abslineinfo entries", &f->sizeabslineinfo));
  if (f->sizeabslineinfo > f->sizecode)
    return bad(r, "%d abslineinfo entries at offset %zu for %d instructions",
               f->sizeabslineinfo, at, f->sizecode);
  TRY(alloc_array(r, &f->abslineinfo, f->sizeabslineinfo,
                  sizeof(bc_absline), "abslineinfo"));
  for (i = 0; i < f->sizeabslineinfo; i++) {
    TRY(read_int(r, "abslineinfo pc", &f->abslineinfo[i].pc));
    TRY(read_int(r, "abslineinfo line", &f->abslineinfo[i].line));
  }
  return LRAF_OK;
}

static lraf_status read_locvars(reader *r, bc_proto *f) {
  size_t at = r->pos;
  int i;
  TRY(read_count(r, MIN_LOCVAR, "local variables", &f->sizelocvars));
  TRY(check_limit(r, f->sizelocvars, r->lim->max_locvars, "local variables",
                  at));
  TRY(alloc_array(r, &f->locvars, f->sizelocvars,
                  sizeof(bc_locvar), "local variables"));
  for (i = 0; i < f->sizelocvars; i++) {
    bc_locvar *v = &f->locvars[i];
    TRY(read_string(r, "local variable name", &v->name));
    TRY(read_int(r, "local variable startpc", &v->startpc));
    TRY(read_int(r, "local variable endpc", &v->endpc));
  }
  return LRAF_OK;
}

static lraf_status read_upnames(reader *r, bc_proto *f) {
  size_t start = r->pos;
  int i;
  TRY(read_count(r, MIN_UPNAME, "upvalue names", &f->sizeupnames));
  if (f->sizeupnames != 0 && f->sizeupnames != f->sizeupvalues)
    return bad(r, "upvalue names size %d at offset %zu is neither 0 nor the "
                  "%d upvalues", f->sizeupnames, start, f->sizeupvalues);
  TRY(alloc_array(r, &f->upnames, f->sizeupnames,
                  sizeof(bc_string), "upvalue names"));
  for (i = 0; i < f->sizeupnames; i++)
    TRY(read_string(r, "upvalue name", &f->upnames[i]));
  return LRAF_OK;
}

/* Run the structural checks of bc_check_proto on f (operands, pairs,
   jumps, line info), naming the function after its source and line,
   and add the offset where it starts. */
static lraf_status check_function(reader *r, const bc_proto *f,
                                  const bc_string *source, size_t at) {
  char path[128];
  const char *name = "?";
  lraf_error e;
  lraf_status st;
  if (source != NULL && source->present) {
    name = source->data;
    if (*name == '@' || *name == '=')
      name++;
  }
  snprintf(path, sizeof path, "<%.100s:%d>", name, f->linedefined);
  e.code = LRAF_OK;
  e.message[0] = '\0';
  st = bc_check_code(f, path, r->check_flags, &e);
  if (st != LRAF_OK && r->err != NULL) {
    r->err->code = st;
    snprintf(r->err->message, sizeof r->err->message,
             "%.400s (function at offset %zu)", e.message, at);
  }
  return st;
}

/* Read one function; psource is the source it inherits when its own
   is NULL (as Lua does when loading). */
static lraf_status read_function(reader *r, bc_proto *f, int depth,
                                 const bc_string *psource) {
  size_t at = r->pos;
  const bc_string *source;
  if (depth > r->max_depth)
    return err_fail(r->err, LRAF_ELIMIT, "function nesting deeper than %d at "
                    "offset %zu", r->max_depth, at);
  if (++r->nfunctions > r->max_functions)
    return err_fail(r->err, LRAF_ELIMIT, "more than %d functions: function "
                    "at offset %zu", r->max_functions, at);
  TRY(read_string(r, "source", &f->source));
  TRY(read_int(r, "linedefined", &f->linedefined));
  TRY(read_int(r, "lastlinedefined", &f->lastlinedefined));
  TRY(read_byte(r, "numparams", &f->numparams));
  TRY(read_byte(r, "is_vararg", &f->is_vararg));
  TRY(read_byte(r, "maxstacksize", &f->maxstacksize));
  source = f->source.present ? &f->source : psource;
  TRY(read_code(r, f));
  TRY(read_constants(r, f));
  TRY(read_upvalues(r, f));
  TRY(read_protos(r, f, depth, source));
  TRY(read_lineinfo(r, f));
  TRY(read_abslineinfo(r, f));
  TRY(read_locvars(r, f));
  TRY(read_upnames(r, f));
  return check_function(r, f, source, at);
}

static lraf_status read_chunk(reader *r, bc_chunk *c) {
  size_t at;
  TRY(read_header(r));
  at = r->pos;
  TRY(read_byte(r, "main upvalue count", &c->nupvalues));
  c->main = calloc(1, sizeof(bc_proto));
  if (c->main == NULL)
    return err_fail(r->err, LRAF_EMEM, "out of memory reading chunk");
  TRY(read_function(r, c->main, 1, NULL));
  if (c->nupvalues != c->main->sizeupvalues)
    return bad(r, "main upvalue count byte %u at offset %zu does not match "
                  "the %d upvalues of the main function",
                  (unsigned)c->nupvalues, at, c->main->sizeupvalues);
  if (r->pos != r->size)
    return bad(r, "trailing garbage: %zu bytes after the main function at "
                  "offset %zu", left(r), r->pos);
  return LRAF_OK;
}

static lraf_status read_checked(const void *data, size_t size,
                                const bc_limits *limits, unsigned flags,
                                bc_chunk **out, lraf_error *err) {
  reader r;
  bc_chunk *c;
  lraf_status st;
  if (limits == NULL)
    limits = &bc_default_limits;
  if (out == NULL || (data == NULL && size > 0))
    return err_fail(err, LRAF_EARG, "bc_read: no input or no output");
  if (size > limits->max_input)
    return err_fail(err, LRAF_ELIMIT, "input of %zu bytes exceeds the limit of "
                    "%zu bytes at offset %zu", size, limits->max_input,
                    limits->max_input);
  r.b = data;
  r.size = size;
  r.pos = 0;
  r.max_depth = limits->max_depth < BC_HARD_MAX_DEPTH ? limits->max_depth
                                                      : BC_HARD_MAX_DEPTH;
  r.max_functions = limits->max_functions;
  r.nfunctions = 0;
  r.check_flags = flags;
  r.lim = limits;
  r.mem = sizeof(bc_chunk) + sizeof(bc_proto);
  r.err = err;
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return err_fail(err, LRAF_EMEM, "out of memory reading chunk");
  st = read_chunk(&r, c);
  if (st != LRAF_OK) {
    bc_chunk_free(c);
    return st;
  }
  *out = c;
  return LRAF_OK;
}

lraf_status bc_read(const void *data, size_t size, const bc_limits *limits,
                    bc_chunk **out, lraf_error *err) {
  return read_checked(data, size, limits, 0, out, err);
}

lraf_status bc_read_rewritten(const void *data, size_t size,
                              const bc_limits *limits, bc_chunk **out,
                              lraf_error *err) {
  return read_checked(data, size, limits, BC_CHECK_REWRITTEN, out, err);
}
