/*
** test_pf_timeline.c - profile/pf_timeline.c: recording (a timeline
** over a limit sees every consume, its account and the stop), the
** options' defaults, the intervals pf_timeline_walk makes of hand-made
** samples (each thread's from its previous sample, after any wait; a
** gap when it took longer than its count at the solo rate, beyond the
** threshold), and what pf_timeline_summarise makes of them: the solo
** rate, counts, gaps, pauses, the stop, the delivered share and its
** windows.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "pf_timeline.h"

#define US 1000   /* ns */
#define MS 1000000

static int near(double a, double b, double tol) {
  return fabs(a - b) <= tol;
}

static void test_options(void **state) {
  static const struct { int given; double gap, window, want_gap, want_window; }
      rows[] = {
    {0, 0, 0, 0.001, 0.1}, {1, 0, 0, 0.001, 0.1}, {1, 0.005, 0.5, 0.005, 0.5},
    {1, -1, -2, 0.001, 0.1}, {1, 0.002, 0, 0.002, 0.1},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    lraf_timeline_opts o;
    double gap = -5, window = -5;
    o.gap_threshold = rows[i].gap;
    o.window = rows[i].window;
    pf_timeline_options(rows[i].given ? &o : NULL, &gap, &window);
    assert_true(gap == rows[i].want_gap);
    assert_true(window == rows[i].want_window);
  }
}

/* A timeline over a limit: every consume reaches the limit and the
   samples, with the account; the stop is recorded. */
static void test_recording(void **state) {
  lraf_manager *lim = lraf_limit_new(10000), *tl = lraf_timeline_new(lim);
  lraf_manager *plain = lraf_total_new();
  lraf_account *a = acct_new(3, tl);
  lraf_timeline_summary sum;
  lraf_error err;
  pf_tl_sample *s;
  size_t n, i;
  int64_t total = 0;
  int k;
  (void)state;
  assert_non_null(pf_timeline_of(tl));
  assert_null(pf_timeline_of(plain));
  assert_null(pf_timeline_of(NULL));
  for (k = 0; k < 3; k++)
    assert_int_equal(acct_charge(a, 3000, 0), LRAF_CONTINUE);
  for (k = 0; k < 10; k++)
    assert_int_equal(acct_charge(a, 10, 0), LRAF_CONTINUE);  /* quick ones */
  assert_int_equal(acct_charge(a, 2000, 0), LRAF_STOP);
  assert_int_equal(lraf_manager_total(lim), 11100);
  s = pf_timeline_samples(pf_timeline_of(tl), &n);
  assert_non_null(s);
  assert_true(n >= 1);
  for (i = 0; i < n; i++) {
    total += s[i].n;
    assert_int_equal(s[i].account, 3);
    assert_int_equal(s[i].thread, 0);
    if (i > 0) assert_true(s[i].t >= s[i - 1].t);
  }
  assert_int_equal(total, 11100);
  assert_true(s[n - 1].flags & PF_TL_STOP);
  free(s);
  assert_int_equal(lraf_timeline_analyse(tl, NULL, &sum, &err), LRAF_OK);
  assert_int_equal(sum.instructions, 11100);
  assert_int_equal(sum.samples, (int64_t)n);
  assert_true(sum.stopped);
  assert_int_equal(lraf_timeline_analyse(plain, NULL, &sum, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "not a timeline"));
  assert_int_equal(lraf_timeline_analyse(tl, NULL, NULL, &err), LRAF_EARG);
  lraf_account_release(a);
  lraf_manager_release(tl);
  lraf_manager_release(lim);
  lraf_manager_release(plain);
}

/* Hand-made samples: thread 0 runs 1000 instructions every 100 us (a
   solo rate of 10 per us), loses 5 ms before its 20th sample, is held
   2 ms after its 30th; thread 1 runs beside it, steady; the last
   sample of thread 0 is a stop. */
#define N0 40
#define N1 30
static size_t make(pf_tl_sample *s) {
  size_t n = 0;
  int64_t t0 = 50 * US, t1 = 70 * US;
  int i;
  for (i = 0; i < N0 || i < N1; i++) {
    if (i < N0) {
      t0 += 100 * US + (i == 19 ? 5 * MS : 0);
      memset(&s[n], 0, sizeof s[n]);
      s[n].t = t0;
      s[n].n = 1000;
      s[n].account = 0;
      s[n].thread = 0;
      s[n].cpu = -1;
      s[n].wait = i == 29 ? 2 * MS : 0;
      s[n].flags = i == N0 - 1 ? PF_TL_STOP : 0;
      t0 += s[n].wait;
      n++;
    }
    if (i < N1) {
      t1 += 200 * US;
      memset(&s[n], 0, sizeof s[n]);
      s[n].t = t1;
      s[n].n = 2000;
      s[n].account = 1;
      s[n].thread = 1;
      s[n].cpu = -1;
      n++;
    }
  }
  return n;
}

typedef struct walked {
  pf_tl_interval iv[N0 + N1];
  int n;
} walked;

static void keep(const pf_tl_interval *iv, void *ud) {
  walked *w = ud;
  w->iv[w->n++] = *iv;
}

static void test_walk(void **state) {
  pf_tl_sample s[N0 + N1];
  size_t n = make(s), i;
  walked w;
  double prev_end[2] = {-1, -1};
  (void)state;
  w.n = 0;
  assert_true(pf_timeline_walk(s, n, 1e7, 0.001, keep, &w));
  assert_int_equal(w.n, (int)n);
  for (i = 0; i < n; i++) {
    const pf_tl_interval *iv = &w.iv[i];
    const pf_tl_sample *x = iv->sample;
    double need = (double)x->n / 1e7;
    assert_ptr_equal(x, &s[i]);
    assert_true(near(iv->end, (double)x->t * 1e-9, 1e-12));
    assert_int_equal(iv->first, prev_end[x->thread] < 0);
    if (iv->first)
      assert_true(near(iv->start, iv->end - need, 1e-12));
    else
      assert_true(near(iv->start, prev_end[x->thread], 1e-12));
    if (x->thread == 0 && x->t > 5 * MS && !iv->first &&
        iv->end - iv->start > 0.004)
      assert_true(near(iv->gap, 0.005, 1e-9));   /* the 5 ms lost */
    else
      assert_true(iv->gap == 0);
    prev_end[x->thread] = iv->end + (double)x->wait * 1e-9;
  }
  /* with a higher threshold the 5 ms are no gap */
  w.n = 0;
  assert_true(pf_timeline_walk(s, n, 1e7, 0.01, keep, &w));
  for (i = 0; i < n; i++) assert_true(w.iv[i].gap == 0);
}

typedef struct windows {
  int n[2];
  double least;
} windows;

static void window(int thread, double t, double share, double cpu_share,
                   void *ud) {
  windows *w = ud;
  (void)t;
  assert_true(cpu_share == -1 || cpu_share >= 0);
  w->n[thread]++;
  if (share < w->least) w->least = share;
}

static void test_summarise(void **state) {
  pf_tl_sample s[N0 + N1];
  size_t n = make(s), i;
  lraf_timeline_summary sum;
  lraf_timeline_opts o;
  windows w;
  int64_t count = 0;
  double wall0, wall1;
  (void)state;
  for (i = 0; i < n; i++) count += s[i].n;
  o.gap_threshold = 0.001;
  o.window = 0.001;
  memset(&w, 0, sizeof w);
  w.least = 10;
  assert_true(pf_timeline_summarise(s, n, &o, &sum, window, &w));
  /* both threads run 10 instructions a microsecond when they run */
  assert_true(near(sum.solo_rate, 1e7, 1));
  assert_int_equal(sum.instructions, count);
  assert_int_equal(sum.samples, (int64_t)n);
  assert_int_equal(sum.gaps, 1);
  assert_true(near(sum.gap_time, 0.005, 1e-9));
  assert_true(near(sum.longest_gap, 0.005, 1e-9));
  assert_true(near(sum.longest_gap_at, (double)s[2 * 19].t * 1e-9 - 0.005,
                   1e-9));
  assert_true(near(sum.pause_time, 0.002, 1e-9));
  assert_true(sum.stopped);
  /* the share: the instructions at the solo rate over both threads'
     spans (each from its first start to its last end, waits included) */
  wall0 = (double)s[n - 1].t * 1e-9 - (0.00015 - 0.0001);
  wall1 = (double)(70 * US + N1 * 200 * US) * 1e-9 - (0.00027 - 0.0002);
  assert_true(near(sum.share, (double)count / 1e7 / (wall0 + wall1), 1e-6));
  assert_true(sum.start >= 0 && sum.end > sum.start);
  /* whole windows of 1 ms: thread 0's windows in its gap are idle */
  assert_true(w.n[0] >= 8 && w.n[1] >= 5);
  assert_true(w.least < 0.2);
  assert_true(sum.min_share < 0.2);
  /* no samples at all */
  assert_true(pf_timeline_summarise(s, 0, NULL, &sum, NULL, NULL));
  assert_int_equal(sum.samples, 0);
  assert_true(sum.solo_rate == 0);
  assert_true(sum.share == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_options),
    cmocka_unit_test(test_recording),
    cmocka_unit_test(test_walk),
    cmocka_unit_test(test_summarise),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
