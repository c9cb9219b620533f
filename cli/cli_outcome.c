/*
** cli_outcome.c - what `lraf run` says about a run once it is over:
** the one-line stop message (quota, memory), the JSON report and the
** summary on stderr.  Counts are named by the cost model's unit:
** "instructions" (original and overhead modes), "weighted units", and
** "units" when native work is charged (instructions plus native units).
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char *cli_unit_name(lraf_mode mode, int native) {
  if (native) return "units";
  return mode == LRAF_MODE_WEIGHTED ? "weighted units" : "instructions";
}

/* The unit as a JSON value: instructions, weighted, and "+native". */
static const char *unit_key(lraf_mode mode, int native) {
  if (mode == LRAF_MODE_WEIGHTED)
    return native ? "weighted+native" : "weighted";
  return native ? "instructions+native" : "instructions";
}

void cli_stop_message(const cli_outcome *o, lraf_state *S) {
  const char *where = S ? lraf_last_where(S) : "";
  const char *at = *where ? " at " : "";
  if (*where == '\0' && o->loading) {
    at = " while loading ";
    where = o->script;
  }
  if (strcmp(o->status, "memory") == 0) {
    fprintf(stderr, "lraf: memory limit exceeded (limit %" PRId64
            " bytes)%s%s\n", o->memory, at, where);
    return;
  }
  if (o->native)
    fprintf(stderr, "lraf: quota exceeded (limit %" PRId64 " %s)%s%s; "
            "native charging was on (%s) and added %" PRId64 " units\n",
            o->limit, cli_unit_name(o->mode, 1), at, where, o->native_why,
            S ? lraf_native_units(S) : 0);
  else
    fprintf(stderr, "lraf: quota exceeded (limit %" PRId64 " %s)%s%s; "
            "native charging was off\n", o->limit,
            cli_unit_name(o->mode, 0), at, where);
}

/* ---- the threads of the state ---- */

typedef struct entry {
  int64_t id, n;
  int alive;
} entry;

typedef struct tally {
  entry *e;
  size_t n, cap;
  int64_t total;
} tally;

static void each(lraf_account *a, int64_t n, int alive, void *ud) {
  tally *t = ud;
  t->total += n;
  if (t->n == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    entry *e = realloc(t->e, cap * sizeof *e);
    if (e == NULL) return;
    t->e = e;
    t->cap = cap;
  }
  t->e[t->n].id = lraf_account_id(a);
  t->e[t->n].n = n;
  t->e[t->n].alive = alive;
  t->n++;
}

static int by_id(const void *a, const void *b) {
  int64_t x = ((const entry *)a)->id, y = ((const entry *)b)->id;
  return (x > y) - (x < y);
}

/* Every account of S, sorted by id, and the grand total (S may be
   NULL: no state was created). */
static void collect(lraf_state *S, tally *t, int64_t *rcount,
                    int64_t *rsum) {
  memset(t, 0, sizeof *t);
  *rcount = *rsum = 0;
  if (S == NULL) return;
  lraf_foreach_account(S, each, t);
  if (t->n > 1) qsort(t->e, t->n, sizeof *t->e, by_id);
  *rsum = lraf_retired(S, rcount);
  t->total += *rsum;
}

/* The length of the valid UTF-8 sequence at s (RFC 3629: no overlong
   forms, no surrogates, nothing past U+10FFFF), 0 when there is none. */
static int utf8_len(const unsigned char *s) {
  int n, i;
  unsigned long cp;
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) n = 2, cp = s[0] & 0x1f;
  else if (s[0] >= 0xe0 && s[0] <= 0xef) n = 3, cp = s[0] & 0x0f;
  else if (s[0] >= 0xf0 && s[0] <= 0xf4) n = 4, cp = s[0] & 0x07;
  else return 0;
  for (i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
      (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
    return 0;
  return n;
}

/* s as a JSON string; bytes that are not UTF-8 (a Lua error message can
   hold any) become U+FFFD, so the report stays valid JSON. */
static void json_string(FILE *f, const char *s) {
  if (s == NULL || *s == '\0') {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  while (*s) {
    unsigned char c = (unsigned char)*s;
    int n = utf8_len((const unsigned char *)s);
    if (n == 0) {
      fputs("\\ufffd", f);
      s++;
      continue;
    }
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fwrite(s, 1, (size_t)n, f);
    s += n;
  }
  fputc('"', f);
}

static void json_int(FILE *f, const char *key, int64_t v, int present) {
  if (present) fprintf(f, "  \"%s\": %" PRId64 ",\n", key, v);
  else fprintf(f, "  \"%s\": null,\n", key);
}

/* The timeline's figures (lraf.h, "Timeline"). */
static void timeline_json(FILE *f, const cli_outcome *o) {
  const lraf_timeline_summary *t = o->tsum;
  fputs("  \"timeline\": {\"file\": ", f);
  json_string(f, o->timeline);
  fprintf(f, ", \"solo_rate\": %.0f, \"share\": %.4f, \"min_share\": %.4f,"
          " \"min_share_at\": %.6f, \"cpu_share\": %.4f, "
          "\"min_cpu_share\": %.4f, \"gaps\": %" PRId64 ", \"gap_seconds\": "
          "%.6f, \"longest_gap\": %.6f, \"longest_gap_at\": %.6f, "
          "\"pause_seconds\": %.6f", t->solo_rate, t->share, t->min_share,
          t->min_share_at, t->cpu_share, t->min_cpu_share, t->gaps,
          t->gap_time, t->longest_gap, t->longest_gap_at, t->pause_time);
  if (o->expect_share > 0)
    fprintf(f, ", \"expect_share\": %.4f, \"share_ok\": %s",
            o->expect_share,
            t->min_share >= o->expect_share ? "true" : "false");
  fputs("},\n", f);
}

void cli_outcome_json(FILE *f, lraf_state *S, const cli_outcome *o) {
  tally t;
  int64_t rcount, rsum;
  size_t i, in_use = 0, peak = 0;
  collect(S, &t, &rcount, &rsum);
  if (S != NULL) lraf_memory(S, &in_use, &peak);
  fputs("{\n  \"script\": ", f);
  json_string(f, o->script);
  fprintf(f, ",\n  \"status\": \"%s\",\n  \"exit_code\": %d,\n", o->status,
          o->exit_code);
  fputs("  \"error\": ", f);
  json_string(f, o->error);
  fputs(",\n  \"stopped_at\": ", f);
  json_string(f, S ? lraf_last_where(S) : NULL);
  fprintf(f, ",\n  \"count\": %" PRId64 ",\n  \"units\": \"%s\",\n",
          t.total, unit_key(o->mode, o->native));
  fprintf(f, "  \"native_units\": %" PRId64 ",\n",
          S ? lraf_native_units(S) : 0);
  fputs("  \"model\": ", f);
  json_string(f, S ? lraf_model(S) : NULL);
  fprintf(f, ",\n  \"exact\": %s,\n  \"granularity\": %" PRId64 ",\n",
          o->exact ? "true" : "false", o->granularity);
  json_int(f, "limit", o->limit, o->limit >= 0);
  if (o->rate > 0) fprintf(f, "  \"rate\": %.17g,\n", o->rate);
  else fputs("  \"rate\": null,\n", f);
  fprintf(f, "  \"native\": %s,\n", o->native ? "true" : "false");
  fprintf(f, "  \"deterministic\": %s,\n",
          o->deterministic ? "true" : "false");
  json_int(f, "memory_limit", o->memory, o->memory >= 0);
  fprintf(f, "  \"memory_peak\": %zu,\n", peak);
  fprintf(f, "  \"wall_seconds\": %.6f,\n  \"cpu_seconds\": %.6f,\n",
          o->wall, o->cpu);
  fprintf(f, "  \"count_per_cpu_second\": %.0f,\n",
          o->cpu > 0 ? (double)t.total / o->cpu : 0.0);
  if (o->tsum != NULL) timeline_json(f, o);
  fputs("  \"threads\": [", f);
  for (i = 0; i < t.n; i++)
    fprintf(f, "%s\n    {\"id\": %" PRId64 ", \"count\": %" PRId64
            ", \"collected\": %s}", i ? "," : "", t.e[i].id, t.e[i].n,
            t.e[i].alive ? "false" : "true");
  fprintf(f, "\n  ],\n  \"threads_not_listed\": {\"threads\": %" PRId64
          ", \"count\": %" PRId64 "}\n}\n", rcount, rsum);
  free(t.e);
}

void cli_outcome_summary(FILE *f, lraf_state *S, const cli_outcome *o) {
  tally t;
  int64_t rcount, rsum, co = 0, native = S ? lraf_native_units(S) : 0;
  size_t i;
  const char *unit = cli_unit_name(o->mode, o->native);
  collect(S, &t, &rcount, &rsum);
  for (i = 0; i < t.n; i++)
    if (t.e[i].id != 0) co += t.e[i].n;
  if (o->native)
    fprintf(f, "lraf: %" PRId64 " %s (%s: %" PRId64 " %s + %" PRId64
            " native), status %s\n", t.total, unit,
            S ? lraf_model(S) : "no state", t.total - native,
            cli_unit_name(o->mode, 0), native, o->status);
  else
    fprintf(f, "lraf: %" PRId64 " %s (%s), status %s\n", t.total, unit,
            S ? lraf_model(S) : "no state", o->status);
  if (t.n > 1 || rcount > 0)
    fprintf(f, "lraf: main thread %" PRId64 ", %" PRId64
            " coroutines %" PRId64 "\n", t.total - co - rsum,
            (int64_t)t.n - 1 + rcount, co + rsum);
  fprintf(f, "lraf: wall %.3f s, cpu %.3f s, %.1f M %s per cpu second\n",
          o->wall, o->cpu, o->cpu > 0 ? (double)t.total / o->cpu / 1e6 : 0.0,
          unit);
  if (o->tsum != NULL) cli_timeline_line(f, o->timeline, o->tsum);
  free(t.e);
}
