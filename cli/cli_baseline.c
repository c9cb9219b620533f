/*
** cli_baseline.c - lraf bench's baselines: one JSON file per name
** under .lraf/baselines/ (docs/bench.md, docs/bench-baseline.schema.json)
** holding per benchmark its exact count, cost model, lraf version, VM
** and arguments; reading one back (every error names the file and the
** member), saving one, and comparing a run with one through the gate of
** lraf diff (cli_gate.c).
*/
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_bench.h"

int cli_baseline_name_ok(const char *name, const char **why) {
  const char *p;
  if (*name == '\0') { *why = "is empty"; return 0; }
  if (*name == '.') { *why = "starts with '.'"; return 0; }
  if (strlen(name) > 100) { *why = "is longer than 100 bytes"; return 0; }
  for (p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
          (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-')) {
      *why = "may hold only letters, digits, '.', '_' and '-'";
      return 0;
    }
  return 1;
}

void cli_baseline_path(char *buf, size_t size, const char *dir,
                       const char *name) {
  snprintf(buf, size, "%s/%s.json", dir, name);
}

/* ---- reading ---- */

typedef struct reader {
  const char *path;
  lraf_error *err;
} reader;

static lraf_status bad(reader *rd, const char *fmt, ...) {
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  rd->err->code = LRAF_EFORMAT;
  snprintf(rd->err->message, sizeof rd->err->message,
           "%s: %s (not a baseline of lraf bench --save-baseline)", rd->path,
           what);
  return LRAF_EFORMAT;
}

/* A copy of the string member key of obj; NULL (reported) when it is
   missing or not a string. */
static char *text(reader *rd, const cli_json *obj, const char *key,
                  const char *where) {
  const cli_json *v = cli_json_get(obj, key);
  char *s;
  if (v == NULL || v->kind != CLI_JSON_STRING) {
    bad(rd, "%s\"%s\": expected a string", where, key);
    return NULL;
  }
  if ((s = strdup(v->string)) == NULL) bad(rd, "out of memory");
  return s;
}

static lraf_status entry(reader *rd, const cli_json *e, int i,
                         cli_baseline_entry *be) {
  char where[48];
  const cli_json *args, *count, *a;
  int k;
  snprintf(where, sizeof where, "benchmarks[%d].", i);
  if (e->kind != CLI_JSON_OBJECT)
    return bad(rd, "benchmarks[%d]: expected an object", i);
  if ((be->name = text(rd, e, "name", where)) == NULL ||
      (be->script = text(rd, e, "script", where)) == NULL ||
      (be->model = text(rd, e, "model", where)) == NULL ||
      (be->lraf_version = text(rd, e, "lraf_version", where)) == NULL ||
      (be->vm = text(rd, e, "vm", where)) == NULL)
    return LRAF_EFORMAT;
  if (be->name[0] == '\0') return bad(rd, "%s\"name\" is empty", where);
  count = cli_json_get(e, "count");
  if (count == NULL || count->kind != CLI_JSON_NUMBER ||
      !count->is_integer || count->integer < 0)
    return bad(rd, "%s\"count\": expected an integer of at least 0", where);
  be->count = count->integer;
  args = cli_json_get(e, "args");
  if (args == NULL || args->kind != CLI_JSON_ARRAY)
    return bad(rd, "%s\"args\": expected an array of strings", where);
  if ((be->args = calloc((size_t)args->count + 1, sizeof *be->args)) == NULL)
    return bad(rd, "out of memory");
  for (a = args->child, k = 0; a != NULL; a = a->next, k++) {
    if (a->kind != CLI_JSON_STRING)
      return bad(rd, "%s\"args\"[%d]: expected a string", where, k);
    if ((be->args[k] = strdup(a->string)) == NULL)
      return bad(rd, "out of memory");
    be->nargs = k + 1;
  }
  return LRAF_OK;
}

lraf_status cli_baseline_parse(const char *text_, size_t len,
                               const char *path, cli_baseline *b,
                               lraf_error *err) {
  reader rd = {path, err};
  cli_json *root;
  const cli_json *f, *list, *e;
  lraf_status st;
  int i, j;
  memset(b, 0, sizeof *b);
  if ((st = cli_json_parse(text_, len, path, &root, err)) != LRAF_OK)
    return st;
  st = LRAF_EFORMAT;
  f = cli_json_get(root, "format");
  if (root->kind != CLI_JSON_OBJECT)
    bad(&rd, "expected an object");
  else if (f == NULL || f->kind != CLI_JSON_STRING ||
           strcmp(f->string, "lraf-baseline") != 0)
    bad(&rd, "\"format\": expected \"lraf-baseline\"");
  else if ((f = cli_json_get(root, "version")) == NULL ||
           f->kind != CLI_JSON_NUMBER || !f->is_integer || f->integer != 1)
    bad(&rd, "\"version\": expected 1 (this lraf reads version 1)");
  else if ((b->name = text(&rd, root, "name", "")) == NULL)
    ;
  else if ((list = cli_json_get(root, "benchmarks")) == NULL ||
           list->kind != CLI_JSON_ARRAY)
    bad(&rd, "\"benchmarks\": expected an array");
  else if ((b->entry = calloc((size_t)list->count + 1, sizeof *b->entry)) ==
           NULL)
    bad(&rd, "out of memory");
  else
    for (st = LRAF_OK, e = list->child; e != NULL && st == LRAF_OK;
         e = e->next) {
      st = entry(&rd, e, b->n, &b->entry[b->n]);
      b->n++;
    }
  for (i = 0; st == LRAF_OK && i < b->n; i++)
    for (j = 0; j < i && st == LRAF_OK; j++)
      if (strcmp(b->entry[i].name, b->entry[j].name) == 0)
        st = bad(&rd, "benchmarks[%d]: the name '%s' is benchmarks[%d]'s too",
                 i, b->entry[i].name, j);
  cli_json_free(root);
  if (st != LRAF_OK) cli_baseline_free(b);
  return st;
}

void cli_baseline_free(cli_baseline *b) {
  int i, k;
  for (i = 0; i < b->n; i++) {
    cli_baseline_entry *e = &b->entry[i];
    for (k = 0; k < e->nargs; k++) free(e->args[k]);
    free(e->args);
    free(e->name);
    free(e->script);
    free(e->model);
    free(e->lraf_version);
    free(e->vm);
  }
  free(b->entry);
  free(b->name);
  memset(b, 0, sizeof *b);
}

const cli_baseline_entry *cli_baseline_find(const cli_baseline *b,
                                            const char *name) {
  int i;
  for (i = 0; b != NULL && i < b->n; i++)
    if (strcmp(b->entry[i].name, name) == 0) return &b->entry[i];
  return NULL;
}

/* ---- saving ---- */

static void write_entry(FILE *f, const cli_bench_run *r, int i) {
  const cli_bench_item *it = r->res[i].item;
  int k;
  fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
  cli_json_str(f, it->name);
  fputs(", \"script\": ", f);
  cli_json_str(f, it->script);
  fputs(", \"args\": [", f);
  for (k = 0; k < it->nargs; k++) {
    if (k) fputs(", ", f);
    cli_json_str(f, it->args[k]);
  }
  fprintf(f, "],\n   \"count\": %" PRId64 ", \"unit\": ", r->res[i].count_max);
  cli_json_str(f, r->unit);
  fputs(", \"model\": ", f);
  cli_json_str(f, r->model);
  fputs(", \"lraf_version\": ", f);
  cli_json_str(f, LRAF_VERSION);
  fprintf(f, ", \"vm\": \"%s\"}", r->vm);
}

lraf_status cli_baseline_save(const cli_bench_run *r, const char *name,
                              const char *path, lraf_error *err) {
  char tmp[4200];
  FILE *f;
  int i, ok;
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  if ((f = fopen(tmp, "w")) == NULL) goto fail;
  fputs("{\"format\": \"lraf-baseline\", \"version\": 1, \"name\": ", f);
  cli_json_str(f, name);
  fputs(",\n \"benchmarks\": [", f);
  for (i = 0; i < r->n; i++) write_entry(f, r, i);
  fputs("\n ]\n}\n", f);
  ok = fflush(f) == 0 && !ferror(f);
  if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    errno = e;
    goto fail;
  }
  return LRAF_OK;
fail:
  err->code = LRAF_EIO;
  snprintf(err->message, sizeof err->message, "cannot write %s: %s", path,
           strerror(errno));
  return LRAF_EIO;
}

lraf_status cli_mkdirs(const char *dir, lraf_error *err) {
  char buf[4096];
  size_t k, n = strlen(dir);
  if (n == 0 || n >= sizeof buf) {
    errno = ENAMETOOLONG;
    goto fail;
  }
  memcpy(buf, dir, n + 1);
  for (k = 1; k <= n; k++)
    if (buf[k] == '/' || buf[k] == '\0') {
      char c = buf[k];
      buf[k] = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST) goto fail;
      buf[k] = c;
    }
  return LRAF_OK;
fail:
  err->code = LRAF_EIO;
  snprintf(err->message, sizeof err->message, "cannot make the directory "
           "%s: %s", dir, strerror(errno));
  return LRAF_EIO;
}

/* ---- comparing ---- */

void cli_bench_gate(const cli_bench_run *r, int i, cli_gate *g) {
  const cli_bench_item *it = r->res[i].item;
  *g = r->gate;
  g->on = 1;  /* a baseline always gates: by default any growth */
  if (it->threshold >= 0) g->threshold = it->threshold;
  if (it->min_change >= 0) g->min_change = it->min_change;
}

void cli_bench_judge(cli_bench_run *r) {
  int i;
  for (i = 0; i < r->n; i++) {
    const cli_baseline_entry *e =
        cli_baseline_find(r->base, r->res[i].item->name);
    cli_gate g;
    r->before[i] = e;
    r->verdict[i] = CLI_SAME;
    r->mismatch[i] = 0;
    if (e == NULL) {
      r->added += r->base != NULL;
      continue;
    }
    r->mismatch[i] = (strcmp(e->model, r->model) != 0) |
                     (strcmp(e->lraf_version, LRAF_VERSION) != 0) << 1 |
                     (strcmp(e->vm, r->vm) != 0) << 2;
    r->mismatches += r->mismatch[i] != 0;
    if (r->mismatch[i] && !r->allow_mismatch) continue;
    cli_bench_gate(r, i, &g);
    r->verdict[i] = cli_gate_judge(&g, e->count, r->res[i].count_max);
    r->regressions += r->verdict[i] == CLI_REGRESSION;
    r->improvements += r->verdict[i] == CLI_IMPROVEMENT;
    r->fails += cli_gate_fails(&g, r->verdict[i]);
  }
}

int cli_bench_removed(const cli_bench_run *r, int from) {
  int i, k;
  for (k = from; r->base != NULL && k < r->base->n; k++) {
    for (i = 0; i < r->n; i++)
      if (strcmp(r->res[i].item->name, r->base->entry[k].name) == 0) break;
    if (i == r->n) return k;
  }
  return -1;
}
