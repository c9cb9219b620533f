/*
** cli_ledger.c - lraf ledger adjust|export|verify: the usage ledger of
** lraf serve from the command line.  adjust appends a correcting record
** (outcome "adjustment", its reason in the note); export writes one
** event per record, its idempotency key the event id, as CSV, JSON
** lines or CloudEvents (JSON, one per line); verify sums the records
** per tenant and period and compares each sum with the ledger's totals
** for the same window, which is what /usage serves.
*/
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cli.h"

/* ---- output ---- */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void csv_str(FILE *f, const char *s) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

typedef struct exporter {
  FILE *out;
  int format;        /* 0 csv, 1 jsonl, 2 cloudevents */
  int64_t n;
} exporter;

/* The fields of r after its id, as JSON members. */
static void json_fields(FILE *f, const lraf_record *r) {
  char ev[32], in[32];
  lraf_time_format(r->event_time, ev);
  lraf_time_format(r->ingest_time, in);
  fputs("\"tenant\": ", f);
  json_str(f, r->tenant);
  fprintf(f, ", \"event_time\": \"%s\", \"ingest_time\": \"%s\", "
          "\"outcome\": ", ev, in);
  json_str(f, r->outcome);
  fputs(", \"model\": ", f);
  json_str(f, r->model);
  fputs(", \"handler\": ", f);
  json_str(f, r->handler);
  fprintf(f, ", \"instructions\": %" PRId64 ", \"native\": %" PRId64
          ", \"memory_peak\": %" PRId64 ", \"status\": %d, "
          "\"wall_seconds\": %.6f, \"cpu_seconds\": %.6f, \"request_id\": ",
          r->instructions, r->native, r->memory_peak, r->status, r->wall,
          r->cpu);
  json_str(f, r->request_id);
  fputs(", \"note\": ", f);
  json_str(f, r->note);
}

static int export_one(void *ud, const lraf_record *r) {
  exporter *e = ud;
  FILE *f = e->out;
  char ev[32], in[32];
  e->n++;
  if (e->format == 0) {
    lraf_time_format(r->event_time, ev);
    lraf_time_format(r->ingest_time, in);
    csv_str(f, r->key);
    fputc(',', f);
    csv_str(f, r->tenant);
    fprintf(f, ",%s,%s,", ev, in);
    csv_str(f, r->outcome);
    fputc(',', f);
    csv_str(f, r->model);
    fputc(',', f);
    csv_str(f, r->handler);
    fprintf(f, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%.6f,%.6f,",
            r->instructions, r->native, r->memory_peak, r->status, r->wall,
            r->cpu);
    csv_str(f, r->request_id);
    fputc(',', f);
    csv_str(f, r->note);
    fputc('\n', f);
  } else if (e->format == 1) {
    fputs("{\"id\": ", f);
    json_str(f, r->key);
    fputs(", ", f);
    json_fields(f, r);
    fputs("}\n", f);
  } else {
    lraf_time_format(r->event_time, ev);
    fputs("{\"specversion\": \"1.0\", \"id\": ", f);
    json_str(f, r->key);
    fputs(", \"source\": ", f);
    {
      char src[96];
      snprintf(src, sizeof src, "lraf/%s", r->tenant);
      json_str(f, src);
    }
    fprintf(f, ", \"type\": \"%s\", \"subject\": ",
            strcmp(r->outcome, "adjustment") == 0 ? "lraf.usage.adjustment"
                                                  : "lraf.usage");
    json_str(f, r->tenant);
    fprintf(f, ", \"time\": \"%s\", \"datacontenttype\": "
            "\"application/json\", \"data\": {", ev);
    json_fields(f, r);
    fputs("}}\n", f);
  }
  return ferror(f) ? 1 : 0;
}

/* ---- verify ---- */

/* One tenant's records in one period, summed from the records. */
typedef struct sum {
  char tenant[65], period[16];
  double start, end;
  int64_t requests, instructions;
} sum;

typedef struct sums {
  lraf_period period;
  sum *s;
  int n, cap, oom;
} sums;

static int add_record(void *ud, const lraf_record *r) {
  sums *v = ud;
  char name[16];
  int i;
  lraf_period_name(v->period, r->event_time, name);
  for (i = v->n - 1; i >= 0; i--)
    if (strcmp(v->s[i].tenant, r->tenant) == 0 &&
        strcmp(v->s[i].period, name) == 0)
      break;
  if (i < 0) {
    if (v->n == v->cap) {
      int cap = v->cap ? v->cap * 2 : 64;
      sum *p = realloc(v->s, (size_t)cap * sizeof *p);
      if (p == NULL) {
        v->oom = 1;
        return 1;
      }
      v->s = p;
      v->cap = cap;
    }
    i = v->n++;
    memset(&v->s[i], 0, sizeof v->s[i]);
    snprintf(v->s[i].tenant, sizeof v->s[i].tenant, "%s", r->tenant);
    memcpy(v->s[i].period, name, sizeof name);
    v->s[i].start = lraf_period_start(v->period, r->event_time);
    v->s[i].end = lraf_period_end(v->period, r->event_time);
  }
  v->s[i].requests += strcmp(r->outcome, "adjustment") != 0;
  v->s[i].instructions += r->instructions;
  return 0;
}

/* Compare each sum with the ledger's totals for its tenant and period
   (within [from, to)); prints a line each.  The number that differ, or
   -1 when the ledger failed. */
static int compare(lraf_ledger *l, const sums *v, double from, double to) {
  int i, bad = 0;
  lraf_usage u;
  lraf_error err;
  printf("tenant,period,requests,instructions,ledger_requests,"
         "ledger_instructions,verdict\n");
  for (i = 0; i < v->n; i++) {
    const sum *s = &v->s[i];
    double a = s->start > from ? s->start : from;
    double b = s->end < to ? s->end : to;
    int same;
    if (lraf_ledger_usage_window(l, s->tenant, a, b, &u, &err) != LRAF_OK) {
      cli_report(&err);
      return -1;
    }
    same = u.requests == s->requests && u.instructions == s->instructions;
    bad += !same;
    printf("%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s\n",
           s->tenant, s->period, s->requests, s->instructions, u.requests,
           u.instructions, same ? "ok" : "DIFFERS");
  }
  return bad;
}

/* ---- the subcommands ---- */

static double now_utc(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int adjust(lraf_ledger *l, const cli_args *a) {
  lraf_record r;
  lraf_error err;
  unsigned char b[16];
  char id[33], key[40], *end;
  long long units;
  int i, stored = 0;
  double now;
  if (a->tenant == NULL || a->units == NULL || a->reason == NULL)
    return cli_error("lraf ledger adjust needs --tenant T, --units +N|-N "
                     "and --reason TEXT");
  units = strtoll(a->units, &end, 10);
  if (end == a->units || *end != '\0' || units == 0 ||
      units == LLONG_MIN || units == LLONG_MAX)
    return cli_error("--units needs a whole number other than 0, such as "
                     "+500 or -1200 (got '%s')", a->units);
  if (a->reason[0] == '\0') return cli_error("--reason must say why");
  if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
    return cli_error("no random id: the system has no entropy");
  for (i = 0; i < 16; i++) snprintf(id + 2 * i, 3, "%02x", b[i]);
  snprintf(key, sizeof key, "a:%s", id);
  now = now_utc();
  memset(&r, 0, sizeof r);
  r.key = key;
  r.request_id = id;
  r.tenant = a->tenant;
  r.handler = "";
  r.model = "";
  r.outcome = "adjustment";
  r.instructions = units;
  r.started = r.ended = r.event_time = now;
  r.note = a->reason;
  if (lraf_ledger_record(l, &r, &stored, &err) != LRAF_OK)
    return cli_report(&err);
  printf("%s: %+lld instructions (%s), record %s\n", a->tenant, units,
         a->reason, key);
  return CLI_OK;
}

static int export_cmd(lraf_ledger *l, const cli_args *a, double from,
                      double to) {
  static const char *const formats[] = {"csv", "jsonl", "cloudevents"};
  exporter e;
  lraf_error err;
  lraf_status st;
  int i;
  memset(&e, 0, sizeof e);
  e.format = -1;
  for (i = 0; i < 3; i++)
    if (strcmp(a->format != NULL ? a->format : "csv", formats[i]) == 0)
      e.format = i;
  if (e.format < 0)
    return cli_error("--format: csv, jsonl or cloudevents (got '%s')",
                     a->format);
  e.out = stdout;
  if (a->output != NULL && (e.out = fopen(a->output, "w")) == NULL)
    return cli_error("cannot write %s", a->output);
  if (e.format == 0)
    fputs("id,tenant,event_time,ingest_time,outcome,model,handler,"
          "instructions,native,memory_peak,status,wall_seconds,cpu_seconds,"
          "request_id,note\n", e.out);
  st = lraf_ledger_each(l, a->tenant, from, to, export_one, &e, &err);
  if (fflush(e.out) != 0 || ferror(e.out)) {
    if (e.out != stdout) fclose(e.out);
    return cli_error("cannot write %s", a->output ? a->output : "the output");
  }
  if (e.out != stdout && fclose(e.out) != 0)
    return cli_error("cannot write %s", a->output);
  if (st != LRAF_OK) return cli_report(&err);
  fprintf(stderr, "lraf ledger export: %" PRId64 " records\n", e.n);
  return CLI_OK;
}

static int verify(lraf_ledger *l, const cli_args *a, double from,
                  double to) {
  sums v;
  lraf_error err;
  int bad;
  memset(&v, 0, sizeof v);
  v.period = LRAF_PERIOD_MONTH;
  if (a->period != NULL &&
      (lraf_period_parse(a->period, &v.period, &err) != LRAF_OK))
    return cli_error("--period: %s", err.message);
  if (lraf_ledger_each(l, a->tenant, from, to, add_record, &v, &err) !=
      LRAF_OK) {
    free(v.s);
    return cli_report(&err);
  }
  if (v.oom) {
    free(v.s);
    return cli_error("out of memory");
  }
  bad = compare(l, &v, from, to);
  free(v.s);
  if (bad < 0) return CLI_EFAIL;
  fprintf(stderr, "lraf ledger verify: %d tenant-periods, %d differ\n", v.n,
          bad);
  return bad == 0 ? CLI_OK : CLI_EFAIL;
}

int cli_ledger(int argc, char **argv) {
  static cli_args a;
  lraf_ledger *l;
  lraf_error err;
  double from, to;
  const char *verb;
  int st;
  st = cli_parse(cli_command_find("ledger"), argc, argv, &a);
  if (st == CLI_HELP) return CLI_OK;
  if (st != CLI_OK) return st;
  if (a.noperands != 1)
    return cli_error("lraf ledger needs one of adjust, export, verify "
                     "(lraf ledger --help)");
  verb = argv[a.first];
  if (strcmp(verb, "adjust") != 0 && strcmp(verb, "export") != 0 &&
      strcmp(verb, "verify") != 0)
    return cli_error("lraf ledger: unknown '%s' (adjust, export or "
                     "verify)", verb);
  if (lraf_window_parse(a.from, a.to, &from, &to, &err) != LRAF_OK)
    return cli_error("--%s", err.message);
  if (a.tenant != NULL && (strlen(a.tenant) == 0 || strlen(a.tenant) > 64 ||
                           strspn(a.tenant, "abcdefghijklmnopqrstuvwxyz"
                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
                           != strlen(a.tenant)))
    return cli_error("--tenant: 1-64 of A-Z a-z 0-9 _ - . (got '%s')",
                     a.tenant);
  if (lraf_ledger_open(a.ledger != NULL ? a.ledger : "sqlite:lraf-ledger.db",
                       &l, &err) != LRAF_OK)
    return cli_report(&err);
  if (strcmp(verb, "adjust") == 0) st = adjust(l, &a);
  else if (strcmp(verb, "export") == 0) st = export_cmd(l, &a, from, to);
  else st = verify(l, &a, from, to);
  lraf_ledger_close(l);
  return st;
}
