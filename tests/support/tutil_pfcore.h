/*
** tutil_pfcore.h - test helpers for the profiler's core (profile/pf.h)
** without Lua: a small hand-made profile, and a profile's output in
** memory or read back.
*/
#ifndef TUTIL_PFCORE_H
#define TUTIL_PFCORE_H

#include <stddef.h>
#include <stdint.h>

#include "pf.h"

/* A finished profile of model "test/model": main chunk (m.lua:0) runs
   10 itself and calls f (m.lua:3), which runs 5 and calls g (m.lua:7,
   a name with a quote, a newline and bytes outside ASCII), then main
   calls g, which is unwound by an error; each g runs g_self.  Total
   15 + 2 * g_self; nodes: root, main, main/f, main/f/g, main/g. */
pf_profile *tutil_pfcore_sample(int64_t g_self);
/* P written in fmt with top rows (malloc'ed, NUL-terminated, *len
   bytes when len is not NULL); fails the test when pf_write fails. */
char *tutil_pfcore_write(const pf_profile *P, pf_format fmt, int top,
                         size_t *len);
/* P's JSON read back into r (free with pf_read_free); fails the test
   when it does not read. */
void tutil_pfcore_read(const pf_profile *P, const char *name, pf_read *r);

/* A box of a flame graph as pf_svg_flame writes it: its left edge and
   width in units, its depth, its name (as escaped in the file) and its
   fill colour. */
typedef struct tutil_box {
  double o;
  int64_t w;
  int d;
  char name[256];
  int rgb[3];
} tutil_box;
/* The boxes of svg, in the file's order (at most max); their number.
   Fails the test on a box it cannot read. */
int tutil_pfcore_boxes(const char *svg, tutil_box *box, int max);
/* Whether xmllint --noout accepts text (-1: no xmllint). */
int tutil_pfcore_xmllint(const char *text, size_t len);

#endif
