/*
** cli_options.c - the option table, the subcommand table, the parser
** every subcommand uses, and the help printed from those tables.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Kinds of option values.  (Help lines fit 53 columns, so that --help
   shows each option on one line.) */
typedef enum opt_kind {
  KIND_FLAG,   /* no value */
  KIND_COUNT,  /* an integer; k, M, G multiply by 10^3, 10^6, 10^9, as
                  does e9 (1e9: Lua's way, LRAF_OPTIONS' first syntax) */
  KIND_BYTES,  /* the same, and KiB, MiB, GiB by 2^10, 2^20, 2^30 */
  KIND_REAL,   /* a positive number; k, M, G as for counts */
  KIND_MODE,   /* original, overhead or weighted */
  KIND_TEXT,   /* a file name or other text */
  KIND_TENANT  /* TENANT=N, N a count; repeats, one value per tenant */
} opt_kind;

typedef struct opt_info {
  const char *name;
  opt_kind kind;
  const char *value;  /* the value's name in help; NULL for flags */
  int64_t min, max;   /* KIND_COUNT, KIND_BYTES */
  const char *help;
} opt_info;

#define RUNS_MAX 100000

/* Indexed by cli_opt. */
static const opt_info options[CLI_NUM_OPTS] = {
  {"-n", KIND_COUNT, "N", 1, RUNS_MAX,
   "run each script N times (default 10)"},
  {"-o", KIND_TEXT, "OUT", 0, 0,
   "the file to write"},
  {"--limit", KIND_COUNT, "N", 0, INT64_MAX,
   "stop after N instructions (exit 3; +native units)"},
  {"--rate", KIND_REAL, "N", 0, 0,
   "at most N instructions per second (sleeps when ahead)"},
  {"--memory-limit", KIND_BYTES, "BYTES", 1, INT64_MAX,
   "stop above BYTES held (exit 4)"},
  {"--granularity", KIND_COUNT, "N", 1, INT64_MAX,
   "instructions between reports to the manager (10000)"},
  {"--exact", KIND_FLAG, NULL, 0, 0,
   "exact even when errors are caught (slower)"},
  {"--mode", KIND_MODE, "MODE", 0, 0,
   "what to count: original (default), overhead, weighted"},
  {"--weights", KIND_TEXT, "FILE", 0, 0,
   "per-opcode weights, \"OPNAME WEIGHT\" lines (weighted)"},
  {"--vm", KIND_TEXT, "VM", 0, 0,
   "lraf (the default where built with it) or stock"},
  {"--sandbox", KIND_FLAG, NULL, 0, 0,
   "untrusted code: no io, no debug; turns on --native"},
  {"--native", KIND_FLAG, NULL, 0, 0,
   "charge the native work of C built-ins (string.rep...)"},
  {"--no-native", KIND_FLAG, NULL, 0, 0,
   "no native charging, even with a limit or the sandbox"},
  {"--report", KIND_TEXT, "FILE|-", 0, 0,
   "a JSON report to FILE, or a summary on stderr with -"},
  {"--format", KIND_TEXT, "FORMAT", 0, 0,
   "table (default), folded, callgrind, svg or json"},
  {"--top", KIND_COUNT, "N", 0, 1000000,
   "rows of the table (default 20; 0: all)"},
  {"--threshold", KIND_TEXT, "P", 0, 0,
   "gate: a change counts when above P percent (exit 5)"},
  {"--allow-dir", KIND_TEXT, "DIR", 0, 0,
   "sandbox: loadfile, dofile, require may read DIR"},
  {"--allow-module", KIND_TEXT, "NAME", 0, 0,
   "sandbox: require may load C module NAME (and lpeg)"},
  {"--allow-offline", KIND_FLAG, NULL, 0, 0,
   "run an unsigned chunk from lraf rewrite (unproven)"},
  {"--key-file", KIND_TEXT, "FILE", 0, 0,
   "sign (rewrite) or require signed (run) offline chunks"},
  {"--help", KIND_FLAG, NULL, 0, 0,
   "print this help and exit"},
  {"--port", KIND_COUNT, "N", 0, 65535,
   "TCP port (default 8080; 0: any free port)"},
  {"--bind", KIND_TEXT, "ADDR", 0, 0,
   "IPv4 address to listen on (default 127.0.0.1)"},
  {"--workers", KIND_COUNT, "N", 1, 1024,
   "threads running handlers (default 4)"},
  {"--request-limit", KIND_TENANT, "T=N", 0, INT64_MAX,
   "each request of tenant T may run N instructions"},
  {"--quota", KIND_TENANT, "T=N[/P]", 0, INT64_MAX,
   "tenant T's total, or per day or month (P; UTC)"},
  {"--rate", KIND_TENANT, "T=N", 1, INT64_MAX,
   "tenant T runs at most N instructions per second"},
  {"--memory-limit", KIND_BYTES, "BYTES", 1, INT64_MAX,
   "the most a state may hold in a request (507 past it)"},
  {"--ledger", KIND_TEXT, "SPEC", 0, 0,
   "sqlite:PATH (default sqlite:lraf-ledger.db), a "
   "postgresql:// URI, or none"},
  {"--slice", KIND_COUNT, "N", 1, INT64_MAX,
   "PostgreSQL: quota leased at a time (default 1M)"},
  {"--no-metering", KIND_FLAG, NULL, 0, 0,
   "plain Lua, no ledger (a benchmark's baseline)"},
  {"--deterministic", KIND_FLAG, NULL, 0, 0,
   "fixed seeds (default in bench, profile, serve)"},
  {"--no-deterministic", KIND_FLAG, NULL, 0, 0,
   "stock Lua's random hash seed, pivot, math.random"},
  {"--max-tenants", KIND_COUNT, "N", 1, 10000000,
   "tenants kept at once (default 1000; 503 past it)"},
  {"--max-connections", KIND_COUNT, "N", 1, 100000,
   "open connections at most (default 512)"},
  {"--max-connections-per-ip", KIND_COUNT, "N", 1, 100000,
   "open connections of one address (default 64)"},
  {"--idle-timeout", KIND_COUNT, "SECONDS", 1, 86400,
   "close a connection idle that long (default 10)"},
  {"--tenants", KIND_TEXT, "FILE", 0, 0,
   "API keys to tenants (lines TENANT sha256:HASH)"},
  {"--admin-token-file", KIND_TEXT, "FILE", 0, 0,
   "/usage and /metrics need this token (Bearer)"},
  {"--min-change", KIND_COUNT, "N", 0, INT64_MAX,
   "gate: ignore changes of fewer than N units"},
  {"--fail-on", KIND_TEXT, "WHAT", 0, 0,
   "gate: fail on regression (default) or any change"},
  {"--max-count", KIND_COUNT, "N", 0, INT64_MAX,
   "a hard limit: fail when a count is above N"},
  {"--format", KIND_TEXT, "FORMAT", 0, 0,
   "text (default), markdown, json; diff: also svg"},
  {"--timeline", KIND_TEXT, "FILE", 0, 0,
   "when it ran: a trace (JSON) or, FILE.svg, a picture"},
  {"--expect-share", KIND_TEXT, "P", 0, 0,
   "warn when a window got less than P% of a CPU"},
  {"--write-contract", KIND_TEXT, "FILE", 0, 0,
   "also write the bounds as a contract (lraf run)"},
  {"--contract", KIND_TEXT, "FILE", 0, 0,
   "declared costs: run stops above (6), serve reserves"},
  {"--runs", KIND_COUNT, "N", 1, RUNS_MAX,
   "run each script N times (default 10), as -n"},
  {"--warmup", KIND_COUNT, "N", 0, RUNS_MAX,
   "N runs first, untimed (default 0)"},
  {"--save-baseline", KIND_TEXT, "NAME", 0, 0,
   "save the counts as baseline NAME (.lraf/baselines)"},
  {"--baseline", KIND_TEXT, "NAME", 0, 0,
   "compare the counts with baseline NAME (exit 5, 7)"},
  {"--baseline-dir", KIND_TEXT, "DIR", 0, 0,
   "where baselines are (default .lraf/baselines)"},
  {"--allow-mismatch", KIND_FLAG, NULL, 0, 0,
   "compare with a baseline of another model, VM, lraf"},
  {"--suite", KIND_TEXT, "FILE", 0, 0,
   "the benchmarks: \"SCRIPT [LIMITS] [-- ARGS]\" lines"},
  {"--export-json", KIND_TEXT, "FILE", 0, 0,
   "the wall times and counts as JSON (as hyperfine's)"},
  {"--export-markdown", KIND_TEXT, "FILE", 0, 0,
   "the wall times and counts as a Markdown table"},
  {"--tenant", KIND_TEXT, "T", 0, 0,
   "the tenant (export and verify: only T's records)"},
  {"--units", KIND_TEXT, "+N|-N", 0, 0,
   "instructions to add to the tenant's usage (or take)"},
  {"--reason", KIND_TEXT, "TEXT", 0, 0,
   "why (kept with the adjustment)"},
  {"--from", KIND_TEXT, "TIME", 0, 0,
   "records from TIME on (ISO 8601, e.g. 2026-11-01)"},
  {"--to", KIND_TEXT, "TIME", 0, 0,
   "records before TIME (ISO 8601)"},
  {"--format", KIND_TEXT, "FORMAT", 0, 0,
   "csv (default), jsonl or cloudevents"},
  {"--period", KIND_TEXT, "P", 0, 0,
   "totals per month (default) or day"},
  {"--ledger-durability", KIND_TEXT, "D", 0, 0,
   "power (default: fsync) or process (survives kill -9)"},
};

/* What the exit statuses mean; a command lists those it can give (and
   may say what 1 means for it). */
static const char *const statuses[] = {
  "success",
  "the script failed (a Lua error; bench: os.exit with a failure, or a count that differs between runs)",
  "bad usage or bad input",
  "the instruction quota (--limit) was exhausted",
  "the memory limit (--memory-limit) was exceeded",
  "a regression: a count grew past the gate (--threshold, --min-change;"
  " with --fail-on change, any change past it) or above --max-count",
  "a call exceeded its declared cost (--contract)",
  "the baseline was made with another cost model, lraf version or VM"
  " (--allow-mismatch compares anyway)",
};
#define NSTATUSES ((int)(sizeof statuses / sizeof statuses[0]))

#define ST(n) (1u << (n))
#define GATE (CLI_BIT(CLI_OPT_THRESHOLD) | CLI_BIT(CLI_OPT_MIN_CHANGE) | \
              CLI_BIT(CLI_OPT_FAIL_ON))

/* What status 1 means for the commands that run no script. */
static const char *const failed[][2] = {
  {"serve", "the server could not start or failed (its ledger, "
            "libmicrohttpd)"},
  {"ledger", "the ledger failed, or verify found a total that differs "
             "from its records"},
  {"rewrite", "lraf ran out of memory"},
  {"disasm", "lraf ran out of memory"},
};

static const char *status_text(const cli_command *cmd, int s) {
  size_t i;
  for (i = 0; s == 1 && i < sizeof failed / sizeof failed[0]; i++)
    if (strcmp(cmd->name, failed[i][0]) == 0) return failed[i][1];
  return statuses[s];
}
#define COUNTING (CLI_BIT(CLI_OPT_EXACT) | CLI_BIT(CLI_OPT_MODE) | \
                  CLI_BIT(CLI_OPT_WEIGHTS) | CLI_BIT(CLI_OPT_VM))
#define DETERMINISM (CLI_BIT(CLI_OPT_DETERMINISTIC) | \
                     CLI_BIT(CLI_OPT_NO_DETERMINISTIC))
#define RUNNING (COUNTING | CLI_BIT(CLI_OPT_GRANULARITY) | \
                 CLI_BIT(CLI_OPT_SANDBOX) | CLI_BIT(CLI_OPT_NATIVE) | \
                 CLI_BIT(CLI_OPT_NO_NATIVE) | CLI_BIT(CLI_OPT_ALLOW_DIR) | \
                 CLI_BIT(CLI_OPT_ALLOW_MODULE) | CLI_BIT(CLI_OPT_ALLOW_OFFLINE) | \
                 CLI_BIT(CLI_OPT_KEY_FILE) | DETERMINISM)

#define TIMELINE (CLI_BIT(CLI_OPT_TIMELINE) | CLI_BIT(CLI_OPT_EXPECT_SHARE))

static const cli_command commands[] = {
  {"bench", cli_bench,
   CLI_BIT(CLI_OPT_RUNS) | CLI_BIT(CLI_OPT_RUNS_LONG) |
     CLI_BIT(CLI_OPT_WARMUP) | CLI_BIT(CLI_OPT_LIMIT) |
     CLI_BIT(CLI_OPT_MEMORY_LIMIT) | RUNNING | TIMELINE |
     CLI_BIT(CLI_OPT_SUITE) |
     CLI_BIT(CLI_OPT_SAVE_BASELINE) | CLI_BIT(CLI_OPT_BASELINE) |
     CLI_BIT(CLI_OPT_BASELINE_DIR) | CLI_BIT(CLI_OPT_ALLOW_MISMATCH) |
     GATE | CLI_BIT(CLI_OPT_MAX_COUNT) | CLI_BIT(CLI_OPT_REPORT_FORMAT) | CLI_BIT(CLI_OPT_EXPORT_JSON) |
     CLI_BIT(CLI_OPT_EXPORT_MARKDOWN) | CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_AFTER, "SCRIPT [SCRIPT2] [-- ARGS...] | --suite FILE",
   "run SCRIPT N times in fresh states, with ARGS: its instruction count\n"
   "(the same on every run) and wall time mean +- sigma, min/median/max;\n"
   "with SCRIPT2, compare the two by instruction count.  --save-baseline\n"
   "keeps the counts, --baseline compares with them through the gate\n"
   "(exit 5 on a regression; docs/bench.md).  os.exit ends a run; --limit\n"
   "(default 1G) and --memory-limit apply to each run; progress on\n"
   "stderr when it is a terminal",
   ST(0) | ST(1) | ST(2) | ST(3) | ST(4) | ST(5) | ST(7), 0},
  {"bound", cli_bound,
   CLI_BIT(CLI_OPT_FORMAT) | CLI_BIT(CLI_OPT_WRITE_CONTRACT) |
     CLI_BIT(CLI_OPT_MODE) | CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_MIXED, "SCRIPT",
   "prove an upper bound on the instructions of one call of each function\n"
   "of SCRIPT (original cost model), or say why none is proven and where,\n"
   "as a table or --format json (docs/bound.md)",
   ST(0) | ST(1) | ST(2), 0},
  {"disasm", cli_disasm, CLI_BIT(CLI_OPT_HELP), CLI_OPERANDS_MIXED,
   "FILE.lua|FILE.luac|REWRITTEN",
   "list the bytecode of FILE like luac -l -l (REWRITTEN: the output of\n"
   "lraf rewrite, with its accounting code)",
   ST(0) | ST(1) | ST(2), 0},
  {"run", cli_run,
   CLI_BIT(CLI_OPT_LIMIT) | CLI_BIT(CLI_OPT_RATE) |
     CLI_BIT(CLI_OPT_MEMORY_LIMIT) | RUNNING | CLI_BIT(CLI_OPT_REPORT) |
     TIMELINE | CLI_BIT(CLI_OPT_CONTRACT) | CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_AFTER, "SCRIPT [ARGS...]",
   "run SCRIPT like lua5.4, counting every instruction",
   ST(0) | ST(1) | ST(2) | ST(3) | ST(4) | ST(6), 0},
  {"profile", cli_profile,
   CLI_BIT(CLI_OPT_LIMIT) | CLI_BIT(CLI_OPT_RATE) |
     CLI_BIT(CLI_OPT_MEMORY_LIMIT) | RUNNING | CLI_BIT(CLI_OPT_REPORT) |
     CLI_BIT(CLI_OPT_FORMAT) | CLI_BIT(CLI_OPT_OUTPUT) |
     CLI_BIT(CLI_OPT_TOP) | TIMELINE | CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_AFTER, "[-o OUT] SCRIPT [ARGS...]",
   "run SCRIPT like lraf run and write its exact profile to OUT (or\n"
   "standard output, the script's own output then going to standard\n"
   "error): per function calls, self and inclusive instructions, and\n"
   "the calling contexts (docs/profiling.md)",
   ST(0) | ST(1) | ST(2) | ST(3) | ST(4), 0},
  {"diff", cli_diff,
   GATE | CLI_BIT(CLI_OPT_TOP) | CLI_BIT(CLI_OPT_REPORT_FORMAT) |
     CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_MIXED, "A.json B.json",
   "compare two JSON profiles function by function (matched by name and\n"
   "file, so edits that move functions keep them matched), sorted by\n"
   "absolute change, with their similarity and the functions added,\n"
   "removed or moved.  With a gate (--threshold, --min-change, --fail-on)\n"
   "exit status 5 when the total or a function regressed past it",
   ST(0) | ST(1) | ST(2) | ST(5), 0},
  {"rewrite", cli_rewrite,
   COUNTING | CLI_BIT(CLI_OPT_OUTPUT) | CLI_BIT(CLI_OPT_KEY_FILE) |
     CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_MIXED, "IN.lua|IN.luac -o OUT",
   "rewrite IN offline; OUT loads only through lraf",
   ST(0) | ST(1) | ST(2), 0},
  {"serve", cli_serve,
   CLI_BIT(CLI_OPT_PORT) | CLI_BIT(CLI_OPT_BIND) | CLI_BIT(CLI_OPT_WORKERS) |
     CLI_BIT(CLI_OPT_REQUEST_LIMIT) | CLI_BIT(CLI_OPT_QUOTA) |
     CLI_BIT(CLI_OPT_TENANT_RATE) | CLI_BIT(CLI_OPT_SERVE_MEMORY) |
     CLI_BIT(CLI_OPT_LEDGER) | CLI_BIT(CLI_OPT_SLICE) |
     CLI_BIT(CLI_OPT_NO_METERING) | CLI_BIT(CLI_OPT_MAX_TENANTS) |
     CLI_BIT(CLI_OPT_MAX_CONNECTIONS) | CLI_BIT(CLI_OPT_MAX_PER_IP) |
     CLI_BIT(CLI_OPT_IDLE_TIMEOUT) | CLI_BIT(CLI_OPT_TENANTS) |
     CLI_BIT(CLI_OPT_ADMIN_TOKEN) | CLI_BIT(CLI_OPT_CONTRACT) | DETERMINISM |
     TIMELINE | CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_MIXED, "DIR",
   "serve GET and POST /NAME on 127.0.0.1 by running DIR/NAME.lua, which\n"
   "returns function(req) return status, body[, headers] end, for the\n"
   "tenant whose API key is in Authorization: Bearer KEY (--tenants), or\n"
   "else the one in the X-Tenant header, which only a trusted gateway may\n"
   "set; each request is metered (its count in X-Lraf-Instructions) and\n"
   "recorded in the ledger; GET /usage?tenant=T (JSON) and GET /metrics\n"
   "(OpenMetrics).  Per-tenant options repeat; T may be * for every other\n"
   "tenant.  X-Lraf-Max-Instructions: N reserves N of the tenant's quota\n"
   "before the handler runs (429 when not available) and stops it at N;\n"
   "by default a handler reserves its contract's bound (\"return N\" in\n"
   "DIR/NAME.contract, or \"NAME N\" in --contract FILE)",
   ST(0) | ST(1) | ST(2), CLI_BIT2(CLI_OPT_DURABILITY)},
  {"ledger", cli_ledger,
   CLI_BIT(CLI_OPT_LEDGER) | CLI_BIT(CLI_OPT_TENANT) | CLI_BIT(CLI_OPT_UNITS) |
     CLI_BIT(CLI_OPT_REASON) | CLI_BIT(CLI_OPT_FROM) | CLI_BIT(CLI_OPT_TO) |
     CLI_BIT(CLI_OPT_EXPORT_FORMAT) | CLI_BIT(CLI_OPT_PERIOD) |
     CLI_BIT(CLI_OPT_OUTPUT) | CLI_BIT(CLI_OPT_HELP),
   CLI_OPERANDS_MIXED, "adjust|export|verify",
   "the usage ledger of lraf serve.  adjust --tenant T --units +N|-N\n"
   "--reason TEXT adds a correcting record (records are never changed);\n"
   "export writes one event per record in [--from, --to) (its\n"
   "idempotency key the event id) as CSV, JSON lines or CloudEvents;\n"
   "verify sums the records per tenant and period and compares each sum\n"
   "with the totals /usage serves",
   ST(0) | ST(1) | ST(2), 0},
  {"key", cli_key, CLI_BIT(CLI_OPT_HELP), CLI_OPERANDS_MIXED,
   "hash TENANT",
   "read an API key from standard input (one line) and print the line of\n"
   "lraf serve --tenants FILE that gives it to TENANT: TENANT sha256:HASH\n"
   "(the key itself is kept nowhere)",
   ST(0) | ST(2), 0},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

const cli_command *cli_command_find(const char *name) {
  int i;
  for (i = 0; i < NCOMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

typedef struct suffix {
  const char *s;
  int64_t factor;
  int bytes_only;
} suffix;

static const suffix suffixes[] = {
  {"", 1, 0},
  {"k", 1000, 0}, {"K", 1000, 0}, {"M", 1000000, 0}, {"G", 1000000000, 0},
  {"KiB", 1 << 10, 1}, {"MiB", 1 << 20, 1}, {"GiB", 1 << 30, 1},
};
#define NSUFFIXES ((int)(sizeof suffixes / sizeof suffixes[0]))

/* The factor of the suffix s, or 0 when s is not one of kind's. */
static int64_t factor_of(const char *s, opt_kind kind) {
  int i;
  for (i = 0; i < NSUFFIXES; i++)
    if (strcmp(s, suffixes[i].s) == 0 &&
        (!suffixes[i].bytes_only || kind == KIND_BYTES))
      return suffixes[i].factor;
  return 0;
}

static const char *what_integer(const opt_info *o) {
  if (o->kind == KIND_BYTES)
    return "a positive size in bytes (k, M, G, KiB, MiB, GiB allowed)";
  return o->min > 0 ? "a positive integer (k, M, G allowed)"
                    : "a non-negative integer (k, M, G allowed)";
}

/* An integer of kind COUNT or BYTES in [o->min, o->max]. */
static int parse_integer(const opt_info *o, const char *s, int64_t *v) {
  const char *p = s;
  uint64_t x = 0;
  int64_t f;
  int big = 0;
  if (*p < '0' || *p > '9')
    return cli_error("%s needs %s, not '%s'", o->name, what_integer(o), s);
  for (; *p >= '0' && *p <= '9'; p++) {
    if (x > (UINT64_MAX - 9) / 10) big = 1;
    else x = x * 10 + (uint64_t)(*p - '0');
  }
  if ((*p == 'e' || *p == 'E') && p[1] >= '0' && p[1] <= '9') {
    int e = 0;  /* 1e9, as Lua writes numbers */
    for (p++; *p >= '0' && *p <= '9'; p++) e = e > 99 ? e : e * 10 + *p - '0';
    for (; e > 0 && x != 0 && !big; e--) {
      if (x > UINT64_MAX / 10) big = 1;
      else x *= 10;
    }
  }
  f = factor_of(p, o->kind);
  if (f == 0)
    return cli_error("%s needs %s, not '%s'", o->name, what_integer(o), s);
  if (big || x > (uint64_t)o->max / (uint64_t)f ||
      x * (uint64_t)f > (uint64_t)o->max)
    return cli_error("%s %s is too large (at most %lld)", o->name, s,
                     (long long)o->max);
  if ((int64_t)(x * (uint64_t)f) < o->min)
    return cli_error("%s needs %s, not '%s'", o->name, what_integer(o), s);
  *v = (int64_t)(x * (uint64_t)f);
  return CLI_OK;
}

static int parse_real(const opt_info *o, const char *s, double *v) {
  char *end;
  int64_t f;
  double x;
  errno = 0;
  x = strtod(s, &end);
  f = end == s ? 0 : factor_of(end, o->kind);
  if (f == 0 || x != x || !(x > 0))
    return cli_error("%s needs a positive number (k, M, G allowed), not "
                     "'%s'", o->name, s);
  x *= (double)f;
  if (isinf(x)) return cli_error("%s %s is too large", o->name, s);
  *v = x;
  return CLI_OK;
}

static int parse_mode(const char *s, lraf_mode *mode) {
  if (strcmp(s, "original") == 0) *mode = LRAF_MODE_ORIGINAL;
  else if (strcmp(s, "overhead") == 0) *mode = LRAF_MODE_OVERHEAD;
  else if (strcmp(s, "weighted") == 0) *mode = LRAF_MODE_WEIGHTED;
  else return cli_error("unknown mode '%s' (original, overhead or weighted)",
                        s);
  return CLI_OK;
}

static int parse_vm(const char *s, lraf_vm *vm) {
  if (strcmp(s, "lraf") == 0) *vm = LRAF_VM_LRAF;
  else if (strcmp(s, "stock") == 0) *vm = LRAF_VM_STOCK;
  else return cli_error("unknown VM '%s' (lraf or stock)", s);
  if (*vm == LRAF_VM_LRAF && !lraf_vm_builtin())
    return cli_error("--vm lraf: this lraf is built for stock Lua 5.4 "
                     "(the lraf VM build is make vm)");
  return CLI_OK;
}

static int read_weights(const char *path, cli_args *a) {
  lraf_error err;
  char *text;
  size_t len;
  lraf_status st;
  if (cli_read_file_max(path, CLI_WEIGHTS_MAX, &text, &len, &err) != LRAF_OK)
    return cli_report(&err);
  st = lraf_parse_weights(text, len, a->weights, &err);
  free(text);
  if (st != LRAF_OK) {
    cli_error("%s: %s", path, err.message);
    return err.code == LRAF_EMEM ? CLI_EFAIL : CLI_EUSAGE;
  }
  a->opt.weights = a->weights;
  return CLI_OK;
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

/* Whether cmd takes option o. */
static int takes(const cli_command *cmd, int o) {
  return o < 64 ? (cmd->options & CLI_BIT(o)) != 0
                : (cmd->options2 & CLI_BIT2(o)) != 0;
}

/* The option called name that cmd takes (two options may share a name
   in different commands: run's --rate N, serve's --rate T=N), else the
   first of that name, else -1. */
static int find_option(const char *name, const cli_command *cmd) {
  int o, first = -1;
  for (o = 0; o < CLI_NUM_OPTS; o++)
    if (strcmp(name, options[o].name) == 0) {
      if (takes(cmd, o)) return o;
      if (first < 0) first = o;
    }
  return first;
}

/* TENANT=N into a->tenants. */
static int add_tenant_value(int o, const char *v, cli_args *a) {
  const opt_info *info = &options[o];
  const char *eq = strrchr(v, '=');
  cli_tenant_value *t;
  int rc;
  if (eq == NULL || eq == v)
    return cli_error("%s needs TENANT=N (got '%s')", info->name, v);
  if (eq - v > 64)
    return cli_error("%s: a tenant name is at most 64 bytes", info->name);
  if (a->ntenants == CLI_MAX_TENANT_VALUES)
    return cli_error("%s: at most %d per-tenant values", info->name,
                     CLI_MAX_TENANT_VALUES);
  t = &a->tenants[a->ntenants];
  t->period = LRAF_PERIOD_NONE;
  if (o == CLI_OPT_QUOTA) {
    lraf_error err;
    if (lraf_quota_parse(eq + 1, &t->value, &t->period, &err) != LRAF_OK)
      return cli_error("--quota: %s", err.message);
  } else {
    opt_info count = *info;
    count.kind = KIND_COUNT;
    if ((rc = parse_integer(&count, eq + 1, &t->value)) != CLI_OK) return rc;
  }
  t->opt = (cli_opt)o;
  memcpy(t->tenant, v, (size_t)(eq - v));
  t->tenant[eq - v] = '\0';
  a->ntenants++;
  return CLI_OK;
}

/* --allow-dir and --allow-module values (NULL-terminated). */
static const char *allow_dirs[CLI_MAX_ALLOW + 1];
static const char *allow_modules[CLI_MAX_ALLOW + 1];

/* Apply option o with value v (NULL for flags). */
static int set_option(int o, const char *v, cli_args *a, int *mode_set,
                      const char **wfile) {
  const opt_info *info = &options[o];
  int64_t n = 0;
  int rc = CLI_OK;
  if (info->kind == KIND_COUNT || info->kind == KIND_BYTES)
    if ((rc = parse_integer(info, v, &n)) != CLI_OK) return rc;
  switch ((cli_opt)o) {
    case CLI_OPT_RUNS: a->runs = (int)n; break;
    case CLI_OPT_OUTPUT: a->output = v; break;
    case CLI_OPT_LIMIT: a->limit = n; break;
    case CLI_OPT_RATE: rc = parse_real(info, v, &a->rate); break;
    case CLI_OPT_MEMORY_LIMIT: a->memory = n; break;
    case CLI_OPT_GRANULARITY: a->opt.granularity = n; break;
    case CLI_OPT_EXACT: a->opt.exact = 1; break;
    case CLI_OPT_MODE:
      *mode_set = 1;
      rc = parse_mode(v, &a->opt.mode);
      break;
    case CLI_OPT_WEIGHTS: *wfile = v; break;
    case CLI_OPT_VM: rc = parse_vm(v, &a->opt.vm); break;
    case CLI_OPT_SANDBOX: a->opt.env = LRAF_ENV_SANDBOX; break;
    case CLI_OPT_NATIVE: a->native = 1; break;
    case CLI_OPT_NO_NATIVE: a->native = 0; break;
    case CLI_OPT_DETERMINISTIC: a->opt.deterministic = 1; break;
    case CLI_OPT_NO_DETERMINISTIC: a->opt.deterministic = 0; break;
    case CLI_OPT_REPORT: a->report = v; break;
    case CLI_OPT_PORT: a->port = (int)n; break;
    case CLI_OPT_BIND: a->bind = v; break;
    case CLI_OPT_WORKERS: a->workers = (int)n; break;
    case CLI_OPT_REQUEST_LIMIT: case CLI_OPT_QUOTA: case CLI_OPT_TENANT_RATE:
      rc = add_tenant_value(o, v, a);
      break;
    case CLI_OPT_SERVE_MEMORY: a->memory = n; break;
    case CLI_OPT_LEDGER: a->ledger = v; break;
    case CLI_OPT_DURABILITY: a->durability = v; break;
    case CLI_OPT_SLICE: a->slice = n; break;
    case CLI_OPT_NO_METERING: a->no_metering = 1; break;
    case CLI_OPT_MAX_TENANTS: a->max_tenants = n; break;
    case CLI_OPT_MAX_CONNECTIONS: a->max_conns = n; break;
    case CLI_OPT_MAX_PER_IP: a->max_per_ip = n; break;
    case CLI_OPT_IDLE_TIMEOUT: a->idle_timeout = n; break;
    case CLI_OPT_TENANTS: a->keys_file = v; break;
    case CLI_OPT_TENANT: a->tenant = v; break;
    case CLI_OPT_UNITS: a->units = v; break;
    case CLI_OPT_REASON: a->reason = v; break;
    case CLI_OPT_FROM: a->from = v; break;
    case CLI_OPT_TO: a->to = v; break;
    case CLI_OPT_EXPORT_FORMAT: a->format = v; break;
    case CLI_OPT_PERIOD: a->period = v; break;
    case CLI_OPT_ADMIN_TOKEN: a->admin_token_file = v; break;
    case CLI_OPT_FORMAT: a->format = v; break;
    case CLI_OPT_WRITE_CONTRACT: a->write_contract = v; break;
    case CLI_OPT_CONTRACT: a->contract = v; break;
    case CLI_OPT_RUNS_LONG: a->runs = (int)n; break;
    case CLI_OPT_WARMUP: a->warmup = (int)n; break;
    case CLI_OPT_SAVE_BASELINE: a->save_baseline = v; break;
    case CLI_OPT_BASELINE: a->baseline = v; break;
    case CLI_OPT_BASELINE_DIR: a->baseline_dir = v; break;
    case CLI_OPT_ALLOW_MISMATCH: a->allow_mismatch = 1; break;
    case CLI_OPT_SUITE: a->suite = v; break;
    case CLI_OPT_EXPORT_JSON: a->export_json = v; break;
    case CLI_OPT_EXPORT_MARKDOWN: a->export_markdown = v; break;
    case CLI_OPT_TOP: a->top = n; break;
    case CLI_OPT_THRESHOLD:
      if ((a->threshold = cli_threshold_of(v)) < 0)
        rc = cli_error("--threshold needs " CLI_THRESHOLD_RULE ", not '%s'",
                       v);
      break;
    case CLI_OPT_MIN_CHANGE: a->min_change = n; break;
    case CLI_OPT_MAX_COUNT: a->max_count = n; break;
    case CLI_OPT_FAIL_ON:
      if (strcmp(v, "regression") == 0) a->fail_on_change = 0;
      else if (strcmp(v, "change") == 0) a->fail_on_change = 1;
      else
        rc = cli_error("--fail-on needs regression or change, not '%s'", v);
      a->fail_on_set = 1;
      break;
    case CLI_OPT_REPORT_FORMAT: a->format = v; break;
    case CLI_OPT_TIMELINE: a->timeline = v; break;
    case CLI_OPT_EXPECT_SHARE: {
      char *end;
      double p = strtod(v, &end);
      if (end != v && *end == '%') end++;
      if (end == v || *end != '\0' || !(p > 0 && p <= 100))
        return cli_error("--expect-share needs a percentage above 0 and at "
                         "most 100, not '%s'", v);
      a->expect_share = p / 100;
      break;
    }
    case CLI_OPT_ALLOW_OFFLINE: a->opt.allow_offline = 1; break;
    case CLI_OPT_KEY_FILE: {
      static char *key;  /* lives as long as the process */
      lraf_error err;
      size_t len;
      free(key);
      key = NULL;
      if (cli_read_file_max(v, CLI_KEY_MAX, &key, &len, &err) != LRAF_OK)
        return cli_report(&err);
      if (len == 0) return cli_error("--key-file %s is empty", v);
      a->opt.offline_key = key;
      a->opt.offline_key_len = len;
      break;
    }
    case CLI_OPT_ALLOW_DIR:
    case CLI_OPT_ALLOW_MODULE: {
      int dir = o == CLI_OPT_ALLOW_DIR;
      int *n = dir ? &a->ndirs : &a->nmodules;
      if (*n >= CLI_MAX_ALLOW)
        return cli_error("at most %d %s options", CLI_MAX_ALLOW, info->name);
      (dir ? allow_dirs : allow_modules)[(*n)++] = v;
      a->opt.allow_dirs = allow_dirs;
      a->opt.allow_modules = allow_modules;
      break;
    }
    case CLI_OPT_HELP: case CLI_NUM_OPTS: break;
  }
  return rc;
}

static int is_option(const char *s) {
  return s[0] == '-' && s[1] != '\0';
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a) {
  const char *wfile = NULL;
  int i, mode_set = 0, nops = 0, rc;
  memset(a, 0, sizeof *a);
  lraf_default_options(&a->opt);
  a->limit = -1;
  a->memory = -1;
  a->native = -1;
  a->port = -1;
  a->workers = -1;
  a->max_tenants = a->max_conns = a->max_per_ip = a->idle_timeout = -1;
  a->top = -1;
  a->threshold = -1;
  a->min_change = -1;
  a->max_count = -1;
  for (i = 1; i < argc; i++) {
    const char *arg = argv[i];
    int o;
    if (strcmp(arg, "--") == 0) {
      i++;
      break;
    }
    if (!is_option(arg)) {
      if (cmd->layout == CLI_OPERANDS_AFTER) break;
      argv[1 + nops++] = argv[i];  /* MIXED: gather the operands */
      continue;
    }
    o = find_option(arg, cmd);
    if (o < 0 || !takes(cmd, o)) {
      cli_error("unknown option '%s' for lraf %s", arg, cmd->name);
      cli_usage(stderr, cmd);
      return CLI_EUSAGE;
    }
    if (o == CLI_OPT_HELP) {
      cli_help(stdout, cmd);
      return CLI_HELP;
    }
    if (options[o].kind != KIND_FLAG && i + 1 >= argc) {
      cli_error("%s needs a value (%s)", arg, options[o].value);
      cli_usage(stderr, cmd);
      return CLI_EUSAGE;
    }
    rc = set_option(o, options[o].kind == KIND_FLAG ? NULL : argv[++i], a,
                    &mode_set, &wfile);
    if (rc != CLI_OK) return rc;
  }
  if (cmd->layout == CLI_OPERANDS_MIXED) {
    for (; i < argc; i++) argv[1 + nops++] = argv[i];
    a->first = 1;
    a->noperands = nops;
  } else {
    a->first = i;
    a->noperands = argc - i;
  }
  if (wfile != NULL) {
    if (mode_set && a->opt.mode != LRAF_MODE_WEIGHTED)
      return cli_error("--weights needs --mode weighted");
    if ((rc = read_weights(wfile, a)) != CLI_OK) return rc;
    a->opt.mode = LRAF_MODE_WEIGHTED;
  } else if (a->opt.mode == LRAF_MODE_WEIGHTED) {
    return cli_error("--mode weighted needs --weights FILE");
  }
  return CLI_OK;
}

/* One word of text into w (quotes '...' and "..." group, backslash
   escapes in "..." and outside quotes); the text after it, or NULL at
   the end; an unclosed quote is a usage error (*rc). */
static const char *next_word(const char *t, char *w, int *rc) {
  char q = 0;
  while (*t == ' ' || *t == '\t' || *t == '\n') t++;
  if (*t == '\0') return NULL;
  for (; *t && (q || (*t != ' ' && *t != '\t' && *t != '\n')); t++) {
    if (q == 0 && (*t == '\'' || *t == '"')) q = *t;
    else if (q != 0 && *t == q) q = 0;
    else if (q != '\'' && *t == '\\' && t[1] != '\0') *w++ = *++t;
    else *w++ = *t;
  }
  *w = '\0';
  if (q) *rc = cli_error("an unclosed %c quote", q);
  return t;
}

int cli_parse_text(const cli_command *cmd, const char *text, cli_args *a) {
  /* the words live as long as the process: a's strings point into them */
  static char *words;
  static char **argv;
  size_t n = strlen(text);
  const char *t = text;
  char *w;
  int argc = 1, rc = CLI_OK;
  free(words);
  free(argv);
  words = malloc(2 * n + 2 + strlen(cmd->name));
  argv = malloc((n / 2 + 3) * sizeof *argv);
  if (words == NULL || argv == NULL) return cli_error("out of memory");
  w = words;
  argv[0] = strcpy(w, cmd->name);
  w += strlen(w) + 1;
  while ((t = next_word(t, w, &rc)) != NULL && rc == CLI_OK) {
    argv[argc++] = w;
    w += strlen(w) + 1;
  }
  argv[argc] = NULL;
  if (rc != CLI_OK) return rc;
  rc = cli_parse(cmd, argc, argv, a);
  if (rc == CLI_OK && a->noperands > 0)
    return cli_error("'%s' is not an option (lraf %s's options only)",
                     argv[a->first], cmd->name);
  return rc;
}

/* ------------------------------------------------------------------ */
/* Help                                                                */
/* ------------------------------------------------------------------ */

/* "--limit N" */
static void option_text(int o, char *buf, size_t size) {
  if (options[o].value != NULL)
    snprintf(buf, size, "%s %s", options[o].name, options[o].value);
  else
    snprintf(buf, size, "%s", options[o].name);
}

/* Print lines of text, each line after indent. */
static void indented(FILE *out, const char *indent, const char *text) {
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    fprintf(out, "%s%.*s\n", indent, (int)n, text);
    text += n + (nl != NULL);
  }
}

/* "lraf run [--limit N] ... SCRIPT [ARGS...]", wrapped before col 76. */
static void synopsis(FILE *out, const char *lead, const cli_command *cmd) {
  char word[80];
  size_t col, indent;
  int o;
  col = indent = strlen(lead) + strlen(cmd->name);
  fprintf(out, "%s%s", lead, cmd->name);
  for (o = 0; o < CLI_NUM_OPTS; o++) {
    char opt[64];
    if (!takes(cmd, o) || o == CLI_OPT_HELP) continue;
    if (o == CLI_OPT_OUTPUT) continue;  /* part of the operands */
    option_text(o, opt, sizeof opt);
    snprintf(word, sizeof word, "[%s]", opt);
    if (col + 1 + strlen(word) > 76) {
      fprintf(out, "\n%*s", (int)indent, "");
      col = indent;
    }
    fprintf(out, " %s", word);
    col += 1 + strlen(word);
  }
  if (col + 1 + strlen(cmd->operands) > 76)
    fprintf(out, "\n%*s", (int)indent, "");
  fprintf(out, " %s\n", cmd->operands);
}

/* The column of option help, and text wrapped to fit 78 columns from
   there (the first line is already indented). */
#define HELP_COL 25
static void wrapped(FILE *out, const char *text) {
  size_t col = HELP_COL;
  while (*text) {
    size_t n = strcspn(text, " ");
    if (col > HELP_COL && col + 1 + n > 78) {
      fprintf(out, "\n%*s", HELP_COL, "");
      col = HELP_COL;
    } else if (col > HELP_COL) {
      fputc(' ', out);
      col++;
    }
    fprintf(out, "%.*s", (int)n, text);
    col += n;
    text += n;
    while (*text == ' ') text++;
  }
  fputc('\n', out);
}

void cli_usage(FILE *out, const cli_command *cmd) {
  synopsis(out, "usage: lraf ", cmd);
  fprintf(out, "(lraf %s --help explains each option)\n", cmd->name);
}

void cli_help(FILE *out, const cli_command *cmd) {
  int o, s;
  synopsis(out, "usage: lraf ", cmd);
  fputc('\n', out);
  indented(out, "", cmd->summary);
  fputs("\noptions:\n", out);
  for (o = 0; o < CLI_NUM_OPTS; o++) {
    char opt[64];
    if (!takes(cmd, o)) continue;
    option_text(o, opt, sizeof opt);
    if (strlen(opt) > HELP_COL - 3)
      fprintf(out, "  %s\n%*s", opt, HELP_COL, "");
    else
      fprintf(out, "  %-*s", HELP_COL - 2, opt);
    wrapped(out, options[o].help);
  }
  fputs("\nexit status:\n", out);
  for (s = 0; s < NSTATUSES; s++)
    if (cmd->statuses & ST(s)) fprintf(out, "  %d  %s\n", s, status_text(cmd, s));
}

void cli_help_all(FILE *out) {
  int n;
  fputs("usage: lraf COMMAND [ARGS]\n"
        "       lraf COMMAND --help | lraf help [COMMAND | --markdown]\n"
        "       lraf --help | lraf --version\n\n"
        "commands:\n", out);
  for (n = 0; n < NCOMMANDS; n++) {
    synopsis(out, "  ", &commands[n]);
    indented(out, "      ", commands[n].summary);
  }
  fputs("\nNumbers take k, M, G (x 1000, 10^6, 10^9); byte sizes also "
        "KiB, MiB, GiB.\n", out);
}

/* Markdown cells: | is the only character to escape. */
static void md_cell(FILE *out, const char *s) {
  for (; *s; s++) {
    if (*s == '|') fputs("\\|", out);
    else if (*s == '\n') fputc(' ', out);
    else fputc(*s, out);
  }
}

void cli_help_markdown(FILE *out) {
  int n, o, s;
  fputs("Numbers take k, M, G (x 1000, 10^6, 10^9); byte sizes also KiB, "
        "MiB, GiB.\n", out);
  for (n = 0; n < NCOMMANDS; n++) {
    const cli_command *cmd = &commands[n];
    fprintf(out, "\n### lraf %s\n\n```\n", cmd->name);
    synopsis(out, "lraf ", cmd);
    fputs("```\n\n", out);
    fputc(toupper((unsigned char)cmd->summary[0]), out);
    md_cell(out, cmd->summary + 1);
    fputs(".\n\n| option | meaning |\n|---|---|\n", out);
    for (o = 0; o < CLI_NUM_OPTS; o++) {
      char opt[64];
      if (!takes(cmd, o)) continue;
      option_text(o, opt, sizeof opt);
      fputs("| `", out);
      md_cell(out, opt);
      fputs("` | ", out);
      md_cell(out, options[o].help);
      fputs(" |\n", out);
    }
    fputs("\n| exit status | meaning |\n|---|---|\n", out);
    for (s = 0; s < NSTATUSES; s++)
      if (cmd->statuses & ST(s))
        fprintf(out, "| %d | %s |\n", s, status_text(cmd, s));
  }
}
