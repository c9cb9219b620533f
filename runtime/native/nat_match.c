/*
** nat_match.c - the step-counting pattern matcher (see nat_match.h).
**
** A backtracking matcher over Lua 5.4 patterns: single-character
** classes (., %a %c %d %g %l %p %s %u %w %x and their upper-case
** complements, %x escapes, [sets] with ranges and ^), the quantifiers
** * + - ?, anchors ^ and $, captures ( ) and position captures (),
** back-references %1-%9, %bxy and %f[set].  It recurses where the
** search must be able to come back (captures, expansions, ?) and loops
** otherwise, with the same nesting limit as Lua, so a pattern that is
** too complex for Lua is too complex here at the same place.  Every
** pattern item tried and every subject byte scanned is one step, and
** setting up a start position two.
*/
#include <ctype.h>
#include <string.h>

#include "nat_match.h"

#define CAP_OPEN (-1)
#define CAP_POS (-2)
#define ESC '%'

static void step(nat_matcher *m, int64_t n) {
  m->steps += n;
  m->total += n;
  if (m->steps >= NAT_MATCH_CHUNK && m->charge != NULL) {
    int64_t s = m->steps;
    m->steps = 0;
    m->charge(m->ud, s);
  }
}

void nat_match_init(nat_matcher *m, const char *s, size_t ls,
                   nat_match_charge charge, void *ud) {
  m->level = 0;
  m->depth = 0;
  m->bad = 0;
  m->steps = 0;
  m->total = 0;
  m->pe = NULL;
  m->s0 = s;
  m->se = s + ls;
  m->charge = charge;
  m->ud = ud;
}

/* Is c in the class named by letter cl (%a, %D, ...)?  An unknown letter
   stands for itself. */
static int in_class(int c, int cl) {
  int r;
  switch (tolower(cl)) {
    case 'a': r = isalpha(c); break;
    case 'c': r = iscntrl(c); break;
    case 'd': r = isdigit(c); break;
    case 'g': r = isgraph(c); break;
    case 'l': r = islower(c); break;
    case 'p': r = ispunct(c); break;
    case 's': r = isspace(c); break;
    case 'u': r = isupper(c); break;
    case 'w': r = isalnum(c); break;
    case 'x': r = isxdigit(c); break;
    default: return cl == c;
  }
  if (isupper(cl)) r = !r;
  return r != 0;
}

/* The end of the single-character class starting at p (p < pe); NULL
   when it is malformed. */
static const char *class_end(nat_matcher *m, const char *p) {
  char c = *p++;
  if (c == ESC) {
    if (p >= m->pe) return NULL;  /* pattern ends with '%' */
    return p + 1;
  }
  if (c == '[') {
    if (p < m->pe && *p == '^') p++;
    /* the first character of a set is literal, even ']' */
    do {
      if (p >= m->pe) return NULL;  /* missing ']' */
      c = *p++;
      if (c == ESC) {
        if (p >= m->pe) return NULL;
        p++;
      }
    } while (p >= m->pe || *p != ']');
    return p + 1;
  }
  return p;
}

/* Is c in the set [ ... ] that starts at p ('[') and whose ']' is at
   last? */
static int in_set(int c, const char *p, const char *last) {
  int yes = 1;
  p++;
  if (*p == '^') {
    yes = 0;
    p++;
  }
  for (; p < last; p++) {
    if (*p == ESC) {
      p++;
      if (in_class(c, (unsigned char)*p)) return yes;
    } else if (p[1] == '-' && p + 2 < last) {
      if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2]) return yes;
      p += 2;
    } else if ((unsigned char)*p == c) {
      return yes;
    }
  }
  return !yes;
}

/* Does the subject byte at s match the class p..ep? */
static int single(nat_matcher *m, const char *s, const char *p,
                  const char *ep) {
  int c;
  if (s >= m->se) return 0;
  c = (unsigned char)*s;
  switch (*p) {
    case '.': return 1;
    case ESC: return in_class(c, (unsigned char)p[1]);
    case '[': return in_set(c, p, ep - 1);
    default: return (unsigned char)*p == c;
  }
}

static const char *match(nat_matcher *m, const char *s, const char *p);

static const char *longest(nat_matcher *m, const char *s, const char *p,
                           const char *ep) {
  ptrdiff_t i = 0;
  while (single(m, s + i, p, ep)) i++;
  step(m, i + 1);
  for (; i >= 0; i--) {
    const char *r = match(m, s + i, ep + 1);
    if (r != NULL || m->bad) return r;
  }
  return NULL;
}

static const char *shortest(nat_matcher *m, const char *s, const char *p,
                            const char *ep) {
  for (;;) {
    const char *r = match(m, s, ep + 1);
    if (r != NULL || m->bad) return r;
    step(m, 1);
    if (!single(m, s, p, ep)) return NULL;
    s++;
  }
}

static const char *open_capture(nat_matcher *m, const char *s,
                                const char *p, ptrdiff_t what) {
  const char *r;
  if (m->level >= NAT_MATCH_MAXCAPTURES) {
    m->bad = 1;  /* too many captures */
    return NULL;
  }
  m->cap[m->level].init = s;
  m->cap[m->level].len = what;
  m->level++;
  r = match(m, s, p);
  if (r == NULL) m->level--;
  return r;
}

static const char *close_capture(nat_matcher *m, const char *s,
                                 const char *p) {
  int l;
  const char *r;
  for (l = m->level - 1; l >= 0; l--)
    if (m->cap[l].len == CAP_OPEN) break;
  if (l < 0) {
    m->bad = 1;  /* ')' without '(' */
    return NULL;
  }
  m->cap[l].len = s - m->cap[l].init;
  r = match(m, s, p);
  if (r == NULL) m->cap[l].len = CAP_OPEN;
  return r;
}

static const char *balance(nat_matcher *m, const char *s, const char *p) {
  int open, close, depth = 1;
  const char *q;
  if (p + 1 >= m->pe) {
    m->bad = 1;  /* %b needs two characters */
    return NULL;
  }
  if (s >= m->se || *s != *p) return NULL;
  open = (unsigned char)p[0];
  close = (unsigned char)p[1];
  for (q = s + 1; q < m->se; q++) {
    int c = (unsigned char)*q;
    if (c == close) {
      if (--depth == 0) {
        step(m, q - s);
        return q + 1;
      }
    } else if (c == open) {
      depth++;
    }
  }
  step(m, q - s);
  return NULL;
}

static const char *backref(nat_matcher *m, const char *s, int digit) {
  int l = digit - '1';
  ptrdiff_t len;
  if (l < 0 || l >= m->level || m->cap[l].len == CAP_OPEN) {
    m->bad = 1;  /* invalid capture index */
    return NULL;
  }
  len = m->cap[l].len;
  if (len < 0) return NULL;  /* a position capture never matches */
  step(m, len);
  if (m->se - s >= len && memcmp(m->cap[l].init, s, (size_t)len) == 0)
    return s + len;
  return NULL;
}

static const char *match(nat_matcher *m, const char *s, const char *p) {
  if (++m->depth > NAT_MATCH_MAXDEPTH) {
    m->bad = 1;  /* Lua: "pattern too complex" */
    return NULL;
  }
  while (p < m->pe) {
    const char *ep;
    step(m, 1);
    switch (*p) {
      case '(':
        s = p + 1 < m->pe && p[1] == ')' ? open_capture(m, s, p + 2, CAP_POS)
                                         : open_capture(m, s, p + 1, CAP_OPEN);
        goto done;
      case ')':
        s = close_capture(m, s, p + 1);
        goto done;
      case '$':
        if (p + 1 == m->pe) {
          if (s != m->se) s = NULL;
          goto done;
        }
        break;
      case ESC:
        if (p + 1 < m->pe && p[1] == 'b') {
          s = balance(m, s, p + 2);
          if (s == NULL) goto done;
          p += 4;
          continue;
        }
        if (p + 1 < m->pe && p[1] == 'f') {
          int prev, cur;
          p += 2;
          if (p >= m->pe || *p != '[') {
            m->bad = 1;  /* missing '[' after %f */
            s = NULL;
            goto done;
          }
          ep = class_end(m, p);
          if (ep == NULL) {
            m->bad = 1;
            s = NULL;
            goto done;
          }
          prev = s == m->s0 ? 0 : (unsigned char)s[-1];
          cur = s < m->se ? (unsigned char)*s : 0;
          if (!in_set(prev, p, ep - 1) && in_set(cur, p, ep - 1)) {
            p = ep;
            continue;
          }
          s = NULL;
          goto done;
        }
        if (p + 1 < m->pe && isdigit((unsigned char)p[1])) {
          s = backref(m, s, (unsigned char)p[1]);
          if (s == NULL) goto done;
          p += 2;
          continue;
        }
        break;
      default:
        break;
    }
    /* a single-character class, maybe with a quantifier */
    ep = class_end(m, p);
    if (ep == NULL) {
      m->bad = 1;
      s = NULL;
      goto done;
    }
    if (!single(m, s, p, ep)) {
      if (ep < m->pe && (*ep == '*' || *ep == '?' || *ep == '-')) {
        p = ep + 1;  /* zero occurrences are fine */
        continue;
      }
      s = NULL;
      goto done;
    }
    if (ep < m->pe) {
      const char *r;
      switch (*ep) {
        case '?':
          r = match(m, s + 1, ep + 1);
          if (r != NULL || m->bad) {
            s = r;
            goto done;
          }
          p = ep + 1;
          continue;
        case '+':
          s = longest(m, s + 1, p, ep);
          goto done;
        case '*':
          s = longest(m, s, p, ep);
          goto done;
        case '-':
          s = shortest(m, s, p, ep);
          goto done;
        default:
          break;
      }
    }
    s++;
    p = ep;
  }
done:
  m->depth--;
  return m->bad ? NULL : s;
}

const char *nat_match_at(nat_matcher *m, const char *s, const char *p,
                        size_t lp) {
  m->pe = p + lp;
  m->level = 0;
  m->depth = 0;
  return match(m, s, p);
}

/* Lua raises "unfinished capture" when it returns the captures of a
   match that left one open. */
static int unfinished(const nat_matcher *m) {
  int l;
  for (l = 0; l < m->level; l++)
    if (m->cap[l].len == CAP_OPEN) return 1;
  return 0;
}

int nat_match_find(nat_matcher *m, const char *p, size_t lp, size_t init,
                  size_t *start, size_t *end) {
  const char *s = m->s0 + init;
  int anchor = lp > 0 && *p == '^';
  if (anchor) {
    p++;
    lp--;
  }
  do {
    const char *e;
    step(m, 2);  /* setting up a start */
    e = nat_match_at(m, s, p, lp);
    if (m->bad) return -1;
    if (e != NULL) {
      if (unfinished(m)) return -1;
      *start = (size_t)(s - m->s0);
      *end = (size_t)(e - m->s0);
      return 1;
    }
  } while (s++ < m->se && !anchor);
  return 0;
}

int64_t nat_match_count(nat_matcher *m, const char *p, size_t lp,
                       size_t init, int64_t max_n, int gmatch) {
  const char *s = m->s0 + init, *last = NULL;
  int anchor = !gmatch && lp > 0 && *p == '^';
  int64_t n = 0;
  if (anchor) {
    p++;
    lp--;
  }
  while (max_n < 0 || n < max_n) {
    const char *e;
    step(m, 2);  /* setting up a start */
    e = nat_match_at(m, s, p, lp);
    if (m->bad) return -1;
    if (e != NULL && e != last) {
      if (gmatch && unfinished(m)) return -1;
      n++;
      s = last = e;
    } else if (s < m->se) {
      s++;
    } else {
      break;
    }
    if (anchor) break;
  }
  return n;
}

int nat_match_plain(const char *p, size_t lp) {
  size_t i;
  for (i = 0; i < lp; i++)
    if (strchr("^$*+?.([%-", p[i]) != NULL && p[i] != '\0') return 0;
  return 1;
}
