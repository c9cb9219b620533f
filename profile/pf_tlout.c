/*
** pf_tlout.c - a timeline's outputs (lraf_timeline_write): the Chrome
** trace event format (JSON) and an SVG picture of the same tracks.
** Both walk the intervals of pf_timeline.c and join those of one track
** into slices; a slice ends at a gap, a pause, a stop or a switch.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pf_timeline.h"

/* A track: one account on one OS thread. */
typedef struct tl_track {
  int thread;
  int64_t account;
  int used;
} tl_track;

/* A slice being joined, per OS thread. */
typedef struct tl_open {
  int track;                  /* -1: none */
  double start, end;
  int64_t instructions;
} tl_open;

typedef struct tl_out tl_out;
struct tl_out {
  FILE *f;
  int svg;
  double t0, t1;              /* the span drawn (SVG) */
  double px;                  /* SVG: pixels per second */
  tl_track *tracks;           /* open addressing, ntracks of cap used */
  int *order;                 /* track numbers in order of first sight */
  int ntracks, cap;
  tl_open *open;              /* per OS thread */
  int nthreads;
  int events;                 /* JSON events written (for the commas) */
  int nomem;
};

#define SVG_WIDTH 1200
#define SVG_LEFT 170
#define SVG_ROW 20
#define SVG_TOP 64

/* ---- tracks ---- */

static unsigned track_hash(int thread, int64_t account) {
  uint64_t h = (uint64_t)account * 0x9e3779b97f4a7c15u ^ (uint64_t)thread;
  return (unsigned)(h ^ (h >> 29));
}

static int grow_tracks(tl_out *o) {
  int i, cap = o->cap ? o->cap * 2 : 64;
  tl_track *old = o->tracks, *t = calloc((size_t)cap, sizeof *t);
  int *order = realloc(o->order, (size_t)cap * sizeof *order);
  if (t == NULL || order == NULL) {
    free(t);
    if (order != NULL) o->order = order;
    return 0;
  }
  o->order = order;
  for (i = 0; i < o->cap; i++) {
    if (old[i].used) {
      unsigned k = track_hash(old[i].thread, old[i].account) % (unsigned)cap;
      while (t[k].used) k = (k + 1) % (unsigned)cap;
      t[k] = old[i];
    }
  }
  /* order holds indexes into the table: rebuild it in first-sight order */
  for (i = 0; i < o->ntracks; i++) {
    tl_track x = old[o->order[i]];
    unsigned k = track_hash(x.thread, x.account) % (unsigned)cap;
    while (t[k].thread != x.thread || t[k].account != x.account)
      k = (k + 1) % (unsigned)cap;
    o->order[i] = (int)k;
  }
  free(old);
  o->tracks = t;
  o->cap = cap;
  return 1;
}

/* The track's number (its place in order), *fresh set when new. */
static int track_of(tl_out *o, int thread, int64_t account, int *fresh) {
  unsigned k;
  int i;
  *fresh = 0;
  if (2 * (o->ntracks + 1) > o->cap && !grow_tracks(o)) return -1;
  k = track_hash(thread, account) % (unsigned)o->cap;
  while (o->tracks[k].used) {
    if (o->tracks[k].thread == thread && o->tracks[k].account == account)
      break;
    k = (k + 1) % (unsigned)o->cap;
  }
  if (!o->tracks[k].used) {
    o->tracks[k].used = 1;
    o->tracks[k].thread = thread;
    o->tracks[k].account = account;
    o->order[o->ntracks++] = (int)k;
    *fresh = 1;
  }
  for (i = o->ntracks - 1; i >= 0; i--)   /* recent tracks first */
    if (o->order[i] == (int)k) return i;
  return -1;
}

static void track_name(const tl_out *o, int track, char *buf, size_t n) {
  const tl_track *t = &o->tracks[o->order[track]];
  if (t->account == 0)
    snprintf(buf, n, "thread %d: main", t->thread);
  else
    snprintf(buf, n, "thread %d: coroutine %lld", t->thread,
             (long long)t->account);
}

/* ---- events ---- */

static void json_sep(tl_out *o) {
  fputs(o->events++ ? ",\n" : "\n", o->f);
}

/* Seconds as microseconds with three decimals, without printf's
   floating point (a trace has many of them). */
static void put_us(FILE *f, double s) {
  long long ns = s > 0 ? (long long)(s * 1e9 + 0.5) : 0;
  fprintf(f, "%lld.%03lld", ns / 1000, ns % 1000);
}

static double svg_x(const tl_out *o, double t) {
  return SVG_LEFT + (t - o->t0) * o->px;
}

static void emit_track(tl_out *o, int track) {
  char name[64];
  track_name(o, track, name, sizeof name);
  if (o->svg) {
    fprintf(o->f, "<g class=\"track\" id=\"track-%d\"><rect x=\"%d\" "
            "y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>"
            "<text class=\"label\" x=\"4\" y=\"%d\">%s</text></g>\n",
            track, SVG_LEFT, SVG_TOP + track * SVG_ROW + 1,
            SVG_WIDTH - SVG_LEFT - 10, SVG_ROW - 2,
            SVG_TOP + track * SVG_ROW + 14, name);
    return;
  }
  json_sep(o);
  fprintf(o->f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
          "\"tid\":%d,\"args\":{\"name\":\"%s\"}}", track + 1, name);
  json_sep(o);
  fprintf(o->f, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,"
          "\"tid\":%d,\"args\":{\"sort_index\":%d}}", track + 1, track);
}

/* A span on a track: a slice ("run"), a gap or a pause. */
static void emit_span(tl_out *o, int track, const char *kind, double start,
                      double end, int64_t instructions) {
  if (o->svg) {
    double x = svg_x(o, start), w = (end - start) * o->px;
    if (w < 0.5) w = 0.5;
    fprintf(o->f, "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
            "height=\"%d\"><title>%s %.3f-%.3f ms", kind, x,
            SVG_TOP + track * SVG_ROW + 2, w, SVG_ROW - 4, kind,
            (start - o->t0) * 1e3, (end - o->t0) * 1e3);
    if (instructions > 0)
      fprintf(o->f, ": %lld instructions", (long long)instructions);
    fputs("</title></rect>\n", o->f);
    return;
  }
  json_sep(o);
  fprintf(o->f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,"
          "\"tid\":%d,\"ts\":", kind, kind, track + 1);
  put_us(o->f, start);
  fputs(",\"dur\":", o->f);
  put_us(o->f, end - start);
  if (instructions > 0)
    fprintf(o->f, ",\"args\":{\"instructions\":%lld}",
            (long long)instructions);
  fputc('}', o->f);
}

static void close_slice(tl_out *o, int thread) {
  tl_open *s = &o->open[thread];
  if (s->track >= 0 && s->end > s->start)
    emit_span(o, s->track, "run", s->start, s->end, s->instructions);
  s->track = -1;
}

static void emit_stop(tl_out *o, int track, double t) {
  if (o->svg) {
    fprintf(o->f, "<rect class=\"stop\" x=\"%.2f\" y=\"%d\" width=\"2\" "
            "height=\"%d\"><title>stopped by its manager</title></rect>\n",
            svg_x(o, t), SVG_TOP + track * SVG_ROW, SVG_ROW);
    return;
  }
  json_sep(o);
  fprintf(o->f, "{\"name\":\"stop\",\"cat\":\"stop\",\"ph\":\"i\","
          "\"s\":\"t\",\"pid\":1,\"tid\":%d,\"ts\":", track + 1);
  put_us(o->f, t);
  fputc('}', o->f);
}

static void visit(const pf_tl_interval *iv, void *ud) {
  tl_out *o = ud;
  const pf_tl_sample *x = iv->sample;
  tl_open *s = &o->open[x->thread];
  double run_end = iv->end - iv->gap;
  int fresh, track = track_of(o, x->thread, x->account, &fresh);
  if (track < 0) {
    o->nomem = 1;
    return;
  }
  if (fresh) emit_track(o, track);
  if (s->track != track) close_slice(o, x->thread);
  if (s->track < 0) {
    s->track = track;
    s->start = iv->start;
    s->instructions = 0;
  }
  s->end = run_end;
  s->instructions += x->n;
  if (iv->gap > 0) {
    close_slice(o, x->thread);
    emit_span(o, track, "gap", run_end, iv->end, 0);
  }
  if (x->flags & PF_TL_STOP) {
    close_slice(o, x->thread);
    emit_stop(o, track, iv->end);
  }
  if (x->wait > 0) {
    close_slice(o, x->thread);
    emit_span(o, track, "pause", iv->end,
              iv->end + (double)x->wait * 1e-9, 0);
  }
}

/* ---- the share over time ---- */

typedef struct tl_win {
  int thread;
  double t, share, cpu_share;
} tl_win;

typedef struct tl_wins {
  tl_win *w;
  size_t n, cap;
  int nomem;
} tl_wins;

static void keep_window(int thread, double t, double share,
                        double cpu_share, void *ud) {
  tl_wins *ws = ud;
  if (ws->n == ws->cap) {
    size_t cap = ws->cap ? 2 * ws->cap : 64;
    tl_win *w = realloc(ws->w, cap * sizeof *w);
    if (w == NULL) {
      ws->nomem = 1;
      return;
    }
    ws->w = w;
    ws->cap = cap;
  }
  ws->w[ws->n].thread = thread;
  ws->w[ws->n].t = t;
  ws->w[ws->n].share = share;
  ws->w[ws->n++].cpu_share = cpu_share;
}

static void write_windows(tl_out *o, const tl_wins *ws) {
  size_t i;
  if (o->svg) {
    double y0 = SVG_TOP + o->ntracks * SVG_ROW + 70;
    fprintf(o->f, "<text x=\"4\" y=\"%.0f\">delivered share</text>\n"
            "<line class=\"axis\" x1=\"%d\" y1=\"%.0f\" x2=\"%d\" "
            "y2=\"%.0f\"/>\n<polyline class=\"share\" points=\"",
            y0 - 30, SVG_LEFT, y0, SVG_WIDTH - 10, y0);
    for (i = 0; i < ws->n; i++) {
      double sh = ws->w[i].share > 1.2 ? 1.2 : ws->w[i].share;
      fprintf(o->f, "%s%.1f,%.1f", i ? " " : "", svg_x(o, ws->w[i].t),
              y0 - 60 * sh);
    }
    fputs("\"/>\n", o->f);
    return;
  }
  for (i = 0; i < ws->n; i++) {
    json_sep(o);
    fprintf(o->f, "{\"name\":\"delivered share, thread %d\",\"ph\":\"C\","
            "\"pid\":1,\"ts\":", ws->w[i].thread);
    put_us(o->f, ws->w[i].t);
    fprintf(o->f, ",\"args\":{\"count\":%.4f", ws->w[i].share);
    if (ws->w[i].cpu_share >= 0)
      fprintf(o->f, ",\"cpu\":%.4f", ws->w[i].cpu_share);
    fputs("}}", o->f);
  }
}

/* ---- the documents ---- */

static void xml_text(FILE *f, const char *s) {
  for (; s != NULL && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '<') fputs("&lt;", f);
    else if (c == '>') fputs("&gt;", f);
    else if (c == '&') fputs("&amp;", f);
    else if (c < 0x20 || c == 0x7f) fputc('?', f);
    else fputc(c, f);
  }
}

static void json_text(FILE *f, const char *s) {
  fputc('"', f);
  for (; s != NULL && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
    else if (c < 0x80) fputc(c, f);
    else fputc('?', f);       /* keeps the document valid UTF-8 */
  }
  fputc('"', f);
}

static void summary_fields(FILE *f, const lraf_timeline_summary *s) {
  fprintf(f, "\"instructions\":%lld,\"solo_rate\":%.0f,"
          "\"share\":%.4f,\"min_share\":%.4f,\"cpu_share\":%.4f,"
          "\"min_cpu_share\":%.4f,\"gaps\":%lld,\"gap_time\":%.6f,"
          "\"longest_gap\":%.6f,\"longest_gap_at\":%.6f,"
          "\"pause_time\":%.6f,\"stopped\":%s,\"samples\":%lld",
          (long long)s->instructions, s->solo_rate, s->share, s->min_share,
          s->cpu_share, s->min_cpu_share, (long long)s->gaps, s->gap_time,
          s->longest_gap, s->longest_gap_at, s->pause_time,
          s->stopped ? "true" : "false", (long long)s->samples);
}

static void svg_head(tl_out *o, const lraf_timeline_summary *s,
                     const char *title, int height) {
  FILE *f = o->f;
  fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
          "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
          "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n"
          "<style>text{font:12px sans-serif}.run{fill:#4a8}"
          ".gap{fill:#d44}.pause{fill:#db3}.stop{fill:#000}"
          ".share{fill:none;stroke:#36c;stroke-width:1.5}"
          ".axis{stroke:#999}</style>\n"
          "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
          "<text id=\"title\" x=\"%d\" y=\"20\" text-anchor=\"middle\" "
          "style=\"font-size:16px\">", SVG_WIDTH, height, SVG_WIDTH, height,
          SVG_WIDTH / 2);
  xml_text(f, title != NULL ? title : "lraf timeline");
  fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"40\" "
          "text-anchor=\"middle\">%.3f s, %lld instructions, solo rate "
          "%.1f M/s, delivered share %.1f%% (least %.1f%%), CPU share "
          "%.1f%%, %lld gaps (%.1f ms)</text>\n", SVG_WIDTH / 2,
          s->end - s->start, (long long)s->instructions, s->solo_rate / 1e6,
          100 * s->share, 100 * s->min_share, 100 * s->cpu_share,
          (long long)s->gaps, 1e3 * s->gap_time);
}

static lraf_status write_doc(tl_out *o, const pf_tl_sample *x, size_t n,
                             const lraf_timeline_opts *opt,
                             const lraf_timeline_summary *sum,
                             const tl_wins *ws, const char *title) {
  double gap, window;
  int t;
  pf_timeline_options(opt, &gap, &window);
  (void)window;
  if (!o->svg) {
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{", o->f);
    fputs("\"title\":", o->f);
    json_text(o->f, title != NULL ? title : "lraf timeline");
    fputc(',', o->f);
    summary_fields(o->f, sum);
    fputs("},\n\"traceEvents\":[", o->f);
    json_sep(o);
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
          "\"args\":{\"name\":\"lraf\"}}", o->f);
  }
  write_windows(o, ws);
  if (!pf_timeline_walk(x, n, sum->solo_rate, gap, visit, o) || o->nomem)
    return LRAF_EMEM;
  for (t = 0; t < o->nthreads; t++) close_slice(o, t);
  fputs(o->svg ? "</svg>\n" : "\n]}\n", o->f);
  return LRAF_OK;
}

lraf_status pf_timeline_write(const pf_tl_sample *x, size_t n, FILE *f,
                              lraf_timeline_format fmt,
                              const lraf_timeline_opts *opt,
                              const char *title,
                              lraf_timeline_summary *sum_out) {
  lraf_timeline_summary sum;
  tl_wins ws = {NULL, 0, 0, 0};
  tl_out o;
  size_t i;
  lraf_status st;
  memset(&o, 0, sizeof o);
  o.f = f;
  o.svg = fmt == LRAF_TIMELINE_SVG;
  for (i = 0; i < n; i++)
    if (x[i].thread >= o.nthreads) o.nthreads = x[i].thread + 1;
  o.open = malloc((o.nthreads ? (size_t)o.nthreads : 1) * sizeof *o.open);
  st = o.open == NULL ? LRAF_EMEM : LRAF_OK;
  for (i = 0; st == LRAF_OK && i < (size_t)o.nthreads; i++)
    o.open[i].track = -1;
  if (st == LRAF_OK &&
      (!pf_timeline_summarise(x, n, opt, &sum, keep_window, &ws) ||
       ws.nomem))
    st = LRAF_EMEM;
  if (st == LRAF_OK && o.svg) {
    /* the picture's height needs the number of tracks: count them */
    int fresh;
    for (i = 0; i < n; i++)
      if (track_of(&o, x[i].thread, x[i].account, &fresh) < 0) st = LRAF_EMEM;
    o.t0 = sum.start;
    o.t1 = sum.end > sum.start ? sum.end : sum.start + 1e-3;
    o.px = (SVG_WIDTH - SVG_LEFT - 10) / (o.t1 - o.t0);
    svg_head(&o, &sum, title, SVG_TOP + o.ntracks * SVG_ROW + 90);
    for (i = 0; i < (size_t)o.ntracks; i++) emit_track(&o, (int)i);
  }
  if (st == LRAF_OK) st = write_doc(&o, x, n, opt, &sum, &ws, title);
  if (st == LRAF_OK && sum_out != NULL) *sum_out = sum;
  free(ws.w);
  free(o.tracks);
  free(o.order);
  free(o.open);
  if (st == LRAF_OK && (fflush(f) != 0 || ferror(f))) st = LRAF_EIO;
  return st;
}

lraf_status lraf_timeline_write(lraf_manager *m, FILE *f,
                                lraf_timeline_format fmt,
                                const lraf_timeline_opts *opt,
                                const char *title,
                                lraf_timeline_summary *sum_out,
                                lraf_error *err) {
  pf_timeline *tl = pf_timeline_of(m);
  pf_tl_sample *x;
  size_t n;
  lraf_status st;
  if (tl == NULL || f == NULL ||
      (fmt != LRAF_TIMELINE_JSON && fmt != LRAF_TIMELINE_SVG))
    return err_fail(err, LRAF_EARG, "lraf_timeline_write: %s",
                    tl == NULL ? "not a timeline"
                    : f == NULL ? "no file" : "unknown format");
  x = pf_timeline_samples(tl, &n);
  if (x == NULL) return err_fail(err, LRAF_EMEM, "not enough memory");
  st = pf_timeline_write(x, n, f, fmt, opt, title, sum_out);
  free(x);
  if (st == LRAF_EMEM) return err_fail(err, st, "not enough memory");
  if (st == LRAF_EIO) return err_fail(err, st, "cannot write the timeline");
  return LRAF_OK;
}
