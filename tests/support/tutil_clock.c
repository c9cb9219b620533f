/*
** tutil_clock.c - the fake clock of tutil_clock.h.
*/
#include "tutil_clock.h"

static double fake_now(void *ud) {
  return ((tutil_clock *)ud)->t;
}

static void fake_sleep(void *ud, double s) {
  tutil_clock *f = ud;
  f->t += s;
  f->slept += s;
  f->sleeps++;
}

lraf_clock tutil_clock_new(tutil_clock *f, double t) {
  lraf_clock c;
  f->t = t;
  tutil_clock_reset(f);
  c.now = fake_now;
  c.sleep = fake_sleep;
  c.ud = f;
  return c;
}

void tutil_clock_reset(tutil_clock *f) {
  f->slept = 0;
  f->sleeps = 0;
}
