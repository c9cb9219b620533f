/*
** test_cli_timeline.c - cli/cli_timeline.c, --timeline FILE and
** --expect-share P of run, profile, bench and serve: no file, no
** timeline; a file that cannot be written is said before anything
** runs; a run's timeline is written as trace event JSON that reads
** back with every instruction the run counted, or as an SVG when FILE
** ends in .svg; a share below --expect-share is warned about, one
** above is not; the summary line carries the figures.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"
#include "tutil_run.h"
#include "tutil_sh.h"
#include "tutil_stderr.h"

static tutil_sh sh;

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "timeline");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static void test_open(void **state) {
  FILE *f = stdout;
  tutil_stderr c;
  char *said;
  (void)state;
  assert_int_equal(cli_timeline_open(NULL, &f), CLI_OK);
  assert_null(f);
  assert_int_equal(tutil_stderr_begin(&c), 0);
  assert_int_equal(cli_timeline_open("/nonexistent/t.json", &f), CLI_EUSAGE);
  said = tutil_stderr_end(&c);
  assert_null(f);
  assert_string_equal(said, "lraf: cannot write the timeline "
                      "/nonexistent/t.json: No such file or directory\n");
  free(said);
}

/* Run a loop under a timeline and finish it into sh.dir/name with
   expect (a fraction; 0: none): finish's result, the summary, what it
   said on stderr (free it) and the run's count. */
static int finish(const char *name, double expect,
                  lraf_timeline_summary *sum, char **said, int64_t *count) {
  static const char src[] = "local s = 0 for i = 1, 200000 do s = s + i end";
  char path[256];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *tl = lraf_timeline_new(NULL);
  tutil_stderr c;
  FILE *f;
  int ok;
  assert_non_null(tl);
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  assert_int_equal(cli_timeline_open(path, &f), CLI_OK);
  lraf_default_options(&opt);
  opt.manager = tl;
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(lraf_load_string(S, src, sizeof src - 1, "=t", &err),
                   LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
  *count = lraf_total(S);
  lraf_close(S);
  assert_int_equal(tutil_stderr_begin(&c), 0);
  ok = cli_timeline_finish(tl, f, path, "test", expect, sum);
  *said = tutil_stderr_end(&c);
  lraf_manager_release(tl);
  return ok;
}

static char *file(const char *name) {
  char path[256];
  size_t len;
  char *s;
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  assert_non_null(s = tutil_run_slurp(path, &len));
  return s;
}

/* The trace: JSON that cli_json reads, its slices adding up to what
   the run counted (the summary's instructions). */
static void test_json(void **state) {
  lraf_timeline_summary sum;
  int64_t count;
  char *said, *text;
  cli_json *v;
  lraf_error err;
  (void)state;
  assert_int_equal(finish("t.json", 0, &sum, &said, &count), 1);
  assert_string_equal(said, "");
  assert_true(sum.instructions == count);
  assert_true(sum.samples > 0);
  text = file("t.json");
  assert_int_equal(cli_json_parse(text, strlen(text), "t.json", &v, &err),
                   LRAF_OK);
  assert_non_null(cli_json_get(v, "traceEvents"));
  assert_int_equal(cli_json_get(v, "traceEvents")->kind, CLI_JSON_ARRAY);
  assert_true(cli_json_get(v, "traceEvents")->count > 0);
  cli_json_free(v);
  free(text);
  free(said);
}

static void test_svg(void **state) {
  lraf_timeline_summary sum;
  int64_t count;
  char *said, *text;
  (void)state;
  assert_int_equal(finish("t.svg", 0, &sum, &said, &count), 1);
  text = file("t.svg");
  assert_non_null(strstr(text, "<svg"));
  assert_non_null(strstr(text, "</svg>"));
  free(text);
  free(said);
}

/* --expect-share: a share above every window's warns, with the least
   share and its window; one of a hundredth does not. */
static void test_expect_share(void **state) {
  lraf_timeline_summary sum;
  int64_t count;
  char *said, want[200];
  (void)state;
  assert_int_equal(finish("e.json", 1.5, &sum, &said, &count), 1);
  snprintf(want, sizeof want, "lraf: delivered share %.1f%% in the window "
           "at %.3f s, below --expect-share 150.0%%\n", 100 * sum.min_share,
           sum.min_share_at);
  assert_string_equal(said, want);
  free(said);
  assert_int_equal(finish("e.json", 0.01, &sum, &said, &count), 1);
  if (sum.min_share >= 0.01) assert_string_equal(said, "");
  free(said);
}

static void test_line(void **state) {
  lraf_timeline_summary s;
  char *text;
  size_t len;
  FILE *f;
  (void)state;
  memset(&s, 0, sizeof s);
  s.share = 0.875;
  s.min_share = 0.5;
  s.cpu_share = 0.25;
  s.gaps = 3;
  s.gap_time = 0.0125;
  s.longest_gap = 0.01;
  assert_non_null(f = open_memstream(&text, &len));
  cli_timeline_line(f, "t.json", &s);
  fclose(f);
  assert_string_equal(text, "lraf: timeline t.json: delivered share 87.5% "
                      "(least 50.0%), cpu share 25.0%, 3 gaps (12.5 ms, "
                      "longest 10.0 ms)\n");
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_open),
    cmocka_unit_test(test_json),
    cmocka_unit_test(test_svg),
    cmocka_unit_test(test_expect_share),
    cmocka_unit_test(test_line),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
