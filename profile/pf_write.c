/*
** pf_write.c - a finished profile as text: the table, folded stacks,
** Callgrind's format and JSON (the SVG is pf_svg.c).  Everything is
** written in an order fixed by the program (functions and contexts in
** the order of their first call), so that two runs of one program give
** byte-identical files.
*/
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pf.h"

int pf_format_of(const char *name, pf_format *fmt) {
  static const char *const names[] = {"table", "folded", "callgrind", "svg",
                                      "json"};
  int i;
  for (i = 0; i < 5; i++)
    if (name != NULL && strcmp(name, names[i]) == 0) {
      *fmt = (pf_format)i;
      return 1;
    }
  return 0;
}

/* The table and Callgrind's format are read line by line, and a
   terminal shows them: a control character in a name (a Lua field name
   or a chunk name can hold any byte: newline, CR, VT, FF, ESC) is
   written as ','. */
static void one_line(char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ',';
}

static double pct(int64_t n, int64_t total) {
  return total ? 100.0 * (double)n / (double)total : 0.0;
}

/* ---- table ---- */

typedef struct row {
  int64_t self, incl;
  int fn;
} row;

static int by_self(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->self != y->self) return x->self > y->self ? -1 : 1;
  if (x->incl != y->incl) return x->incl > y->incl ? -1 : 1;
  return x->fn - y->fn;
}

static int write_table(const pf_profile *P, int top, FILE *out) {
  row *order = malloc(((size_t)P->nfn + 1) * sizeof *order);
  int i;
  char name[512];
  if (order == NULL) return 0;
  for (i = 0; i < P->nfn; i++) {
    order[i].self = P->fn[i].self;
    order[i].incl = P->fn[i].incl;
    order[i].fn = i;
  }
  qsort(order, (size_t)P->nfn, sizeof *order, by_self);
  fprintf(out, "lraf profile: %" PRId64 " instructions, cost model %s\n\n",
          P->total, P->model);
  fprintf(out, "%14s %7s %14s %7s %11s  %s\n", "self", "self%", "inclusive",
          "incl%", "calls", "function");
  for (i = 0; i < P->nfn && (top <= 0 || i < top); i++) {
    const pf_func *f = &P->fn[order[i].fn];
    pf_frame_name(f, name, sizeof name);
    one_line(name);
    fprintf(out, "%14" PRId64 " %6.2f%% %14" PRId64 " %6.2f%% %11" PRId64
            "  %s\n", f->self, pct(f->self, P->total), f->incl,
            pct(f->incl, P->total), f->calls, name);
  }
  if (top > 0 && P->nfn > top)
    fprintf(out, "(%d more functions; --top 0 lists all)\n", P->nfn - top);
  free(order);
  return 1;
}

/* ---- folded stacks ---- */

/* A frame name for the folded format: ';' separates frames, so one in
   a name is written as ',', as a control character is (one_line). */
static void folded_name(const pf_profile *P, int node, char *buf,
                        size_t size) {
  char *p;
  if (P->node[node].fn < 0)
    snprintf(buf, size, "[no frame]");
  else
    pf_frame_name(&P->fn[P->node[node].fn], buf, size);
  one_line(buf);
  for (p = buf; *p; p++)
    if (*p == ';') *p = ',';
}

/* Nodes depth first, children in creation order (an explicit stack:
   recursion in the profiled program makes deep trees). */
static int each_node(const pf_profile *P,
                     void (*fn)(const pf_profile *, int, void *), void *ud) {
  int *stack = malloc(((size_t)P->nnode + 1) * sizeof *stack), sp = 0;
  if (stack == NULL) return 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int v = stack[--sp], c, k, start = sp;
    fn(P, v, ud);
    for (c = P->node[v].child; c >= 0; c = P->node[c].next) stack[sp++] = c;
    for (k = 0; k < (sp - start) / 2; k++) {  /* first child on top */
      int t = stack[start + k];
      stack[start + k] = stack[sp - 1 - k];
      stack[sp - 1 - k] = t;
    }
  }
  free(stack);
  return 1;
}

typedef struct folded {
  FILE *out;
  int *path;  /* nnode entries */
} folded;

static void folded_node(const pf_profile *P, int v, void *ud) {
  folded *fo = ud;
  char name[512];
  int n = 0, u;
  if (P->node[v].self == 0) return;
  for (u = v; u > 0 || n == 0; u = P->node[u].parent) {
    fo->path[n++] = u;
    if (u == 0) break;
  }
  while (n-- > 0) {
    folded_name(P, fo->path[n], name, sizeof name);
    fputs(name, fo->out);
    if (n > 0) fputc(';', fo->out);
  }
  fprintf(fo->out, " %" PRId64 "\n", P->node[v].self);
}

static int write_folded(const pf_profile *P, FILE *out) {
  folded fo;
  int ok;
  fo.out = out;
  fo.path = malloc(((size_t)P->nnode + 1) * sizeof *fo.path);
  if (fo.path == NULL) return 0;
  ok = each_node(P, folded_node, &fo);
  free(fo.path);
  return ok;
}

/* ---- Callgrind ---- */

/* A call line: from function from's line site to function to. */
typedef struct edge {
  int from, to, site;
  int64_t calls, incl;
} edge;

static int by_edge(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->from != y->from) return x->from - y->from;
  if (x->site != y->site) return x->site - y->site;
  return x->to - y->to;
}

static void cg_fn(const pf_func *f, FILE *out, const char *fl,
                  const char *fn) {
  char name[512], source[512];
  pf_frame_name(f, name, sizeof name);
  snprintf(source, sizeof source, "%s", f->is_c ? "[C]" : f->source);
  one_line(name);
  one_line(source);
  fprintf(out, "%s=%s\n%s=%s\n", fl, source, fn, name);
}

/* The cost of each node as a call line of its parent's function F: its
   inclusive count less that of the outermost calls of F below it (a
   call that re-enters F is F's own again), 0 for F calling itself.
   Then a function's self count plus its call lines is its inclusive
   count, recursion or not, as callgrind_annotate --inclusive=yes adds
   them.  depth-first, with for each function the depth of its
   innermost active node (prev chains the outer ones). */
static int call_costs(const pf_profile *P, int64_t *cost) {
  int *path = malloc(((size_t)P->nnode + 1) * sizeof *path);
  int *prev = malloc(((size_t)P->nnode + 1) * sizeof *prev);
  int *active = malloc(((size_t)P->nfn + 1) * sizeof *active);
  int *stack = malloc((2 * (size_t)P->nnode + 1) * sizeof *stack);
  int sp = 0, depth = 0, i;
  if (!path || !prev || !active || !stack) {
    free(path); free(prev); free(active); free(stack);
    return 0;
  }
  for (i = 0; i < P->nfn; i++) active[i] = -1;
  for (i = 0; i < P->nnode; i++) {
    const pf_node *n = &P->node[i];
    int pf = n->parent > 0 ? P->node[n->parent].fn : -1;
    cost[i] = pf >= 0 && pf == n->fn ? 0 : n->incl;
  }
  stack[sp++] = 0;
  while (sp > 0) {
    int v = stack[--sp], c, fn;
    if (v < 0) {  /* leaving ~v */
      fn = P->node[~v].fn;
      if (fn >= 0) active[fn] = prev[~v];
      depth--;
      continue;
    }
    fn = P->node[v].fn;
    if (fn >= 0) {
      int a = active[fn];  /* the depth of fn's innermost active node */
      if (a >= 0 && a + 1 < depth && P->node[path[a + 1]].fn != fn)
        cost[path[a + 1]] -= P->node[v].incl;  /* re-entered under it */
      prev[v] = a;
      active[fn] = depth;
    }
    path[depth++] = v;
    stack[sp++] = ~v;
    for (c = P->node[v].child; c >= 0; c = P->node[c].next) stack[sp++] = c;
  }
  free(path); free(prev); free(active); free(stack);
  return 1;
}

static int write_callgrind(const pf_profile *P, FILE *out) {
  edge *e = malloc(((size_t)P->nnode + 1) * sizeof *e);
  int64_t *cost = malloc(((size_t)P->nnode + 1) * sizeof *cost);
  int ne = 0, i, j, k;
  if (e == NULL || cost == NULL || !call_costs(P, cost)) {
    free(e);
    free(cost);
    return 0;
  }
  for (i = 1; i < P->nnode; i++) {
    const pf_node *n = &P->node[i];
    const pf_func *from;
    if (n->parent <= 0) continue;
    e[ne].from = P->node[n->parent].fn;
    e[ne].to = n->fn;
    from = &P->fn[e[ne].from];
    /* unknown sites (tail calls, C callers): the caller's first line */
    e[ne].site = n->site >= 0 ? n->site : from->line > 0 ? from->line : 0;
    e[ne].calls = n->calls;
    e[ne].incl = cost[i];
    ne++;
  }
  qsort(e, (size_t)ne, sizeof *e, by_edge);
  for (i = 0, k = 0; i < ne; k++) {  /* merge the calls of one site */
    e[k] = e[i];
    for (j = i + 1; j < ne && by_edge(&e[j], &e[i]) == 0; j++) {
      e[k].calls += e[j].calls;
      e[k].incl += e[j].incl;
    }
    i = j;
  }
  ne = k;
  fprintf(out, "# callgrind format\nversion: 1\ncreator: lraf\n"
          "cmd: lraf profile (cost model %s)\npositions: line\n"
          "event: Ir : lraf units (cost model %s)\n"
          "events: Ir\nsummary: %" PRId64 "\n", P->model, P->model,
          P->total);
  for (i = 0, j = 0; i < P->nfn; i++) {
    const pf_func *f = &P->fn[i];
    int line = f->line > 0 ? f->line : 0;
    fputc('\n', out);
    cg_fn(f, out, "fl", "fn");
    if (f->nlines > 0) {
      int l;
      int64_t rest = f->self;  /* on no line (native work): its own */
      for (l = 0; l < f->nlines; l++)
        if (f->lines[l] != 0) {
          fprintf(out, "%d %" PRId64 "\n", f->first + l, f->lines[l]);
          rest -= f->lines[l];
        }
      if (rest != 0) fprintf(out, "%d %" PRId64 "\n", line, rest);
    } else {
      fprintf(out, "%d %" PRId64 "\n", line, f->self);
    }
    for (; j < ne && e[j].from == i; j++) {
      const pf_func *g = &P->fn[e[j].to];
      cg_fn(g, out, "cfl", "cfn");
      fprintf(out, "calls=%" PRId64 " %d\n%d %" PRId64 "\n", e[j].calls,
              g->line > 0 ? g->line : 0, e[j].site, e[j].incl);
    }
  }
  free(e);
  free(cost);
  return 1;
}

/* ---- JSON ---- */

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

static void write_json(const pf_profile *P, FILE *out) {
  int i;
  char name[512];
  fprintf(out, "{\"format\": \"lraf-profile\", \"version\": 1,\n"
          " \"model\": ");
  json_str(out, P->model);
  fprintf(out, ",\n \"total\": %" PRId64 ",\n \"functions\": [", P->total);
  for (i = 0; i < P->nfn; i++) {
    const pf_func *f = &P->fn[i];
    pf_frame_name(f, name, sizeof name);
    fprintf(out, "%s\n  {\"frame\": ", i ? "," : "");
    json_str(out, name);
    fputs(", \"name\": ", out);
    json_str(out, f->name);
    fputs(", \"source\": ", out);
    json_str(out, f->source);
    fprintf(out, ", \"line\": %d, \"c\": %s, \"calls\": %" PRId64
            ", \"self\": %" PRId64 ", \"inclusive\": %" PRId64, f->line,
            f->is_c ? "true" : "false", f->calls, f->self, f->incl);
    if (f->nlines > 0) {
      int l, first = 1;
      fputs(", \"lines\": [", out);
      for (l = 0; l < f->nlines; l++)
        if (f->lines[l] != 0) {
          fprintf(out, "%s[%d, %" PRId64 "]", first ? "" : ", ",
                  f->first + l, f->lines[l]);
          first = 0;
        }
      fputc(']', out);
    }
    fputc('}', out);
  }
  fputs("\n ],\n \"tree\": [", out);
  for (i = 0; i < P->nnode; i++) {
    const pf_node *n = &P->node[i];
    fprintf(out, "%s\n  {\"function\": %d, \"parent\": %d, \"calls\": %"
            PRId64 ", \"self\": %" PRId64 ", \"inclusive\": %" PRId64 "}",
            i ? "," : "", n->fn, n->parent, n->calls, n->self, n->incl);
  }
  fputs("\n ]\n}\n", out);
}

lraf_status pf_write(const pf_profile *P, pf_format fmt, int top, FILE *out,
                     lraf_error *err) {
  int ok = 1;
  switch (fmt) {
    case PF_TABLE: ok = write_table(P, top, out); break;
    case PF_FOLDED: ok = write_folded(P, out); break;
    case PF_CALLGRIND: ok = write_callgrind(P, out); break;
    case PF_SVG: pf_write_svg(P, out); break;
    case PF_JSON: write_json(P, out); break;
  }
  if (!ok)
    return err_fail(err, LRAF_EMEM, "writing the profile: out of memory");
  if (fflush(out) != 0 || ferror(out))
    return err_fail(err, LRAF_EIO, "writing the profile: write error");
  return LRAF_OK;
}
