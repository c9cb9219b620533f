/*
** nat_cost.c - the native cost model: the size of each charged
** built-in's work, read from its arguments, and the table of models
** with the calibrated units per call and per 1024 units of size
** (tests/bench/native.c measures them; docs/cost-model.md lists every
** charge and the bound it gives).  The sizes of next, the table
** functions on values with metatables, the hidden work and the other
** built-ins the audit found are in nat_next.c, nat_table.c,
** nat_hidden.c and nat_audit.c; the units a model charges for a size
** are in nat_units.c.
**
** Sizes are upper bounds of the work the stock function will do, read
** without running metamethods or raising errors.  Pattern functions run
** the step-counting matcher (nat_match.c) first and charge its steps as
** it goes, so a catastrophic pattern is stopped by the quota while the
** dry run is still searching; the stock function then runs only if the
** dry run finished.  A find or gsub that cannot backtrack and is bounded
** by AFTER_BOUND steps runs without a dry run and is charged after.
*/
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "nat_match.h"
#include "nat_audit.h"
#include "nat_hidden.h"
#include "nat_next.h"
#include "nat_table.h"
#include "nat_cost.h"

/* ---- reading arguments without side effects ---- */

static int64_t slen(lua_State *L, int i) {
  int t = lua_type(L, i);
  if (t == LUA_TSTRING) return (int64_t)lua_rawlen(L, i);
  if (t == LUA_TNUMBER) return 24;
  return 0;
}

static int64_t optint(lua_State *L, int i, int64_t dflt) {
  int ok;
  lua_Integer v;
  if (lua_isnoneornil(L, i)) return dflt;
  v = lua_tointegerx(L, i, &ok);
  return ok ? (int64_t)v : dflt;
}

static int64_t tlen(lua_State *L, int i) {
  return lua_type(L, i) == LUA_TTABLE ? (int64_t)lua_rawlen(L, i) : 0;
}

static int64_t clamp(double x) {
  if (!(x > 0)) return 0;
  if (x >= (double)RT_CHARGE_MAX) return RT_CHARGE_MAX;
  return (int64_t)x;
}

/* Lua's relative string position: 1-based start in [1, len + 1]. */
static int64_t start_pos(int64_t pos, int64_t len) {
  if (pos > 0) return pos;
  if (pos == 0 || pos < -len) return 1;
  return len + pos + 1;
}

/* 1-based end position in [0, len]. */
static int64_t end_pos(int64_t pos, int64_t len) {
  if (pos > len) return len;
  if (pos >= 0) return pos;
  if (pos < -len) return 0;
  return len + pos + 1;
}

/* ---- strings ---- */

/* The fewest bytes the string argument i (or nil when opt) can have;
   -1 when Lua's check of it raises. */
static int64_t min_len(lua_State *L, int i, int opt) {
  int t = lua_type(L, i);
  if (t == LUA_TSTRING) return (int64_t)lua_rawlen(L, i);
  if (t == LUA_TNUMBER) return 1;
  return opt && t <= LUA_TNIL ? 0 : -1;
}

/* Lua refuses before it copies anything when an argument is not a
   string or when the result would pass its MAXSIZE (INT_MAX): such a
   call costs nothing more than its base (pcall(string.rep, "x", 2^40)
   returns false, as in lua5.4, instead of exhausting a quota). */
static int64_t sz_rep(lua_State *L, const nat_model *m) {
  int64_t n = optint(L, 2, 0), l = min_len(L, 1, 0), lsep = min_len(L, 3, 1);
  (void)m;
  if (n <= 0 || l < 0 || lsep < 0 || l + lsep > INT_MAX / n) return 0;
  /* the loop runs n times even when it copies nothing */
  return clamp((double)n * (double)(slen(L, 1) + 1) +
               (double)(n - 1) * (double)slen(L, 3));
}

static int64_t sz_format(lua_State *L, const nat_model *m) {
  int i, top = lua_gettop(L);
  int64_t n = slen(L, 1);
  (void)m;
  for (i = 2; i <= top; i++)
    n += lua_type(L, i) == LUA_TSTRING ? slen(L, i)
                                       : nat_hidden_fmtweight(L, i);
  return n;
}

/* format: a %s of a value with __tostring may copy a string of any
   length, which shows only in the result: what the result holds beyond
   the size charged before is charged after the call (a bounded slice:
   one result is bounded by the memory limit). */
static int run_format(lua_State *L, lua_CFunction stock,
                      const nat_model *m) {
  int64_t before = sz_format(L, m);
  int n = stock(L);
  if (n == 1 && lua_type(L, -1) == LUA_TSTRING &&
      (int64_t)lua_rawlen(L, -1) > before)
    nat_steps(L, m, (int64_t)lua_rawlen(L, -1) - before);
  return n;
}

static int64_t sz_len1(lua_State *L, const nat_model *m) {
  (void)m;
  return slen(L, 1);
}

static int64_t sz_sub(lua_State *L, const nat_model *m) {
  int64_t l = slen(L, 1);
  int64_t i = start_pos(optint(L, 2, 1), l);
  int64_t j = end_pos(optint(L, 3, -1), l);
  (void)m;
  return j >= i ? j - i + 1 : 0;
}

static int64_t sz_byte(lua_State *L, const nat_model *m) {
  int64_t l = slen(L, 1);
  int64_t i = start_pos(optint(L, 2, 1), l);
  int64_t j = end_pos(optint(L, 3, i), l);
  (void)m;
  return j >= i ? j - i + 1 : 0;
}

static int64_t sz_nargs(lua_State *L, const nat_model *m) {
  (void)m;
  return lua_gettop(L);
}

/* Sum of the numbers written in a pack format: the most bytes its
   fixed-size items may take.  Lua reads a number only while it stays
   at most (INT_MAX - 9) / 10 before its last digit; a digit after that
   is an invalid option, refused before any work: 0. */
static double format_sizes(const char *f, size_t n) {
  double sum = 0, cur = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    if (f[i] >= '0' && f[i] <= '9') {
      if (i > 0 && f[i - 1] >= '0' && f[i - 1] <= '9' &&
          cur > (INT_MAX - 9) / 10)
        return 0;
      cur = cur * 10 + (f[i] - '0');
    } else {
      sum += cur + 8;
      cur = 0;
    }
  }
  return sum + cur;
}

static int64_t sz_pack(lua_State *L, const nat_model *m) {
  int i, top = lua_gettop(L);
  double n = 0;
  (void)m;
  if (lua_type(L, 1) == LUA_TSTRING) {
    size_t lf;
    const char *f = lua_tolstring(L, 1, &lf);
    n = format_sizes(f, lf);
  }
  for (i = 2; i <= top; i++) n += (double)slen(L, i);
  return clamp(n);
}

static int64_t sz_unpack(lua_State *L, const nat_model *m) {
  (void)m;
  return slen(L, 2) + 8 * slen(L, 1);
}

/* ---- patterns ---- */

typedef struct dry {
  lua_State *L;
  const nat_model *m;
} dry;

static void dry_charge(void *ud, int64_t steps) {
  dry *d = ud;
  nat_steps(d->L, d->m, steps);
}

/* How many items of p can match a variable length (quantified
   classes, %b and back-references): 0 makes a search linear. */
static int variable_items(const char *p, size_t lp) {
  int k = 0;
  size_t i;
  for (i = 0; i < lp; i++) {
    char c = p[i];
    if (c == '%' && i + 1 < lp) {
      char d = p[++i];
      if (d == 'b' || (d >= '0' && d <= '9')) k++;
    } else if (c == '*' || c == '+' || c == '-' || c == '?') {
      k++;
    }
  }
  return k;
}

/* Steps a search may take at most, by the pattern's structure: every
   start (one when anchored), times every way the k variable-length
   items can expand. */
static double structural_bound(int k, size_t lp, int64_t n, int anchored) {
  double b = (anchored ? 1.0 : (double)(n + 1)) * (double)(lp + 1);
  while (k-- > 0) {
    b *= (double)(n + 1);
    if (b > 1e18) return 1e18;
  }
  return b;
}

/* Searches this small are charged their structural bound, no dry run. */
#define SMALL_BOUND 256.0

enum { P_FIND, P_MATCH, P_GMATCH, P_GSUB };

/* A find or gsub whose pattern has no variable-length item and whose
   structural bound is at most AFTER_BOUND steps (a bounded slice of
   work) runs without a dry run: find is charged after the call by the
   starts it tried, gsub by a whole scan before and its replacements
   after.  Larger ones are counted dry first: a special-free pattern
   takes |s| x |p| steps at worst. */
#define AFTER_BOUND 1048576.0

/* Steps a start takes at most for a pattern without quantifiers: two to
   set it up and one per item (a byte, %x or [set]); plain searches
   compare 16 bytes a step. */
static double per_start(const char *p, size_t lp, int plain) {
  double n = 2;
  size_t i = 0;
  if (plain) return 3 + (double)lp / 16;
  while (i < lp) {
    if (p[i] == '%') {
      i += 2;
    } else if (p[i] == '[') {
      i++;
      if (i < lp && p[i] == '^') i++;
      if (i < lp) i++;  /* a first ']' is literal */
      while (i < lp && p[i] != ']') i += p[i] == '%' ? 2 : 1;
      i++;
    } else {
      i++;
    }
    n++;
  }
  return n;
}

/* Whether a search of structural bound `bound` with k variable-length
   items is charged after the call. */
static int charged_after(int kind, int k, double bound) {
  return (kind == P_FIND || kind == P_GSUB) && k == 0 &&
         bound > SMALL_BOUND && bound <= AFTER_BOUND;
}

/* The steps per start of the search at L's arguments (charged after). */
static double after_per_start(lua_State *L, int kind) {
  size_t lp;
  const char *p = lua_tolstring(L, 2, &lp);
  return per_start(p, lp, (kind == P_FIND && lua_toboolean(L, 4)) ||
                              nat_match_plain(p, lp));
}

/* The output of gsub: the subject, each of nmatch replacements, and
   each %n copying at most the whole subject. */
static int64_t gsub_output(lua_State *L, size_t ls, int64_t nmatch) {
  double out = (double)ls;
  if (lua_type(L, 3) == LUA_TSTRING) {
    size_t lr, i, pct = 0;
    const char *r = lua_tolstring(L, 3, &lr);
    for (i = 0; i < lr; i++)
      if (r[i] == '%') pct++;
    out += (double)nmatch * (double)lr + (double)pct * (double)ls;
  }
  return clamp(out);
}

static int64_t pattern_size(lua_State *L, const nat_model *m,
                            int kind) {
  size_t ls, lp, init;
  const char *s, *p;
  int64_t pos, steps, nmatch = 0;
  int anchored, k;
  double bound;
  nat_matcher mt;
  dry d;
  rt_state(L)->native_after = 0;
  if (lua_type(L, 1) != LUA_TSTRING || lua_type(L, 2) != LUA_TSTRING)
    return slen(L, 1) + slen(L, 2);
  s = lua_tolstring(L, 1, &ls);
  p = lua_tolstring(L, 2, &lp);
  pos = kind == P_GSUB ? 1 : optint(L, 3, 1);
  init = (size_t)start_pos(pos, (int64_t)ls) - 1;
  if (init > ls) return 0;
  anchored = kind != P_GMATCH && lp > 0 && p[0] == '^';
  k = kind == P_FIND && lua_toboolean(L, 4) ? 0 : variable_items(p, lp);
  bound = structural_bound(k, lp, (int64_t)(ls - init), anchored);
  if (kind == P_GSUB) bound *= 2;
  if (bound <= SMALL_BOUND) return (int64_t)bound;
  if (charged_after(kind, k, bound)) {
    rt_state(L)->native_after = 1;
    if (kind == P_FIND) return 0;
    /* gsub: a whole scan, and its output but for the replacements */
    steps = clamp(after_per_start(L, kind) * (double)(ls - init + 1));
    return steps + gsub_output(L, ls, 0);
  }
  /* a special-free pattern is searched for by comparing bytes: its
     steps, counted dry, grow with |s| x |p| */
  if (kind == P_FIND && (lua_toboolean(L, 4) || nat_match_plain(p, lp)))
    return nat_audit_plain(L, m, s, ls, p, lp, init, 1);
  if (kind == P_MATCH && nat_match_plain(p, lp))
    return nat_audit_plain(L, m, s, ls, p, lp, init, 0);
  d.L = L;
  d.m = m;
  nat_match_init(&mt, s, ls, dry_charge, &d);
  if (kind == P_FIND || kind == P_MATCH) {
    size_t a, b;
    if (nat_match_find(&mt, p, lp, init, &a, &b) < 0) return clamp(bound);
  } else {
    int64_t max = -1;
    if (kind == P_GSUB && !lua_isnoneornil(L, 4))
      max = optint(L, 4, -1) < 0 ? 0 : optint(L, 4, -1);
    nmatch = nat_match_count(&mt, p, lp, init, max, kind == P_GMATCH);
    if (nmatch < 0) return clamp(bound);
  }
  steps = mt.steps;
  if (kind == P_GMATCH)  /* each match is a call of the iterator */
    steps += 16 * nmatch;
  if (kind == P_GSUB) steps = clamp((double)steps + gsub_output(L, ls, nmatch));
  return steps;
}

/* find charged after the call: the starts up to where it matched. */
static int run_find(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  lraf_state *S = rt_state(L);
  double per = S->native_after ? after_per_start(L, P_FIND) : 0;
  int n;
  S->native_after = 0;  /* before the call: it may run another search */
  n = stock(L);
  if (per > 0) {
    int64_t ls = (int64_t)lua_rawlen(L, 1);
    int64_t init = start_pos(optint(L, 3, 1), ls) - 1, stop = ls;
    if (n >= 2 && lua_isinteger(L, -n)) stop = lua_tointeger(L, -n) - 1;
    nat_steps(L, m,
                    clamp(per * (double)(stop - init + 1)));
  }
  return n;
}

/* gsub charged after the call for its replacements' bytes. */
static int run_gsub(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  lraf_state *S = rt_state(L);
  int after = S->native_after, n;
  S->native_after = 0;  /* before the call: a function replacement may
                           run another search */
  n = stock(L);
  if (after && n == 2 && lua_type(L, 3) == LUA_TSTRING)
    nat_steps(L, m,
                    clamp((double)lua_tointeger(L, -1) *
                          (double)lua_rawlen(L, 3)));
  return n;
}

static int64_t sz_find(lua_State *L, const nat_model *m) {
  return pattern_size(L, m, P_FIND);
}
static int64_t sz_match(lua_State *L, const nat_model *m) {
  return pattern_size(L, m, P_MATCH);
}
static int64_t sz_gmatch(lua_State *L, const nat_model *m) {
  return pattern_size(L, m, P_GMATCH);
}
static int64_t sz_gsub(lua_State *L, const nat_model *m) {
  return pattern_size(L, m, P_GSUB);
}

/* ---- tables ---- */

/* table.concat: the bytes of the raw elements i..j up to the first one
   that is not a string or number (where the stock function stops). */
static int64_t sz_concat(lua_State *L, const nat_model *m) {
  int64_t i, j, n = 0, lsep = slen(L, 2), k;
  (void)m;
  if (lua_type(L, 1) != LUA_TTABLE || !nat_table_plain(L) ||
      !lua_checkstack(L, 1))
    return 0;
  i = optint(L, 3, 1);
  j = optint(L, 4, tlen(L, 1));
  for (k = i; k <= j && k >= i; k++) {
    int t = lua_rawgeti(L, 1, (lua_Integer)k);
    if (t == LUA_TSTRING) n += (int64_t)lua_rawlen(L, -1) + lsep + 1;
    else if (t == LUA_TNUMBER) n += 24 + lsep;
    lua_pop(L, 1);
    if (t != LUA_TSTRING && t != LUA_TNUMBER) break;
  }
  return n;
}

static int64_t sz_sort(lua_State *L, const nat_model *m) {
  int64_t n = nat_table_plain(L) ? tlen(L, 1) : 0;
  (void)m;
  return n < 2 ? n
               : clamp((double)n * log2((double)n) *
                       (1.0 + (double)nat_hidden_sortweight(L, n)));
}

static int64_t span(int64_t i, int64_t j) {
  if (j < i) return 0;
  return clamp((double)j - (double)i + 1);
}

/* More results than a stack can hold (LUAI_MAXSTACK) are refused
   before any is pushed: "too many results to unpack". */
static int64_t sz_unpack_t(lua_State *L, const nat_model *m) {
  int64_t n;
  (void)m;
  if (!nat_table_plain(L) && lua_isnoneornil(L, 3)) return 0;
  n = span(optint(L, 2, 1), optint(L, 3, tlen(L, 1)));
  return n >= LUAI_MAXSTACK ? 0 : n;
}

static int64_t sz_insert(lua_State *L, const nat_model *m) {
  (void)m;
  if (lua_gettop(L) != 3 || !nat_table_plain(L)) return 0;
  return span(optint(L, 2, 1), tlen(L, 1));
}

static int64_t sz_remove(lua_State *L, const nat_model *m) {
  int64_t n = tlen(L, 1);
  (void)m;
  if (!nat_table_plain(L)) return 0;
  return span(optint(L, 2, n), n);
}

/* Lua's checks before it moves anything: f, e and t integers, "too
   many elements to move", "destination wrap around". */
static int64_t sz_move(lua_State *L, const nat_model *m) {
  int64_t f = optint(L, 2, 1), e = optint(L, 3, 0), t = optint(L, 4, 0);
  int64_t n = span(f, e);
  int ok;
  (void)m;
  lua_tointegerx(L, 4, &ok);
  if (n <= 0 || !ok || !(f > 0 || e < LUA_MAXINTEGER + f) ||
      t > LUA_MAXINTEGER - (e - f))
    return 0;
  if (nat_table_move_weight(L) != 1) return 0;  /* nat_table_move pays */
  return clamp((double)n);
}

/* ---- utf8 ---- */

static int64_t sz_utf8_range(lua_State *L, const nat_model *m,
                             int64_t dflt_i, int j_from_i) {
  int64_t l = slen(L, 1);
  int64_t i = start_pos(optint(L, 2, dflt_i), l);
  int64_t j = end_pos(optint(L, 3, j_from_i ? i : -1), l);
  (void)m;
  return j >= i ? j - i + 1 : 0;
}

static int64_t sz_codepoint(lua_State *L, const nat_model *m) {
  return sz_utf8_range(L, m, 1, 1);
}

static int64_t sz_ulen(lua_State *L, const nat_model *m) {
  return sz_utf8_range(L, m, 1, 0);
}

/* ---- base ---- */

static int64_t sz_tonumber(lua_State *L, const nat_model *m) {
  (void)m;
  return lua_type(L, 1) == LUA_TSTRING ? slen(L, 1) : 0;
}

static int64_t sz_load(lua_State *L, const nat_model *m) {
  (void)m;
  return lua_type(L, 1) == LUA_TSTRING ? slen(L, 1) : 0;
}

/* ---- lpeg ---- */

/* The subject from init on, times a factor that grows with the size of
   the pattern (its userdata block, or the length of a string pattern). */
static int64_t sz_lpeg_match(lua_State *L, const nat_model *m) {
  int64_t l = slen(L, 2), init = start_pos(optint(L, 3, 1), l);
  double factor = 1;
  (void)m;
  if (lua_type(L, 1) == LUA_TUSERDATA)
    factor += (double)lua_rawlen(L, 1) / 64.0;
  else if (lua_type(L, 1) == LUA_TSTRING)
    factor += (double)slen(L, 1) / 8.0;
  if (init > l + 1) return 0;
  return clamp((double)(l - init + 2) * factor);
}

/* ---- the table ---- */

/* Calibrated with tests/bench/native.c (see docs/cost-model.md). */
const nat_model nat_models[] = {
  {"string", "rep", sz_rep, 2, 830, NULL},
  {"string", "format", sz_format, 4, 770, run_format},
  {"string", "find", sz_find, 2, 1520, run_find},
  {"string", "match", sz_match, 2, 1530, NULL},
  {"string", "gmatch", sz_gmatch, 3, 940, NULL},
  {"string", "gsub", sz_gsub, 4, 1500, run_gsub},
  {"string", "sub", sz_sub, 1, 830, NULL},
  {"string", "upper", sz_len1, 1, 700, NULL},
  {"string", "lower", sz_len1, 1, 850, NULL},
  {"string", "reverse", sz_len1, 1, 750, NULL},
  {"string", "byte", sz_byte, 1, 500, NULL},
  {"string", "char", sz_nargs, 1, 600, NULL},
  {"string", "pack", sz_pack, 2, 700, NULL},
  {"string", "unpack", sz_unpack, 2, 700, NULL},
  {"string", "packsize", nat_audit_fmtlen, 1, 1050, NULL},
  {"string", "dump", nat_audit_dump, 4, 700, NULL},
  {"table", "concat", sz_concat, 2, 670, nat_table_concat},
  {"table", "sort", sz_sort, 2, 4800, nat_table_sort},
  {"table", "unpack", sz_unpack_t, 1, 850, nat_table_unpack},
  {"table", "insert", sz_insert, 1, 1560, nat_table_insert},
  {"table", "remove", sz_remove, 1, 1560, nat_table_remove},
  {"table", "move", sz_move, 1, 1800, nat_table_move},
  {"table", "pack", nat_audit_nargs, 1, 3100, NULL},
  {"utf8", "char", sz_nargs, 1, 12000, NULL},
  {"utf8", "codepoint", sz_codepoint, 1, 880, NULL},
  {"utf8", "len", sz_ulen, 1, 310, NULL},
  {"utf8", "offset", nat_audit_offset, 1, 270, NULL},
  {"utf8", "codes", NULL, 1, 0, nat_audit_codes},
  {"_G", "tonumber", sz_tonumber, 1, 100, NULL},
  {"_G", "load", sz_load, 20, 9400, NULL},
  {"_G", "collectgarbage", nat_audit_collect, 1, 44000,
   nat_hidden_collect},
  {"_G", "next", nat_next_size, 0, 340, NULL},
  {"_G", "pairs", NULL, 0, 0, nat_next_pairs},
  {"_G", "select", nat_audit_nargs, 1, 300, NULL},
  {"_G", "rawequal", nat_audit_rawequal, 1, 60, NULL},
  {"_G", "rawget", nat_audit_rawkey, 0, 350, NULL},
  {"_G", "rawset", nat_audit_rawkey, 0, 350, NULL},
  {"_G", "print", nat_audit_print, 0, 700, NULL},
  {"_G", "assert", nat_audit_nargs, 1, 300, NULL},
  {"math", "max", nat_audit_nargs, 1, 1150, NULL},
  {"math", "min", nat_audit_nargs, 1, 1150, NULL},
  {"os", "date", nat_audit_date, 2, 23000, NULL},
  {"io", "write", nat_audit_write, 0, 700, NULL},
  {"io", "read", NULL, 0, 700, nat_audit_read},
  {"file", "write", nat_audit_write, 0, 700, NULL},
  {"file", "read", NULL, 0, 700, nat_audit_read},
  {"package", "searchpath", nat_audit_searchpath, 1, 700, NULL},
  {"lpeg", "match", sz_lpeg_match, 4, 85, NULL},
  {"_G", "error", nat_hidden_error, 0, 1000, NULL},
  {"debug", "traceback", nat_hidden_traceback, 0, 400, NULL},
  {"debug", "getinfo", nat_hidden_dblevel, 0, 600, NULL},
  {"debug", "getlocal", nat_hidden_dblevel, 0, 600, NULL},
  {"debug", "setlocal", nat_hidden_dblevel, 0, 600, NULL},
  {"_G", "tostring", nat_hidden_tostring, 0, 100, NULL},
  {"coroutine", "wrap", NULL, 250, 0, NULL},
  {"coroutine", "create", NULL, 150, 0, NULL},
  {"stringmeta", "__add", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__sub", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__mul", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__div", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__mod", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__pow", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__unm", nat_hidden_strarith, 0, 600, NULL},
  {"stringmeta", "__idiv", nat_hidden_strarith, 0, 600, NULL},
  {NULL, NULL, NULL, 0, 0, NULL}
};

const nat_model *nat_find(const char *lib, const char *name) {
  const nat_model *m;
  for (m = nat_models; m->lib != NULL; m++)
    if (strcmp(m->lib, lib) == 0 && strcmp(m->name, name) == 0) return m;
  m = &nat_audit_codes_step;
  if (strcmp(m->lib, lib) == 0 && strcmp(m->name, name) == 0) return m;
  return NULL;
}

static uint32_t mix(uint32_t h, const char *s) {
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 16777619u;
  }
  return h;
}

uint32_t nat_hash(void) {
  const nat_model *m;
  uint32_t h = 2166136261u;
  char buf[64];
  for (m = nat_models; m->lib != NULL; m++) {
    snprintf(buf, sizeof buf, "%s.%s:%lld:%lld;", m->lib, m->name,
             (long long)m->per_call, (long long)m->per_k);
    h = mix(h, buf);
  }
  m = &nat_audit_codes_step;
  snprintf(buf, sizeof buf, "%s.%s:%lld:%lld;", m->lib, m->name,
           (long long)m->per_call, (long long)m->per_k);
  h = mix(h, buf);
  snprintf(buf, sizeof buf, "bound:%g;after:%g;chunk:%d", SMALL_BOUND,
           AFTER_BOUND, NAT_MATCH_CHUNK);
  return mix(h, buf);
}
