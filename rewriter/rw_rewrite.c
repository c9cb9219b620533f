/*
** rw_rewrite.c - the rewriter's driver: walks the function tree, checks
** the limits, adds the counter and consume upvalues (stock target only:
** the lraf VM keeps its counter in the state) and rewrites each
** function's code.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw_emit.h"

#define COUNTER_NAME "(lraf counter)"
#define CONSUME_NAME "(lraf consume)"

/* The chunk's name in messages, for the functions that share its
   source: written once per chunk, not once per function. */
typedef struct srcname {
  const char *source;  /* what src names */
  char src[120];
  size_t len;          /* strlen(src) */
} srcname;

/* "function at SRC:LINE" into buf without snprintf, which costs more
   than the rest of rewriting a small function's name (n is SRC's
   length); 0 when it does not fit or line is negative (then snprintf
   writes it). */
static int name_fast(char *buf, size_t size, const char *src, size_t n,
                     int line) {
  static const char prefix[] = "function at ";
  char digits[16];
  int k = (int)sizeof digits;
  unsigned v = (unsigned)line;
  size_t m;
  if (line < 0) return 0;
  do digits[--k] = (char)('0' + v % 10); while ((v /= 10) != 0);
  m = sizeof digits - (size_t)k;
  if (sizeof prefix + n + 1 + m > size) return 0;
  memcpy(buf, prefix, sizeof prefix - 1);
  buf += sizeof prefix - 1;
  memcpy(buf, src, n);
  buf[n] = ':';
  memcpy(buf + n + 1, digits + k, m);
  buf[n + 1 + m] = '\0';
  return 1;
}

/* "main chunk of SRC" into buf (size > 0), cut as snprintf would. */
static void name_main(char *buf, size_t size, const char *src) {
  static const char prefix[] = "main chunk of ";
  size_t p = sizeof prefix - 1, n = strlen(src);
  if (p > size - 1) p = size - 1;
  memcpy(buf, prefix, p);
  if (n > size - 1 - p) n = size - 1 - p;
  memcpy(buf + p, src, n);
  buf[p + n] = '\0';
}

/* A readable name for f in messages: "main chunk of @x.lua" or
   "function at @x.lua:12". */
static void name_function(char *buf, size_t size, const bc_proto *f,
                          const char *source, int is_main, srcname *sn) {
  char *src = sn->src;
  if (sn->source != source || src[0] == '\0') {
    if (source == NULL) {
      strcpy(src, "?");
    } else if (source[0] == '=' || source[0] == '@') {  /* as snprintf
                                                          "%s" would */
      size_t n = strlen(source + 1);
      if (n > sizeof sn->src - 1) n = sizeof sn->src - 1;
      memcpy(src, source + 1, n);
      src[n] = '\0';
    } else {
      snprintf(src, sizeof sn->src, "[string \"%.*s\"]",
               (int)strcspn(source, "\n") < 60 ? (int)strcspn(source, "\n")
                                                : 60, source);
    }
    sn->source = source;
    sn->len = strlen(src);
  }
  if (is_main)
    name_main(buf, size, src);
  else if (!name_fast(buf, size, src, sn->len, f->linedefined))
    snprintf(buf, size, "function at %s:%d", src, f->linedefined);
}

static int set_name(bc_string *s, const char *text) {
  size_t len = strlen(text);
  s->data = malloc(len + 1);
  if (s->data == NULL) return 0;
  memcpy(s->data, text, len + 1);
  s->len = len;
  s->present = 1;
  return 1;
}

/* Append the counter and consume upvalues.  A nested function captures
   its parent's; main's are set by the runtime after loading. */
static lraf_status add_upvalues(bc_proto *f, int is_main, int parent_counter,
                                const char *path, lraf_error *err) {
  int n = f->sizeupvalues;
  bc_upvaldesc *uv = realloc(f->upvalues, ((size_t)n + 2) * sizeof *uv);
  if (uv == NULL)
    return err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
  f->upvalues = uv;
  uv[n].instack = uv[n + 1].instack = (uint8_t)is_main;
  uv[n].idx = (uint8_t)(is_main ? 0 : parent_counter);
  uv[n + 1].idx = (uint8_t)(is_main ? 0 : parent_counter + 1);
  uv[n].kind = uv[n + 1].kind = 0;
  f->sizeupvalues = n + 2;
  if (f->sizeupnames > 0) {
    bc_string *names = realloc(f->upnames, ((size_t)n + 2) * sizeof *names);
    if (names == NULL)
      return err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
    f->upnames = names;
    memset(&names[n], 0, 2 * sizeof *names);
    f->sizeupnames = n + 2;
    if (!set_name(&names[n], COUNTER_NAME) ||
        !set_name(&names[n + 1], CONSUME_NAME))
      return err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
  }
  return LRAF_OK;
}

/* What every function of one chunk's rewriting shares. */
typedef struct rewriting {
  const rw_options *opt;
  rw_arena arena;     /* each function's scratch, reset after it */
  srcname sn;         /* the last source named */
  rw_stats *stats;
  lraf_error *err;
} rewriting;

/* Rewrite f and its nested functions; source is the nearest source name
   above f, parent_counter the register of the counter upvalue in f's
   parent (stock target). */
static lraf_status rewrite_function(rewriting *rw, bc_proto *f, int is_main,
                                    int parent_counter, const char *source) {
  const rw_options *opt = rw->opt;
  rw_stats *stats = rw->stats;
  char path[256];
  rw_cfg cfg;
  lraf_status st;
  int counter = f->sizeupvalues, i;
  if (f->source.present)
    source = f->source.data;
  name_function(path, sizeof path, f, source, is_main, &rw->sn);
  if (f->maxstacksize >= BC_MAXREGS - 1)
    return err_fail(rw->err, LRAF_EREWRITE,
                   "%s uses %d registers; lraf needs one more and allows at "
                   "most %d", path, f->maxstacksize, BC_MAXREGS - 2);
  if (opt->target != RW_LRAVM && f->sizeupvalues >= BC_MAXUPVALS - 1)
    return err_fail(rw->err, LRAF_EREWRITE,
                   "%s has %d upvalues; lraf adds two and allows at most %d",
                   path, f->sizeupvalues, BC_MAXUPVALS - 2);
  st = rw_cfg_build(f, opt, path, &rw->arena, &cfg, rw->err);
  if (st != LRAF_OK)
    return st;
  stats->functions++;
  stats->blocks += cfg.nblocks;
  for (i = 0; i < cfg.nblocks; i++) {
    stats->folded += cfg.b[i].fold_into >= 0;
    stats->branch_folds += cfg.b[i].charges_ahead;
    stats->paid_by_preds += cfg.b[i].paid_by_preds;
  }
  st = rw_emit(f, &cfg, opt, counter, counter + 1, path, &rw->arena, stats,
               rw->err);
  rw_arena_reset(&rw->arena);  /* cfg and emit's scratch: the next one's */
  if (st == LRAF_OK && opt->target != RW_LRAVM)
    st = add_upvalues(f, is_main, parent_counter, path, rw->err);
  for (i = 0; st == LRAF_OK && i < f->sizep; i++)
    st = rewrite_function(rw, f->p[i], 0, counter, source);
  return st;
}

lraf_status rw_rewrite(bc_chunk *chunk, const rw_options *opt,
                       rw_stats *stats, lraf_error *err) {
  rw_stats local;
  rewriting rw;
  lraf_status st;
  if (stats == NULL)
    stats = &local;
  memset(stats, 0, sizeof *stats);
  if (chunk == NULL || chunk->main == NULL || opt == NULL)
    return err_fail(err, LRAF_EARG, "rw_rewrite: no chunk or options");
  if (opt->target != RW_STOCK && opt->target != RW_LRAVM)
    return err_fail(err, LRAF_EARG, "rw_rewrite: unknown target %d",
                   (int)opt->target);
  if (opt->mode == RW_WEIGHTED && opt->weights == NULL)
    return err_fail(err, LRAF_EARG, "weighted mode needs a weights table");
  rw.opt = opt;
  rw_arena_init(&rw.arena);
  rw.sn.source = NULL;
  rw.sn.src[0] = '\0';
  rw.stats = stats;
  rw.err = err;
  st = rewrite_function(&rw, chunk->main, 1, 0, NULL);
  rw_arena_free(&rw.arena);
  if (st == LRAF_OK)
    chunk->nupvalues = (uint8_t)chunk->main->sizeupvalues;
  return st;
}
