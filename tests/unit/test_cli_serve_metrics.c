/*
** test_cli_serve_metrics.c - lraf serve's /metrics text
** (cli/cli_serve_metrics.c) with tenant names holding what the exposition format must escape
** (\, ", a line break): Debian's prometheus_client (its strict
** OpenMetrics parser) reads it back, every label value as it was.
** (lraf serve itself accepts only tenant names of A-Z a-z 0-9 _ - . ,
** so this reaches the escaping from below.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_serve_metrics.h"
#include "tutil_run.h"
#include "tutil_sh.h"

#define PARSE "/usr/bin/python3 -c '\n" \
  "import sys\n" \
  "from prometheus_client.openmetrics.parser import " \
  "text_string_to_metric_families as parse\n" \
  "for f in parse(open(sys.argv[1]).read()):\n" \
  "  for s in f.samples:\n" \
  "    print(repr((s.name, s.labels.get(\"tenant\"), float(s.value))))\n" \
  "' "

static tutil_sh sh;

static const char *const names[] = {
  "back\\slash", "quo\"te", "new\nline", "all\\\"\n\\n", "plain.name-1",
};
#define NNAMES 5

/* Python's repr of a str, for the names above. */
static void py_repr(const char *s, char *out, size_t size) {
  size_t n = 0;
  out[n++] = '\'';
  for (; *s && n + 4 < size; s++) {
    if (*s == '\\') out[n++] = '\\', out[n++] = '\\';
    else if (*s == '\n') out[n++] = '\\', out[n++] = 'n';
    else if (*s == '\'') out[n++] = '\\', out[n++] = '\'';
    else out[n++] = *s;
  }
  out[n++] = '\'';
  out[n] = '\0';
}

static void test_labels_escaped(void **state) {
  srv_text t;
  lraf_tenant_stats st;
  char path[128], want[256], name[128];
  char *out;
  size_t len;
  int f, i;
  FILE *fp;
  (void)state;
  memset(&t, 0, sizeof t);
  for (f = 0; f < SRV_TENANT_FAMILIES; f++) {
    srv_text_family(&t, f);
    for (i = 0; i < NNAMES; i++) {
      memset(&st, 0, sizeof st);
      st.tenant = names[i];
      st.requests = st.by_class[2] = 10 + i;
      st.instructions = st.charged = 1000 + i;
      st.native = i;
      st.quota = 5000;
      st.quota_left = 4000 - i;
      srv_text_tenant(&t, f, &st);
    }
  }
  srv_text_add(&t, "# EOF\n");
  assert_false(t.failed);
  snprintf(path, sizeof path, "%s/metrics.txt", sh.dir);
  fp = fopen(path, "w");
  assert_non_null(fp);
  fwrite(t.b, 1, t.len, fp);
  fclose(fp);
  free(t.b);
  if (tutil_sh_run(&sh, PARSE "%s", path) != 0) {
    char *err = tutil_run_slurp(sh.err, &len);
    fail_msg("the OpenMetrics parser refused it: %s", err ? err : "?");
  }
  out = tutil_run_slurp(sh.out, &len);
  assert_non_null(out);
  for (i = 0; i < NNAMES; i++) {
    py_repr(names[i], name, sizeof name);
    snprintf(want, sizeof want, "('lraf_instructions_total', %s, %d.0)",
             name, 1000 + i);
    if (strstr(out, want) == NULL) fail_msg("no %s in:\n%s", want, out);
    snprintf(want, sizeof want, "('lraf_quota_remaining_instructions', %s, "
             "%d.0)", name, 4000 - i);
    if (strstr(out, want) == NULL) fail_msg("no %s in:\n%s", want, out);
  }
  free(out);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "metrics");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_labels_escaped),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
