/*
** test_cli_ledger.c - cli/cli_ledger.c, `lraf ledger adjust|export|
** verify` on a SQLite ledger written through the ledger API: every
** export format (CSV, JSON lines, CloudEvents) gives each record once
** with every field as stored (commas, quotes and line breaks in its
** strings too), within --from/--to and --tenant; adjust appends a
** record that export shows and /usage's totals count; verify agrees
** with the ledger per tenant and month or day; every usage error is
** status 2 and one line.  Runs $LRAF; reads the exports back with
** cli_json.c.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_bench.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;

/* 2026-01-15 10:00, 2026-01-31 23:59:59, 2026-02-01, 2026-02-10 UTC */
#define JAN15 1768471200.0
#define JAN31 1769903999.0
#define FEB01 1769904000.0
#define FEB10 1770681600.0

static const lraf_record records[] = {
  {.key = "k1", .request_id = "r1", .tenant = "acme", .handler = "hello",
   .model = "lua5.4/original", .outcome = "ok", .instructions = 1000,
   .native = 10, .memory_peak = 4096, .status = 200, .wall = 0.25,
   .cpu = 0.125, .started = JAN15, .ended = JAN15 + 1,
   .event_time = JAN15, .note = ""},
  {.key = "k2", .request_id = "r2", .tenant = "acme",
   .handler = "a,b \"quoted\"\nline", .model = "lua5.4/original",
   .outcome = "quota", .instructions = 5000, .status = 429,
   .started = JAN31, .ended = JAN31, .event_time = JAN31,
   .note = "comma, \"quote\"\r\nand break"},
  {.key = "k3", .request_id = "r3", .tenant = "acme", .handler = "hello",
   .model = "lua5.4/original", .outcome = "ok", .instructions = 7,
   .status = 200, .started = FEB01, .ended = FEB01, .event_time = FEB01},
  {.key = "k1", .request_id = "r4", .tenant = "beta", .handler = "h",
   .model = "lua5.4/weighted", .outcome = "error", .instructions = 30,
   .status = 500, .started = FEB10, .ended = FEB10, .event_time = FEB10},
};
#define NRECORDS 4

static int setup(void **state) {
  lraf_ledger *l;
  lraf_error err;
  char spec[128];
  int i;
  (void)state;
  if (tutil_sh_init(&sh, "ledger") != 0) return -1;
  snprintf(spec, sizeof spec, "sqlite:%s/l.db", sh.dir);
  if (lraf_ledger_open(spec, &l, &err) != LRAF_OK) {
    fprintf(stderr, "%s\n", err.message);
    return -1;
  }
  for (i = 0; i < NRECORDS; i++)
    if (lraf_ledger_append(l, &records[i], &err) != LRAF_OK) {
      fprintf(stderr, "%s\n", err.message);
      return -1;
    }
  lraf_ledger_close(l);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

static char *slurp(const char *path, size_t *len) {
  char *s = tutil_run_slurp(path, len);
  assert_non_null(s);
  return s;
}

/* ---- reading the exports back ---- */

/* The record of tenant with key, or NULL. */
static const lraf_record *stored(const char *tenant, const char *key) {
  int i;
  for (i = 0; i < NRECORDS; i++)
    if (strcmp(records[i].tenant, tenant) == 0 &&
        strcmp(records[i].key, key) == 0)
      return &records[i];
  return NULL;
}

static const char *str(const cli_json *o, const char *key) {
  const cli_json *v = cli_json_get(o, key);
  assert_non_null(v);
  assert_int_equal(v->kind, CLI_JSON_STRING);
  return v->string;
}

static int64_t num(const cli_json *o, const char *key) {
  const cli_json *v = cli_json_get(o, key);
  assert_non_null(v);
  assert_int_equal(v->kind, CLI_JSON_NUMBER);
  return v->integer;
}

/* One exported record (its fields as JSON members) against r. */
static void same_record(const cli_json *d, const lraf_record *r) {
  char t[32];
  assert_string_equal(str(d, "tenant"), r->tenant);
  assert_string_equal(str(d, "handler"), r->handler);
  assert_string_equal(str(d, "model"), r->model);
  assert_string_equal(str(d, "outcome"), r->outcome);
  assert_string_equal(str(d, "request_id"), r->request_id);
  assert_string_equal(str(d, "note"), r->note ? r->note : "");
  lraf_time_format(r->event_time, t);
  assert_string_equal(str(d, "event_time"), t);
  assert_true(num(d, "instructions") == r->instructions);
  assert_true(num(d, "native") == r->native);
  assert_true(num(d, "memory_peak") == r->memory_peak);
  assert_int_equal(num(d, "status"), r->status);
  assert_true(fabs(cli_json_get(d, "wall_seconds")->number - r->wall) < 1e-6);
  assert_true(fabs(cli_json_get(d, "cpu_seconds")->number - r->cpu) < 1e-6);
}

/* Export with ARGS as JSON lines or CloudEvents: each line checked
   against the record it names; the number of lines. */
static int export_json(const char *args, int cloudevents) {
  char path[256], *text, *line, *eol;
  size_t len;
  int n = 0;
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:l.db "
                                     "export --format %s -o e.json %s",
                                     cloudevents ? "cloudevents" : "jsonl",
                                     args), 0);
  snprintf(path, sizeof path, "%s/e.json", sh.dir);
  text = slurp(path, &len);
  for (line = text; (eol = strchr(line, '\n')) != NULL; line = eol + 1) {
    cli_json *v;
    const cli_json *d;
    lraf_error err;
    const lraf_record *r;
    assert_int_equal(cli_json_parse(line, (size_t)(eol - line), "line", &v,
                                    &err), LRAF_OK);
    d = cloudevents ? cli_json_get(v, "data") : v;
    r = stored(str(d, "tenant"), str(v, "id"));
    if (r == NULL) fail_msg("no record %s", str(v, "id"));
    same_record(d, r);
    if (cloudevents) {
      char src[96];
      assert_string_equal(str(v, "specversion"), "1.0");
      assert_string_equal(str(v, "type"), "lraf.usage");
      assert_string_equal(str(v, "subject"), r->tenant);
      snprintf(src, sizeof src, "lraf/%s", r->tenant);
      assert_string_equal(str(v, "source"), src);
    }
    cli_json_free(v);
    n++;
  }
  assert_string_equal(line, "");
  free(text);
  return n;
}

static void test_export_json(void **state) {
  static const struct { const char *args; int n; } rows[] = {
    {"", 4},
    {"--tenant acme", 3},
    {"--tenant beta", 1},
    {"--tenant nobody", 0},
    {"--from 2026-02-01", 2},
    {"--to 2026-02-01", 2},
    {"--from 2026-01-31 --to 2026-02-10", 2},
    {"--tenant acme --from 2026-01-20", 2},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    if (export_json(rows[k].args, 0) != rows[k].n)
      fail_msg("export --format jsonl %s: not %d records", rows[k].args,
               rows[k].n);
  }
  /* CloudEvents: the same records, each its event */
  assert_int_equal(export_json("", 1), NRECORDS);
}

/* One field of a CSV line (RFC 4180) at *p, into a new string. */
static char *csv_field(const char **p) {
  const char *s = *p;
  char *out = malloc(strlen(s) + 1), *o = out;
  assert_non_null(out);
  if (*s == '"') {
    for (s++; !(*s == '"' && s[1] != '"'); s++) {
      assert_true(*s != '\0');
      if (*s == '"') s++;
      *o++ = *s;
    }
    s++;
  } else {
    while (*s && *s != ',' && *s != '\n') *o++ = *s++;
  }
  *o = '\0';
  assert_true(*s == ',' || *s == '\n');
  *p = s + 1;
  return out;
}

/* The CSV export: a header, then each record's fields in its order. */
static void test_export_csv(void **state) {
  static const char header[] =
    "id,tenant,event_time,ingest_time,outcome,model,handler,instructions,"
    "native,memory_peak,status,wall_seconds,cpu_seconds,request_id,note\n";
  char *text;
  const char *p;
  size_t len;
  int n = 0;
  (void)state;
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:l.db "
                                     "export"), 0);
  text = slurp(sh.out, &len);
  assert_memory_equal(text, header, sizeof header - 1);
  for (p = text + sizeof header - 1; *p; n++) {
    char *f[15], t[32];
    const lraf_record *r;
    int i;
    for (i = 0; i < 15; i++) f[i] = csv_field(&p);
    assert_true(p[-1] == '\n');
    assert_non_null(r = stored(f[1], f[0]));
    lraf_time_format(r->event_time, t);
    assert_string_equal(f[2], t);
    assert_string_equal(f[4], r->outcome);
    assert_string_equal(f[5], r->model);
    assert_string_equal(f[6], r->handler);
    assert_true(strtoll(f[7], NULL, 10) == r->instructions);
    assert_int_equal(atoi(f[10]), r->status);
    assert_string_equal(f[13], r->request_id);
    assert_string_equal(f[14], r->note ? r->note : "");
    for (i = 0; i < 15; i++) free(f[i]);
  }
  assert_int_equal(n, NRECORDS);
  free(text);
  text = slurp(sh.err, &len);
  assert_string_equal(text, "lraf ledger export: 4 records\n");
  free(text);
}

/* verify: a line per tenant and period, each "ok", status 0. */
static void test_verify(void **state) {
  static const struct { const char *args, *lines; } rows[] = {
    {"", "acme,2026-01,2,6000,2,6000,ok\nacme,2026-02,1,7,1,7,ok\n"
         "beta,2026-02,1,30,1,30,ok\n"},
    {"--period day --tenant acme",
     "acme,2026-01-15,1,1000,1,1000,ok\nacme,2026-01-31,1,5000,1,5000,ok\n"
     "acme,2026-02-01,1,7,1,7,ok\n"},
    {"--from 2026-01-20 --to 2026-02-05",
     "acme,2026-01,1,5000,1,5000,ok\nacme,2026-02,1,7,1,7,ok\n"},
  };
  size_t k;
  (void)state;
  for (k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    char *out, want[600];
    size_t len;
    int st = tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:l.db verify %s",
                               rows[k].args);
    out = slurp(sh.out, &len);
    snprintf(want, sizeof want, "tenant,period,requests,instructions,"
             "ledger_requests,ledger_instructions,verdict\n%s",
             rows[k].lines);
    if (st != 0 || strcmp(out, want) != 0)
      fail_msg("verify %s: %d\n%s", rows[k].args, st, out);
    free(out);
  }
}

/* adjust: a record of its own that the totals count, the export shows
   and verify agrees with; in a copy of the ledger. */
static void test_adjust(void **state) {
  lraf_ledger *l;
  lraf_error err;
  lraf_usage u;
  char spec[128], *out, *line;
  size_t len;
  cli_json *v;
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "cp %s/l.db %s/a.db", sh.dir, sh.dir),
                   0);
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:a.db "
                                     "adjust --tenant beta --units -25 "
                                     "--reason 'refund, \"outage\"'"), 0);
  out = slurp(sh.out, &len);
  assert_memory_equal(out, "beta: -25 instructions (refund, \"outage\"), "
                      "record a:", 44);
  free(out);
  snprintf(spec, sizeof spec, "sqlite:%s/a.db", sh.dir);
  assert_int_equal(lraf_ledger_open(spec, &l, &err), LRAF_OK);
  assert_int_equal(lraf_ledger_usage(l, "beta", &u, &err), LRAF_OK);
  assert_int_equal(u.requests, 1);  /* an adjustment is not a request */
  assert_int_equal(u.instructions, 30 - 25);
  lraf_ledger_close(l);
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:a.db "
                                     "export --format cloudevents --tenant "
                                     "beta"), 0);
  out = slurp(sh.out, &len);
  line = strchr(out, '\n') + 1;  /* the adjustment is the later one */
  assert_int_equal(cli_json_parse(line, strlen(line), "adj", &v, &err),
                   LRAF_OK);
  assert_string_equal(str(v, "type"), "lraf.usage.adjustment");
  assert_string_equal(str(cli_json_get(v, "data"), "outcome"), "adjustment");
  assert_string_equal(str(cli_json_get(v, "data"), "note"),
                      "refund, \"outage\"");
  assert_true(num(cli_json_get(v, "data"), "instructions") == -25);
  cli_json_free(v);
  free(out);
  assert_int_equal(tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:a.db "
                                     "verify --tenant beta"), 0);
}

static const struct bad { const char *args, *err; } bads[] = {
  {"", "lraf ledger needs one of adjust, export, verify (lraf ledger "
   "--help)"},
  {"export verify", "lraf ledger needs one of adjust, export, verify "
   "(lraf ledger --help)"},
  {"fix", "lraf ledger: unknown 'fix' (adjust, export or verify)"},
  {"adjust --tenant a --units 5", "lraf ledger adjust needs --tenant T, "
   "--units +N|-N and --reason TEXT"},
  {"adjust --tenant a --units 0 --reason r", "--units needs a whole "
   "number other than 0, such as +500 or -1200 (got '0')"},
  {"adjust --tenant a --units 5x --reason r", "--units needs a whole "
   "number other than 0, such as +500 or -1200 (got '5x')"},
  {"adjust --tenant a --units 5 --reason ''", "--reason must say why"},
  {"export --tenant 'a b'", "--tenant: 1-64 of A-Z a-z 0-9 _ - . (got "
   "'a b')"},
  {"export --format xml", "--format: csv, jsonl or cloudevents (got "
   "'xml')"},
  {"verify --period week", "--period: "},
  {"export --from yesterday", "--from"},
  {"export -o /nonexistent/x.csv", "cannot write /nonexistent/x.csv"},
};

static void test_refusals(void **state) {
  size_t k;
  (void)state;
  for (k = 0; k < sizeof bads / sizeof bads[0]; k++) {
    char *err, want[300];
    size_t len;
    int st = tutil_sh_lraf_run(&sh, "ledger --ledger sqlite:l.db %s",
                               bads[k].args);
    err = slurp(sh.err, &len);
    snprintf(want, sizeof want, "lraf: %s", bads[k].err);
    if (st != 2 || strncmp(err, want, strlen(want)) != 0 ||
        strchr(err, '\n') != err + len - 1)
      fail_msg("lraf ledger %s: %d '%s'", bads[k].args, st, err);
    free(err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_export_json),
    cmocka_unit_test(test_export_csv),
    cmocka_unit_test(test_verify),
    cmocka_unit_test(test_adjust),
    cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
