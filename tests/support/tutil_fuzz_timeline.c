/*
** tutil_fuzz_timeline.c - the timeline's analysis and both of its
** writers (profile/pf_timeline.c, pf_tlout.c) on samples decoded from
** arbitrary bytes, for fuzz_timeline and test_fuzz_regress: times that
** go back, counts that are negative or huge, several threads and
** accounts, stops and waits.  The summary must be finite, the JSON one
** object whose brackets balance outside its strings, which hold no raw
** control or non-ASCII byte, and the SVG must end its root element.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pf_timeline.h"
#include "tutil_fuzz.h"

#define REC 12   /* bytes per sample */

static int64_t take(const uint8_t *p, int n) {
  int64_t v = 0;
  int i;
  for (i = 0; i < n; i++) v = v << 8 | p[i];
  return v;
}

static const char *json_problem(const char *s, size_t n) {
  size_t i;
  int depth = 0, in_string = 0;
  if (n == 0 || s[0] != '{') return "the JSON is not an object";
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = 0;
      else if (c < 0x20 || c >= 0x80) return "a raw byte in a JSON string";
    } else if (c == '"') {
      in_string = 1;
    } else if (c == '{' || c == '[') {
      depth++;
    } else if ((c == '}' || c == ']') && --depth < 0) {
      return "a JSON bracket closes nothing";
    }
  }
  return depth != 0 || in_string ? "the JSON does not end" : NULL;
}

int tutil_fuzz_timeline(const uint8_t *data, size_t size, char *why,
                        size_t nwhy) {
  size_t n = size / REC, i;
  pf_tl_sample *x = calloc(n ? n : 1, sizeof *x);
  lraf_timeline_summary sum;
  lraf_timeline_opts o = {0, 0};
  const char *problem = NULL;
  int fmt;
  if (x == NULL) return 0;
  for (i = 0; i < n; i++) {
    const uint8_t *p = data + i * REC;
    x[i].t = (i ? x[i - 1].t : 0) + (int64_t)(int16_t)take(p, 2) * 1000;
    x[i].n = (int64_t)(int32_t)take(p + 2, 4);
    x[i].wait = p[6] & 1 ? (int64_t)p[7] * 100000 : 0;
    x[i].cpu = p[6] & 2 ? x[i].t / 2 : -1;
    x[i].account = p[8] % 7;
    x[i].thread = p[9] % 3;
    x[i].flags = p[10] & PF_TL_STOP;
  }
  if (size > 0) o.gap_threshold = data[0] & 1 ? 0.0005 : 0;
  for (fmt = 0; fmt < 2 && problem == NULL; fmt++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) break;
    if (pf_timeline_write(x, n, f, fmt ? LRAF_TIMELINE_SVG
                                       : LRAF_TIMELINE_JSON,
                          &o, "fuzz \"title\" <&>\n", &sum) == LRAF_OK) {
      fclose(f);
      if (!isfinite(sum.share) || !isfinite(sum.cpu_share) ||
          !isfinite(sum.min_share) || !isfinite(sum.solo_rate) ||
          sum.gaps < 0 || sum.samples != (int64_t)n)
        problem = "a summary figure is not finite";
      else if (fmt == 0)
        problem = json_problem(buf, len);
      else if (len < 7 || strcmp(buf + len - 7, "</svg>\n") != 0)
        problem = "the SVG does not end its root";
    } else {
      fclose(f);
    }
    free(buf);
  }
  free(x);
  if (problem == NULL) return 0;
  snprintf(why, nwhy, "%s", problem);
  return -1;
}
