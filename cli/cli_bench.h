/*
** cli_bench.h - what the parts of lraf bench share: the benchmarks of
** a run (from the command line or a suite file, cli_suite.c), what
** each measured (cli_bench.c), the baselines (cli_baseline.c, read
** with cli_json.c) and the reports and exports (cli_benchout.c).
** docs/bench.md describes the files and outputs.
*/
#ifndef LRAF_CLI_BENCH_H
#define LRAF_CLI_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* ---- cli_json.c: a JSON value read back ---- */
typedef enum cli_json_kind {
  CLI_JSON_NULL, CLI_JSON_BOOL, CLI_JSON_NUMBER, CLI_JSON_STRING,
  CLI_JSON_ARRAY, CLI_JSON_OBJECT
} cli_json_kind;
typedef struct cli_json {
  cli_json_kind kind;
  char *key;              /* the member's name, in an object */
  char *string;           /* CLI_JSON_STRING */
  double number;          /* CLI_JSON_NUMBER */
  int64_t integer;        /* the number when is_integer; BOOL: 0 or 1 */
  int is_integer;
  int count;              /* members or elements */
  struct cli_json *child; /* the first of them */
  struct cli_json *next;  /* the next member or element */
} cli_json;
/* Parse text (len bytes); the error names name and the byte offset. */
lraf_status cli_json_parse(const char *text, size_t len, const char *name,
                           cli_json **out, lraf_error *err);
void cli_json_free(cli_json *v);
/* The member key of an object, or NULL. */
const cli_json *cli_json_get(const cli_json *obj, const char *key);

/* ---- a benchmark: a script, its arguments and its limits ---- */
#define CLI_BENCH_NAME_MAX 512
typedef struct cli_bench_item {
  char name[CLI_BENCH_NAME_MAX];  /* "SCRIPT ARGS..." or the suite's name= */
  char *script;
  char **args;
  int nargs;
  int64_t threshold;   /* millionths of a percent; < 0: the command
                          line's */
  int64_t min_change;  /* units; < 0: the command line's */
  int64_t max_count;   /* a hard limit in units; < 0: the command line's */
} cli_bench_item;

/* ---- cli_suite.c: a suite file ---- */
typedef struct cli_suite {
  cli_bench_item *item;
  int n;
  char *text;          /* the words point into it */
  char **words;
} cli_suite;
/* Parse a suite (len bytes of it; name in errors, "FILE:LINE: what"). */
lraf_status cli_suite_parse(const char *text, size_t len, const char *name,
                            cli_suite *s, lraf_error *err);
void cli_suite_free(cli_suite *s);
/* The name of a benchmark of script with args, "script a b", into
   buf; 0 when it did not fit. */
int cli_bench_name(char *buf, size_t size, const char *script,
                   char *const *args, int nargs);

/* ---- what a benchmark measured (cli_bench.c) ---- */
typedef struct cli_bench_result {
  const cli_bench_item *item;
  int64_t count_min, count_max;   /* equal when the count is exact */
  int runs, warmup;
  double *times;                  /* wall seconds of each run */
  double mean, stddev, median, min, max;
  double user, system;            /* mean CPU seconds of a run */
} cli_bench_result;

/* ---- cli_baseline.c: a saved baseline ---- */
typedef struct cli_baseline_entry {
  char *name, *script;
  char **args;
  int nargs;
  int64_t count;
  char *model, *lraf_version, *vm;
} cli_baseline_entry;
typedef struct cli_baseline {
  char *name;
  cli_baseline_entry *entry;
  int n;
} cli_baseline;
/* Where the baselines live when --baseline-dir does not say. */
#define CLI_BASELINE_DIR ".lraf/baselines"
/* Whether name may name a baseline (letters, digits, . _ -; not first
   '.'; at most 100 bytes); otherwise *why says what is wrong. */
int cli_baseline_name_ok(const char *name, const char **why);
/* dir/name.json. */
void cli_baseline_path(char *buf, size_t size, const char *dir,
                       const char *name);
/* Read a baseline file's text (path in errors). */
lraf_status cli_baseline_parse(const char *text, size_t len,
                               const char *path, cli_baseline *b,
                               lraf_error *err);
void cli_baseline_free(cli_baseline *b);
/* The one entry named name, or NULL. */
const cli_baseline_entry *cli_baseline_find(const cli_baseline *b,
                                            const char *name);

/* ---- a whole run: the context every report needs ---- */
typedef struct cli_bench_run {
  const char *model, *unit, *vm;    /* vm: "lraf" or "stock" */
  cli_bench_result *res;
  int n;
  const char *baseline_name;        /* NULL: no comparison */
  const char *baseline_file;
  const cli_baseline *base;
  int allow_mismatch;
  cli_gate gate;                    /* the command line's limits */
  /* per result, filled by cli_bench_judge */
  const cli_baseline_entry **before;
  cli_verdict *verdict;
  int *mismatch;                    /* bit 1 model, 2 version, 4 vm */
  int regressions, improvements, fails, added, mismatches;
} cli_bench_run;
/* The gate of result i: the command line's, with the suite's limits. */
void cli_bench_gate(const cli_bench_run *r, int i, cli_gate *g);
/* Compare each result with the baseline (fills before, verdict...). */
void cli_bench_judge(cli_bench_run *r);
/* Save the results as baseline name at path (a new file put in place
   by rename); the error names the file. */
lraf_status cli_baseline_save(const cli_bench_run *r, const char *name,
                              const char *path, lraf_error *err);
/* Make dir and its parents; the error names it. */
lraf_status cli_mkdirs(const char *dir, lraf_error *err);
/* The names of the baseline entries no result has, one by one: index
   from 0, -1 when there are no more. */
int cli_bench_removed(const cli_bench_run *r, int from);

/* ---- cli_benchout.c: the reports ---- */
/* "regression", "change", "pass" or "no baseline". */
const char *cli_bench_result_name(const cli_bench_run *r);
/* The comparison with the baseline as text (nothing without one). */
void cli_bench_text(FILE *out, const cli_bench_run *r);
/* Each mismatch and each benchmark failing the gate, one line each. */
void cli_bench_complaints(FILE *err, const cli_bench_run *r);
void cli_bench_markdown(FILE *out, const cli_bench_run *r);
void cli_bench_json(FILE *out, const cli_bench_run *r);
/* As hyperfine's --export-json and --export-markdown. */
void cli_bench_export_json(FILE *out, const cli_bench_run *r);
void cli_bench_export_markdown(FILE *out, const cli_bench_run *r);

#endif
