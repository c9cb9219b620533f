/*
** nat_match.h - a step-counting Lua pattern matcher, used to measure (and
** bound) the work of string.find/match/gmatch/gsub before the stock
** functions run.  Written for lraf from the pattern semantics of the Lua
** 5.4 manual (section 6.4.1); it only finds where matches are and how
** many steps finding them takes, it builds no results.
*/
#ifndef NAT_MATCH_H
#define NAT_MATCH_H

#include <stddef.h>
#include <stdint.h>

/* The most captures a pattern may have (Lua's LUA_MAXCAPTURES). */
#define NAT_MATCH_MAXCAPTURES 32
/* The deepest nesting of the matcher (Lua's MAXCCALLS for patterns). */
#define NAT_MATCH_MAXDEPTH 200

typedef struct nat_matcher nat_matcher;

/* Called every NAT_MATCH_CHUNK steps with the steps done since the last
   call; may raise a Lua error (the matcher holds no resources). */
typedef void (*nat_match_charge)(void *ud, int64_t steps);
#define NAT_MATCH_CHUNK 4096

struct nat_matcher {
  const char *s0, *se;  /* the subject */
  const char *pe;       /* end of the pattern */
  int level;            /* captures open or closed so far */
  struct {
    const char *init;
    ptrdiff_t len;
  } cap[NAT_MATCH_MAXCAPTURES];
  int depth;
  int bad;              /* the pattern is malformed or too complex */
  int64_t steps;        /* steps not yet reported */
  int64_t total;        /* all steps */
  nat_match_charge charge;
  void *ud;
};

/* Prepare m for subject s[0..ls) (NUL-terminated, as Lua strings are). */
void nat_match_init(nat_matcher *m, const char *s, size_t ls,
                   nat_match_charge charge, void *ud);

/* Match pattern p[0..lp) (NUL-terminated) at s; returns the end of the
   match or NULL.  Sets m->bad when the pattern is malformed or nests
   deeper than NAT_MATCH_MAXDEPTH (stock Lua raises an error there). */
const char *nat_match_at(nat_matcher *m, const char *s, const char *p,
                        size_t lp);

/* What string.find(s, p, init) does, without plain mode: sets *start and
   *end (0-based, end exclusive) and returns 1 on a match; 0 when there
   is none; -1 when the pattern is malformed or too complex.  init is
   0-based and at most ls. */
int nat_match_find(nat_matcher *m, const char *p, size_t lp, size_t init,
                  size_t *start, size_t *end);

/* The search loop of string.gsub (max_n < 0: no limit; anchor '^'
   honoured) and of string.gmatch (anchor as a plain character, no
   limit): returns the number of matches, or -1 when the pattern is
   malformed or too complex. */
int64_t nat_match_count(nat_matcher *m, const char *p, size_t lp,
                       size_t init, int64_t max_n, int gmatch);

/* 1 when p has none of Lua's pattern specials (find may use a plain
   search). */
int nat_match_plain(const char *p, size_t lp);

#endif
