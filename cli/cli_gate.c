/*
** cli_gate.c - the CI gate of lraf diff and lraf bench --baseline:
** whether a count's change from before to after is a
** regression, an improvement or within the gate (--threshold P
** percent, --min-change N units, --fail-on regression|change), and the
** small writers of their Markdown and JSON reports.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_gate_of(const cli_args *a, cli_gate *g) {
  g->on = a->threshold >= 0 || a->min_change >= 0 || a->fail_on_set;
  g->threshold = a->threshold >= 0 ? a->threshold : 0;
  g->min_change = a->min_change >= 0 ? a->min_change : 0;
  g->fail_on_change = a->fail_on_change;
}

/* A change counts when it is at least min_change units and more than
   threshold percent of before (any growth from 0 is more). */
cli_verdict cli_gate_judge(const cli_gate *g, int64_t before,
                           int64_t after) {
  int64_t d = after - before, m = d < 0 ? -d : d;
  double p = lraf_profile_change_percent(before, after);
  if (d == 0 || m < g->min_change || !(fabs(p) > g->threshold))
    return CLI_SAME;
  return d > 0 ? CLI_REGRESSION : CLI_IMPROVEMENT;
}

int cli_gate_fails(const cli_gate *g, cli_verdict v) {
  if (!g->on) return 0;
  return v == CLI_REGRESSION || (g->fail_on_change && v == CLI_IMPROVEMENT);
}

void cli_gate_text(FILE *out, const cli_gate *g) {
  fprintf(out, "threshold %g%%, min-change %" PRId64 ", fail on %s",
          g->threshold, g->min_change,
          g->fail_on_change ? "change" : "regression");
}

const char *cli_gate_result(const cli_gate *g, int fails, int regressions) {
  if (!g->on) return "no gate";
  return fails == 0 ? "pass"
       : g->fail_on_change && regressions == 0 ? "change"
       : "regression";
}

const char *cli_verdict_name(cli_verdict v) {
  return v == CLI_REGRESSION ? "regression"
       : v == CLI_IMPROVEMENT ? "improvement" : "same";
}

void cli_percent(char *buf, size_t size, int64_t before, int64_t after) {
  double p = lraf_profile_change_percent(before, after);
  if (isinf(p)) snprintf(buf, size, "new");
  else if (after == 0 && before != 0) snprintf(buf, size, "gone");
  else snprintf(buf, size, "%+.2f%%", p);
}

void cli_json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
  fputc('"', out);
}

/* A table cell: '|' escaped, line breaks and '`' kept out of it. */
void cli_md_cell(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputs("\\|", out);
    else if (*s == '\n' || *s == '\r') fputc(' ', out);
    else if (*s == '`' || *s == '<' || *s == '>') fprintf(out, "&#%d;", *s);
    else fputc(*s, out);
  }
}

int cli_report_format(const cli_args *a, const char *cmd) {
  if (a->format == NULL || strcmp(a->format, "text") == 0) return 0;
  if (strcmp(a->format, "markdown") == 0) return 1;
  if (strcmp(a->format, "json") == 0) return 2;
  cli_error("lraf %s --format needs text, markdown or json, not '%s'", cmd,
            a->format);
  return -1;
}
