/*
** fuzz_rewrite.c - libFuzzer target: reader + rewriter + verifier +
** writer (+ lua_load of the result) on arbitrary bytes.
**
** Byte-level mutations of a chunk rarely get past the reader's checks,
** so half of the mutations are made on the chunk model instead: the
** input is read, one instruction, operand, constant or function header
** field of a random function is changed, and the chunk is written
** again.  The result is usually a well-formed chunk with odd code,
** which is what the rewriter has to survive.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bc.h"
#include "tutil_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
                               unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[600];
  if (tutil_fuzz_rewrite(data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_rewrite: %s\n", why);
    abort();
  }
  return 0;
}

static uint64_t rnd_state;

static uint32_t rnd(void) {
  uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (uint32_t)((z ^ (z >> 31)) >> 16);
}

#define MAXF 256

static void collect(bc_proto *f, bc_proto **all, int *n) {
  int i;
  if (*n < MAXF) all[(*n)++] = f;
  for (i = 0; i < f->sizep; i++) collect(f->p[i], all, n);
}

/* A small value near the interesting edges of a field of size bits. */
static unsigned field_value(int bits) {
  unsigned max = (1u << bits) - 1u;
  switch (rnd() % 4) {
    case 0: return rnd() % 8;
    case 1: return max - rnd() % 8;
    case 2: return (max >> 1) + rnd() % 8 - 4;
    default: return rnd() & max;
  }
}

static void mutate_instr(bc_instr *i) {
  switch (rnd() % 8) {
    case 0: *i = bc_set_op(*i, (int)(rnd() % BC_NUM_OPCODES)); break;
    case 1: *i = bc_set_a(*i, (int)field_value(BC_SIZE_A)); break;
    case 2: *i = bc_set_b(*i, (int)field_value(BC_SIZE_B)); break;
    case 3: *i = bc_set_c(*i, (int)field_value(BC_SIZE_C)); break;
    case 4: *i = bc_set_k(*i, (int)(rnd() & 1)); break;
    case 5: *i = bc_set_bx(*i, (int)field_value(BC_SIZE_BX)); break;
    case 6: *i = bc_setfield(*i, field_value(BC_SIZE_SJ), BC_POS_SJ,
                             BC_SIZE_SJ); break;
    default: *i = rnd(); break;
  }
}

static void mutate_proto(bc_proto *f) {
  unsigned what = rnd() % 10;
  if (what < 6 && f->sizecode > 0) {
    mutate_instr(&f->code[rnd() % (unsigned)f->sizecode]);
  } else if (what == 6 && f->sizecode > 1) {
    int a = (int)(rnd() % (unsigned)f->sizecode);
    int b = (int)(rnd() % (unsigned)f->sizecode);
    bc_instr t = f->code[a];
    f->code[a] = f->code[b];
    f->code[b] = t;
  } else if (what == 7) {
    f->maxstacksize = (uint8_t)field_value(8);
  } else if (what == 8) {
    if (rnd() & 1) f->numparams = (uint8_t)field_value(8);
    else f->is_vararg = (uint8_t)(rnd() % 3);
  } else if (f->sizek > 0) {
    bc_const *k = &f->k[rnd() % (unsigned)f->sizek];
    if (k->tag == BC_TINT) k->i = (int64_t)rnd() - (1 << 30);
    else if (k->tag == BC_TFLT) k->n = (double)rnd() / 7.0;
    else if (k->tag == BC_TNIL) k->tag = BC_TTRUE;
  }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max,
                               unsigned int seed) {
  bc_chunk *c = NULL;
  bc_proto *all[MAXF];
  void *out = NULL;
  size_t outsize = 0;
  int n = 0, k, rounds;
  rnd_state = seed;
  if ((rnd() & 1) || bc_read(data, size, NULL, &c, NULL) != LRAF_OK)
    return LLVMFuzzerMutate(data, size, max);
  collect(c->main, all, &n);
  rounds = 1 + (int)(rnd() % 3);
  for (k = 0; k < rounds; k++) mutate_proto(all[rnd() % (unsigned)n]);
  if (bc_write(c, &out, &outsize, NULL) == LRAF_OK && outsize <= max) {
    memcpy(data, out, outsize);
    size = outsize;
  } else {
    size = LLVMFuzzerMutate(data, size, max);
  }
  free(out);
  bc_chunk_free(c);
  return size;
}
