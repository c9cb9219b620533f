/*
** cli_options.h - the one option parser of the lraf command.  A table
** of options (name, kind of value, range, one line of help) and a table
** of subcommands (which options each takes, its operands, its exit
** statuses) are the single source of truth: every subcommand parses its
** command line with cli_parse, so an option means the same everywhere,
** and `lraf X --help`, `lraf --help` and `lraf help --markdown` (the
** README's tables) are printed from the same tables.
*/
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "lraf.h"

/* The options.  Their numbers index the option table and are the bits
   of cli_command.options. */
typedef enum cli_opt {
  CLI_OPT_RUNS,          /* -n N */
  CLI_OPT_OUTPUT,        /* -o OUT */
  CLI_OPT_LIMIT,         /* --limit N */
  CLI_OPT_RATE,          /* --rate N */
  CLI_OPT_MEMORY_LIMIT,  /* --memory-limit BYTES */
  CLI_OPT_GRANULARITY,   /* --granularity N */
  CLI_OPT_EXACT,         /* --exact */
  CLI_OPT_MODE,          /* --mode original|overhead|weighted */
  CLI_OPT_WEIGHTS,       /* --weights FILE */
  CLI_OPT_VM,            /* --vm lraf|stock */
  CLI_OPT_SANDBOX,       /* --sandbox */
  CLI_OPT_NATIVE,        /* --native */
  CLI_OPT_NO_NATIVE,     /* --no-native */
  CLI_OPT_REPORT,        /* --report FILE|- */
  CLI_OPT_FORMAT,        /* --format FORMAT (lraf profile) */
  CLI_OPT_TOP,           /* --top N (lraf profile, lraf diff) */
  CLI_OPT_THRESHOLD,     /* --threshold P (lraf diff) */
  CLI_OPT_ALLOW_DIR,     /* --allow-dir DIR (repeatable) */
  CLI_OPT_ALLOW_MODULE,  /* --allow-module NAME (repeatable) */
  CLI_OPT_ALLOW_OFFLINE, /* --allow-offline */
  CLI_OPT_KEY_FILE,      /* --key-file FILE */
  CLI_OPT_HELP,          /* --help */
  /* lraf serve */
  CLI_OPT_PORT,          /* --port N */
  CLI_OPT_BIND,          /* --bind ADDR */
  CLI_OPT_WORKERS,       /* --workers N */
  CLI_OPT_REQUEST_LIMIT, /* --request-limit TENANT=N */
  CLI_OPT_QUOTA,         /* --quota TENANT=N */
  CLI_OPT_TENANT_RATE,   /* --rate TENANT=N: serve's per-tenant --rate */
  CLI_OPT_SERVE_MEMORY,  /* --memory-limit BYTES: serve's, per state */
  CLI_OPT_LEDGER,        /* --ledger SPEC */
  CLI_OPT_SLICE,         /* --slice N */
  CLI_OPT_NO_METERING,   /* --no-metering */
  CLI_OPT_DETERMINISTIC,    /* --deterministic */
  CLI_OPT_NO_DETERMINISTIC, /* --no-deterministic */
  CLI_OPT_MAX_TENANTS,   /* --max-tenants N */
  CLI_OPT_MAX_CONNECTIONS, /* --max-connections N */
  CLI_OPT_MAX_PER_IP,    /* --max-connections-per-ip N */
  CLI_OPT_IDLE_TIMEOUT,  /* --idle-timeout SECONDS */
  CLI_OPT_TENANTS,       /* --tenants FILE: API keys to tenants */
  CLI_OPT_ADMIN_TOKEN,   /* --admin-token-file FILE */
  /* gates: lraf diff, lraf bench */
  CLI_OPT_MIN_CHANGE,    /* --min-change N */
  CLI_OPT_FAIL_ON,       /* --fail-on regression|change */
  CLI_OPT_MAX_COUNT,     /* --max-count N (bench) */
  CLI_OPT_REPORT_FORMAT, /* --format text|markdown|json (diff) */
  CLI_OPT_TIMELINE,      /* --timeline FILE */
  CLI_OPT_EXPECT_SHARE,  /* --expect-share P */
  /* declared costs (lraf bound, lraf run) */
  CLI_OPT_WRITE_CONTRACT, /* --write-contract FILE (lraf bound) */
  CLI_OPT_CONTRACT,      /* --contract FILE (lraf run) */
  /* lraf bench: baselines, suites, wall time */
  CLI_OPT_RUNS_LONG,     /* --runs N: -n N */
  CLI_OPT_WARMUP,        /* --warmup N */
  CLI_OPT_SAVE_BASELINE, /* --save-baseline NAME */
  CLI_OPT_BASELINE,      /* --baseline NAME */
  CLI_OPT_BASELINE_DIR,  /* --baseline-dir DIR */
  CLI_OPT_ALLOW_MISMATCH, /* --allow-mismatch */
  CLI_OPT_SUITE,         /* --suite FILE */
  CLI_OPT_EXPORT_JSON,   /* --export-json FILE */
  CLI_OPT_EXPORT_MARKDOWN, /* --export-markdown FILE */
  /* lraf ledger */
  CLI_OPT_TENANT,        /* --tenant T */
  CLI_OPT_UNITS,         /* --units +N|-N (adjust) */
  CLI_OPT_REASON,        /* --reason TEXT (adjust) */
  CLI_OPT_FROM,          /* --from TIME */
  CLI_OPT_TO,            /* --to TIME */
  CLI_OPT_EXPORT_FORMAT, /* --format csv|jsonl|cloudevents (export) */
  CLI_OPT_PERIOD,        /* --period day|month (verify) */
  /* the second mask (cli_command.options2) from here on */
  CLI_OPT_DURABILITY,    /* --ledger-durability power|process (serve) */
  CLI_NUM_OPTS
} cli_opt;

#define CLI_BIT(o) (UINT64_C(1) << (o))
/* the options from the 65th on: their bit of cli_command.options2 */
#define CLI_BIT2(o) (UINT64_C(1) << ((o) - 64))
/* every option has a bit of a command's two 64-bit masks */
_Static_assert(CLI_NUM_OPTS <= 128, "more options than two masks hold");

/* How a subcommand's operands follow its options. */
typedef enum cli_operands {
  CLI_OPERANDS_AFTER, /* options stop at the first operand or "--"; the
                         operands and everything after them are the
                         subcommand's (run, bench) */
  CLI_OPERANDS_MIXED  /* options and operands in any order; "--" ends
                         the options (rewrite, disasm) */
} cli_operands;

/* A subcommand: argv[0] is its name; returns an exit status. */
typedef int (*cli_fn)(int argc, char **argv);

typedef struct cli_command {
  const char *name;
  cli_fn run;
  uint64_t options;        /* CLI_BIT(o) for each option it takes */
  cli_operands layout;
  const char *operands;    /* e.g. "SCRIPT [ARGS...]" */
  const char *summary;     /* what it does, one or two lines */
  unsigned statuses;       /* 1u << status for each exit status */
  uint64_t options2;       /* CLI_BIT2(o) for each option from the 65th */
} cli_command;

/* A per-tenant value: TENANT=N, TENANT "*" for every other tenant. */
typedef struct cli_tenant_value {
  cli_opt opt;
  char tenant[65];
  int64_t value;
  lraf_period period;     /* --quota T=N/day, /month */
} cli_tenant_value;

#define CLI_MAX_TENANT_VALUES 64
/* How many --allow-dir (and --allow-module) options a command takes. */
#define CLI_MAX_ALLOW 32

/* What the options said.  opt starts as lraf_default_options. */
typedef struct cli_args {
  lraf_options opt;       /* mode, exact, granularity, env, weights */
  uint32_t weights[LRAF_NUM_OPCODES];
  int64_t limit;          /* --limit; -1: none */
  int64_t memory;         /* --memory-limit in bytes; -1: none */
  int native;             /* 1 --native, 0 --no-native, -1 not said */
  double rate;            /* --rate; 0: none */
  const char *report;     /* --report; NULL: none */
  const char *output;     /* -o; NULL: none */
  const char *format;     /* --format; NULL: not said */
  int64_t top;            /* --top; -1: not said */
  int64_t threshold;      /* --threshold in millionths of a percent;
                             -1: none */
  int64_t min_change;     /* --min-change; -1: none */
  int64_t max_count;      /* --max-count; -1: none */
  int fail_on_change;     /* --fail-on change (else regression) */
  int fail_on_set;        /* --fail-on was given */
  int runs;               /* -n; 0: not said */
  const char *timeline;   /* --timeline; NULL: none */
  double expect_share;    /* --expect-share as a fraction; 0: none */
  /* lraf serve */
  int port, workers;      /* -1: not said */
  const char *bind, *ledger;
  const char *durability; /* --ledger-durability; NULL: power */
  int64_t slice;          /* 0: not said */
  int no_metering;
  int64_t max_tenants, max_conns, max_per_ip, idle_timeout; /* -1: not said */
  const char *keys_file, *admin_token_file;   /* NULL: not said */
  const char *tenant, *units, *reason, *from, *to, *period;  /* ledger */
  cli_tenant_value tenants[CLI_MAX_TENANT_VALUES];  /* in order given */
  int ntenants;
  int first;              /* argv index of the first operand */
  int noperands;          /* operands from argv[first] on (MIXED: moved
                             there in order; AFTER: argc - first) */
  const char *contract;       /* --contract; NULL: none */
  const char *write_contract; /* --write-contract; NULL: none */
  /* lraf bench */
  int warmup;                 /* --warmup; 0: none */
  const char *save_baseline;  /* --save-baseline NAME; NULL: none */
  const char *baseline;       /* --baseline NAME; NULL: none */
  const char *baseline_dir;   /* --baseline-dir; NULL: .lraf/baselines */
  int allow_mismatch;         /* --allow-mismatch */
  const char *suite;          /* --suite FILE; NULL: none */
  const char *export_json;    /* --export-json FILE; NULL: none */
  const char *export_markdown; /* --export-markdown FILE; NULL: none */
  int ndirs, nmodules;     /* --allow-dir, --allow-module given (opt
                             points to lists that live as long as the
                             process) */
} cli_args;

/* cli_parse's status when --help was given and printed: exit 0. */
#define CLI_HELP (-1)

/* The subcommand named name, or NULL. */
const cli_command *cli_command_find(const char *name);

/* Parse the options of cmd in argv[1..argc-1] into a.  Returns CLI_OK,
   CLI_HELP, or the exit status of an error already reported on stderr
   (e.g. "--limit needs a non-negative integer, not 'x'",
   "--limit 1e99 is too large (at most ...)").  Reads the --weights file
   and checks that --mode and --weights agree. */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a);

/* cli_parse over the words of text (e.g. $LRAF_OPTIONS for lraf-lua):
   blanks separate words, '...' and "..." quote; the same options,
   values and messages as on cmd's command line, and no operands.  The
   strings a points to live until the next call. */
int cli_parse_text(const cli_command *cmd, const char *text, cli_args *a);

/* Help: the usage lines of one subcommand (what errors print), its full
   help (`lraf X --help`: options one a line and exit statuses), the
   help of the whole command, and every subcommand's option table in
   Markdown (the README's tables). */
void cli_usage(FILE *out, const cli_command *cmd);
void cli_help(FILE *out, const cli_command *cmd);
void cli_help_all(FILE *out);
void cli_help_markdown(FILE *out);

#endif
