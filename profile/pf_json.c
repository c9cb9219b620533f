/*
** pf_json.c - reading a JSON profile back (lraf diff): a strict JSON
** parser (RFC 8259; nesting at most 64 deep) that keeps the model, the
** total, each function's frame and self count, and the calling-context
** tree (for the differential flame graph).  Any input gets
** either a profile or an error naming the file, the byte offset and
** what was expected there.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

#define MAX_DEPTH 64

typedef struct parser {
  const char *s;
  size_t n, i;
  const char *name;
  lraf_error *err;
  int failed;
  pf_read *out;
} parser;

static void fail(parser *p, const char *fmt, ...) {
  char what[300];
  va_list ap;
  if (p->failed) return;
  p->failed = 1;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (p->err != NULL) {
    p->err->code = LRAF_EFORMAT;
    snprintf(p->err->message, sizeof p->err->message,
             "%s: byte %zu: %s", p->name, p->i, what);
  }
}

static void skip_ws(parser *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                         p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

static int peek(parser *p) {
  skip_ws(p);
  return p->i < p->n ? (unsigned char)p->s[p->i] : -1;
}

static int expect(parser *p, char c) {
  if (peek(p) != c) {
    fail(p, "expected '%c'", c);
    return 0;
  }
  p->i++;
  return 1;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A string into a new buffer (UTF-8 of \u escapes; \u00XX as the byte
   XX, which is how pf_write escapes bytes); NULL on error. */
static char *string(parser *p) {
  char *buf;
  size_t len = 0;
  if (!expect(p, '"')) return NULL;
  buf = malloc(p->n - p->i + 1);
  if (buf == NULL) { fail(p, "out of memory"); return NULL; }
  while (p->i < p->n && p->s[p->i] != '"') {
    unsigned char c = (unsigned char)p->s[p->i++];
    if (c < 0x20) { fail(p, "control character in a string"); break; }
    if (c != '\\') { buf[len++] = (char)c; continue; }
    if (p->i >= p->n) break;
    c = (unsigned char)p->s[p->i++];
    switch (c) {
      case '"': case '\\': case '/': buf[len++] = (char)c; break;
      case 'b': buf[len++] = '\b'; break;
      case 'f': buf[len++] = '\f'; break;
      case 'n': buf[len++] = '\n'; break;
      case 'r': buf[len++] = '\r'; break;
      case 't': buf[len++] = '\t'; break;
      case 'u': {
        unsigned v = 0;
        int k;
        for (k = 0; k < 4; k++) {
          int h = p->i < p->n ? hexval((unsigned char)p->s[p->i]) : -1;
          if (h < 0) { fail(p, "bad \\u escape"); free(buf); return NULL; }
          v = v * 16 + (unsigned)h;
          p->i++;
        }
        if (v == 0) { fail(p, "\\u0000 in a string"); free(buf); return NULL; }
        if (v < 0x100) {
          buf[len++] = (char)v;
        } else if (v < 0x800) {
          buf[len++] = (char)(0xc0 | (v >> 6));
          buf[len++] = (char)(0x80 | (v & 0x3f));
        } else {  /* surrogates are kept as they are, three bytes each */
          buf[len++] = (char)(0xe0 | (v >> 12));
          buf[len++] = (char)(0x80 | ((v >> 6) & 0x3f));
          buf[len++] = (char)(0x80 | (v & 0x3f));
        }
        break;
      }
      default:
        fail(p, "bad escape '\\%c'", c);
        free(buf);
        return NULL;
    }
  }
  if (p->failed) { free(buf); return NULL; }
  if (p->i >= p->n) {
    fail(p, "unterminated string");
    free(buf);
    return NULL;
  }
  p->i++;
  buf[len] = '\0';
  return buf;
}

/* A number; *is_int and *iv when it is an integer that fits int64. */
static void number(parser *p, int *is_int, int64_t *iv) {
  size_t start = p->i;
  int neg = 0, digits = 0, overflow = 0;
  uint64_t v = 0;
  *is_int = 1;
  skip_ws(p);
  start = p->i;
  if (p->i < p->n && p->s[p->i] == '-') { neg = 1; p->i++; }
  if (p->i < p->n && p->s[p->i] == '0') {
    p->i++;
    digits = 1;
  } else {
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
      unsigned d = (unsigned)(p->s[p->i++] - '0');
      if (v > (UINT64_MAX - d) / 10) overflow = 1;
      else v = v * 10 + d;
      digits++;
    }
  }
  if (digits == 0) { p->i = start; fail(p, "expected a value"); return; }
  if (p->i < p->n && p->s[p->i] == '.') {
    *is_int = 0;
    p->i++;
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
      fail(p, "expected a digit after '.'");
      return;
    }
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  }
  if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
    *is_int = 0;
    p->i++;
    if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
      fail(p, "expected a digit in the exponent");
      return;
    }
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  }
  if (neg && !overflow && v == (uint64_t)INT64_MAX + 1)
    *iv = INT64_MIN;  /* -v would overflow */
  else if (overflow || v > (uint64_t)INT64_MAX)
    *is_int = 0, *iv = 0;
  else
    *iv = neg ? -(int64_t)v : (int64_t)v;
}

static void value(parser *p, int depth);

static void literal(parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->n - p->i < n || memcmp(p->s + p->i, word, n) != 0)
    fail(p, "expected a value");
  else
    p->i += n;
}

/* Any value, kept nowhere. */
static void value(parser *p, int depth) {
  int c = peek(p);
  if (depth > MAX_DEPTH) {
    fail(p, "nested more than %d deep", MAX_DEPTH);
    return;
  }
  if (c == '{' || c == '[') {
    int close = c == '{' ? '}' : ']';
    p->i++;
    if (peek(p) == close) { p->i++; return; }
    for (;;) {
      if (c == '{') {
        free(string(p));
        if (p->failed || !expect(p, ':')) return;
      }
      value(p, depth + 1);
      if (p->failed) return;
      if (peek(p) == ',') { p->i++; continue; }
      expect(p, (char)close);
      return;
    }
  } else if (c == '"') {
    free(string(p));
  } else if (c == 't') {
    literal(p, "true");
  } else if (c == 'f') {
    literal(p, "false");
  } else if (c == 'n') {
    literal(p, "null");
  } else {
    int is_int;
    int64_t v;
    number(p, &is_int, &v);
  }
}

/* An integer from lo to hi. */
static int64_t ranged(parser *p, const char *what, int64_t lo, int64_t hi) {
  int is_int;
  int64_t v = 0;
  size_t at;
  skip_ws(p);
  at = p->i;
  number(p, &is_int, &v);
  if (!p->failed && (!is_int || v < lo || v > hi)) {
    p->i = at;
    fail(p, "%s must be an integer of at least %d", what, (int)lo);
  }
  return v;
}

/* An integer of at least 0 (a count). */
static int64_t count(parser *p, const char *what) {
  return ranged(p, what, 0, INT64_MAX);
}

/* A signed integer (a line). */
static int integer(parser *p, const char *what) {
  return (int)ranged(p, what, -1, 0x7fffffff);
}

static int boolean(parser *p, const char *what) {
  int c = peek(p);
  if (c == 't') { literal(p, "true"); return 1; }
  if (c == 'f') { literal(p, "false"); return 0; }
  fail(p, "%s must be true or false", what);
  return 0;
}

static void entry_free(pf_entry *e) {
  free(e->frame);
  free(e->name);
  free(e->source);
}

/* One element of "functions": needs "frame" and "self"; "name",
   "source", "line" and "c" (what lraf diff matches functions by) are
   read when there. */
static void function(parser *p) {
  pf_entry e = {NULL, -1, NULL, NULL, -1, 0};
  if (!expect(p, '{')) return;
  if (peek(p) != '}') {
    for (;;) {
      char *key = string(p);
      if (key == NULL || !expect(p, ':')) { free(key); break; }
      if (strcmp(key, "frame") == 0) {
        free(e.frame);
        e.frame = string(p);
      } else if (strcmp(key, "name") == 0) {
        free(e.name);
        e.name = string(p);
      } else if (strcmp(key, "source") == 0) {
        free(e.source);
        e.source = string(p);
      } else if (strcmp(key, "line") == 0) {
        e.line = integer(p, "\"line\"");
      } else if (strcmp(key, "c") == 0) {
        e.is_c = boolean(p, "\"c\"");
      } else if (strcmp(key, "self") == 0) {
        e.self = count(p, "\"self\"");
      } else {
        value(p, 2);
      }
      free(key);
      if (p->failed) break;
      if (peek(p) == ',') { p->i++; continue; }
      break;
    }
  }
  if (!p->failed && expect(p, '}')) {
    if (e.frame == NULL || e.self < 0)
      fail(p, "a function needs \"frame\" and \"self\"");
  }
  if (p->failed) { entry_free(&e); return; }
  {
    pf_entry *a = realloc(p->out->e, ((size_t)p->out->n + 1) * sizeof *a);
    if (a == NULL) { entry_free(&e); fail(p, "out of memory"); return; }
    p->out->e = a;
    a[p->out->n++] = e;
  }
}

/* An array whose elements element reads. */
static void array(parser *p, void (*element)(parser *p)) {
  if (!expect(p, '[')) return;
  if (peek(p) == ']') { p->i++; return; }
  for (;;) {
    element(p);
    if (p->failed) return;
    if (peek(p) == ',') { p->i++; continue; }
    expect(p, ']');
    return;
  }
}

/* One element of "tree": "function", "parent", "calls", "self" and
   "inclusive" (checked against the functions and the nodes before it
   at the end). */
static void tree_node(parser *p) {
  pf_tnode t = {-2, -2, 0, 0, 0};
  if (!expect(p, '{')) return;
  if (peek(p) != '}') {
    for (;;) {
      char *key = string(p);
      if (key == NULL || !expect(p, ':')) { free(key); break; }
      if (strcmp(key, "function") == 0) t.fn = integer(p, "\"function\"");
      else if (strcmp(key, "parent") == 0)
        t.parent = integer(p, "\"parent\"");
      else if (strcmp(key, "calls") == 0) t.calls = count(p, "\"calls\"");
      else if (strcmp(key, "self") == 0) t.self = count(p, "\"self\"");
      else if (strcmp(key, "inclusive") == 0)
        t.incl = count(p, "\"inclusive\"");
      else value(p, 2);
      free(key);
      if (p->failed) break;
      if (peek(p) == ',') { p->i++; continue; }
      break;
    }
  }
  if (!p->failed && expect(p, '}') && (t.fn == -2 || t.parent == -2))
    fail(p, "a tree node needs \"function\" and \"parent\"");
  if (p->failed) return;
  {
    pf_tnode *a = realloc(p->out->t, ((size_t)p->out->nt + 1) * sizeof *a);
    if (a == NULL) { fail(p, "out of memory"); return; }
    p->out->t = a;
    a[p->out->nt++] = t;
  }
}

/* The tree's root first (function and parent -1), every other node
   after its parent, naming a function of the profile. */
static void check_tree(parser *p) {
  int i;
  for (i = 0; i < p->out->nt && !p->failed; i++) {
    const pf_tnode *t = &p->out->t[i];
    if (i == 0 ? t->fn != -1 || t->parent != -1
               : t->parent < 0 || t->parent >= i || t->fn < 0 ||
                 t->fn >= p->out->n)
      fail(p, "tree node %d: %s", i, i == 0 ? "the root needs \"function\" "
           "and \"parent\" -1" : "\"parent\" must be an earlier node and "
           "\"function\" a function of the profile");
  }
}

lraf_status pf_read_json(const char *text, size_t len, const char *name,
                         pf_read *out, lraf_error *err) {
  parser p;
  int have_format = 0, have_functions = 0, have_total = 0, have_tree = 0;
  memset(out, 0, sizeof *out);
  memset(&p, 0, sizeof p);
  p.s = text;
  p.n = len;
  p.name = name;
  p.err = err;
  p.out = out;
  if (expect(&p, '{') && peek(&p) != '}') {
    for (;;) {
      char *key = string(&p);
      if (key == NULL || !expect(&p, ':')) { free(key); break; }
      if (strcmp(key, "format") == 0) {
        char *f = string(&p);
        if (f != NULL && strcmp(f, "lraf-profile") != 0)
          fail(&p, "not an lraf profile (format \"%.40s\")", f);
        have_format = 1;
        free(f);
      } else if (strcmp(key, "model") == 0) {
        char *m = string(&p);
        if (m != NULL) snprintf(out->model, sizeof out->model, "%s", m);
        free(m);
      } else if (strcmp(key, "total") == 0) {
        out->total = count(&p, "\"total\"");
        have_total = 1;
      } else if (strcmp(key, "functions") == 0 && !have_functions) {
        array(&p, function);
        have_functions = 1;
      } else if (strcmp(key, "tree") == 0 && !have_tree) {
        array(&p, tree_node);
        have_tree = 1;
      } else {
        value(&p, 1);
      }
      free(key);
      if (p.failed) break;
      if (peek(&p) == ',') { p.i++; continue; }
      break;
    }
  }
  if (!p.failed) expect(&p, '}');
  if (!p.failed && peek(&p) != -1) fail(&p, "text after the profile");
  if (!p.failed) check_tree(&p);
  if (!p.failed && (!have_format || !have_functions || !have_total))
    fail(&p, "not an lraf profile (it needs \"format\": \"lraf-profile\", "
         "\"total\" and \"functions\")");
  if (p.failed) {
    pf_read_free(out);
    return LRAF_EFORMAT;
  }
  return LRAF_OK;
}

void pf_read_free(pf_read *r) {
  int i;
  for (i = 0; i < r->n; i++) entry_free(&r->e[i]);
  free(r->e);
  free(r->t);
  r->e = NULL;
  r->t = NULL;
  r->n = r->nt = 0;
}
