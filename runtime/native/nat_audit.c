/*
** nat_audit.c - sizes of the built-ins an audit of Lua 5.4's libraries
** found doing work that grows with their operands (docs/cost-model.md):
** collectgarbage's collecting options, functions that take or return
** many values, rawequal and print on long strings, utf8.offset and the
** steps of utf8.codes by the bytes they skip, string.dump by what it
** writes, os.date and string.packsize by their format, package.searchpath
** by its templates, and the search of a special-free pattern.
**
** Where the size shows only by doing the work (dump, offset, codes,
** patterns) the size function does it dry, charging a slice at a time,
** so that a quota stops the call before the stock function repeats it.
*/
#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "nat_wrap.h"
#include "nat_audit.h"

/* Steps of a dry run between two charges. */
#define SLICE 65536

typedef struct dry {
  lua_State *L;
  const nat_model *m;
  int64_t owed;
} dry;

static void dry_add(dry *d, int64_t n) {
  d->owed += n;
  if (d->owed >= SLICE) {
    nat_steps(d->L, d->m, d->owed);
    d->owed = 0;
  }
}

static int64_t str_len(lua_State *L, int i) {
  return lua_type(L, i) == LUA_TSTRING ? (int64_t)lua_rawlen(L, i) : 0;
}

/* ---- base ---- */

/* The options that collect: a full cycle at worst, by the heap's KiB. */
int64_t nat_audit_collect(lua_State *L, const nat_model *m) {
  static const char *const collecting[] = {"collect", "step",
                                           "generational", "incremental",
                                           NULL};
  const char *opt = "collect";
  int i;
  (void)m;
  if (!lua_isnoneornil(L, 1)) {
    if (lua_type(L, 1) != LUA_TSTRING) return 0;
    opt = lua_tostring(L, 1);
  }
  for (i = 0; collecting[i] != NULL; i++)
    if (strcmp(opt, collecting[i]) == 0) return lua_gc(L, LUA_GCCOUNT, 0);
  return 0;
}

/* select, table.pack, math.min/max, assert: every argument is moved. */
int64_t nat_audit_nargs(lua_State *L, const nat_model *m) {
  (void)m;
  return lua_gettop(L);
}

/* Two long strings of one length are compared byte by byte. */
int64_t nat_audit_rawequal(lua_State *L, const nat_model *m) {
  (void)m;
  if (lua_type(L, 1) == LUA_TSTRING && lua_type(L, 2) == LUA_TSTRING &&
      lua_rawlen(L, 1) == lua_rawlen(L, 2))
    return (int64_t)lua_rawlen(L, 1);
  return 0;
}

/* rawget and rawset: a long-string key is compared with an equal key of
   the table byte by byte (Lua interns only short strings). */
int64_t nat_audit_rawkey(lua_State *L, const nat_model *m) {
  (void)m;
  return lua_type(L, 2) == LUA_TSTRING && lua_rawlen(L, 2) > 40
             ? (int64_t)lua_rawlen(L, 2) : 0;
}

/* print writes each argument: strings by their bytes (the others
   print a few bytes, which are not charged). */
int64_t nat_audit_print(lua_State *L, const nat_model *m) {
  int i, top = lua_gettop(L);
  int64_t n = 0;
  (void)m;
  for (i = 1; i <= top; i++) n += str_len(L, i);
  return n;
}

/* io.write and file:write: the bytes written. */
int64_t nat_audit_write(lua_State *L, const nat_model *m) {
  int i, top = lua_gettop(L);
  int64_t n = 0;
  (void)m;
  for (i = 1; i <= top; i++) n += str_len(L, i);
  return n;
}

/* io.read and file:read: what a format reads ("a", a line) shows only
   in the result; charged after the call by the bytes read (one call is
   bounded by the memory limit). */
int nat_audit_read(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  int n = stock(L), i;
  int64_t bytes = 0;
  for (i = 1; i <= n; i++) bytes += str_len(L, -i);
  nat_steps(L, m, bytes);
  return n;
}

/* ---- utf8 ---- */

#define ISCONT(c) (((unsigned char)(c) & 0xC0) == 0x80)

static int64_t relat(int64_t pos, int64_t len) {
  if (pos >= 0) return pos;
  if (-pos > len) return 0;
  return len + pos + 1;
}

/* The bytes utf8.offset(s, n, i) steps over, walked as Lua walks them. */
int64_t nat_audit_offset(lua_State *L, const nat_model *m) {
  size_t len;
  const char *s;
  lua_Integer n, posi;
  int ok;
  dry d;
  if (lua_type(L, 1) != LUA_TSTRING) return 0;
  s = lua_tolstring(L, 1, &len);
  n = lua_tointegerx(L, 2, &ok);
  if (!ok) return 0;
  posi = n >= 0 ? 1 : (lua_Integer)len + 1;
  if (!lua_isnoneornil(L, 3)) {
    posi = lua_tointegerx(L, 3, &ok);
    if (!ok) return 0;
  }
  posi = relat(posi, (int64_t)len);
  if (posi < 1 || --posi > (lua_Integer)len) return 0;
  d.L = L;
  d.m = m;
  d.owed = 0;
  if (n == 0) {
    while (posi > 0 && ISCONT(s[posi])) {
      posi--;
      dry_add(&d, 1);
    }
  } else if (ISCONT(s[posi])) {
    return 0;  /* Lua raises an error */
  } else if (n < 0) {
    while (n < 0 && posi > 0) {
      do {
        posi--;
        dry_add(&d, 1);
      } while (posi > 0 && ISCONT(s[posi]));
      n++;
    }
  } else {
    n--;
    while (n > 0 && posi < (lua_Integer)len) {
      do {
        posi++;
        dry_add(&d, 1);
      } while (ISCONT(s[posi]));
      n--;
    }
  }
  return d.owed;
}

/* One step of the utf8.codes iterator: the continuation bytes it skips
   from its control value. */
static int64_t codes_step(lua_State *L, const nat_model *m) {
  size_t len;
  const char *s;
  lua_Unsigned n;
  dry d;
  if (lua_type(L, 1) != LUA_TSTRING) return 0;
  s = lua_tolstring(L, 1, &len);
  n = (lua_Unsigned)lua_tointeger(L, 2);
  d.L = L;
  d.m = m;
  d.owed = 0;
  for (; n < len && ISCONT(s[n]); n++) dry_add(&d, 1);
  return d.owed;
}

const nat_model nat_audit_codes_step = {"utf8", "codes (step)",
                                               codes_step, 1, 170, NULL};

/* utf8.codes: the iterator it returns is charged per step. */
int nat_audit_codes(lua_State *L, lua_CFunction stock,
               const nat_model *m) {
  int n = stock(L);
  (void)m;
  if (n == 3) nat_wrap_model(L, -3, &nat_audit_codes_step);
  return n;
}

/* ---- string.dump, os.date, formats, searchpath ---- */

static int dry_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  (void)L;
  (void)p;
  dry_add(ud, (int64_t)sz);
  return 0;
}

/* string.dump: what a dump of the function writes, dumped dry. */
int64_t nat_audit_dump(lua_State *L, const nat_model *m) {
  dry d;
  if (lua_type(L, 1) != LUA_TFUNCTION || lua_iscfunction(L, 1) ||
      !lua_checkstack(L, 2))
    return 0;
  d.L = L;
  d.m = m;
  d.owed = 0;
  lua_pushvalue(L, 1);
  lua_dump(L, dry_writer, &d, lua_toboolean(L, 2));
  lua_pop(L, 1);
  return d.owed;
}

/* os.date: each byte of the format (a conversion writes at most a
   bounded string). */
int64_t nat_audit_date(lua_State *L, const nat_model *m) {
  (void)m;
  return lua_isnoneornil(L, 1) ? 2 : str_len(L, 1);
}

/* string.packsize: its format is read byte by byte. */
int64_t nat_audit_fmtlen(lua_State *L, const nat_model *m) {
  (void)m;
  return str_len(L, 1);
}

/* Units of a template tried (one fopen) in bytes of path. */
#define TEMPLATE_BYTES 768

/* package.searchpath(name, path [, sep [, rep]]): the name rewritten,
   the path with every '?' replaced by it, and a file tried per
   template. */
int64_t nat_audit_searchsize(int64_t name, const char *p, size_t lp) {
  int64_t marks = 0, templates = 1;
  size_t i;
  for (i = 0; i < lp; i++) {
    if (p[i] == '?') marks++;
    else if (p[i] == ';') templates++;
  }
  return name + (int64_t)lp + marks * name + templates * TEMPLATE_BYTES;
}

int64_t nat_audit_searchpath(lua_State *L, const nat_model *m) {
  size_t lp;
  const char *p;
  int64_t name = str_len(L, 1);
  (void)m;
  if (lua_type(L, 2) != LUA_TSTRING) return name;
  p = lua_tolstring(L, 2, &lp);
  return nat_audit_searchsize(name, p, lp);
}

/* ---- special-free patterns ---- */

/* Steps of the search for the first match of the special-free p in s
   from init, as Lua does it.  find: memchr for the first byte, then
   memcmp of the rest (a step per byte passed, and per candidate one
   plus one per 16 bytes compared); match: the matcher at each start
   compares until a byte differs (two steps a start, one per byte). */
int64_t nat_audit_plain(lua_State *L, const nat_model *m,
                         const char *s, size_t ls, const char *p,
                         size_t lp, size_t init, int find) {
  dry d;
  size_t i = init;
  d.L = L;
  d.m = m;
  d.owed = 0;
  if (lp == 0 || lp > ls - init) return (int64_t)(ls - init) + 1;
  while (i + lp <= ls) {
    const char *c = memchr(s + i, p[0], ls - lp + 1 - i);
    size_t at, k;
    if (c == NULL) {
      dry_add(&d, (int64_t)(ls - lp + 1 - i) * (find ? 1 : 3));
      break;
    }
    at = (size_t)(c - s);
    dry_add(&d, (int64_t)(at - i) * (find ? 1 : 3));
    if (find) {
      dry_add(&d, 1 + (int64_t)lp / 16);
      if (memcmp(c + 1, p + 1, lp - 1) == 0) break;
    } else {
      for (k = 1; k < lp && c[k] == p[k]; k++) continue;
      dry_add(&d, 2 + (int64_t)k);
      if (k == lp) break;
    }
    i = at + 1;
  }
  return d.owed;
}
