/*
** tutil_clock.h - a fake clock for the rate manager (lraf_clock): time
** stands still until the manager sleeps, and a sleep moves it on at
** once, so that a test of seconds of schedule runs in no time.
*/
#ifndef TUTIL_CLOCK_H
#define TUTIL_CLOCK_H

#include "lraf.h"

typedef struct tutil_clock {
  double t;        /* now, in seconds */
  double slept;    /* seconds slept since the last reset */
  long sleeps;     /* calls of sleep since the last reset */
} tutil_clock;

/* An lraf_clock over f, starting at t (slept and sleeps reset). */
lraf_clock tutil_clock_new(tutil_clock *f, double t);
/* Forget what was slept so far (the time stays). */
void tutil_clock_reset(tutil_clock *f);

#endif
