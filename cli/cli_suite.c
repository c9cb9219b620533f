/*
** cli_suite.c - lraf bench --suite FILE: the benchmarks of a suite
** file, one a line:
**
**   SCRIPT [name=NAME] [threshold=P] [min-change=N] [max=N] [-- ARGS...]
**
** Words are separated by blanks; '#' starts a comment line; blank lines
** are skipped.  A benchmark's name (what its baseline entry is called)
** is name= or "SCRIPT ARGS...".  Every error names FILE:LINE.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"

#define SUITE_MAX 10000  /* benchmarks in one suite */

static lraf_status bad(lraf_error *err, const char *name, int line,
                       const char *fmt, ...) {
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  err->code = LRAF_EFORMAT;
  snprintf(err->message, sizeof err->message, "%s:%d: %s", name, line, what);
  return LRAF_EFORMAT;
}

int cli_bench_name(char *buf, size_t size, const char *script,
                        char *const *args, int nargs) {
  size_t len = (size_t)snprintf(buf, size, "%s", script);
  int i;
  for (i = 0; i < nargs && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, " %s", args[i]);
  return len < size;
}

/* A count: digits, then k, M or G; -1 when it is not one. */
static int64_t count_of(const char *s) {
  int64_t v = 0, f = 1;
  const char *p = s;
  if (*p < '0' || *p > '9') return -1;
  for (; *p >= '0' && *p <= '9'; p++) {
    if (v > (INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (*p - '0');
  }
  if (*p == 'k') f = 1000;
  else if (*p == 'M') f = 1000000;
  else if (*p == 'G') f = 1000000000;
  if (f > 1) p++;
  if (*p != '\0' || v > INT64_MAX / f) return -1;
  return v * f;
}

/* One limit or name= word into it; an error names the line. */
static lraf_status setting(cli_bench_item *it, char *w, const char *name,
                           int line, lraf_error *err) {
  char *eq = strchr(w, '=');
  *eq = '\0';
  if (strcmp(w, "threshold") == 0) {
    if ((it->threshold = cli_threshold_of(eq + 1)) < 0)
      return bad(err, name, line, "threshold= needs " CLI_THRESHOLD_RULE
                 ", not '%s'", eq + 1);
  } else if (strcmp(w, "min-change") == 0) {
    if ((it->min_change = count_of(eq + 1)) < 0)
      return bad(err, name, line, "min-change= needs a non-negative "
                 "integer (k, M, G allowed), not '%s'", eq + 1);
  } else if (strcmp(w, "max") == 0) {
    if ((it->max_count = count_of(eq + 1)) < 0)
      return bad(err, name, line, "max= needs a non-negative integer (k, "
                 "M, G allowed), not '%s'", eq + 1);
  } else if (strcmp(w, "name") == 0) {
    if (eq[1] == '\0') return bad(err, name, line, "name= is empty");
    if (strlen(eq + 1) >= sizeof it->name)
      return bad(err, name, line, "name= is longer than %d bytes",
                 CLI_BENCH_NAME_MAX - 1);
    strcpy(it->name, eq + 1);
  } else {
    return bad(err, name, line, "unknown setting '%s=' (threshold=, "
               "min-change=, max=, name=)", w);
  }
  return LRAF_OK;
}

/* The words of one line (NUL-terminated in place) into words. */
static int split(char *line, char **words) {
  int n = 0;
  char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r') p++;
    if (*p == '\0') return n;
    words[n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r') p++;
    if (*p) *p++ = '\0';
  }
}

static lraf_status item_of(cli_bench_item *it, char **w, int nw,
                           const char *name, int line, lraf_error *err) {
  int k;
  lraf_status st;
  memset(it, 0, sizeof *it);
  it->threshold = -1;
  it->min_change = -1;
  it->max_count = -1;
  it->script = w[0];
  if (strcmp(w[0], "--") == 0 || strchr(w[0], '=') != NULL)
    return bad(err, name, line, "expected a script first, found '%s'", w[0]);
  for (k = 1; k < nw && strcmp(w[k], "--") != 0; k++) {
    if (strchr(w[k], '=') == NULL)
      return bad(err, name, line, "'%s': arguments go after \"--\"", w[k]);
    if ((st = setting(it, w[k], name, line, err)) != LRAF_OK) return st;
  }
  if (k < nw) {
    it->args = &w[k + 1];
    it->nargs = nw - k - 1;
  }
  if (it->name[0] == '\0' &&
      !cli_bench_name(it->name, sizeof it->name, it->script, it->args,
                           it->nargs))
    return bad(err, name, line, "the benchmark's name (its script and "
               "arguments) is longer than %d bytes: give it a name=",
               CLI_BENCH_NAME_MAX - 1);
  return LRAF_OK;
}

lraf_status cli_suite_parse(const char *text, size_t len, const char *name,
                            cli_suite *s, lraf_error *err) {
  char *p;
  int line = 0, *line_no = NULL, i, j;
  size_t cap = 0, nw = 0;
  lraf_status st = LRAF_OK;
  memset(s, 0, sizeof *s);
  if (memchr(text, '\0', len) != NULL) {
    const char *z = memchr(text, '\0', len);
    int ln = 1;
    for (p = (char *)text; p < z; p++) ln += *p == '\n';
    return bad(err, name, ln, "a NUL byte (not a text file)");
  }
  s->text = malloc(len + 1);
  s->words = malloc((len / 2 + 2) * sizeof *s->words);
  if (s->text == NULL || s->words == NULL) goto nomem;
  memcpy(s->text, text, len);
  s->text[len] = '\0';
  for (p = s->text;;) {
    char *eol = strchr(p, '\n'), **w = s->words + nw;
    int n;
    line++;
    if (eol != NULL) *eol = '\0';
    n = split(p, w);
    if (n > 0 && w[0][0] != '#') {
      if (s->n == SUITE_MAX) {
        st = bad(err, name, line, "more than %d benchmarks", SUITE_MAX);
        break;
      }
      if ((size_t)s->n == cap) {
        cli_bench_item *ni;
        int *nl;
        cap = cap ? cap * 2 : 16;
        ni = realloc(s->item, cap * sizeof *ni);
        if (ni != NULL) s->item = ni;
        nl = realloc(line_no, cap * sizeof *nl);
        if (nl != NULL) line_no = nl;
        if (ni == NULL || nl == NULL) goto nomem;
      }
      if ((st = item_of(&s->item[s->n], w, n, name, line, err)) != LRAF_OK)
        break;
      line_no[s->n++] = line;
      nw += (size_t)n;
    }
    if (eol == NULL) break;
    p = eol + 1;
  }
  for (i = 0; st == LRAF_OK && i < s->n; i++)
    for (j = 0; j < i; j++)
      if (strcmp(s->item[i].name, s->item[j].name) == 0) {
        st = bad(err, name, line_no[i], "benchmark '%s' is already on line "
                 "%d (name= tells two apart)", s->item[i].name, line_no[j]);
        break;
      }
  if (st == LRAF_OK && s->n == 0)  /* the last line, its break not one */
    st = bad(err, name, line > 1 && text[len - 1] == '\n' ? line - 1 : 1,
             "no benchmark in the suite");
  free(line_no);
  if (st != LRAF_OK) cli_suite_free(s);
  return st;
nomem:
  free(line_no);
  cli_suite_free(s);
  err->code = LRAF_EMEM;
  snprintf(err->message, sizeof err->message, "%s: out of memory", name);
  return LRAF_EMEM;
}

void cli_suite_free(cli_suite *s) {
  free(s->item);
  free(s->text);
  free(s->words);
  memset(s, 0, sizeof *s);
}
