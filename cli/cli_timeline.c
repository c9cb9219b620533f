/*
** cli_timeline.c - --timeline FILE and --expect-share P, shared by
** lraf run, profile, bench and serve: open the file before anything
** runs, write the timeline (an SVG when FILE ends in .svg, else the
** trace event JSON) and warn about a window below the expected share.
*/
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"

int cli_timeline_open(const char *path, FILE **f) {
  *f = NULL;
  if (path == NULL) return CLI_OK;
  *f = fopen(path, "w");
  if (*f == NULL)
    return cli_error("cannot write the timeline %s: %s", path,
                     strerror(errno));
  return CLI_OK;
}

int cli_timeline_finish(lraf_manager *tl, FILE *f, const char *path,
                        const char *title, double expect_share,
                        lraf_timeline_summary *sum) {
  lraf_error err;
  size_t len = strlen(path);
  int svg = len > 4 && strcmp(path + len - 4, ".svg") == 0, ok = 1;
  if (lraf_timeline_write(tl, f, svg ? LRAF_TIMELINE_SVG : LRAF_TIMELINE_JSON,
                          NULL, title, sum, &err) != LRAF_OK) {
    cli_error("cannot write the timeline %s: %s", path, err.message);
    ok = 0;
  }
  if (fclose(f) != 0) {
    cli_error("cannot write the timeline %s: %s", path, strerror(errno));
    ok = 0;
  }
  if (ok && expect_share > 0 && sum->min_share < expect_share)
    fprintf(stderr, "lraf: delivered share %.1f%% in the window at %.3f s, "
            "below --expect-share %.1f%%\n", 100 * sum->min_share,
            sum->min_share_at, 100 * expect_share);
  return ok;
}

void cli_timeline_line(FILE *f, const char *path,
                       const lraf_timeline_summary *s) {
  fprintf(f, "lraf: timeline %s: delivered share %.1f%% (least %.1f%%), "
          "cpu share %.1f%%, %" PRId64 " gaps (%.1f ms, longest %.1f ms)\n",
          path, 100 * s->share, 100 * s->min_share, 100 * s->cpu_share,
          s->gaps, 1e3 * s->gap_time, 1e3 * s->longest_gap);
}
