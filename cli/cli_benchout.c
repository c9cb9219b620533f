/*
** cli_benchout.c - what lraf bench writes after its runs: the
** comparison with a baseline as text, as a Markdown table for a PR
** comment (--format markdown) or as a JSON summary (--format json,
** docs/bench-summary.schema.json), and the wall-time exports of
** --export-json and --export-markdown, shaped as hyperfine's.
*/
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "cli_bench.h"

const char *cli_bench_result_name(const cli_bench_run *r) {
  if (r->baseline_name == NULL) return "no baseline";
  if (r->mismatches > 0 && !r->allow_mismatch) return "mismatch";
  if (r->fails == 0) return "pass";
  return r->gate.fail_on_change && r->regressions == 0 ? "change"
                                                       : "regression";
}

/* What a result's row says: regression, improvement, same, new or
   mismatch (not compared). */
static const char *verdict(const cli_bench_run *r, int i) {
  if (r->before[i] == NULL) return "new";
  if (r->mismatch[i] && !r->allow_mismatch) return "mismatch";
  return cli_verdict_name(r->verdict[i]);
}

static int failing(const cli_bench_run *r, int i) {
  cli_gate g;
  if (r->before[i] == NULL || (r->mismatch[i] && !r->allow_mismatch))
    return 0;
  cli_bench_gate(r, i, &g);
  return cli_gate_fails(&g, r->verdict[i]);
}

/* "model lua5.4/original, lraf version 0.1.0" for a mismatch's bits. */
static void mismatch_text(FILE *out, const cli_bench_run *r, int i) {
  const cli_baseline_entry *e = r->before[i];
  const char *sep = "";
  if (r->mismatch[i] & 1) {
    fprintf(out, "cost model %s, now %s", e->model, r->model);
    sep = "; ";
  }
  if (r->mismatch[i] & 2) {
    fprintf(out, "%slraf %s, now %s", sep, e->lraf_version, LRAF_VERSION);
    sep = "; ";
  }
  if (r->mismatch[i] & 4)
    fprintf(out, "%sVM %s, now %s", sep, e->vm, r->vm);
}

/* A duration in the unit of the table: ms, or s when scale is 1. */
static double in_unit(double s, int seconds) {
  return seconds ? s : s * 1e3;
}

static int use_seconds(const cli_bench_run *r) {
  int i;
  for (i = 0; i < r->n; i++)
    if (r->res[i].mean >= 1.0) return 1;
  return 0;
}

/* ---- text ---- */

void cli_bench_text(FILE *out, const cli_bench_run *r) {
  int i, k;
  if (r->baseline_name == NULL) return;
  fprintf(out, "\nbaseline %s (%s), gate ", r->baseline_name,
          r->baseline_file);
  cli_gate_text(out, &r->gate);
  fprintf(out, "\n%14s %14s %14s %9s  %-11s  %s\n", "baseline", "now",
          "change", "%", "verdict", "benchmark");
  for (i = 0; i < r->n; i++) {
    const cli_bench_result *x = &r->res[i];
    char pct[32];
    if (r->before[i] == NULL) {
      fprintf(out, "%14s %14" PRId64 " %14s %9s  %-11s  %s\n", "-",
              x->count_max, "", "", "new", x->item->name);
      continue;
    }
    cli_percent(pct, sizeof pct, r->before[i]->count, x->count_max);
    fprintf(out, "%14" PRId64 " %14" PRId64 " %+14" PRId64 " %9s  %-11s  %s",
            r->before[i]->count, x->count_max,
            x->count_max - r->before[i]->count, pct, verdict(r, i),
            x->item->name);
    if (x->item->threshold >= 0 || x->item->min_change >= 0) {
      cli_gate g;
      cli_bench_gate(r, i, &g);  /* the suite's own limits */
      fputs("  (threshold ", out);
      cli_threshold_write(out, g.threshold);
      fprintf(out, "%%, min-change %" PRId64 ")", g.min_change);
    }
    fputc('\n', out);
  }
  for (k = cli_bench_removed(r, 0); k >= 0; k = cli_bench_removed(r, k + 1))
    fprintf(out, "%14" PRId64 " %14s %14s %9s  %-11s  %s\n",
            r->base->entry[k].count, "-", "", "", "removed",
            r->base->entry[k].name);
  fprintf(out, "result: %s (%d regressed, %d improved, %d new)\n",
          cli_bench_result_name(r), r->regressions, r->improvements,
          r->added);
}

void cli_bench_complaints(FILE *err, const cli_bench_run *r) {
  int i;
  for (i = 0; i < r->n; i++) {
    const cli_bench_result *x = &r->res[i];
    char pct[32];
    cli_gate g;
    if (r->before[i] != NULL && r->mismatch[i]) {
      fprintf(err, "lraf bench: %s: the baseline %s was made with another ",
              x->item->name, r->baseline_name);
      fputs(r->mismatch[i] == 1 ? "cost model" : r->mismatch[i] == 2
            ? "lraf version" : r->mismatch[i] == 4 ? "VM" : "setup", err);
      fputs(" (", err);
      mismatch_text(err, r, i);
      fputs(r->allow_mismatch ? "): compared anyway (--allow-mismatch)\n"
                              : "): not compared; save a new baseline, or "
                                "--allow-mismatch\n", err);
    }
    if (!failing(r, i)) continue;
    cli_bench_gate(r, i, &g);
    cli_percent(pct, sizeof pct, r->before[i]->count, x->count_max);
    fprintf(err, "lraf bench: %s: %s %+" PRId64 " (%s; ",
            cli_verdict_name(r->verdict[i]), x->item->name,
            x->count_max - r->before[i]->count, pct);
    cli_gate_text(err, &g);
    fputs(")\n", err);
  }
}

/* ---- Markdown ---- */

static void md_time(FILE *out, const cli_bench_result *x, int seconds) {
  const char *u = seconds ? "s" : "ms";
  if (isnan(x->stddev))
    fprintf(out, "%.3f %s", in_unit(x->mean, seconds), u);
  else
    fprintf(out, "%.3f %s ± %.3f %s", in_unit(x->mean, seconds), u,
            in_unit(x->stddev, seconds), u);
}

void cli_bench_markdown(FILE *out, const cli_bench_run *r) {
  int i, k, sec = use_seconds(r);
  fputs("### lraf bench", out);
  if (r->baseline_name != NULL) {
    fputs(": baseline ", out);
    cli_md_cell(out, r->baseline_name);
  }
  fputs("\n\nCost model ", out);
  cli_md_cell(out, r->model);
  fprintf(out, " (%s), lraf %s, VM %s", r->unit, LRAF_VERSION, r->vm);
  if (r->baseline_name != NULL) {
    fputs("; gate ", out);
    cli_gate_text(out, &r->gate);
    fprintf(out, ": **%s**.  %d regressed, %d improved, %d new",
            cli_bench_result_name(r), r->regressions, r->improvements,
            r->added);
    if (r->mismatches > 0)
      fprintf(out, ", %d made with another setup", r->mismatches);
    fputs(".\n\n| benchmark | baseline | now | change | % | wall time "
          "(mean ± σ) | verdict |\n|---|---:|---:|---:|---:|---:|---|\n", out);
  } else {
    fputs(".\n\n| benchmark | count | wall time (mean ± σ) | min | max |\n"
          "|---|---:|---:|---:|---:|\n", out);
  }
  for (i = 0; i < r->n; i++) {
    const cli_bench_result *x = &r->res[i];
    const char *v = verdict(r, i);
    fputs("| ", out);
    cli_md_cell(out, x->item->name);
    if (r->baseline_name == NULL) {
      fprintf(out, " | %" PRId64 " | ", x->count_max);
      md_time(out, x, sec);
      fprintf(out, " | %.3f | %.3f |\n", in_unit(x->min, sec),
              in_unit(x->max, sec));
      continue;
    }
    if (r->before[i] == NULL) {
      fprintf(out, " | | %" PRId64 " | | | ", x->count_max);
    } else {
      char pct[32];
      cli_percent(pct, sizeof pct, r->before[i]->count, x->count_max);
      fprintf(out, " | %" PRId64 " | %" PRId64 " | %+" PRId64 " | %s | ",
              r->before[i]->count, x->count_max,
              x->count_max - r->before[i]->count, pct);
    }
    md_time(out, x, sec);
    fprintf(out, " | %s%s |\n",
            strcmp(v, "regression") == 0 ? ":x: "
            : strcmp(v, "improvement") == 0 ? ":white_check_mark: "
            : strcmp(v, "mismatch") == 0 ? ":warning: " : "", v);
  }
  for (k = cli_bench_removed(r, 0); k >= 0; k = cli_bench_removed(r, k + 1)) {
    fputs("| ", out);
    cli_md_cell(out, r->base->entry[k].name);
    fprintf(out, " | %" PRId64 " | | | | | removed |\n",
            r->base->entry[k].count);
  }
  if (r->baseline_name != NULL)
    fprintf(out, "\nCounts are exact (%s, the same on every machine); wall "
            "times are this machine's.\n", r->unit);
}

/* ---- JSON (docs/bench-summary.schema.json) ---- */

static void json_num(FILE *out, double x) {
  if (isnan(x) || isinf(x)) fputs("null", out);
  else fprintf(out, "%.9g", x);
}

static void json_args(FILE *out, const cli_bench_item *it) {
  int k;
  fputc('[', out);
  for (k = 0; k < it->nargs; k++) {
    if (k) fputs(", ", out);
    cli_json_str(out, it->args[k]);
  }
  fputc(']', out);
}

/* The statistics of a result, in the order they are written; cpu:
   user and system, which only the export writes. */
static const struct {
  const char *name;
  size_t off;
  int cpu;
} stats[] = {
  {"mean", offsetof(cli_bench_result, mean), 0},
  {"stddev", offsetof(cli_bench_result, stddev), 0},
  {"median", offsetof(cli_bench_result, median), 0},
  {"user", offsetof(cli_bench_result, user), 1},
  {"system", offsetof(cli_bench_result, system), 1},
  {"min", offsetof(cli_bench_result, min), 0},
  {"max", offsetof(cli_bench_result, max), 0},
};

/* Write x's statistics as "name": value, the first after first and
   each other after sep; with_cpu: user and system too. */
static void json_stats(FILE *out, const cli_bench_result *x,
                       const char *first, const char *sep, int with_cpu) {
  size_t k;
  for (k = 0; k < sizeof stats / sizeof stats[0]; k++) {
    if (stats[k].cpu && !with_cpu) continue;
    fprintf(out, "%s\"%s\": ", first, stats[k].name);
    json_num(out, *(const double *)((const char *)x + stats[k].off));
    first = sep;
  }
}

static void json_wall(FILE *out, const cli_bench_result *x) {
  json_stats(out, x, "{", ", ", 0);
  fputc('}', out);
}

static void json_mismatch(FILE *out, int bits) {
  const char *sep = "";
  fputc('[', out);
  if (bits & 1) { fputs("\"model\"", out); sep = ", "; }
  if (bits & 2) { fprintf(out, "%s\"lraf_version\"", sep); sep = ", "; }
  if (bits & 4) fprintf(out, "%s\"vm\"", sep);
  fputc(']', out);
}

static void json_bench(FILE *out, const cli_bench_run *r, int i) {
  const cli_bench_result *x = &r->res[i];
  const cli_baseline_entry *e = r->before[i];
  cli_gate g;
  fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
  cli_json_str(out, x->item->name);
  fputs(", \"script\": ", out);
  cli_json_str(out, x->item->script);
  fputs(", \"args\": ", out);
  json_args(out, x->item);
  fprintf(out, ",\n   \"count\": %" PRId64 ", \"exact\": %s, \"runs\": %d, "
          "\"warmup\": %d, \"wall\": ", x->count_max,
          x->count_min == x->count_max ? "true" : "false", x->runs,
          x->warmup);
  json_wall(out, x);
  fputs(",\n   \"baseline\": ", out);
  if (e == NULL) {
    fputs("null, \"change\": null, \"percent\": null", out);
  } else {
    fprintf(out, "{\"count\": %" PRId64 ", \"model\": ", e->count);
    cli_json_str(out, e->model);
    fputs(", \"lraf_version\": ", out);
    cli_json_str(out, e->lraf_version);
    fputs(", \"vm\": ", out);
    cli_json_str(out, e->vm);
    fprintf(out, "}, \"change\": %" PRId64 ", \"percent\": ",
            x->count_max - e->count);
    json_num(out, lraf_profile_change_percent(e->count, x->count_max));
  }
  cli_bench_gate(r, i, &g);
  fputs(",\n   \"threshold\": ", out);
  cli_threshold_write(out, g.threshold);
  fprintf(out, ", \"min_change\": %" PRId64 ", \"mismatch\": ", g.min_change);
  json_mismatch(out, r->mismatch[i]);
  fprintf(out, ", \"verdict\": \"%s\"}",
          r->baseline_name == NULL ? "none" : verdict(r, i));
}

void cli_bench_json(FILE *out, const cli_bench_run *r) {
  int i, k, first = 1;
  fputs("{\"format\": \"lraf-bench\", \"version\": 1,\n \"model\": ", out);
  cli_json_str(out, r->model);
  fputs(", \"unit\": ", out);
  cli_json_str(out, r->unit);
  fprintf(out, ", \"lraf_version\": \"%s\", \"vm\": \"%s\",\n \"baseline\": ",
          LRAF_VERSION, r->vm);
  if (r->baseline_name == NULL) {
    fputs("null, \"gate\": null", out);
  } else {
    fputs("{\"name\": ", out);
    cli_json_str(out, r->baseline_name);
    fputs(", \"file\": ", out);
    cli_json_str(out, r->baseline_file);
    fputs("},\n \"gate\": {\"threshold\": ", out);
    cli_threshold_write(out, r->gate.threshold);
    fprintf(out, ", \"min_change\": %" PRId64 ", \"fail_on\": \"%s\", "
            "\"allow_mismatch\": %s}", r->gate.min_change,
            r->gate.fail_on_change ? "change" : "regression",
            r->allow_mismatch ? "true" : "false");
  }
  fprintf(out, ",\n \"result\": \"%s\", \"regressions\": %d, "
          "\"improvements\": %d, \"added\": %d, \"mismatches\": %d,\n"
          " \"removed\": [", cli_bench_result_name(r), r->regressions,
          r->improvements, r->added, r->mismatches);
  for (k = cli_bench_removed(r, 0); k >= 0; k = cli_bench_removed(r, k + 1)) {
    if (!first) fputs(", ", out);
    first = 0;
    cli_json_str(out, r->base->entry[k].name);
  }
  fputs("],\n \"benchmarks\": [", out);
  for (i = 0; i < r->n; i++) json_bench(out, r, i);
  fputs("\n ]\n}\n", out);
}

/* ---- exports, as hyperfine writes them ---- */

void cli_bench_export_json(FILE *out, const cli_bench_run *r) {
  int i, k;
  fputs("{\n  \"results\": [", out);
  for (i = 0; i < r->n; i++) {
    const cli_bench_result *x = &r->res[i];
    fprintf(out, "%s\n    {\n      \"command\": ", i ? "," : "");
    cli_json_str(out, x->item->name);
    json_stats(out, x, ",\n      ", ",\n      ", 1);
    fputs(",\n      \"times\": [", out);
    for (k = 0; k < x->runs; k++) {
      if (k) fputs(", ", out);
      json_num(out, x->times[k]);
    }
    fputs("],\n      \"exit_codes\": [", out);
    for (k = 0; k < x->runs; k++) fputs(k ? ", 0" : "0", out);
    fprintf(out, "],\n      \"count\": %" PRId64 ",\n      \"unit\": ",
            x->count_max);
    cli_json_str(out, r->unit);
    fputs(",\n      \"model\": ", out);
    cli_json_str(out, r->model);
    fprintf(out, ",\n      \"warmup\": %d\n    }", x->warmup);
  }
  fputs("\n  ]\n}\n", out);
}

void cli_bench_export_markdown(FILE *out, const cli_bench_run *r) {
  int i, sec = use_seconds(r), least = 0;
  const char *u = sec ? "s" : "ms";
  for (i = 1; i < r->n; i++)
    if (r->res[i].count_max < r->res[least].count_max) least = i;
  fprintf(out, "| Command | Count [%s] | Mean [%s] | Min [%s] | Max [%s] | "
          "Relative (count) |\n|:---|---:|---:|---:|---:|---:|\n", r->unit,
          u, u, u);
  for (i = 0; i < r->n; i++) {
    const cli_bench_result *x = &r->res[i];
    double base = (double)r->res[least].count_max;
    fputs("| `", out);
    cli_md_cell(out, x->item->name);
    fprintf(out, "` | %" PRId64 " | %.1f", x->count_max, in_unit(x->mean, sec));
    if (!isnan(x->stddev)) fprintf(out, " ± %.1f", in_unit(x->stddev, sec));
    fprintf(out, " | %.1f | %.1f | %.2f |\n", in_unit(x->min, sec),
            in_unit(x->max, sec),
            base > 0 ? (double)x->count_max / base : 1.0);
  }
}
