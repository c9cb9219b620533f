/*
** cli_diff.c - lraf diff A.json B.json [--threshold P] [--top N]:
** compare two JSON profiles (lraf profile --format json) function by
** function, sorted by absolute change, with their similarity score
** (profile/pf_diff.c).  Exit status 0, 1 when the total or a function
** changed by more than P percent, 2 for bad usage or input.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pf.h"

#define CLI_OVER 1  /* a change above the threshold */

static const char usage_text[] =
  "usage: lraf diff A.json B.json [--threshold P] [--top N]";

static int load(const char *path, pf_read *r) {
  char *text;
  size_t len;
  lraf_error err;
  if (cli_read_file(path, &text, &len, &err) != LRAF_OK)
    return cli_report(&err);
  if (pf_read_json(text, len, path, r, &err) != LRAF_OK) {
    free(text);
    return cli_report(&err);
  }
  free(text);
  return CLI_OK;
}

static void percent(char *buf, size_t size, int64_t before, int64_t after) {
  double p = pf_diff_percent(before, after);
  if (isinf(p)) snprintf(buf, size, "new");
  else snprintf(buf, size, "%+.2f%%", p);
}

/* Whether before -> after changed by more than threshold percent. */
static int over(int64_t before, int64_t after, double threshold) {
  double p = pf_diff_percent(before, after);
  return fabs(p) > threshold;
}

static int report(const pf_read *a, const pf_read *b, const char *pa,
                  const char *pb, int64_t top, double threshold) {
  pf_diff d;
  lraf_error err;
  char pct[32];
  int i, rc = CLI_OK;
  if (pf_diff_make(a, b, &d, &err) != LRAF_OK) return cli_report(&err);
  printf("lraf diff: %s -> %s (cost model %s)\n\n", pa, pb, a->model);
  printf("%14s %14s %14s %9s  %s\n", "before", "after", "change", "%",
         "function");
  percent(pct, sizeof pct, d.before, d.after);
  printf("%14" PRId64 " %14" PRId64 " %+14" PRId64 " %9s  %s\n", d.before,
         d.after, d.after - d.before, pct, "(total)");
  for (i = 0; i < d.n && (top <= 0 || i < top); i++) {
    const pf_diffrow *r = &d.row[i];
    percent(pct, sizeof pct, r->before, r->after);
    printf("%14" PRId64 " %14" PRId64 " %+14" PRId64 " %9s  %s\n", r->before,
           r->after, r->after - r->before, pct, r->frame);
  }
  if (top > 0 && d.n > top)
    printf("(%d more functions; --top 0 lists all)\n", d.n - (int)top);
  printf("\nsimilarity %.6f (cosine of the per-function counts, weighted "
         "by inverse frequency)\n", d.similarity);
  if (strcmp(a->model, b->model) != 0)
    fprintf(stderr, "lraf diff: the profiles have different cost models "
            "(%s, %s)\n", a->model, b->model);
  if (threshold >= 0) {
    if (over(d.before, d.after, threshold)) {
      percent(pct, sizeof pct, d.before, d.after);
      fprintf(stderr, "lraf diff: the total changed by %s (threshold "
              "%g%%)\n", pct, threshold);
      rc = CLI_OVER;
    }
    for (i = 0; i < d.n; i++)
      if (over(d.row[i].before, d.row[i].after, threshold)) {
        percent(pct, sizeof pct, d.row[i].before, d.row[i].after);
        if (strcmp(pct, "new") == 0)
          fprintf(stderr, "lraf diff: %s is new (threshold %g%%)\n",
                  d.row[i].frame, threshold);
        else
          fprintf(stderr, "lraf diff: %s changed by %s (threshold %g%%)\n",
                  d.row[i].frame, pct, threshold);
        rc = CLI_OVER;
      }
  }
  pf_diff_free(&d);
  return rc;
}

int cli_diff(int argc, char **argv) {
  const char *file[2] = {NULL, NULL};
  double threshold = -1;
  int64_t top = 20;
  int i, nfile = 0, rc;
  pf_read a, b;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threshold") == 0 || strcmp(argv[i], "--top") == 0) {
      if (i + 1 >= argc)
        return cli_error("%s needs a value\n%s", argv[i], usage_text);
      if (strcmp(argv[i], "--threshold") == 0) {
        char *end;
        threshold = strtod(argv[++i], &end);
        if (*end != '\0' || end == argv[i] || !(threshold >= 0) ||
            isinf(threshold))
          return cli_error("--threshold needs a percentage of at least 0");
      } else if (!cli_parse_int(argv[++i], &top)) {
        return cli_error("--top needs an integer of at least 0");
      }
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return cli_error("unknown option '%s'\n%s", argv[i], usage_text);
    } else if (nfile < 2) {
      file[nfile++] = argv[i];
    } else {
      return cli_error("more than two profiles\n%s", usage_text);
    }
  }
  if (nfile < 2) return cli_error("two JSON profiles needed\n%s", usage_text);
  if ((rc = load(file[0], &a)) != CLI_OK) return rc;
  if ((rc = load(file[1], &b)) != CLI_OK) {
    pf_read_free(&a);
    return rc;
  }
  rc = report(&a, &b, file[0], file[1], top, threshold);
  pf_read_free(&a);
  pf_read_free(&b);
  return rc;
}
