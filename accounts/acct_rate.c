/*
** acct_rate.c - the rate manager: at most R instructions per second
** across all threads charged to it.  It keeps a virtual time: each
** charge of n moves it on by n / R seconds (from no earlier than one
** window ago, which bounds the credit idle time earns); a thread whose
** charge puts the virtual time ahead of the clock sleeps until the clock
** catches up, or is paused when its coroutine is host scheduled.
*/
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "acct.h"

typedef struct rate {
  double rate, window;
  lraf_clock clock;
  pthread_mutex_t mu;
  double vt;     /* the time at which everything charged is on schedule */
  int started;
} rate;

static double real_now(void *ud) {
  struct timespec ts;
  (void)ud;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void real_sleep(void *ud, double seconds) {
  struct timespec ts;
  (void)ud;
  if (seconds <= 0) return;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static lraf_verdict rate_consume(void *ud, lraf_account *a, int64_t n,
                                 int can_pause) {
  rate *r = ud;
  double now, until;
  /* nothing new, or a refund (see lraf.h): already scheduled */
  if (n <= 0) return LRAF_CONTINUE;
  pthread_mutex_lock(&r->mu);
  now = r->clock.now(r->clock.ud);
  if (!r->started) {
    r->vt = now;
    r->started = 1;
  }
  if (r->vt < now - r->window) r->vt = now - r->window;
  r->vt += (double)n / r->rate;
  until = r->vt;
  pthread_mutex_unlock(&r->mu);
  if (until <= now) return LRAF_CONTINUE;
  if (can_pause && a != NULL) {
    acct_set_wake(a, until);
    return LRAF_PAUSE;
  }
  r->clock.sleep(r->clock.ud, until - now);
  return LRAF_CONTINUE;
}

static int64_t rate_granularity(void *ud, lraf_account *a, int64_t dflt) {
  rate *r = ud;
  double g = r->rate * r->window / 8;
  (void)a;
  if (g < 1) g = 1;
  return g < (double)dflt ? (int64_t)g : dflt;
}

static void rate_release(void *ud) {
  rate *r = ud;
  pthread_mutex_destroy(&r->mu);
  free(r);
}

static const lraf_manager_ops rate_ops = {
  rate_consume, rate_granularity, rate_release
};

lraf_manager *lraf_rate_new(double rps, double window,
                            const lraf_clock *clock) {
  rate *r;
  lraf_manager *m;
  if (!(rps > 0) || !(window > 0)) return NULL;
  r = malloc(sizeof *r);
  if (r == NULL) return NULL;
  r->rate = rps;
  r->window = window;
  if (clock != NULL) {
    r->clock = *clock;
  } else {
    r->clock.now = real_now;
    r->clock.sleep = real_sleep;
    r->clock.ud = NULL;
  }
  r->vt = 0;
  r->started = 0;
  if (pthread_mutex_init(&r->mu, NULL) != 0) {
    free(r);
    return NULL;
  }
  m = acct_manager_new(&rate_ops, r, ACCT_RATE);
  if (m == NULL) rate_release(r);
  return m;
}
