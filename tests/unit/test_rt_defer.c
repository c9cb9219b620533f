/*
** test_rt_defer.c - deferred charges at coroutine switches (rt_defer.c):
** a switch between threads of one manager that only sums, or whose
** budgets have room, keeps the leaving thread's count until the next
** settle.  Every program runs twice: under a manager that defers, and
** under the same managers rooted in a custom manager with a consume
** callback, which charges at every switch as lraf always did.  All that
** can be observed (output, lraf.count(), per-account reads and manager
** totals taken from a C function in the middle of the run, the quota's
** stop, retired and closed accounts) must be the same, and the counts
** per thread what a count hook of 1 sees on the unmodified program.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "tutil_rt.h"

/* ---- the reference: charges at every switch ---------------------- */

static lraf_verdict noop_consume(void *ud, lraf_account *a, int64_t n,
                                 int can_pause) {
  (void)ud;
  (void)a;
  (void)n;
  (void)can_pause;
  return LRAF_CONTINUE;
}

static const lraf_manager_ops noop_ops = {noop_consume, NULL, NULL};

/* A manager for the run: a total, a limit, or a budget of quota under
   a total; with reference, the same rooted in the no-op custom one. */
enum { TOTAL, LIMIT, HIER };

static lraf_manager *manager(int kind, int64_t quota, int reference) {
  lraf_manager *root, *m;
  if (reference) {
    root = lraf_manager_new(&noop_ops, NULL);
    if (kind == TOTAL) return root;
  } else {
    if (kind == TOTAL) return lraf_total_new();
    if (kind == LIMIT) return lraf_limit_new(quota);
    root = lraf_total_new();
  }
  m = lraf_hier_new(root, quota);
  lraf_manager_release(root);
  return m;
}

/* ---- one run ------------------------------------------------------- */

typedef struct run {
  lraf_state *S;
  lraf_manager *m, *m2;  /* the main thread's manager; the second one */
  char *log;             /* what the probes saw */
  size_t len, cap;
  int64_t raw[512];      /* the main manager's total at each probe,
                            before anything is read or flushed */
  int nraw;
  lraf_status status;
  char output[1 << 16];
  long long *count;      /* per account id at the end */
  int n;
  int64_t retired, nretired, total, total2;
  int64_t open_total;    /* both totals before lraf_close */
} run;

static void logf_(run *r, const char *fmt, ...) {
  va_list ap;
  char buf[128];
  int k;
  va_start(ap, fmt);
  k = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  assert_true(k > 0 && (size_t)k < sizeof buf);
  if (r->len + (size_t)k + 1 > r->cap) {
    r->cap = (r->cap + (size_t)k + 1) * 2;
    r->log = realloc(r->log, r->cap);
    assert_non_null(r->log);
  }
  memcpy(r->log + r->len, buf, (size_t)k + 1);
  r->len += (size_t)k;
}

static void log_account(lraf_account *a, int64_t consumed, int alive,
                        void *ud) {
  logf_(ud, "%lld:%lld%s ", (long long)lraf_account_id(a),
        (long long)consumed, alive ? "" : "d");
}

/* probe() (os.clock in the programs), read from C while coroutines
   switch: the main and current accounts' consumption, every account's,
   then the managers' totals after an explicit flush. */
static int probe(lua_State *L) {
  run *r = lua_touserdata(L, lua_upvalueindex(1));
  if (r->nraw < (int)(sizeof r->raw / sizeof r->raw[0]))
    r->raw[r->nraw++] = lraf_manager_total(r->m);
  logf_(r, "main %lld current %lld; ",
        (long long)lraf_consumed(r->S, lraf_main_account(r->S)),
        (long long)lraf_consumed(r->S, lraf_current_account(r->S)));
  lraf_foreach_account(r->S, log_account, r);
  lraf_flush(r->S, NULL);
  logf_(r, "| %lld %lld\n", (long long)lraf_manager_total(r->m),
        (long long)lraf_manager_total(r->m2));
  return 0;
}

/* rebind(co) (type in the programs): co's account goes to the second
   manager. */
static int rebind(lua_State *L) {
  run *r = lua_touserdata(L, lua_upvalueindex(1));
  lua_State *co = lua_tothread(L, 1);
  lraf_account *a;
  luaL_argcheck(L, co != NULL, 1, "thread expected");
  a = lraf_thread_account(r->S, co);
  if (a == NULL || lraf_set_manager(r->S, a, r->m2, NULL) != LRAF_OK)
    return luaL_error(L, "rebind failed");
  return 0;
}

static void each(lraf_account *a, int64_t consumed, int alive, void *ud) {
  run *r = ud;
  int64_t id = lraf_account_id(a);
  (void)alive;
  if (id >= r->n) {
    int n = (int)id + 1, i;
    r->count = realloc(r->count, (size_t)n * sizeof *r->count);
    assert_non_null(r->count);
    for (i = r->n; i < n; i++) r->count[i] = -1;
    r->n = n;
  }
  r->count[id] = consumed;
}

typedef struct setup {
  int exact, native, keep;
  int64_t granularity;
  int kind;
  int64_t quota;
} setup;

/* Run src under the setup, deferring or (reference) not.  Closes the
   state and fills r: status, output, probe log, counts, totals (the
   managers' totals read after lraf_close). */
static void run_one(const setup *su, int reference, const char *src,
                    run *r) {
  lraf_options opt;
  lraf_error err;
  lua_State *L;
  size_t outlen;
  const char *out;
  memset(r, 0, sizeof *r);
  r->m = manager(su->kind, su->quota, reference);
  r->m2 = manager(TOTAL, -1, reference);
  assert_non_null(r->m);
  assert_non_null(r->m2);
  lraf_default_options(&opt);
  opt.exact = su->exact;
  opt.native = su->native;
  opt.keep_accounts = su->keep;
  opt.granularity = su->granularity;
  opt.manager = r->m;
  r->S = tutil_rt_new(&opt);
  L = lraf_lua(r->S);
  /* the hook's run has the same program, where they do nothing */
  lua_getglobal(L, "os");
  lua_pushlightuserdata(L, r);
  lua_pushcclosure(L, probe, 1);
  lua_setfield(L, -2, "clock");
  lua_pop(L, 1);
  lua_pushlightuserdata(L, r);
  lua_pushcclosure(L, rebind, 1);
  lua_setglobal(L, "type");
  r->status = tutil_rt_run(r->S, src, &err);
  out = tutil_rt_output(r->S, &outlen);
  snprintf(r->output, sizeof r->output, "%.*s|%s", (int)outlen, out,
           r->status == LRAF_OK ? "ok" : err.message);
  lraf_foreach_account(r->S, each, r);
  r->retired = lraf_retired(r->S, &r->nretired);
  r->open_total = lraf_manager_total(r->m) + lraf_manager_total(r->m2);
  tutil_rt_close(r->S);
  r->S = NULL;
  r->total = lraf_manager_total(r->m);
  r->total2 = lraf_manager_total(r->m2);
  lraf_manager_release(r->m);
  lraf_manager_release(r->m2);
}

static void run_free(run *r) {
  free(r->log);
  free(r->count);
}

/* The deferring run and the reference agree on everything; returns at
   how many probes the deferring run's main manager had not heard yet
   what the reference's had (> 0: counts were deferred). */
static int64_t compare(const setup *su, const char *src, run *d) {
  run ref;
  int i;
  int64_t behind = 0;
  run_one(su, 0, src, d);
  run_one(su, 1, src, &ref);
  assert_string_equal(d->output, ref.output);
  assert_int_equal(d->len, ref.len);
  if (d->len > 0) assert_string_equal(d->log, ref.log);
  assert_int_equal(d->n, ref.n);
  for (i = 0; i < d->n; i++) assert_int_equal(d->count[i], ref.count[i]);
  assert_int_equal(d->retired, ref.retired);
  assert_int_equal(d->nretired, ref.nretired);
  assert_int_equal(d->total, ref.total);
  assert_int_equal(d->total2, ref.total2);
  assert_int_equal(d->nraw, ref.nraw);
  for (i = 0; i < d->nraw; i++) behind += d->raw[i] != ref.raw[i];
  run_free(&ref);
  return behind;
}

/* Counts per thread equal the hook's on the unmodified program: in
   exact mode (in the default mode a coroutine left suspended keeps the
   charge of the rest of its block, see lraf_options.exact). */
static void check_oracle(const setup *su, const char *src, const run *d) {
  tutil_threads o;
  int i;
  int64_t sum = 0;
  if (!su->exact) return;
  tutil_rt_oracle(src, strlen(src), "=test", &o);
  assert_true(o.ok);
  assert_int_equal(o.n, d->n);
  for (i = 0; i < o.n; i++) {
    if (d->count[i] != o.count[i])
      fail_msg("thread %d: %lld, the hook %lld", i, d->count[i], o.count[i]);
    sum += o.count[i];
  }
  assert_int_equal(d->open_total, sum);
  tutil_threads_free(&o);
}

/* ---- programs ------------------------------------------------------ */

/* Generators, a pair passing a value back and forth (one resuming the
   other), a coroutine that dies, probes in between. */
static const char *const pingpong =
  "local probe = os.clock\n"
  "local function gen(n, k)\n"
  "  return coroutine.wrap(function()\n"
  "    for i = 1, n do\n"
  "      if i % k == 0 then probe() end\n"
  "      coroutine.yield(i * k)\n"
  "    end\n"
  "  end)\n"
  "end\n"
  "local a, b = gen(300, 7), gen(300, 11)\n"
  "local sum = 0\n"
  "for i = 1, 300 do sum = sum + a() + b() end\n"
  "local ping = coroutine.create(function(x)\n"
  "  while true do x = coroutine.yield(x + 1) end\n"
  "end)\n"
  "local pong = coroutine.wrap(function(x)\n"
  "  while true do\n"
  "    local _, y = coroutine.resume(ping, x)\n"
  "    if y % 97 == 0 then probe() end\n"
  "    x = coroutine.yield(y + 1)\n"
  "  end\n"
  "end)\n"
  "local x = 0\n"
  "while x < 3000 do x = pong(x) end\n"
  "local short = coroutine.create(function(n) return n * 2 end)\n"
  "print(sum, x, coroutine.resume(short, 21))\n"
  "probe()\n";

/* Threads under two managers: rebind puts some under the second. */
static const char *const two =
  "local probe, rebind = os.clock, type\n"
  "local cos = {}\n"
  "for i = 1, 6 do\n"
  "  cos[i] = coroutine.create(function(x)\n"
  "    while true do\n"
  "      for j = 1, i do x = x + j end\n"
  "      x = coroutine.yield(x)\n"
  "    end\n"
  "  end)\n"
  "  if i % 2 == 0 then rebind(cos[i]) end\n"
  "end\n"
  "local x = 0\n"
  "for r = 1, 400 do\n"
  "  local i = r % 6 + 1\n"
  "  local _, y = coroutine.resume(cos[i], x)\n"
  "  x = y % 1000\n"
  "  if r % 37 == 0 then probe() end\n"
  "  if r == 200 then rebind(cos[i]) end\n"
  "end\n"
  "print(x)\n";

/* lraf.count() inside coroutines, lraf.measure, and a count hook set
   by the program: differential only (the hook run has no lraf module
   and a hook of its own). */
static const char *const counting =
  "local lraf = require 'lraf'\n"
  "local count, probe = lraf.count, os.clock\n"
  "local function gen(n)\n"
  "  return coroutine.wrap(function()\n"
  "    for i = 1, n do\n"
  "      if i % 13 == 0 then print('g', count()) end\n"
  "      coroutine.yield(i)\n"
  "    end\n"
  "  end)\n"
  "end\n"
  "local g1, g2 = gen(200), gen(200)\n"
  "local function plain(n)\n"
  "  return coroutine.wrap(function()\n"
  "    for i = 1, n do coroutine.yield(i) end\n"
  "  end)\n"
  "end\n"
  "hits = 0\n"
  "local h = coroutine.wrap(function()\n"
  "  local h1, h2, s = plain(30), plain(30), 0\n"
  "  for i = 1, 20 do s = s + h1() coroutine.yield() end\n"
  "  debug.sethook(function() hits = hits + 1 end, '', 7)\n"
  "  for i = 1, 20 do\n"
  "    for j = 1, i do s = s + j end\n"
  "    s = s + h2()\n"
  "    coroutine.yield()\n"
  "  end\n"
  "  debug.sethook()\n"
  "end)\n"
  "for i = 1, 41 do h() end\n"
  "local used, s = lraf.measure(function()\n"
  "  local inner = gen(100)\n"
  "  local s = 0\n"
  "  for i = 1, 100 do\n"
  "    s = s + inner() + g1()\n"
  "    if i % 19 == 0 then probe() end\n"
  "  end\n"
  "  print('in', count())\n"
  "  return s\n"
  "end)\n"
  "for i = 1, 100 do\n"
  "  s = s + g1() + g2()\n"
  "  if i % 23 == 0 then probe() end\n"
  "end\n"
  "print(used, s, count(), hits)\n"
  "probe()\n";

/* Runs until the quota stops it, switching all the time. */
static const char *const forever =
  "local a = coroutine.wrap(function()\n"
  "  local i = 0\n"
  "  while true do i = i + 1; coroutine.yield(i) end\n"
  "end)\n"
  "local b = coroutine.wrap(function()\n"
  "  local s = ''\n"
  "  while true do s = tostring(a()); coroutine.yield(#s) end\n"
  "end)\n"
  "local n = 0\n"
  "while true do\n"
  "  n = n + b()\n"
  "  if n % 7 == 0 then local big = string.rep('ab', 400) end\n"
  "  if n % 50 == 0 then print(n) end\n"
  "end\n";

/* Coroutines that die, and some left suspended and collected, while
   others hold deferred counts. */
static const char *const dying =
  "local probe = os.clock\n"
  "local keep = coroutine.wrap(function()\n"
  "  while true do coroutine.yield(1) end\n"
  "end)\n"
  "local s = 0\n"
  "for r = 1, 60 do\n"
  "  local co = coroutine.create(function(n)\n"
  "    for i = 1, n do n = n + coroutine.yield(i) end\n"
  "    return n\n"
  "  end)\n"
  "  local _, v = coroutine.resume(co, r % 5)\n"
  "  s = s + keep() + v\n"
  "  if r % 3 ~= 0 then\n"
  "    while coroutine.status(co) ~= 'dead' do\n"
  "      local _, w = coroutine.resume(co, 1)\n"
  "      s = s + keep() + (w or 0)\n"
  "    end\n"
  "  end\n"
  "  co = nil\n"
  "  if r % 10 == 0 then collectgarbage() probe() end\n"
  "end\n"
  "collectgarbage()\n"
  "print(s)\n";

/* Coroutines suspended at the end, and a finalizer that switches at
   lraf_close. */
static const char *const closing =
  "local function loop()\n"
  "  return coroutine.wrap(function()\n"
  "    local i = 0\n"
  "    while true do i = i + 1; coroutine.yield(i) end\n"
  "  end)\n"
  "end\n"
  "left = {loop(), loop()}\n"
  "for i = 1, 50 do left[1]() left[2]() end\n"
  "local f = loop()\n"
  "holder = setmetatable({}, {__gc = function()\n"
  "  local s = 0\n"
  "  for i = 1, 40 do s = s + f() + left[1]() end\n"
  "end})\n";

/* ---- tests --------------------------------------------------------- */

static const int64_t granularities[] = {0, 1, 13, 1000};
#define NGRAN (sizeof granularities / sizeof granularities[0])

static void test_one_manager(void **state) {
  int exact, kind;
  size_t g;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (kind = TOTAL; kind <= HIER; kind++)
      for (g = 0; g < NGRAN; g++) {
        setup su = {exact, 0, 100, granularities[g], kind, 1000000000};
        run d;
        int64_t behind = compare(&su, pingpong, &d);
        /* with a large grant a probe falls between a switch and the
           next consume, so the deferred total lags; with a small one
           whether any does depends on where the checks fall */
        if (granularities[g] == 0 || granularities[g] >= 1000)
          assert_true(behind > 0);
        check_oracle(&su, pingpong, &d);
        run_free(&d);
      }
}

static void test_two_managers(void **state) {
  int exact;
  size_t g;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (g = 0; g < NGRAN; g++) {
      setup su = {exact, 0, 100, granularities[g], TOTAL, -1};
      run d;
      compare(&su, two, &d);
      assert_true(d.total > 0 && d.total2 > 0);
      check_oracle(&su, two, &d);
      run_free(&d);
    }
}

static void test_counts_read_by_lua(void **state) {
  int exact, kind;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (kind = TOTAL; kind <= HIER; kind++) {
      setup su = {exact, 0, 100, 0, kind, 1000000000};
      run d;
      assert_true(compare(&su, counting, &d) > 0);
      assert_int_equal(d.status, LRAF_OK);
      run_free(&d);
    }
}

/* A quota crossed while counts are deferred stops at the same point,
   with the same counts, as when every switch charged. */
static void test_quota_while_deferred(void **state) {
  int exact, native, kind;
  int64_t q, step = getenv("LRAF_QUICK") ? 211 : 37;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (native = 0; native <= 1; native++)
      for (q = 500; q < 4000; q += step) {
        kind = q % 2 ? LIMIT : HIER;
        {
          setup su = {exact, native, 100, q % 3 ? 0 : 50, kind, q};
          run d;
          compare(&su, forever, &d);
          assert_int_equal(d.status, LRAF_EQUOTA);
          /* exact mode gives back what the frames had charged ahead */
          if (!exact) assert_true(d.total > q);
          run_free(&d);
        }
      }
}

/* Coroutines that die or are collected with a deferred count: kept
   accounts and retired sums as before, and as the hook counts. */
static void test_death_and_collection(void **state) {
  int exact, keep;
  size_t g;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (keep = 1; keep >= 0; keep--)
      for (g = 0; g < NGRAN; g++) {
        setup su = {exact, 0, keep ? 1000 : 0, granularities[g], TOTAL, -1};
        run d;
        compare(&su, dying, &d);
        assert_int_equal(d.status, LRAF_OK);
        if (keep) {
          check_oracle(&su, dying, &d);
        } else if (exact) {
          tutil_threads o;
          int i;
          int64_t sum = 0, mine = d.retired;
          tutil_rt_oracle(dying, strlen(dying), "=test", &o);
          for (i = 0; i < o.n; i++) sum += o.count[i];
          for (i = 0; i < d.n; i++)
            if (d.count[i] >= 0) mine += d.count[i];
          assert_true(d.nretired > 0);
          assert_int_equal(mine, sum);
          assert_int_equal(d.total, sum);
          tutil_threads_free(&o);
        }
        run_free(&d);
      }
}

/* Counts deferred when the state closes (suspended coroutines, a
   finalizer that switches) reach the managers. */
static void test_close(void **state) {
  int exact;
  size_t g;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (g = 0; g < NGRAN; g++) {
      setup su = {exact, 0, 100, granularities[g], TOTAL, -1};
      run d;
      tutil_threads o;
      int64_t sum = 0;
      int i;
      compare(&su, closing, &d);
      assert_int_equal(d.status, LRAF_OK);
      /* the finalizer ran at close, after the hook's run stopped
         counting: the managers heard more than the hook counted */
      tutil_rt_oracle(closing, strlen(closing), "=test", &o);
      for (i = 0; i < o.n; i++) sum += o.count[i];
      assert_true(d.total > sum);
      tutil_threads_free(&o);
      run_free(&d);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_manager),
    cmocka_unit_test(test_two_managers),
    cmocka_unit_test(test_counts_read_by_lua),
    cmocka_unit_test(test_quota_while_deferred),
    cmocka_unit_test(test_death_and_collection),
    cmocka_unit_test(test_close),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
