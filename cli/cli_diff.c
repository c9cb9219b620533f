/*
** cli_diff.c - lraf diff A.json B.json [--threshold P] [--top N]:
** compare two JSON profiles (lraf profile --format json) function by
** function, sorted by absolute change, with their similarity score
** (lraf_profile_diff_*).  Exit status 0, 1 when the total or a
** function changed by more than P percent, 2 for bad usage or input.
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CLI_OVER 1  /* a change above the threshold */

static void percent(char *buf, size_t size, const lraf_profile_change *c) {
  double p = lraf_profile_change_percent(c->before, c->after);
  if (isinf(p)) snprintf(buf, size, "new");
  else snprintf(buf, size, "%+.2f%%", p);
}

static void row(const lraf_profile_change *c) {
  char pct[32];
  percent(pct, sizeof pct, c);
  printf("%14" PRId64 " %14" PRId64 " %+14" PRId64 " %9s  %s\n", c->before,
         c->after, c->after - c->before, pct, c->frame);
}

/* Report c on stderr when it changed by more than threshold percent. */
static int over(const lraf_profile_change *c, double threshold) {
  char pct[32];
  if (!(fabs(lraf_profile_change_percent(c->before, c->after)) > threshold))
    return 0;
  percent(pct, sizeof pct, c);
  if (strcmp(pct, "new") == 0)
    fprintf(stderr, "lraf diff: %s is new (threshold %g%%)\n", c->frame,
            threshold);
  else
    fprintf(stderr, "lraf diff: %s changed by %s (threshold %g%%)\n",
            c->frame, pct, threshold);
  return 1;
}

static int report(const lraf_profile_diff *d, const char *pa,
                  const char *pb, int64_t top, double threshold) {
  lraf_profile_change c;
  int i, n = lraf_profile_diff_rows(d), rc = CLI_OK;
  const char *ma = lraf_profile_diff_model(d, 0);
  const char *mb = lraf_profile_diff_model(d, 1);
  printf("lraf diff: %s -> %s (cost model %s)\n\n", pa, pb, ma);
  printf("%14s %14s %14s %9s  %s\n", "before", "after", "change", "%",
         "function");
  for (i = -1; i < n && (top <= 0 || i < top); i++) {
    lraf_profile_diff_row(d, i, &c);
    row(&c);
  }
  if (top > 0 && n > top)
    printf("(%d more functions; --top 0 lists all)\n", n - (int)top);
  printf("\nsimilarity %.6f (cosine of the per-function counts, weighted "
         "by inverse frequency)\n", lraf_profile_diff_similarity(d));
  if (strcmp(ma, mb) != 0)
    fprintf(stderr, "lraf diff: the profiles have different cost models "
            "(%s, %s)\n", ma, mb);
  if (threshold >= 0)
    for (i = -1; i < n; i++) {
      lraf_profile_diff_row(d, i, &c);
      if (over(&c, threshold)) rc = CLI_OVER;
    }
  return rc;
}

int cli_diff(int argc, char **argv) {
  const cli_command *cmd = cli_command_find("diff");
  cli_args a;
  char *text[2] = {NULL, NULL};
  size_t len[2];
  lraf_profile_diff *d;
  lraf_error err;
  int rc = cli_parse(cmd, argc, argv, &a), i;
  if (rc != CLI_OK) return rc == CLI_HELP ? CLI_OK : rc;
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
    rc = report(d, argv[a.first], argv[a.first + 1],
                a.top >= 0 ? a.top : 20, a.threshold);
    lraf_profile_diff_free(d);
  }
  free(text[0]);
  free(text[1]);
  return rc;
}
