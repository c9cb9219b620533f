/*
** bc_write.c - the chunk writer: serializes a bc_chunk in the lua_dump
** format.  It is the exact inverse of bc_read: every value is written
** as stored, varints in their minimal form, so reading and writing
** gives back the input bytes.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"

typedef struct writer {
  uint8_t *b;
  size_t n;
  size_t cap;
  lraf_error *err;
} writer;

#define TRY(e) do { lraf_status s_ = (e); if (s_ != LRAF_OK) return s_; } while (0)

static lraf_status put(writer *w, const void *data, size_t len) {
  if (len > w->cap - w->n) {
    size_t cap = w->cap < 256 ? 256 : w->cap;
    uint8_t *nb;
    while (cap - w->n < len) {
      if (cap > SIZE_MAX / 2)
        return err_fail(w->err, LRAF_EMEM, "chunk too large to write");
      cap *= 2;
    }
    nb = realloc(w->b, cap);
    if (nb == NULL)
      return err_fail(w->err, LRAF_EMEM, "out of memory writing chunk");
    w->b = nb;
    w->cap = cap;
  }
  if (len > 0)
    memcpy(w->b + w->n, data, len);
  w->n += len;
  return LRAF_OK;
}

static lraf_status put_byte(writer *w, unsigned c) {
  uint8_t b = (uint8_t)c;
  return put(w, &b, 1);
}

/* 7 bits a byte, most significant group first, high bit on the last. */
static lraf_status put_varint(writer *w, uint64_t x) {
  uint8_t buf[10];
  size_t n = 0;
  do {
    buf[sizeof buf - ++n] = (uint8_t)(x & 0x7fu);
    x >>= 7;
  } while (x != 0);
  buf[sizeof buf - 1] |= 0x80u;
  return put(w, buf + sizeof buf - n, n);
}

static lraf_status put_int(writer *w, int x, const char *what) {
  if (x < 0)
    return err_fail(w->err, LRAF_EARG, "cannot write chunk: negative %s %d",
                    what, x);
  return put_varint(w, (uint64_t)x);
}

static lraf_status put_string(writer *w, const bc_string *s) {
  if (!s->present)
    return put_varint(w, 0);
  if (s->data == NULL && s->len > 0)
    return err_fail(w->err, LRAF_EARG, "cannot write chunk: string without "
                    "data");
  if (s->len == SIZE_MAX)
    return err_fail(w->err, LRAF_EARG, "cannot write chunk: string too long");
  TRY(put_varint(w, (uint64_t)s->len + 1));
  return put(w, s->data, s->len);
}

/* Check that an array of n elements is usable. */
static lraf_status check_array(writer *w, const void *a, int n,
                               const char *what) {
  if (n < 0 || (n > 0 && a == NULL))
    return err_fail(w->err, LRAF_EARG, "cannot write chunk: %s has size %d "
                    "and %s array", what, n, a == NULL ? "no" : "an");
  return LRAF_OK;
}

static lraf_status put_function(writer *w, const bc_proto *f);

static lraf_status put_constant(writer *w, const bc_const *k) {
  TRY(put_byte(w, (unsigned)k->tag));
  switch (k->tag) {
    case BC_TNIL: case BC_TFALSE: case BC_TTRUE:
      return LRAF_OK;
    case BC_TINT:
      return put(w, &k->i, 8);
    case BC_TFLT:
      return put(w, &k->n, 8);
    case BC_TSHRSTR: case BC_TLNGSTR:
      if (!k->s.present)
        return err_fail(w->err, LRAF_EARG, "cannot write chunk: NULL string "
                        "constant");
      return put_string(w, &k->s);
    default:
      return err_fail(w->err, LRAF_EARG, "cannot write chunk: unknown "
                      "constant tag 0x%02x", (unsigned)k->tag);
  }
}

static lraf_status put_code(writer *w, const bc_proto *f) {
  TRY(check_array(w, f->code, f->sizecode, "code"));
  TRY(put_int(w, f->sizecode, "sizecode"));
  return put(w, f->code, (size_t)f->sizecode * sizeof(bc_instr));
}

static lraf_status put_constants(writer *w, const bc_proto *f) {
  int i;
  TRY(check_array(w, f->k, f->sizek, "constants"));
  TRY(put_int(w, f->sizek, "sizek"));
  for (i = 0; i < f->sizek; i++)
    TRY(put_constant(w, &f->k[i]));
  return LRAF_OK;
}

static lraf_status put_upvalues(writer *w, const bc_proto *f) {
  int i;
  TRY(check_array(w, f->upvalues, f->sizeupvalues, "upvalues"));
  TRY(put_int(w, f->sizeupvalues, "sizeupvalues"));
  for (i = 0; i < f->sizeupvalues; i++) {
    const bc_upvaldesc *u = &f->upvalues[i];
    uint8_t b[3];
    b[0] = u->instack;
    b[1] = u->idx;
    b[2] = u->kind;
    TRY(put(w, b, 3));
  }
  return LRAF_OK;
}

static lraf_status put_protos(writer *w, const bc_proto *f) {
  int i;
  TRY(check_array(w, f->p, f->sizep, "nested functions"));
  TRY(put_int(w, f->sizep, "sizep"));
  for (i = 0; i < f->sizep; i++) {
    if (f->p[i] == NULL)
      return err_fail(w->err, LRAF_EARG, "cannot write chunk: nested "
                      "function %d is missing", i);
    TRY(put_function(w, f->p[i]));
  }
  return LRAF_OK;
}

static lraf_status put_debug(writer *w, const bc_proto *f) {
  int i;
  TRY(check_array(w, f->lineinfo, f->sizelineinfo, "lineinfo"));
  TRY(check_array(w, f->abslineinfo, f->sizeabslineinfo, "abslineinfo"));
  TRY(check_array(w, f->locvars, f->sizelocvars, "locvars"));
  TRY(check_array(w, f->upnames, f->sizeupnames, "upvalue names"));
  TRY(put_int(w, f->sizelineinfo, "sizelineinfo"));
  TRY(put(w, f->lineinfo, (size_t)f->sizelineinfo));
  TRY(put_int(w, f->sizeabslineinfo, "sizeabslineinfo"));
  for (i = 0; i < f->sizeabslineinfo; i++) {
    TRY(put_int(w, f->abslineinfo[i].pc, "abslineinfo pc"));
    TRY(put_int(w, f->abslineinfo[i].line, "abslineinfo line"));
  }
  TRY(put_int(w, f->sizelocvars, "sizelocvars"));
  for (i = 0; i < f->sizelocvars; i++) {
    TRY(put_string(w, &f->locvars[i].name));
    TRY(put_int(w, f->locvars[i].startpc, "local variable startpc"));
    TRY(put_int(w, f->locvars[i].endpc, "local variable endpc"));
  }
  TRY(put_int(w, f->sizeupnames, "sizeupnames"));
  for (i = 0; i < f->sizeupnames; i++)
    TRY(put_string(w, &f->upnames[i]));
  return LRAF_OK;
}

static lraf_status put_function(writer *w, const bc_proto *f) {
  TRY(put_string(w, &f->source));
  TRY(put_int(w, f->linedefined, "linedefined"));
  TRY(put_int(w, f->lastlinedefined, "lastlinedefined"));
  TRY(put_byte(w, f->numparams));
  TRY(put_byte(w, f->is_vararg));
  TRY(put_byte(w, f->maxstacksize));
  TRY(put_code(w, f));
  TRY(put_constants(w, f));
  TRY(put_upvalues(w, f));
  TRY(put_protos(w, f));
  return put_debug(w, f);
}

static lraf_status put_header(writer *w) {
  static const uint8_t head[] = {
    0x1b, 'L', 'u', 'a', 0x54, 0, 0x19, 0x93, '\r', '\n', 0x1a, '\n',
    4, 8, 8
  };
  int64_t luac_int = 0x5678;
  double luac_num = 370.5;
  TRY(put(w, head, sizeof head));
  TRY(put(w, &luac_int, 8));
  return put(w, &luac_num, 8);
}

lraf_status bc_write(const bc_chunk *chunk, void **data, size_t *size,
                     lraf_error *err) {
  writer w;
  lraf_status st;
  if (chunk == NULL || chunk->main == NULL || data == NULL || size == NULL)
    return err_fail(err, LRAF_EARG, "bc_write: no chunk or no output");
  w.b = NULL;
  w.n = 0;
  w.cap = 0;
  w.err = err;
  st = put_header(&w);
  if (st == LRAF_OK)
    st = put_byte(&w, chunk->nupvalues);
  if (st == LRAF_OK)
    st = put_function(&w, chunk->main);
  if (st != LRAF_OK) {
    free(w.b);
    return st;
  }
  *data = w.b;
  *size = w.n;
  return LRAF_OK;
}
