/*
** cli_diff.c - lraf diff A.json B.json: compare two JSON profiles (lraf
** profile --format json) function by function, matched by name and file
** (lraf_profile_diff_*), sorted by absolute change, with their
** similarity and the functions added, removed or moved; as text,
** Markdown (a PR comment), JSON or a differential flame graph (SVG).  With a gate (--threshold,
** --min-change, --fail-on; cli_gate.c) exit status 5 when the total or
** a function regressed past it; 2 for bad usage or input.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct diff_view {
  const lraf_profile_diff *d;
  const char *pa, *pb;
  int64_t top;
  cli_gate gate;
  int fails;           /* rows failing the gate */
  int regressions, improvements, added, removed, moved;
} diff_view;

static int moved(const lraf_profile_change *c) {
  return c->in_before && c->in_after && c->line_before != c->line_after;
}

static cli_verdict verdict(const diff_view *v, const lraf_profile_change *c) {
  return cli_gate_judge(&v->gate, c->before, c->after);
}

static void count_rows(diff_view *v) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(v->d);
  for (i = -1; i < n; i++) {
    cli_verdict w;
    lraf_profile_diff_row(v->d, i, &c);
    w = verdict(v, &c);
    v->regressions += w == CLI_REGRESSION;
    v->improvements += w == CLI_IMPROVEMENT;
    v->fails += cli_gate_fails(&v->gate, w);
    if (i < 0) continue;
    v->added += !c.in_before;
    v->removed += !c.in_after;
    v->moved += moved(&c);
  }
}

static const char *result(const diff_view *v) {
  return cli_gate_result(&v->gate, v->fails, v->regressions);
}

/* ---- text ---- */

static void text_row(const diff_view *v, const lraf_profile_change *c) {
  char pct[32];
  cli_percent(pct, sizeof pct, c->before, c->after);
  printf("%14" PRId64 " %14" PRId64 " %+14" PRId64 " %9s", c->before,
         c->after, c->after - c->before, pct);
  if (v->gate.on) {
    cli_verdict w = verdict(v, c);
    printf("  %-11s", w == CLI_SAME ? "" : cli_verdict_name(w));
  }
  printf("  %s\n", c->frame);
}

/* The rows of one kind (0 added, 1 removed, 2 moved, 3 improvements)
   after a heading, at most top of them. */
static void text_list(const diff_view *v, int kind, const char *heading,
                      int total) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(v->d), shown = 0;
  if (total == 0) return;
  printf("\n%s (%d):\n", heading, total);
  for (i = 0; i < n; i++) {
    lraf_profile_diff_row(v->d, i, &c);
    if (!(kind == 0 ? !c.in_before : kind == 1 ? !c.in_after
          : kind == 2 ? moved(&c) : verdict(v, &c) == CLI_IMPROVEMENT))
      continue;
    if (v->top > 0 && shown++ >= v->top) {
      printf("  (%d more)\n", total - (int)v->top);
      break;
    }
    if (kind == 2)
      printf("  %s: line %d -> %d\n", c.frame, c.line_before, c.line_after);
    else
      printf("  %s (%+" PRId64 ")\n", c.frame, c.after - c.before);
  }
}

static void write_text(const diff_view *v) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(v->d);
  printf("lraf diff: %s -> %s (cost model %s)\n\n", v->pa, v->pb,
         lraf_profile_diff_model(v->d, 0));
  printf("%14s %14s %14s %9s", "before", "after", "change", "%");
  if (v->gate.on) printf("  %-11s", "verdict");
  printf("  %s\n", "function");
  for (i = -1; i < n && (v->top <= 0 || i < v->top); i++) {
    lraf_profile_diff_row(v->d, i, &c);
    text_row(v, &c);
  }
  if (v->top > 0 && n > v->top)
    printf("(%d more functions; --top 0 lists all)\n", n - (int)v->top);
  printf("\nsimilarity %.6f (cosine of the per-function counts, weighted "
         "by inverse frequency)\n", lraf_profile_diff_similarity(v->d));
  text_list(v, 0, "added", v->added);
  text_list(v, 1, "removed", v->removed);
  text_list(v, 2, "moved", v->moved);
  if (v->gate.on) {
    text_list(v, 3, "improvements", v->improvements);
    printf("\ngate: ");
    cli_gate_text(stdout, &v->gate);
    printf(": %s\n", result(v));
  }
}

/* Each row failing the gate, on stderr. */
static void report_fails(const diff_view *v) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(v->d);
  for (i = -1; i < n; i++) {
    char pct[32];
    cli_verdict w;
    lraf_profile_diff_row(v->d, i, &c);
    w = verdict(v, &c);
    if (!cli_gate_fails(&v->gate, w)) continue;
    cli_percent(pct, sizeof pct, c.before, c.after);
    fprintf(stderr, "lraf diff: %s: %s %+" PRId64 " (%s; ",
            cli_verdict_name(w), c.frame, c.after - c.before, pct);
    cli_gate_text(stderr, &v->gate);
    fputs(")\n", stderr);
  }
}

/* ---- Markdown ---- */

static void md_row(const diff_view *v, const lraf_profile_change *c) {
  char pct[32];
  cli_verdict w = verdict(v, c);
  cli_percent(pct, sizeof pct, c->before, c->after);
  fputs("| ", stdout);
  cli_md_cell(stdout, c->frame);
  printf("%s | %" PRId64 " | %" PRId64 " | %+" PRId64 " | %s | %s |\n",
         !c->in_before ? " (added)" : !c->in_after ? " (removed)"
         : moved(c) ? " (moved)" : "",
         c->before, c->after, c->after - c->before, pct,
         w == CLI_REGRESSION ? ":x: regression"
         : w == CLI_IMPROVEMENT ? ":white_check_mark: improvement" : "");
}

static void write_markdown(const diff_view *v) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(v->d);
  printf("### lraf diff: ");
  cli_md_cell(stdout, v->pa);
  printf(" → ");
  cli_md_cell(stdout, v->pb);
  printf("\n\nCost model ");
  cli_md_cell(stdout, lraf_profile_diff_model(v->d, 0));
  printf(", similarity %.6f", lraf_profile_diff_similarity(v->d));
  if (v->gate.on) {
    printf(", gate ");
    cli_gate_text(stdout, &v->gate);
    printf(": **%s**", result(v));
  }
  printf(".  %d regressed, %d improved, %d added, %d removed, %d moved."
         "\n\n| function | before | after | change | %% | verdict |\n"
         "|---|---:|---:|---:|---:|---|\n", v->regressions,
         v->improvements, v->added, v->removed, v->moved);
  for (i = -1; i < n && (v->top <= 0 || i < v->top); i++) {
    lraf_profile_diff_row(v->d, i, &c);
    md_row(v, &c);
  }
  if (v->top > 0 && n > v->top)
    printf("\n%d more functions (--top 0 lists all).\n", n - (int)v->top);
}

/* ---- JSON (docs/profiling.md gives the schema) ---- */

static void json_side(const char *key, const char *file, const char *model,
                      int64_t total) {
  printf(" \"%s\": {\"file\": ", key);
  cli_json_str(stdout, file);
  printf(", \"model\": ");
  cli_json_str(stdout, model);
  printf(", \"total\": %" PRId64 "},\n", total);
}

static void json_line(int line) {
  if (line < 0) printf("null");
  else printf("%d", line);
}

static void write_json(const diff_view *v) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(v->d);
  lraf_profile_diff_row(v->d, -1, &c);
  printf("{\"format\": \"lraf-diff\", \"version\": 1,\n");
  json_side("before", v->pa, lraf_profile_diff_model(v->d, 0), c.before);
  json_side("after", v->pb, lraf_profile_diff_model(v->d, 1), c.after);
  printf(" \"similarity\": %.17g,\n \"gate\": ",
         lraf_profile_diff_similarity(v->d));
  if (v->gate.on) {
    printf("{\"threshold\": ");
    cli_threshold_write(stdout, v->gate.threshold);
    printf(", \"min_change\": %" PRId64 ", \"fail_on\": \"%s\"}",
           v->gate.min_change,
           v->gate.fail_on_change ? "change" : "regression");
  } else
    printf("null");
  printf(",\n \"result\": \"%s\",\n \"total\": {\"before\": %" PRId64
         ", \"after\": %" PRId64 ", \"verdict\": \"%s\"},\n"
         " \"regressions\": %d, \"improvements\": %d, \"added\": %d,"
         " \"removed\": %d, \"moved\": %d,\n \"functions\": [", result(v),
         c.before, c.after, cli_verdict_name(verdict(v, &c)), v->regressions,
         v->improvements, v->added, v->removed, v->moved);
  for (i = 0; i < n; i++) {
    lraf_profile_diff_row(v->d, i, &c);
    printf("%s\n  {\"frame\": ", i ? "," : "");
    cli_json_str(stdout, c.frame);
    printf(", \"before\": %" PRId64 ", \"after\": %" PRId64
           ", \"change\": %" PRId64 ", \"presence\": \"%s\", "
           "\"line_before\": ", c.before, c.after, c.after - c.before,
           !c.in_before ? "added" : !c.in_after ? "removed" : "both");
    json_line(c.in_before ? c.line_before : -1);
    printf(", \"line_after\": ");
    json_line(c.in_after ? c.line_after : -1);
    printf(", \"moved\": %s, \"verdict\": \"%s\"}",
           moved(&c) ? "true" : "false", cli_verdict_name(verdict(v, &c)));
  }
  printf("\n ]\n}\n");
}

static int report(const lraf_profile_diff *d, const cli_args *a,
                  const char *pa, const char *pb, int format) {
  diff_view v;
  const char *ma = lraf_profile_diff_model(d, 0);
  const char *mb = lraf_profile_diff_model(d, 1);
  memset(&v, 0, sizeof v);
  v.d = d;
  v.pa = pa;
  v.pb = pb;
  v.top = a->top >= 0 ? a->top : 20;
  cli_gate_of(a, &v.gate);
  if (strcmp(ma, mb) != 0) {
    fprintf(stderr, "lraf diff: the profiles have different cost models "
            "(%s, %s)\n", ma, mb);
    if (v.gate.on)
      return cli_error("lraf diff: no gate across cost models: profile both "
                       "with the same one");
  }
  count_rows(&v);
  if (format == 1) write_markdown(&v);
  else if (format == 2) write_json(&v);
  else if (format == 3) {
    lraf_error err;
    if (lraf_profile_diff_write_svg(d, stdout, &err) != LRAF_OK)
      return cli_report(&err);
  } else write_text(&v);
  report_fails(&v);
  if (fflush(stdout) != 0 || ferror(stdout))
    return cli_error("lraf diff: cannot write the report");
  return v.fails > 0 ? CLI_EREGRESS : CLI_OK;
}

int cli_diff(int argc, char **argv) {
  const cli_command *cmd = cli_command_find("diff");
  cli_args a;
  char *text[2] = {NULL, NULL};
  size_t len[2];
  lraf_profile_diff *d;
  lraf_error err;
  int rc = cli_parse(cmd, argc, argv, &a), i, format;
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
  if (a.format != NULL && strcmp(a.format, "svg") == 0) {
    format = 3;
  } else if (a.format != NULL && strcmp(a.format, "text") != 0 &&
             strcmp(a.format, "markdown") != 0 &&
             strcmp(a.format, "json") != 0) {
    cli_error("lraf diff --format needs text, markdown, json or svg, not "
              "'%s'", a.format);
    return CLI_EUSAGE;
  } else {
    format = cli_report_format(&a, "diff");
  }
  if (a.noperands != 2) {
    cli_error("lraf diff needs two JSON profiles");
    cli_usage(stderr, cmd);
    return CLI_EUSAGE;
  }
  for (i = 0; i < 2; i++)
    if (cli_read_file(argv[a.first + i], &text[i], &len[i], &err) !=
        LRAF_OK) {
      free(text[0]);
      return cli_report(&err);
    }
  rc = CLI_OK;
  if (lraf_profile_diff_new(text[0], len[0], argv[a.first], text[1], len[1],
                            argv[a.first + 1], &d, &err) != LRAF_OK) {
    rc = cli_report(&err);
  } else {
    rc = report(d, &a, argv[a.first], argv[a.first + 1], format);
    lraf_profile_diff_free(d);
  }
  free(text[0]);
  free(text[1]);
  return rc;
}
