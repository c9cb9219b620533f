/*
** tutil_fuzz_profile.c - what fuzz_profile does with one input: the
** bytes as Lua source, run in an lraf sandbox state under a quota and
** a memory limit between lraf_profile_start and lraf_profile_stop, and
** every output format checked against the profile:
**   - the self counts of the functions sum to the total, which is what
**     the state's accounts counted; inclusive >= self;
**   - table: its first line gives the total;
**   - folded: "frame;...;frame COUNT" lines whose counts sum to the
**     total;
**   - json: read back by lraf diff's reader (pf_read_json) with the
**     same model, total, frames and self counts;
**   - callgrind: the summary is the total, and so is the sum of the
**     cost lines of the fn= blocks (calls= lines excluded);
**   - svg: well-formed as XML in structure (one svg root, tags nested
**     and closed, no raw '<' or '&' in text or attributes; a CDATA
**     section, the embedded script, is skipped whole).
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "pf.h"
#include "tutil_fuzz.h"

static int broken(char *why, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (why != NULL && n > 0) vsnprintf(why, n, fmt, ap);
  va_end(ap);
  return -1;
}

static void add_consumed(lraf_account *a, int64_t consumed, int alive,
                         void *ud) {
  (void)a, (void)alive;
  *(int64_t *)ud += consumed;
}

/* P written in format into a new malloc'ed string. */
static char *written(const lraf_profile *P, const char *format, size_t *len,
                     lraf_error *err) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  lraf_status st;
  if (f == NULL) return NULL;
  st = lraf_profile_write(P, format, 0, f, err);
  fclose(f);
  if (st != LRAF_OK) {
    free(text);
    return NULL;
  }
  return text;
}

static int check_table(const char *t, int64_t total, char *model,
                       size_t msize, char *why, size_t n) {
  long long got;
  int used = 0;
  if (sscanf(t, "lraf profile: %lld instructions, cost model %n", &got,
             &used) != 1 || used == 0)
    return broken(why, n, "table: no first line of totals");
  if (got != total)
    return broken(why, n, "table: %lld instructions, the profile %" PRId64,
                  got, total);
  snprintf(model, msize, "%.*s", (int)strcspn(t + used, "\n"), t + used);
  return 0;
}

static int check_folded(const char *t, size_t len, int64_t total, char *why,
                        size_t n) {
  const char *p = t, *end = t + len;
  int64_t sum = 0;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p)), *sp;
    char *stop;
    long long c;
    if (eol == NULL) return broken(why, n, "folded: a line without its end");
    for (sp = eol; sp > p && sp[-1] != ' '; sp--) continue;
    if (sp <= p + 1) return broken(why, n, "folded: a line without a stack");
    c = strtoll(sp, &stop, 10);
    if (stop != eol || c <= 0)
      return broken(why, n, "folded: a line without a positive count: "
                    "'%.*s'", (int)(eol - p < 200 ? eol - p : 200), p);
    sum += c;
    p = eol + 1;
  }
  if (sum != total)
    return broken(why, n, "folded: the counts sum to %" PRId64 ", the total "
                  "is %" PRId64, sum, total);
  return 0;
}

static int check_json(const char *t, size_t len, const lraf_profile *P,
                      const char *model, char *why, size_t n) {
  pf_read r;
  lraf_error err;
  int i, rc = 0, nf = lraf_profile_functions(P);
  if (pf_read_json(t, len, "json", &r, &err) != LRAF_OK)
    return broken(why, n, "json: not read back: %s", err.message);
  if (r.total != lraf_profile_total(P) || strcmp(r.model, model) != 0 ||
      r.n != nf)
    rc = broken(why, n, "json: total %" PRId64 ", %d functions, model %s; "
                "the profile: %" PRId64 ", %d, %s", r.total, r.n, r.model,
                lraf_profile_total(P), nf, model);
  for (i = 0; rc == 0 && i < nf; i++) {
    lraf_profile_func f;
    char frame[512];
    lraf_profile_function(P, i, &f);
    if (f.is_c) snprintf(frame, sizeof frame, "[C] %s", f.name);
    else snprintf(frame, sizeof frame, "%s (%s:%d)", f.name, f.source, f.line);
    if (r.e[i].self != f.self || strcmp(r.e[i].frame, frame) != 0)
      rc = broken(why, n, "json: function %d reads back as %.100s with %"
                  PRId64 ", not %.100s with %" PRId64, i, r.e[i].frame,
                  r.e[i].self, frame, f.self);
  }
  pf_read_free(&r);
  return rc;
}

/* The sum of the cost lines ("LINE COUNT") of the fn= blocks. */
static int check_callgrind(const char *t, size_t len, int64_t total,
                           char *why, size_t n) {
  const char *p = t, *end = t + len;
  int64_t sum = 0, summary = -1;
  int after_calls = 0, in_fn = 0;
  while (p < end) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    long long a, b;
    char extra;
    if (eol == NULL) return broken(why, n, "callgrind: a line without its "
                                   "end");
    if (strncmp(p, "summary: ", 9) == 0) {
      summary = strtoll(p + 9, NULL, 10);
    } else if (strncmp(p, "fn=", 3) == 0) {
      in_fn = 1;
    } else if (strncmp(p, "cfl=", 4) == 0 || strncmp(p, "cfn=", 4) == 0) {
      in_fn = 0;
    } else if (strncmp(p, "calls=", 6) == 0) {
      after_calls = 1;
    } else if (p < eol && p[0] >= '0' && p[0] <= '9') {
      char line[64];
      size_t k = (size_t)(eol - p) < sizeof line - 1 ? (size_t)(eol - p)
                                                     : sizeof line - 1;
      memcpy(line, p, k);
      line[k] = '\0';
      if (sscanf(line, "%lld %lld%c", &a, &b, &extra) != 2)
        return broken(why, n, "callgrind: a bad cost line '%s'", line);
      if (after_calls) after_calls = 0;
      else if (in_fn) sum += b;
      else return broken(why, n, "callgrind: a cost line outside fn=");
    } else if (p < eol && strncmp(p, "fl=", 3) != 0 && p[0] != '#' &&
               strchr("vcpe", p[0]) == NULL) {
      return broken(why, n, "callgrind: an unknown line '%.60s'", p);
    }
    p = eol + 1;
  }
  if (summary != total || sum != total)
    return broken(why, n, "callgrind: summary %" PRId64 ", cost lines %"
                  PRId64 ", the total %" PRId64, summary, sum, total);
  return 0;
}

/* Tags nested and closed, one root <svg>, no raw '<' or '&' outside
   CDATA sections. */
static int check_svg(const char *t, size_t len, char *why, size_t n) {
  const char *p = t, *end = t + len;
  char stack[64][16];
  int sp = 0, roots = 0;
  while (p < end) {
    if (*p == '&') {
      size_t k = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz#0123456789");
      if (k == 0 || p + 1 + k >= end || p[1 + k] != ';')
        return broken(why, n, "svg: a raw '&' at byte %zu",
                      (size_t)(p - t));
      p += k + 2;
    } else if (*p != '<') {
      p++;
    } else if (strncmp(p, "<![CDATA[", 9) == 0) {   /* the script */
      const char *e = strstr(p + 9, "]]>");
      if (e == NULL) return broken(why, n, "svg: an unclosed CDATA section");
      p = e + 3;
    } else if (strncmp(p, "<?", 2) == 0 || strncmp(p, "<!--", 4) == 0 ||
               strncmp(p, "<!DOCTYPE", 9) == 0) {
      const char *e = strstr(p, p[1] == '?' ? "?>" : ">");
      if (e == NULL) return broken(why, n, "svg: an unclosed declaration");
      p = e + 1;
    } else {
      int closing = p[1] == '/', self;
      const char *name = p + 1 + closing, *q;
      size_t k = strspn(name, "abcdefghijklmnopqrstuvwxyz");
      if (k == 0 || k >= sizeof stack[0])
        return broken(why, n, "svg: a raw '<' at byte %zu", (size_t)(p - t));
      for (q = name + k; q < end && *q != '>'; q++)
        if (*q == '<') return broken(why, n, "svg: '<' inside a tag");
      if (q == end) return broken(why, n, "svg: an unclosed tag");
      self = q[-1] == '/';
      if (closing) {
        if (sp == 0 || strlen(stack[sp - 1]) != k ||
            strncmp(stack[sp - 1], name, k) != 0)
          return broken(why, n, "svg: </%.*s> closes %s", (int)k, name,
                        sp ? stack[sp - 1] : "nothing");
        sp--;
      } else if (!self) {
        if (sp == 0) {
          if (k != 3 || strncmp(name, "svg", 3) != 0 || ++roots > 1)
            return broken(why, n, "svg: a second root or not <svg>");
        }
        if (sp == 64) return broken(why, n, "svg: tags nested too deep");
        memcpy(stack[sp], name, k);
        stack[sp++][k] = '\0';
      }
      p = q + 1;
    }
  }
  if (sp != 0 || roots != 1)
    return broken(why, n, "svg: %d tags left open, %d roots", sp, roots);
  return 0;
}

static int check_outputs(const lraf_profile *P, char *why, size_t n) {
  static const char *const formats[] = {"table", "folded", "json",
                                        "callgrind", "svg"};
  char model[128] = "";
  int64_t total = lraf_profile_total(P);
  int i, rc = 0;
  for (i = 0; rc == 0 && i < 5; i++) {
    lraf_error err;
    size_t len = 0;
    char *t = written(P, formats[i], &len, &err);
    if (t == NULL)
      return broken(why, n, "%s: not written: %s", formats[i], err.message);
    if (strlen(t) != len)
      rc = broken(why, n, "%s: a NUL byte in the output", formats[i]);
    else if (i == 0) rc = check_table(t, total, model, sizeof model, why, n);
    else if (i == 1) rc = check_folded(t, len, total, why, n);
    else if (i == 2) rc = check_json(t, len, P, model, why, n);
    else if (i == 3) rc = check_callgrind(t, len, total, why, n);
    else rc = check_svg(t, len, why, n);
    free(t);
  }
  return rc;
}

int tutil_fuzz_profile(const uint8_t *data, size_t size, char *why,
                       size_t n) {
  lraf_options o;
  lraf_state *S = NULL;
  lraf_manager *limit = lraf_limit_new(20000);
  lraf_profile *P = NULL;
  lraf_error err;
  lraf_status st;
  int64_t counted = 0, sum = 0, retired = 0;
  int rc = 0, i;
  if (limit == NULL) return broken(why, n, "lraf_limit_new failed");
  lraf_default_options(&o);
  o.env = LRAF_ENV_SANDBOX;
  o.manager = limit;
  o.memory_limit = 64u << 20;
  o.exact = size > 0 && (data[0] & 1);
  st = lraf_new(&o, &S, &err);
  lraf_manager_release(limit);
  if (st != LRAF_OK) return broken(why, n, "lraf_new: %s", err.message);
  if (lraf_profile_start(S, &err) != LRAF_OK) {
    lraf_close(S);
    return broken(why, n, "lraf_profile_start: %s", err.message);
  }
  st = lraf_load_string(S, (const char *)data, size, "=fuzz", &err);
  if (st == LRAF_OK) {
    st = lraf_call(S, 0, 0, &err);
    if (st != LRAF_OK && st != LRAF_ERUN && st != LRAF_EQUOTA &&
        st != LRAF_EMEM)
      rc = broken(why, n, "lraf_call: unexpected %s: %s",
                  lraf_status_name(st), err.message);
  }
  if (rc == 0 && lraf_profile_stop(S, &P, &err) != LRAF_OK)
    rc = broken(why, n, "lraf_profile_stop: %s", err.message);
  if (rc == 0) {
    lraf_foreach_account(S, add_consumed, &counted);
    counted += lraf_retired(S, &retired);
    for (i = 0; i < lraf_profile_functions(P); i++) {
      lraf_profile_func f;
      lraf_profile_function(P, i, &f);
      sum += f.self;
      if (f.inclusive < f.self || f.calls < 0 || f.self < 0)
        rc = broken(why, n, "function %d: self %" PRId64 ", inclusive %"
                    PRId64 ", %" PRId64 " calls", i, f.self, f.inclusive,
                    f.calls);
    }
    if (rc == 0 && (sum != lraf_profile_total(P) ||
                    lraf_profile_total(P) != counted))
      rc = broken(why, n, "the functions' self counts sum to %" PRId64
                  ", the profile's total is %" PRId64 ", the state counted %"
                  PRId64, sum, lraf_profile_total(P), counted);
    if (rc == 0) rc = check_outputs(P, why, n);
  }
  lraf_profile_free(P);
  lraf_close(S);
  return rc;
}
