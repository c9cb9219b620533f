/*
** cli_json.c - a small strict JSON reader (RFC 8259; nesting at most
** 32 deep) into a tree of values, for the files the command reads back
** (lraf bench's baselines).  Any input gives either a tree or an error
** naming the file, the byte offset and what was expected there.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"

#define MAX_DEPTH 32

typedef struct jparser {
  const char *s;
  size_t n, i;
  const char *name;
  lraf_error *err;
  int failed;
} jparser;

static void fail(jparser *p, const char *fmt, ...) {
  char what[200];
  va_list ap;
  if (p->failed) return;
  p->failed = 1;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  p->err->code = LRAF_EFORMAT;
  snprintf(p->err->message, sizeof p->err->message, "%s: byte %zu: %s",
           p->name, p->i, what);
}

static int peek(jparser *p) {
  while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]) && p->s[p->i])
    p->i++;
  return p->i < p->n ? (unsigned char)p->s[p->i] : -1;
}

static cli_json *node(jparser *p, cli_json_kind kind) {
  cli_json *v = calloc(1, sizeof *v);
  if (v == NULL) fail(p, "out of memory");
  else v->kind = kind;
  return v;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Code point u as UTF-8 at b; the bytes written. */
static size_t utf8(char *b, unsigned u) {
  if (u < 0x80) { b[0] = (char)u; return 1; }
  if (u < 0x800) {
    b[0] = (char)(0xC0 | u >> 6);
    b[1] = (char)(0x80 | (u & 0x3F));
    return 2;
  }
  if (u < 0x10000) {
    b[0] = (char)(0xE0 | u >> 12);
    b[1] = (char)(0x80 | (u >> 6 & 0x3F));
    b[2] = (char)(0x80 | (u & 0x3F));
    return 3;
  }
  b[0] = (char)(0xF0 | u >> 18);
  b[1] = (char)(0x80 | (u >> 12 & 0x3F));
  b[2] = (char)(0x80 | (u >> 6 & 0x3F));
  b[3] = (char)(0x80 | (u & 0x3F));
  return 4;
}

static int hex4(jparser *p, unsigned *u) {
  int k, h;
  *u = 0;
  for (k = 0; k < 4; k++) {
    if (p->i >= p->n || (h = hexval((unsigned char)p->s[p->i])) < 0) {
      fail(p, "expected 4 hex digits after \\u");
      return 0;
    }
    *u = *u * 16 + (unsigned)h;
    p->i++;
  }
  return 1;
}

/* A string (after its opening quote) into a new buffer; NULL on error.
   A \u0000 escape is refused: the names and texts read are C strings. */
static char *string(jparser *p) {
  char *buf = malloc(p->n - p->i + 1);
  size_t len = 0;
  if (buf == NULL) { fail(p, "out of memory"); return NULL; }
  while (!p->failed && p->i < p->n && p->s[p->i] != '"') {
    unsigned char c = (unsigned char)p->s[p->i++];
    unsigned u, lo;
    if (c < 0x20) { p->i--; fail(p, "control character in a string"); break; }
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
      case 'u':
        if (!hex4(p, &u)) break;
        if (u >= 0xD800 && u < 0xDC00) {  /* a surrogate pair */
          if (p->i + 1 < p->n && p->s[p->i] == '\\' &&
              p->s[p->i + 1] == 'u') {
            p->i += 2;
            if (!hex4(p, &lo)) break;
            if (lo < 0xDC00 || lo > 0xDFFF) {
              fail(p, "a high surrogate without its low one");
              break;
            }
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            fail(p, "a high surrogate without its low one");
            break;
          }
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
          fail(p, "a low surrogate without its high one");
          break;
        }
        if (u == 0) { fail(p, "\\u0000 in a string"); break; }
        len += utf8(buf + len, u);  /* never longer than the escape */
        break;
      default:
        p->i--;
        fail(p, "bad escape '\\%c'", c);
    }
  }
  if (!p->failed && p->i >= p->n) fail(p, "unterminated string");
  if (p->failed) { free(buf); return NULL; }
  p->i++;  /* the closing quote */
  buf[len] = '\0';
  return buf;
}

/* A number as RFC 8259 writes it; its value as a double, and as an
   integer when it is one that fits 64 bits. */
static void number(jparser *p, cli_json *v) {
  size_t st = p->i;
  char tmp[64];
  int integral = 1;
  if (p->i < p->n && p->s[p->i] == '-') p->i++;
  if (p->i < p->n && p->s[p->i] == '0') p->i++;
  else if (p->i < p->n && p->s[p->i] >= '1' && p->s[p->i] <= '9')
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  else { fail(p, "expected a value"); return; }
  if (p->i < p->n && p->s[p->i] == '.') {
    integral = 0;
    p->i++;
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
      fail(p, "expected a digit after '.'");
      return;
    }
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  }
  if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
    integral = 0;
    p->i++;
    if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') {
      fail(p, "expected a digit in the exponent");
      return;
    }
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
  }
  if (p->i - st >= sizeof tmp) { fail(p, "a number too long"); return; }
  memcpy(tmp, p->s + st, p->i - st);
  tmp[p->i - st] = '\0';
  v->number = strtod(tmp, NULL);
  v->integer = 0;
  if (integral && v->number > -9.2e18 && v->number < 9.2e18) {
    v->integer = strtoll(tmp, NULL, 10);
    v->is_integer = 1;
  }
}

static cli_json *value(jparser *p, int depth);

/* The members or elements after '{' or '['. */
static void items(jparser *p, cli_json *v, int depth) {
  int obj = v->kind == CLI_JSON_OBJECT, close = obj ? '}' : ']';
  cli_json **tail = &v->child;
  if (peek(p) == close) { p->i++; return; }
  for (;;) {
    char *key = NULL;
    cli_json *item;
    if (obj) {
      if (peek(p) != '"') { fail(p, "expected a member name"); return; }
      p->i++;
      if ((key = string(p)) == NULL) return;
      if (peek(p) != ':') { free(key); fail(p, "expected ':'"); return; }
      p->i++;
    }
    item = value(p, depth + 1);
    if (item == NULL) { free(key); return; }
    item->key = key;
    *tail = item;
    tail = &item->next;
    v->count++;
    if (peek(p) == ',') { p->i++; continue; }
    if (peek(p) == close) { p->i++; return; }
    fail(p, "expected ',' or '%c'", close);
    return;
  }
}

static int literal(jparser *p, const char *word) {
  size_t k = strlen(word);
  if (p->n - p->i < k || memcmp(p->s + p->i, word, k) != 0) {
    fail(p, "expected a value");
    return 0;
  }
  p->i += k;
  return 1;
}

static cli_json *value(jparser *p, int depth) {
  cli_json *v;
  int c = peek(p);
  if (depth > MAX_DEPTH) { fail(p, "nested deeper than %d", MAX_DEPTH); return NULL; }
  if (c < 0) { fail(p, "expected a value, found the end"); return NULL; }
  if (c == '{' || c == '[') {
    if ((v = node(p, c == '{' ? CLI_JSON_OBJECT : CLI_JSON_ARRAY)) == NULL)
      return NULL;
    p->i++;
    items(p, v, depth);
  } else if (c == '"') {
    if ((v = node(p, CLI_JSON_STRING)) == NULL) return NULL;
    p->i++;
    v->string = string(p);
  } else if (c == 't' || c == 'f') {
    if ((v = node(p, CLI_JSON_BOOL)) == NULL) return NULL;
    v->integer = c == 't';
    literal(p, c == 't' ? "true" : "false");
  } else if (c == 'n') {
    if ((v = node(p, CLI_JSON_NULL)) == NULL) return NULL;
    literal(p, "null");
  } else {
    if ((v = node(p, CLI_JSON_NUMBER)) == NULL) return NULL;
    number(p, v);
  }
  if (p->failed) { cli_json_free(v); return NULL; }
  return v;
}

lraf_status cli_json_parse(const char *text, size_t len, const char *name,
                           cli_json **out, lraf_error *err) {
  jparser p;
  cli_json *v;
  memset(&p, 0, sizeof p);
  p.s = text;
  p.n = len;
  p.name = name;
  p.err = err;
  v = value(&p, 0);
  if (v != NULL && peek(&p) >= 0) fail(&p, "text after the value");
  if (p.failed) {
    cli_json_free(v);
    return LRAF_EFORMAT;
  }
  *out = v;
  return LRAF_OK;
}

void cli_json_free(cli_json *v) {
  while (v != NULL) {
    cli_json *next = v->next;
    cli_json_free(v->child);
    free(v->key);
    free(v->string);
    free(v);
    v = next;
  }
}

const cli_json *cli_json_get(const cli_json *obj, const char *key) {
  const cli_json *m;
  if (obj == NULL || obj->kind != CLI_JSON_OBJECT) return NULL;
  for (m = obj->child; m != NULL; m = m->next)
    if (strcmp(m->key, key) == 0) return m;
  return NULL;
}
