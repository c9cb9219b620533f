/*
** test_pf_tlout_trace.c - `lraf run --timeline FILE` (profile/pf_timeline.c,
** pf_tlout.c): the trace passes a schema of the trace event format and
** has one track per coroutine; its slices add up to the count, the same
** on every run and from run and profile; a SIGSTOP of 200 ms is one gap
** of 200 ms at the right place; lraf bench's runs follow one another
** in one timeline; pinned to one core beside 0 to 3
** spinning processes, the delivered share is 1/(k+1) from the count and
** from CPU time; --expect-share flags a run that got less; the SVG
** renders one track per coroutine in headless Chromium; bad options and
** an unwritable file are usage errors.  The checks on the JSON are in
** tests/system/timeline/check.py (Debian's python3 and python3-jsonschema).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tutil_run.h"
#include "tutil_sh.h"

#define PY "/usr/bin/python3"
static char check[512], schema[512], lraf[512];
static tutil_sh sh;

/* Run the printf-formatted shell commands in the suite's directory, as
   one, with $LRAF the absolute path of the lraf under test. */
static int script(const char *fmt, ...) {
  char body[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  return tutil_sh_run(&sh, "(cd '%s' && LRAF='%s' && %s)", sh.dir, lraf,
                      body);
}

/* A loop of about 3 instructions a turn: N turns from arg[1]. */
static const char spin_lua[] =
    "local n = tonumber(arg[1])\n"
    "local s = 0\n"
    "for i = 1, n do s = s + i % 7 end\n"
    "print(s)\n";

/* A native charge larger than what is left of the limit. */
static const char rep_lua[] =
    "local s = 0\n"
    "for i = 1, 50000 do s = s + i end\n"
    "print(#string.rep('x', 5e6))\n";

/* The main thread and three coroutines taking turns. */
static const char turns_lua[] =
    "local cos = {}\n"
    "for k = 1, 3 do\n"
    "  cos[k] = coroutine.wrap(function()\n"
    "    local s = 0\n"
    "    for r = 1, 10 do\n"
    "      for i = 1, 20000 do s = s + i end\n"
    "      coroutine.yield(s)\n"
    "    end\n"
    "  end)\n"
    "end\n"
    "for r = 1, 10 do for k = 1, 3 do cos[k]() end end\n";

static int setup(void **state) {
  char cwd[256];
  (void)state;
  if (getcwd(cwd, sizeof cwd) == NULL) return -1;
  if (tutil_sh_lraf()[0] == '/')
    snprintf(lraf, sizeof lraf, "%s", tutil_sh_lraf());
  else
    snprintf(lraf, sizeof lraf, "%s/%s", cwd, tutil_sh_lraf());
  snprintf(check, sizeof check, "%s/tests/system/timeline/check.py", cwd);
  snprintf(schema, sizeof schema,
           "%s/tests/system/timeline/trace-event.schema.json", cwd);
  if (tutil_sh_init(&sh, "timeline") != 0) return -1;
  if (tutil_sh_write(&sh, "spin.lua", spin_lua) != 0 ||
      tutil_sh_write(&sh, "turns.lua", turns_lua) != 0 ||
      tutil_sh_write(&sh, "rep.lua", rep_lua) != 0)
    return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The last command's stdout without its last newline. */
static char *out_line(void) {
  static char line[256];
  size_t len;
  char *s = tutil_run_slurp(sh.out, &len);
  assert_non_null(s);
  snprintf(line, sizeof line, "%s", s);
  free(s);
  len = strlen(line);
  if (len > 0 && line[len - 1] == '\n') line[len - 1] = '\0';
  return line;
}

static long long report_count(const char *report) {
  char path[256];
  size_t len;
  char *s, *p;
  long long n;
  snprintf(path, sizeof path, "%s/%s", sh.dir, report);
  s = tutil_run_slurp(path, &len);
  assert_non_null(s);
  p = strstr(s, "\"count\": ");
  assert_non_null(p);
  n = atoll(p + 9);
  free(s);
  return n;
}

static void test_trace_schema_and_tracks(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --timeline t.json turns.lua"),
                   0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && " PY " %s schema t.json %s",
                                sh.dir, check, schema), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && " PY " %s tracks t.json",
                                sh.dir, check), 0);
  assert_string_equal(out_line(), "4");
}

/* The slices carry every instruction: their sum is the report's count,
   the same in three runs and from lraf profile. */
static void test_count_every_door(void **state) {
  char first[64] = "";
  int i;
  (void)state;
  for (i = 0; i < 4; i++) {
    const char *cmd = i < 3 ? "run" : "profile -o p.txt";
    char *got;
    assert_int_equal(tutil_sh_lraf_run(&sh, "%s --report r.json "
                                       "--timeline t.json turns.lua", cmd),
                     0);
    assert_int_equal(tutil_sh_run(&sh, "cd %s && " PY " %s count t.json",
                                  sh.dir, check), 0);
    got = out_line();
    assert_int_equal(atoll(got), report_count("r.json"));
    if (i == 0) snprintf(first, sizeof first, "%s", got);
    assert_string_equal(got, first);
  }
}

/* lraf bench --timeline: the runs follow one another in one timeline,
   on the same tracks, and its slices add up to every run's count. */
static void test_bench_timeline(void **state) {
  long long one;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --report r.json turns.lua"),
                   0);
  one = report_count("r.json");
  assert_int_equal(tutil_sh_lraf_run(&sh, "bench -n 3 --timeline t.json "
                                     "turns.lua"), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && " PY " %s schema t.json %s",
                                sh.dir, check, schema), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd %s && " PY " %s tracks t.json",
                                sh.dir, check), 0);
  assert_string_equal(out_line(), "4");
  assert_int_equal(tutil_sh_run(&sh, "cd %s && " PY " %s count t.json",
                                sh.dir, check), 0);
  assert_int_equal(atoll(out_line()), 3 * one);
}

/* A timeline changes no count: a quota stop with native charging (whose
   last charge is cut at the limit) and a run of coroutines count the
   same with it and without it. */
static void test_same_count_with_timeline(void **state) {
  static const char *const runs[] = {
    "--limit 300000 --native rep.lua",
    "--limit 2M --rate 50M turns.lua",
    "--native turns.lua",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    long long without, with;
    int st = tutil_sh_lraf_run(&sh, "run --report r.json %s", runs[i]);
    without = report_count("r.json");
    assert_int_equal(tutil_sh_lraf_run(&sh, "run --report r.json "
                                       "--timeline t.json %s", runs[i]),
                     st);
    with = report_count("r.json");
    print_message("%s: %lld, with --timeline %lld\n", runs[i], without,
                  with);
    assert_int_equal(with, without);
  }
}

/* SIGSTOP for 200 ms, 300 ms into the run: one gap as long as the stop
   (within 20 ms), there.  The stop's length is measured, since sleep may
   oversleep on a busy machine. */
static void test_sigstop_gap(void **state) {
  double at, dur, stopped;
  char *line, path[256];
  size_t len;
  (void)state;
  assert_int_equal(script("{ $LRAF run --timeline t.json spin.lua 1e9 & "
                          "} && pid=$! && sleep 0.3 && a=$(date +%%s%%N) && "
                          "kill -STOP $pid && sleep 0.2 && kill -CONT $pid "
                          "&& b=$(date +%%s%%N) && sleep 0.3 && "
                          "kill -INT $pid; wait $pid; "
                          "echo $(( (b - a) / 1000 )) > stopped"), 0);
  snprintf(path, sizeof path, "%s/stopped", sh.dir);
  line = tutil_run_slurp(path, &len);
  assert_non_null(line);
  stopped = atof(line) / 1e3;
  free(line);
  assert_int_equal(script(PY " %s gaps t.json 100", check), 0);
  assert_int_equal(sscanf(out_line(), "%lf %lf", &at, &dur), 2);
  print_message("gap of %.1f ms at %.1f ms; stopped for %.1f ms\n", dur,
                at, stopped);
  assert_true(dur >= stopped - 20 && dur <= stopped + 20);
  assert_true(at >= 250 && at <= 450);
  assert_int_equal(script(PY " %s gaps t.json 100 | wc -l", check), 0);
  assert_string_equal(out_line(), "1");
}

/* Run spin.lua pinned to CPU cpu with k spinning processes beside it:
   its share from the count and from CPU time. */
static void share_run(int cpu, int k, double *share, double *cpu_share) {
  char spinners[1024] = "pids=; trap 'kill $pids 2>/dev/null' EXIT; ";
  int i;
  for (i = 0; i < k; i++)
    snprintf(spinners + strlen(spinners), sizeof spinners - strlen(spinners),
             "{ taskset -c %d sh -c 'while :; do :; done' & } && "
             "pids=\"$pids $!\"; ", cpu);
  assert_int_equal(script("%ssleep 0.05; taskset -c %d $LRAF run "
                          "--timeline t.json spin.lua 4e7", spinners, cpu),
                   0);
  assert_int_equal(script(PY " %s share t.json", check), 0);
  assert_int_equal(sscanf(out_line(), "%lf %lf", share, cpu_share), 2);
  print_message("CPU %d, %d spinners: share %.1f%% from the count, %.1f%% "
                "from CPU time, want %.1f%%\n", cpu, k, 100 * *share,
                100 * *cpu_share, 100.0 / (k + 1));
}

/* Pinned to one CPU with k spinners beside it: a share of 1/(k+1),
   within 3 points, from the count and from CPU time.  Checked only on
   a quiet CPU (the script alone gets 97% of it): CPU 0 is tried, then
   CPU 1; another load there takes its own part of the CPU.  Real-time
   round-robin scheduling cannot stand in for a quiet CPU: the CPU
   changes hands every 100 ms (sched_rr_timeslice_ms), so a run of n
   slices beside k spinners spans k (n - 1) of theirs, a share of
   n / (n + k (n - 1)); and a longer run, which would make that close to
   1 / (k + 1), is throttled to 950 ms of every second
   (sched_rt_runtime_us) once other work waits. */
static void test_share_taskset(void **state) {
  int k, cpu;
  double share = 0, cpu_share = 0;
  (void)state;
  if (script("command -v taskset") != 0) {
    skip();
    return;
  }
  for (cpu = 0; cpu < 2; cpu++) {
    share_run(cpu, 0, &share, &cpu_share);
    if (cpu_share >= 0.97) break;
  }
  if (cpu == 2) {
    print_message("SKIP: no quiet CPU (the script alone got %.1f%% of the "
                  "last one tried): the shares are not checked\n",
                  100 * cpu_share);
    skip();
    return;
  }
  for (k = 0; k <= 3; k++) {
    double want = 1.0 / (k + 1);
    if (k > 0) share_run(cpu, k, &share, &cpu_share);
    assert_true(share >= want - 0.03 && share <= want + 0.03);
    assert_true(cpu_share >= want - 0.03 && cpu_share <= want + 0.03);
  }
}

/* --expect-share: a run that got about half a CPU is flagged. */
static void test_expect_share(void **state) {
  size_t len;
  char *err, path[256];
  (void)state;
  if (script("command -v taskset") != 0) {
    skip();
    return;
  }
  assert_int_equal(script("{ taskset -c 0 sh -c 'while :; do :; done' & } "
                          "&& p=$! && sleep 0.05; taskset -c 0 $LRAF run "
                          "--report r.json --timeline t.json "
                          "--expect-share 90 spin.lua 2e7; st=$?; kill $p; "
                          "exit $st"), 0);
  err = tutil_run_slurp(sh.err, &len);
  assert_non_null(err);
  assert_non_null(strstr(err, "below --expect-share 90.0%"));
  free(err);
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  err = tutil_run_slurp(path, &len);
  assert_non_null(err);
  assert_non_null(strstr(err, "\"share_ok\": false"));
  free(err);
}

/* The SVG in headless Chromium: it parses, and has a track per
   coroutine. */
static void test_svg_in_chromium(void **state) {
  (void)state;
  if (script("command -v chromium") != 0) {
    print_message("SKIP: no chromium (Debian's package chromium): the SVG "
                  "timeline is not checked in a browser\n");
    skip();
    return;
  }
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --timeline t.svg turns.lua"),
                   0);
  assert_int_equal(script("HOME=$PWD timeout 60 chromium --headless "
                          "--no-sandbox --disable-gpu "
                          "--user-data-dir=$PWD/chromium --dump-dom "
                          "file://$PWD/t.svg 2>/dev/null > dom.xml; "
                          "grep -c parsererror dom.xml; "
                          "grep -c 'class=\"track\"' dom.xml"), 0);
  assert_string_equal(out_line(), "0\n4");
  assert_int_equal(script("HOME=$PWD timeout 60 chromium --headless "
                          "--no-sandbox --disable-gpu "
                          "--user-data-dir=$PWD/chromium "
                          "--screenshot=$PWD/t.png --window-size=1200,300 "
                          "file://$PWD/t.svg >/dev/null 2>&1; test -s t.png"),
                   0);
}

static void test_bad_options(void **state) {
  static const char *const bad[] = {
    "--expect-share 0", "--expect-share 101", "--expect-share x",
    "--timeline /nonexistent/dir/t.json",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t len;
    char *err;
    assert_int_equal(tutil_sh_lraf_run(&sh, "run %s turns.lua", bad[i]), 2);
    err = tutil_run_slurp(sh.err, &len);
    assert_non_null(err);
    assert_true(strstr(err, "--expect-share") != NULL ||
                strstr(err, "cannot write the timeline") != NULL);
    free(err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_trace_schema_and_tracks),
    cmocka_unit_test(test_count_every_door),
    cmocka_unit_test(test_bench_timeline),
    cmocka_unit_test(test_same_count_with_timeline),
    cmocka_unit_test(test_sigstop_gap),
    cmocka_unit_test(test_share_taskset),
    cmocka_unit_test(test_expect_share),
    cmocka_unit_test(test_svg_in_chromium),
    cmocka_unit_test(test_bad_options),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
