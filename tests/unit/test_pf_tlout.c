/*
** test_pf_tlout.c - profile/pf_tlout.c: a timeline of hand-made
** samples written as a trace (JSON) and as SVG.  The trace parses back
** (python3's json) to one track per account and thread, run slices
** whose instructions add up to the count, one gap and one pause of
** their lengths, the stop, the delivered share's counters and the
** summary; the title escaped.  The SVG has the same tracks and spans
** and xmllint reads it.  lraf_timeline_write refuses bad arguments.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pf_timeline.h"
#include "tutil_pfcore.h"

#define US 1000
#define MS 1000000
#define TITLE "run \"<1>\" & more\\"

/* Thread 0, account 7: 1000 instructions every 100 us, 5 ms lost before
   its 20th sample, held 2 ms after its 30th, stopped at its 40th.
   Thread 1 runs two accounts (coroutines) in turn, 500 each per
   100 us. */
static size_t make(pf_tl_sample *s, int64_t *count) {
  size_t n = 0;
  int64_t t0 = 50 * US, t1 = 60 * US;
  int i;
  *count = 0;
  for (i = 0; i < 40; i++) {
    t0 += 100 * US + (i == 19 ? 5 * MS : 0);
    memset(&s[n], 0, sizeof s[n]);
    s[n].t = t0;
    s[n].n = 1000;
    s[n].account = 7;
    s[n].cpu = -1;
    s[n].wait = i == 29 ? 2 * MS : 0;
    s[n].flags = i == 39 ? PF_TL_STOP : 0;
    t0 += s[n].wait;
    *count += s[n++].n;
    t1 += 100 * US;
    memset(&s[n], 0, sizeof s[n]);
    s[n].t = t1;
    s[n].n = 1000;
    s[n].account = 8 + i % 2;
    s[n].thread = 1;
    s[n].cpu = -1;
    *count += s[n++].n;
  }
  return n;
}

static char *write_tl(const pf_tl_sample *s, size_t n,
                      lraf_timeline_format fmt, size_t *len,
                      lraf_timeline_summary *sum) {
  char *text = NULL;
  FILE *f = open_memstream(&text, len);
  lraf_timeline_opts o;
  o.gap_threshold = 0.001;
  o.window = 0.001;   /* whole windows in a run of 11 ms */
  assert_non_null(f);
  assert_int_equal(pf_timeline_write(s, n, f, fmt, &o, TITLE, sum), LRAF_OK);
  fclose(f);
  return text;
}

/* What python3 reads in the trace, one fact a line. */
static const char parse[] =
  "import json, sys\n"
  "d = json.load(open(sys.argv[1]))\n"
  "o = d['otherData']\n"
  "print('title', o['title'])\n"
  "print('instructions', o['instructions'])\n"
  "print('stopped', o['stopped'])\n"
  "ev = d['traceEvents']\n"
  "names = set(e['args']['name'] for e in ev if e['name'] == 'thread_name')\n"
  "print('tracks', len(names))\n"
  "runs = [e for e in ev if e['ph'] == 'X' and e['name'] == 'run']\n"
  "print('run_instructions', sum(e['args']['instructions'] for e in runs))\n"
  "print('run_tids', len(set(e['tid'] for e in runs)))\n"
  "for k in ('gap', 'pause'):\n"
  "  x = [e for e in ev if e['ph'] == 'X' and e['name'] == k]\n"
  "  print(k, len(x), round(sum(e['dur'] for e in x)))\n"
  "print('stops', len([e for e in ev if e['ph'] == 'i']))\n"
  "c = [e for e in ev if e['ph'] == 'C']\n"
  "print('counters', len(c))\n"
  "print('overlap', sum(1 for a in runs for b in runs if a is not b and\n"
  "  a['tid'] == b['tid'] and a['ts'] < b['ts'] < a['ts'] + a['dur'] - 1e-3))\n";

static void test_trace_parses(void **state) {
  pf_tl_sample s[80];
  int64_t count;
  size_t n = make(s, &count), len;
  lraf_timeline_summary sum;
  char *text = write_tl(s, n, LRAF_TIMELINE_JSON, &len, &sum);
  char path[] = "/tmp/test_pf_tlout_XXXXXX", py[] = "/tmp/test_pf_tlout_XXXXXX";
  char cmd[256], line[256], want[128];
  char facts[2048] = "";
  FILE *f, *p;
  int fd;
  (void)state;
  if (access("/usr/bin/python3", X_OK) != 0) {
    free(text);
    skip();
  }
  fd = mkstemp(path);
  assert_true(fd >= 0);
  f = fdopen(fd, "w");
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
  fd = mkstemp(py);
  assert_true(fd >= 0);
  f = fdopen(fd, "w");
  fputs(parse, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s 2>&1", py, path);
  p = popen(cmd, "r");
  assert_non_null(p);
  while (fgets(line, sizeof line, p) != NULL)
    strncat(facts, line, sizeof facts - strlen(facts) - 1);
  assert_int_equal(pclose(p), 0);
  unlink(path);
  unlink(py);
  print_message("%s", facts);
  assert_non_null(strstr(facts, "title run \"<1>\" & more\\\n"));
  snprintf(want, sizeof want, "instructions %lld\n", (long long)count);
  assert_non_null(strstr(facts, want));
  assert_int_equal(sum.instructions, count);
  assert_non_null(strstr(facts, "stopped True\n"));
  assert_non_null(strstr(facts, "tracks 3\n"));       /* 0/7, 1/8, 1/9 */
  snprintf(want, sizeof want, "run_instructions %lld\n", (long long)count);
  assert_non_null(strstr(facts, want));
  assert_non_null(strstr(facts, "run_tids 3\n"));
  assert_non_null(strstr(facts, "gap 1 5000\n"));     /* us */
  assert_non_null(strstr(facts, "pause 1 2000\n"));
  assert_non_null(strstr(facts, "stops 1\n"));
  assert_non_null(strstr(facts, "overlap 0\n"));
  assert_null(strstr(facts, "counters 0\n"));
  free(text);
}

static int count_of(const char *text, const char *word) {
  int n = 0;
  for (; (text = strstr(text, word)) != NULL; text++) n++;
  return n;
}

static void test_svg(void **state) {
  pf_tl_sample s[80];
  int64_t count;
  size_t n = make(s, &count), len;
  lraf_timeline_summary sum, sum_json;
  char *text = write_tl(s, n, LRAF_TIMELINE_SVG, &len, &sum), *json;
  (void)state;
  assert_int_equal(count_of(text, "<g class=\"track\""), 3);
  assert_true(count_of(text, "<rect class=\"run\"") >= 3);
  assert_int_equal(count_of(text, "<rect class=\"gap\""), 1);
  assert_int_equal(count_of(text, "<rect class=\"pause\""), 1);
  assert_int_equal(count_of(text, "<rect class=\"stop\""), 1);
  assert_non_null(strstr(text, "<polyline class=\"share\""));
  assert_non_null(strstr(text, "run \"&lt;1&gt;\" &amp; more\\"));
  if (tutil_pfcore_xmllint(text, len) == 0) fail_msg("xmllint:\n%s", text);
  /* both formats from the same analysis */
  json = write_tl(s, n, LRAF_TIMELINE_JSON, &len, &sum_json);
  assert_memory_equal(&sum, &sum_json, sizeof sum);
  free(json);
  free(text);
}

/* No samples: an empty but valid document. */
static void test_empty(void **state) {
  size_t len;
  lraf_timeline_summary sum;
  char *text;
  (void)state;
  text = write_tl(NULL, 0, LRAF_TIMELINE_JSON, &len, &sum);
  assert_non_null(strstr(text, "\"traceEvents\":["));
  assert_true(len > 2 && strcmp(text + len - 4, "\n]}\n") == 0);
  free(text);
  text = write_tl(NULL, 0, LRAF_TIMELINE_SVG, &len, &sum);
  assert_int_equal(count_of(text, "<g class=\"track\""), 0);
  if (tutil_pfcore_xmllint(text, len) == 0) fail_msg("xmllint:\n%s", text);
  free(text);
}

static void test_bad_arguments(void **state) {
  lraf_manager *tl = lraf_timeline_new(NULL), *plain = lraf_total_new();
  FILE *f = fopen("/dev/null", "w");
  const struct {
    lraf_manager *m;
    FILE *f;
    int fmt;
    const char *word;
  } rows[] = {
    {plain, f, LRAF_TIMELINE_JSON, "not a timeline"},
    {NULL, f, LRAF_TIMELINE_JSON, "not a timeline"},
    {tl, NULL, LRAF_TIMELINE_SVG, "no file"},
    {tl, f, 7, "unknown format"},
  };
  lraf_error err;
  size_t i;
  (void)state;
  assert_non_null(f);
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    assert_int_equal(lraf_timeline_write(rows[i].m, rows[i].f,
                                         (lraf_timeline_format)rows[i].fmt,
                                         NULL, NULL, NULL, &err), LRAF_EARG);
    assert_non_null(strstr(err.message, rows[i].word));
  }
  assert_int_equal(lraf_timeline_write(tl, f, LRAF_TIMELINE_JSON, NULL, NULL,
                                       NULL, &err), LRAF_OK);
  fclose(f);
  lraf_manager_release(tl);
  lraf_manager_release(plain);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_trace_parses),
    cmocka_unit_test(test_svg),
    cmocka_unit_test(test_empty),
    cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
