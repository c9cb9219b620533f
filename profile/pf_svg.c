/*
** pf_svg.c - a self-contained SVG flame graph of the calling-context
** tree: one box per context, as wide as its inclusive count, stacked
** on its caller (the root at the bottom), children in the order of
** their first call.  Hovering a box shows its frame and counts; no
** script, no external resource.
*/
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

#define WIDTH 1200.0
#define ROW 16
#define PAD 30
#define CHAR_W 7.0  /* width of a character of the 12px monospace font */

static void xml_text(FILE *out, const char *s, size_t max) {
  size_t n = 0;
  for (; *s && n < max; s++, n++) {
    unsigned char c = (unsigned char)*s;
    if (c == '<') fputs("&lt;", out);
    else if (c == '>') fputs("&gt;", out);
    else if (c == '&') fputs("&amp;", out);
    else if (c == '"') fputs("&quot;", out);
    else if (c < 0x20 || c >= 0x7f) fputc('?', out);  /* valid XML only */
    else fputc(c, out);
  }
}

/* A warm colour fixed by the frame's name. */
static void colour(const char *name, int is_c, int *r, int *g, int *b) {
  uint32_t h = 2166136261u;
  for (; *name; name++) h = (h ^ (unsigned char)*name) * 16777619u;
  if (is_c) {
    *r = 80 + (int)(h % 40);
    *g = 160 + (int)((h >> 8) % 50);
    *b = 200 + (int)((h >> 16) % 50);
  } else {
    *r = 205 + (int)(h % 50);
    *g = 80 + (int)((h >> 8) % 130);
    *b = 30 + (int)((h >> 16) % 40);
  }
}

void pf_write_svg(const pf_profile *P, FILE *out) {
  int maxdepth = 0, i;
  int *depth = malloc(((size_t)P->nnode + 1) * sizeof *depth);
  double *x = malloc(((size_t)P->nnode + 1) * sizeof *x);
  double scale;
  int height;
  char name[512], title[700];
  if (depth == NULL || x == NULL) {
    free(depth);
    free(x);
    fputs("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""
          "/>\n", out);
    return;
  }
  /* parents precede children in the node array */
  depth[0] = 0;
  x[0] = 0;
  for (i = 1; i < P->nnode; i++) {
    depth[i] = depth[P->node[i].parent] + 1;
    if (depth[i] > maxdepth) maxdepth = depth[i];
  }
  for (i = 0; i < P->nnode; i++) {  /* children left to right */
    double cx = x[i];
    int c;
    for (c = P->node[i].child; c >= 0; c = P->node[c].next) {
      x[c] = cx;
      cx += (double)P->node[c].incl;
    }
  }
  scale = P->total > 0 ? (WIDTH - 20) / (double)P->total : 0;
  height = (maxdepth + 1) * ROW + 2 * PAD;
  fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
          "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
          "<style>text { font-family: monospace; font-size: 12px; }"
          " rect:hover { stroke: black; }</style>\n"
          "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
          "fill=\"#f8f8f0\"/>\n"
          "<text x=\"10\" y=\"20\">lraf profile: %" PRId64
          " instructions, cost model ", (int)WIDTH, height, (int)WIDTH,
          height, (int)WIDTH, height, P->total);
  xml_text(out, P->model, 200);
  fputs("</text>\n", out);
  for (i = 0; i < P->nnode; i++) {
    const pf_node *n = &P->node[i];
    double w = (double)n->incl * scale, y;
    int r, g, b;
    size_t fit;
    if (w < 0.1 || n->incl <= 0) continue;
    if (n->fn < 0) snprintf(name, sizeof name, "all");
    else pf_frame_name(&P->fn[n->fn], name, sizeof name);
    y = (double)height - PAD - (double)(depth[i] + 1) * ROW;
    colour(name, n->fn >= 0 && P->fn[n->fn].is_c, &r, &g, &b);
    snprintf(title, sizeof title, " (%" PRId64 " instructions, %.2f%%, "
             "self %" PRId64 ", calls %" PRId64 ")", n->incl,
             P->total ? 100.0 * (double)n->incl / (double)P->total : 0.0,
             n->self, n->calls);
    fputs("<g><title>", out);
    xml_text(out, name, sizeof name);
    xml_text(out, title, sizeof title);
    fprintf(out, "</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
            "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
            10 + x[i] * scale, y, w, ROW - 1, r, g, b);
    fit = w > 4 * CHAR_W ? (size_t)((w - 4) / CHAR_W) : 0;
    if (fit >= 3) {  /* the name, or as much as fits and ".." */
      fprintf(out, "<text x=\"%.1f\" y=\"%.0f\">", 12 + x[i] * scale,
              y + ROW - 4);
      xml_text(out, name, fit < strlen(name) ? fit - 2 : fit);
      if (fit < strlen(name)) fputs("..", out);
      fputs("</text>", out);
    }
    fputs("</g>\n", out);
  }
  fputs("</svg>\n", out);
  free(depth);
  free(x);
}
