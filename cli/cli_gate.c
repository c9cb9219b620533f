/*
** cli_gate.c - the CI gate of lraf diff and lraf bench --baseline:
** whether a count's change from before to after is a
** regression, an improvement or within the gate (--threshold P
** percent, --min-change N units, --fail-on regression|change), and the
** small writers of their Markdown and JSON reports.  The verdict is
** exact: the threshold is a fixed-point decimal and the rule is decided
** in integers, never through a rounded percentage.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Products of a count and a threshold take up to 123 bits. */
__extension__ typedef unsigned __int128 gate_wide;

int64_t cli_threshold_of(const char *s) {
  int64_t whole = 0, part = 0, unit = CLI_THRESHOLD_SCALE;
  int digits = 0;
  for (; *s >= '0' && *s <= '9'; s++, digits++)
    if ((whole = whole * 10 + (*s - '0')) > CLI_THRESHOLD_MAX) return -1;
  if (*s == '.')
    for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
      if (unit == 1) return -1;  /* more decimals than it holds */
      unit /= 10;
      part += (*s - '0') * unit;
    }
  if (digits == 0 || *s != '\0' ||
      (whole == CLI_THRESHOLD_MAX && part > 0))
    return -1;
  return whole * CLI_THRESHOLD_SCALE + part;
}

void cli_threshold_write(FILE *out, int64_t threshold) {
  int64_t part = threshold % CLI_THRESHOLD_SCALE;
  int decimals = 6;
  fprintf(out, "%" PRId64, threshold / CLI_THRESHOLD_SCALE);
  if (part == 0) return;
  for (; part % 10 == 0; part /= 10) decimals--;
  fprintf(out, ".%0*" PRId64, decimals, part);
}

void cli_gate_of(const cli_args *a, cli_gate *g) {
  g->on = a->threshold >= 0 || a->min_change >= 0 || a->fail_on_set;
  g->threshold = a->threshold >= 0 ? a->threshold : 0;
  g->min_change = a->min_change >= 0 ? a->min_change : 0;
  g->fail_on_change = a->fail_on_change;
}

/* |a - b|, which needs 64 bits unsigned. */
static uint64_t distance(int64_t a, int64_t b) {
  return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* Whether change units are more than threshold (millionths of a
   percent) of |before|: change * 100 * 10^6 > threshold * |before|, the
   sides below 2^91 and 2^123. */
static int past(uint64_t change, int64_t threshold, int64_t before) {
  gate_wide left = (gate_wide)change * (100 * CLI_THRESHOLD_SCALE);
  return left > (gate_wide)(uint64_t)threshold * distance(before, 0);
}

/* A change counts when it is at least min_change units and more than
   threshold percent of |before| (any change from 0 is more). */
cli_verdict cli_gate_judge(const cli_gate *g, int64_t before,
                           int64_t after) {
  uint64_t change = distance(after, before);
  if (change == 0 || change < (uint64_t)g->min_change ||
      !past(change, g->threshold, before))
    return CLI_SAME;
  return after > before ? CLI_REGRESSION : CLI_IMPROVEMENT;
}

int cli_gate_fails(const cli_gate *g, cli_verdict v) {
  if (!g->on) return 0;
  return v == CLI_REGRESSION || (g->fail_on_change && v == CLI_IMPROVEMENT);
}

void cli_gate_text(FILE *out, const cli_gate *g) {
  fputs("threshold ", out);
  cli_threshold_write(out, g->threshold);
  fprintf(out, "%%, min-change %" PRId64 ", fail on %s", g->min_change,
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
