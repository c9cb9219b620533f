/*
** pf_svg.c - flame graphs as self-contained SVG: one box per calling
** context, as wide as its inclusive count, stacked on its caller (the
** root at the bottom), children in order.  The boxes, their names and
** the hover text are plain SVG, so the file renders without script; a
** small embedded script adds click-to-zoom, a reset control and a
** search that highlights the matching frames and shows the share of
** the total they cover.  pf_svg_flame draws any tree of boxes (the
** profile's here, lraf diff's differential one in pf_diffsvg.c).
*/
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pf.h"

#define WIDTH 1200
#define SIDE 10          /* margin left and right */
#define ROW 16
#define TOP 66           /* title, subtitle, controls */
#define BOTTOM 10
#define CHAR_W 7.0       /* width of a character of the 12px monospace font */

void pf_svg_text(FILE *out, const char *s, size_t max) {
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

/* The script: reads each box's place in units (data-o, data-w) and
   depth (data-d), and redraws the boxes when one is clicked.  Kept in
   CDATA; it contains no "]]>". */
static const char script[] =
  "<script type=\"text/ecmascript\"><![CDATA[\n"
  "(function () {\n"
  "  'use strict';\n"
  "  var svg = document.documentElement, W = " "%d" ", SIDE = " "%d"
  ", CW = %.1f;\n"
  "  var boxes = [], total = 0, zoomed = null, term = null;\n"
  "  var gs = document.getElementsByClassName('f');\n"
  "  for (var i = 0; i < gs.length; i++) {\n"
  "    var g = gs[i], b = {g: g, r: g.getElementsByTagName('rect')[0],\n"
  "      t: g.getElementsByTagName('text')[0], n: g.getAttribute('data-n'),\n"
  "      o: +g.getAttribute('data-o'), w: +g.getAttribute('data-w'),\n"
  "      d: +g.getAttribute('data-d')};\n"
  "    b.fill = b.r.getAttribute('fill');\n"
  "    if (b.d === 0) total = b.w;\n"
  "    boxes.push(b);\n"
  "    g.addEventListener('click', zoomer(b));\n"
  "  }\n"
  "  function zoomer(b) { return function () { zoom(b); }; }\n"
  "  function label(b, w) {\n"
  "    var fit = Math.floor((w - 4) / CW), s = b.n;\n"
  "    if (fit < 3) s = ''; else if (fit < s.length) "
  "s = s.substring(0, fit - 2) + '..';\n"
  "    b.t.textContent = s;\n"
  "  }\n"
  "  function place(b, x, w) {\n"
  "    b.r.setAttribute('x', x.toFixed(1));\n"
  "    b.r.setAttribute('width', w.toFixed(1));\n"
  "    b.t.setAttribute('x', (x + 2).toFixed(1));\n"
  "    label(b, w);\n"
  "  }\n"
  "  function zoom(z) {\n"
  "    var full = W - 2 * SIDE, k = full / z.w;\n"
  "    zoomed = z;\n"
  "    for (var i = 0; i < boxes.length; i++) {\n"
  "      var b = boxes[i], inside = b.o >= z.o && b.o + b.w <= z.o + z.w;\n"
  "      if (b.d < z.d && b.o <= z.o && b.o + b.w >= z.o + z.w) {\n"
  "        b.g.style.display = ''; b.g.setAttribute('opacity', '0.5');\n"
  "        place(b, SIDE, full);\n"
  "      } else if (b.d >= z.d && inside && b.w * k >= 0.1) {\n"
  "        b.g.style.display = ''; b.g.removeAttribute('opacity');\n"
  "        place(b, SIDE + (b.o - z.o) * k, b.w * k);\n"
  "      } else {\n"
  "        b.g.style.display = 'none';\n"
  "      }\n"
  "    }\n"
  "    document.getElementById('reset').setAttribute('opacity', '1');\n"
  "  }\n"
  "  function reset() {\n"
  "    var k = (W - 2 * SIDE) / total;\n"
  "    zoomed = null;\n"
  "    for (var i = 0; i < boxes.length; i++) {\n"
  "      var b = boxes[i];\n"
  "      b.g.style.display = ''; b.g.removeAttribute('opacity');\n"
  "      place(b, SIDE + b.o * k, b.w * k);\n"
  "    }\n"
  "    document.getElementById('reset').setAttribute('opacity', '0');\n"
  "  }\n"
  "  function matcher(s) {\n"
  "    try { var re = new RegExp(s); "
  "return function (n) { return re.test(n); }; }\n"
  "    catch (e) { return function (n) { return n.indexOf(s) >= 0; }; }\n"
  "  }\n"
  "  function search(s) {\n"
  "    var m = matcher(s), hit = [], sum = 0, end = -1;\n"
  "    term = s;\n"
  "    for (var i = 0; i < boxes.length; i++) {\n"
  "      var b = boxes[i];\n"
  "      if (b.d > 0 && m(b.n)) {\n"
  "        b.r.setAttribute('fill', 'rgb(230,0,230)'); hit.push(b);\n"
  "      } else { b.r.setAttribute('fill', b.fill); }\n"
  "    }\n"
  "    hit.sort(function (a, b) { return a.o - b.o || b.w - a.w; });\n"
  "    for (i = 0; i < hit.length; i++)\n"
  "      if (hit[i].o >= end) { sum += hit[i].w; end = hit[i].o + hit[i].w; }\n"
  "    document.getElementById('matched').textContent = 'Matched: ' +\n"
  "      (total > 0 ? 100 * sum / total : 0).toFixed(2) + '%%';\n"
  "    document.getElementById('search').textContent = 'Clear search';\n"
  "  }\n"
  "  function clear() {\n"
  "    term = null;\n"
  "    for (var i = 0; i < boxes.length; i++)\n"
  "      boxes[i].r.setAttribute('fill', boxes[i].fill);\n"
  "    document.getElementById('matched').textContent = '';\n"
  "    document.getElementById('search').textContent = 'Search';\n"
  "  }\n"
  "  document.getElementById('reset').addEventListener('click', reset);\n"
  "  document.getElementById('search').addEventListener('click',\n"
  "    function () {\n"
  "      if (term !== null) { clear(); return; }\n"
  "      var s = window.prompt('Search for frames matching "
  "(a regular expression):', '');\n"
  "      if (s) search(s);\n"
  "    });\n"
  "  var q = /[?&]s=([^&]*)/.exec(window.location.search);\n"
  "  if (q) search(decodeURIComponent(q[1]));\n"
  "})();\n"
  "]]></script>\n";

/* Box depths and left edges in units. */
static void layout(const pf_flame *F, int *depth, double *x, double *next,
                  int *maxdepth) {
  int i;
  *maxdepth = 0;
  for (i = 0; i < F->n; i++) {
    int p = F->parent[i];
    if (p < 0 || p >= i) {  /* a root */
      depth[i] = 0;
      x[i] = 0;
    } else {
      depth[i] = depth[p] + 1;
      x[i] = next[p];
      next[p] += (double)(F->width[i] > 0 ? F->width[i] : 0);
    }
    next[i] = x[i];
    if (depth[i] > *maxdepth) *maxdepth = depth[i];
  }
}

static void header(const pf_flame *F, FILE *out, int height) {
  fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
          "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
          "<style>text { font-family: monospace; font-size: 12px; }\n"
          " .f text { pointer-events: none; }\n"
          " .f:hover rect { stroke: black; }\n"
          " .f { cursor: pointer; }\n"
          " .ctl { cursor: pointer; fill: #336; }\n"
          " #title { font-size: 16px; }</style>\n",
          WIDTH, height, WIDTH, height);
  fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
          "fill=\"#f8f8f0\"/>\n<text id=\"title\" x=\"%d\" y=\"22\" "
          "text-anchor=\"middle\">", WIDTH, height, WIDTH / 2);
  pf_svg_text(out, F->title, 300);
  fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\" "
          "text-anchor=\"middle\" fill=\"#555\">", WIDTH / 2);
  pf_svg_text(out, F->subtitle, 300);
  fprintf(out, "</text>\n<text id=\"reset\" class=\"ctl\" x=\"%d\" "
          "y=\"58\" opacity=\"0\">Reset zoom</text>\n"
          "<text id=\"search\" class=\"ctl\" x=\"%d\" y=\"58\" "
          "text-anchor=\"end\">Search</text>\n"
          "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
          "</text>\n", SIDE, WIDTH - SIDE, WIDTH - SIDE, height - 1);
}

static void box(const pf_flame *F, FILE *out, int i, double x, double w,
                double y, int depth, double units) {
  char name[512], info[300];
  int rgb[3] = {200, 200, 200};
  size_t fit, len;
  F->describe(F->ud, i, name, sizeof name, info, sizeof info, rgb);
  fprintf(out, "<g class=\"f\" data-o=\"%.0f\" data-w=\"%" PRId64
          "\" data-d=\"%d\" data-n=\"", units, F->width[i], depth);
  pf_svg_text(out, name, sizeof name);
  fputs("\"><title>", out);
  pf_svg_text(out, name, sizeof name);
  pf_svg_text(out, info, sizeof info);
  fprintf(out, "</title><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
          "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.1f\" "
          "y=\"%.0f\">", SIDE + x, y, w, ROW - 1, rgb[0], rgb[1], rgb[2],
          SIDE + x + 2, y + ROW - 4);
  fit = w > 4 * CHAR_W ? (size_t)((w - 4) / CHAR_W) : 0;
  len = strlen(name);
  if (fit >= 3) {  /* the name, or as much as fits and ".." */
    pf_svg_text(out, name, fit < len ? fit - 2 : fit);
    if (fit < len) fputs("..", out);
  }
  fputs("</text></g>\n", out);
}

void pf_svg_flame(const pf_flame *F, FILE *out) {
  size_t n = (size_t)F->n + 1;
  int *depth = malloc(n * sizeof *depth), maxdepth = 0, height, i;
  double *x = malloc(n * sizeof *x), *next = malloc(n * sizeof *next);
  double total = F->n > 0 && F->width[0] > 0 ? (double)F->width[0] : 0;
  double scale = total > 0 ? (WIDTH - 2 * SIDE) / total : 0;
  if (depth == NULL || x == NULL || next == NULL) {
    free(depth);
    free(x);
    free(next);
    fputs("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""
          "/>\n", out);
    return;
  }
  layout(F, depth, x, next, &maxdepth);
  height = TOP + (maxdepth + 1) * ROW + BOTTOM + 14;
  header(F, out, height);
  for (i = 0; i < F->n; i++) {
    double w = (double)F->width[i] * scale;
    if (w < 0.1 || F->width[i] <= 0) continue;
    box(F, out, i, x[i] * scale, w,
        (double)(height - BOTTOM - 14 - (depth[i] + 1) * ROW), depth[i], x[i]);
  }
  fprintf(out, script, WIDTH, SIDE, CHAR_W);  /* after the boxes it finds */
  fputs("</svg>\n", out);
  free(depth);
  free(x);
  free(next);
}

/* ---- the profile's flame graph ---- */

/* A warm colour fixed by the frame's name; C frames blue. */
static void colour(const char *name, int is_c, int rgb[3]) {
  uint32_t h = 2166136261u;
  for (; *name; name++) h = (h ^ (unsigned char)*name) * 16777619u;
  if (is_c) {
    rgb[0] = 80 + (int)(h % 40);
    rgb[1] = 160 + (int)((h >> 8) % 50);
    rgb[2] = 200 + (int)((h >> 16) % 50);
  } else {
    rgb[0] = 205 + (int)(h % 50);
    rgb[1] = 80 + (int)((h >> 8) % 130);
    rgb[2] = 30 + (int)((h >> 16) % 40);
  }
}

static void describe(const void *ud, int i, char *name, size_t nsize, char *info,
                     size_t isize, int rgb[3]) {
  const pf_profile *P = ud;
  const pf_node *n = &P->node[i];
  if (n->fn < 0) snprintf(name, nsize, "all");
  else pf_frame_name(&P->fn[n->fn], name, nsize);
  colour(name, n->fn >= 0 && P->fn[n->fn].is_c, rgb);
  snprintf(info, isize, " (%" PRId64 " instructions, %.2f%%, self %" PRId64
           ", calls %" PRId64 ")", n->incl,
           P->total ? 100.0 * (double)n->incl / (double)P->total : 0.0,
           n->self, n->calls);
}

void pf_write_svg(const pf_profile *P, FILE *out) {
  int *parent = malloc(((size_t)P->nnode + 1) * sizeof *parent), i;
  int64_t *width = malloc(((size_t)P->nnode + 1) * sizeof *width);
  const char *script_name = "a script";
  char title[400], subtitle[300];
  pf_flame F;
  if (parent == NULL || width == NULL) {
    free(parent);
    free(width);
    fputs("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\""
          "/>\n", out);
    return;
  }
  for (i = 0; i < P->nnode; i++) {
    parent[i] = i == 0 ? -1 : P->node[i].parent;
    width[i] = i == 0 ? P->total : P->node[i].incl;
  }
  for (i = 0; i < P->nfn; i++)  /* the main chunk's file: the first Lua one */
    if (!P->fn[i].is_c) { script_name = P->fn[i].source; break; }
  snprintf(title, sizeof title, "lraf profile: %s", script_name);
  snprintf(subtitle, sizeof subtitle, "%" PRId64 " instructions, cost "
           "model %s (click a frame to zoom)", P->total, P->model);
  F.title = title;
  F.subtitle = subtitle;
  F.n = P->nnode;
  F.parent = parent;
  F.width = width;
  F.describe = describe;
  F.ud = P;
  pf_svg_flame(&F, out);
  free(parent);
  free(width);
}
