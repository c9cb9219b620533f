/*
** cli.h - internal interface of the lraf command: the subcommand
** entry points (one file cli/cli_<cmd>.c each), the option parser
** (cli_options.h) and the helpers they share.  Only the command
** includes this header.  The command uses the library through
** include/lraf.h alone (and Lua's own headers for the state it runs):
** no internal header of bytecode/, rewriter/, accounts/ or runtime/.
*/
#ifndef LRAF_CLI_H
#define LRAF_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "lraf.h"
#include "cli_options.h"

/* Exit statuses, the same for every subcommand (README, lraf(1),
   cli_options.c's help).
   `lraf run` exits with the script's own status when it calls os.exit. */
#define CLI_OK 0
#define CLI_EFAIL 1    /* the script failed (a Lua error, a syntax error);
                          bench: also os.exit with a failure status; or
                          lraf ran out of memory (as lua5.4: 1) */
#define CLI_EUSAGE 2   /* bad usage or bad input: options, files, a
                          chunk lraf refuses, a memory limit too small to
                          start a state, an unwritable report */
#define CLI_EQUOTA 3   /* the --limit quota was exceeded */
#define CLI_EMEMORY 4  /* the --memory-limit was exceeded */
#define CLI_EREGRESS 5 /* a gate failed (lraf diff, lraf bench
                          --baseline): a count
                          grew past --threshold and --min-change, or,
                          with --fail-on change, changed past them */
#define CLI_ECONTRACT 6 /* a call exceeded its --contract declaration (5:
                           reserved for regressions, lraf diff/bench) */
#define CLI_EMISMATCH 7 /* lraf bench --baseline: the baseline was made
                           with another cost model, lraf version or VM
                           (--allow-mismatch compares anyway) */

/* Subcommands. */
int cli_bench(int argc, char **argv);
int cli_bound(int argc, char **argv);
int cli_disasm(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_rewrite(int argc, char **argv);
int cli_serve(int argc, char **argv);
int cli_key(int argc, char **argv);
int cli_ledger(int argc, char **argv);
int cli_profile(int argc, char **argv);
int cli_diff(int argc, char **argv);

/* lraf run's body with callbacks around the script's call (lraf
   profile): the options are parsed for the subcommand argv[0];
   before(S, a, ud) runs just before the call and may refuse with an
   exit status; after(S, ud) runs once when the call ended, also
   through os.exit, and its status becomes the command's when the
   script succeeded. */
typedef struct cli_run_hooks {
  int (*before)(lraf_state *S, const cli_args *a, void *ud);
  int (*after)(lraf_state *S, void *ud);
  void *ud;
} cli_run_hooks;
int cli_run_with(int argc, char **argv, const cli_run_hooks *hooks);

/* Print "lraf: <message>" on stderr and return CLI_EUSAGE. */
int cli_error(const char *fmt, ...);
/* What cli_error prints before the message instead of "lraf: " (e.g.
   "lraf-lua: LRAF_OPTIONS: "); p must live as long as it is used. */
void cli_set_prefix(const char *p);
/* Report err like cli_error; the status is CLI_EFAIL for LRAF_EMEM,
   CLI_EUSAGE otherwise. */
int cli_report(const lraf_error *err);

/* "lraf 0.1.0 on the lraf VM (Lua 5.4.4 ...)" or "... on stock Lua
   (built against Lua 5.4.6)": lraf --version, lraf-lua -v. */
void cli_version(FILE *out);

/* lraf_call with Ctrl-C as lua5.4 has it: SIGINT raises "interrupted!"
   in the running chunk (a second one kills). */
lraf_status cli_call_interruptible(lraf_state *S, int nargs, int nres,
                                   lraf_error *err);

/* Read a whole file into a new malloc'ed buffer; the error says which
   file and why. */
lraf_status cli_read_file(const char *path, char **data, size_t *size,
                          lraf_error *err);
/* cli_read_file of at most max bytes: a longer file (/dev/zero) is
   LRAF_ELIMIT, found before much more than max bytes are read. */
lraf_status cli_read_file_max(const char *path, size_t max, char **data,
                              size_t *size, lraf_error *err);
/* The most a --key-file and a --weights file may hold. */
#define CLI_KEY_MAX ((size_t)64 * 1024)
#define CLI_WEIGHTS_MAX ((size_t)1024 * 1024)
/* cli_read_file for a script: a '#' first line is blanked (lua5.4
   skips it; line numbers stay), and *name (free it) gets the chunk
   name "@path". */
lraf_status cli_read_script(const char *path, char **data, size_t *size,
                            char **name, lraf_error *err);

/* A script read once (a pipe, /dev/stdin, a FIFO or <(...) can be read
   only once): its bytes, its chunk name ("@path", "=stdin") and whether
   it is a chunk rewritten offline (lraf rewrite).  Source gets a UTF-8
   BOM and a '#' first line blanked, as lua5.4 skips them. */
typedef struct cli_script {
  char *data;
  size_t size;
  char *name;
  int offline;
} cli_script;
/* Read path (NULL: standard input); the error names the file. */
lraf_status cli_script_read(const char *path, cli_script *s,
                            lraf_error *err);
/* Load it into S (lraf_load_rewritten or lraf_load_string); may be
   called again for each fresh state (lraf bench). */
lraf_status cli_script_load(lraf_state *S, const cli_script *s,
                            lraf_error *err);
void cli_script_free(cli_script *s);

/* ---- cli_outcome.c: what lraf run reports ---- */
typedef struct cli_outcome {
  const char *script;
  const char *status;      /* ok error quota memory exit usage */
  int exit_code;
  const char *error;       /* the error's whole message, or NULL */
  lraf_mode mode;
  int exact, native;
  int deterministic;       /* the state was deterministic */
  const char *native_why;  /* what turned native charging on */
  int64_t granularity;
  int64_t limit, memory;   /* < 0: none */
  double rate;             /* 0: none */
  double wall, cpu;
  int loading;             /* the stop came while loading the script */
  const char *timeline;    /* --timeline's file, or NULL */
  const lraf_timeline_summary *tsum;  /* with timeline */
  double expect_share;     /* --expect-share; 0: none */
} cli_outcome;
/* "instructions", "weighted units" or, with native charging, "units". */
const char *cli_unit_name(lraf_mode mode, int native);
/* The line on stderr for a quota or memory stop: the limit, where the
   script was, whether native charging was on and what it added. */
void cli_stop_message(const cli_outcome *o, lraf_state *S);
/* The JSON report and the summary (S may be NULL: no state). */
void cli_outcome_json(FILE *f, lraf_state *S, const cli_outcome *o);
void cli_outcome_summary(FILE *f, lraf_state *S, const cli_outcome *o);

/* ---- cli_gate.c: the CI gate of lraf diff and lraf bench ---- */
/* A gate's threshold is held exactly, in millionths of a percent (2.5%
   is 2500000): --threshold and a suite's threshold= take a decimal from
   0 to CLI_THRESHOLD_MAX percent with at most 6 decimals. */
#define CLI_THRESHOLD_SCALE INT64_C(1000000)
#define CLI_THRESHOLD_MAX INT64_C(1000000000000)
#define CLI_THRESHOLD_RULE \
  "a percentage from 0 to 1000000000000 with at most 6 decimals"
typedef struct cli_gate {
  int on;              /* --threshold, --min-change or --fail-on given */
  int64_t threshold;   /* millionths of a percent; a change must be
                          larger (0: any) */
  int64_t min_change;  /* a change must be at least this many units */
  int fail_on_change;  /* improvements fail too */
} cli_gate;
typedef enum cli_verdict {
  CLI_SAME,        /* equal, or within the gate */
  CLI_REGRESSION,  /* grew past the gate */
  CLI_IMPROVEMENT  /* shrank past the gate */
} cli_verdict;
void cli_gate_of(const cli_args *a, cli_gate *g);
cli_verdict cli_gate_judge(const cli_gate *g, int64_t before, int64_t after);
/* Whether a verdict fails the gate. */
int cli_gate_fails(const cli_gate *g, cli_verdict v);
const char *cli_verdict_name(cli_verdict v);
/* The threshold that s writes, in millionths of a percent; -1 when s is
   not CLI_THRESHOLD_RULE. */
int64_t cli_threshold_of(const char *s);
/* A threshold as the shortest decimal that is exactly it ("0.25"). */
void cli_threshold_write(FILE *out, int64_t threshold);
/* "threshold 2%, min-change 0, fail on regression". */
void cli_gate_text(FILE *out, const cli_gate *g);
/* The gate's result over rows of which fails failed and regressions
   regressed: "pass", "regression", "change" or "no gate". */
const char *cli_gate_result(const cli_gate *g, int fails, int regressions);
/* The change in percent as text: "+1.25%", "new", "gone" or "0.00%". */
void cli_percent(char *buf, size_t size, int64_t before, int64_t after);
/* s as a JSON string, s as a Markdown table cell. */
void cli_json_str(FILE *out, const char *s);
void cli_md_cell(FILE *out, const char *s);
/* Which --format of diff and bench: 0 text, 1 markdown, 2 json; -1
   (reported) when unknown. */
int cli_report_format(const cli_args *a, const char *cmd);
/* ---- cli_contract.c: lraf run --contract (docs/bound.md) ---- */
#define CLI_MAX_CONTRACTS 256
#define CLI_CONTRACT_CALLS 256   /* contracted calls in progress at once */
typedef struct cli_contract_call {
  lraf_account *a;       /* the calling thread's account, bound to child */
  lraf_manager *child;   /* a budget of the declaration (NULL: slot free) */
  lraf_manager *outer;   /* the account's manager before the call */
  int64_t start;         /* the account's consumption at the call */
  int64_t seq;           /* when the call began (the latest is innermost) */
  int fn;
} cli_contract_call;
typedef struct cli_contract {
  struct { char name[64]; int64_t max; } fn[CLI_MAX_CONTRACTS];
  int n;
  lraf_manager *stop;  /* the run's hierarchical manager: set to 0 and
                          charged to stop the script */
  int violated, which;
  int64_t used;        /* the violating call's instructions */
  cli_contract_call call[CLI_CONTRACT_CALLS];
  int ncall;           /* slots used so far (free ones have no child) */
  int64_t seq;
} cli_contract;
/* Read a contract file; an exit status (usage errors say where). */
int cli_contract_load(const char *path, cli_contract *k);
/* The declaration for name in k (the last line wins): 1 with *max set,
   or 0. */
int cli_contract_find(const cli_contract *k, const char *name,
                      int64_t *max);
/* Make the globals wrap each contracted Lua function the script
   assigns (their __newindex); 0 when the globals have a metatable.
   While a wrapped call runs, its thread's account is bound to a budget
   of the declaration, so a call that exceeds it stops at once. */
struct lua_State;
int cli_contract_install(struct lua_State *L, cli_contract *k);
/* After a quota stop: whether a contracted call in progress had spent
   its declaration (then violated, which and used are set). */
int cli_contract_blame(cli_contract *k, lraf_state *S);
/* Release the budgets of calls still in progress, and k (NULL: none). */
void cli_contract_free(cli_contract *k);

/* --timeline (cli_timeline.c).  Open path for writing (*f NULL when
   path is NULL); CLI_OK or a usage error, said. */
int cli_timeline_open(const char *path, FILE **f);
/* Write timeline tl to f (an SVG when path ends in .svg) and close f;
   sum gets the figures.  With expect_share > 0 (a fraction) warn on
   stderr when a window got less.  0 when the write failed, said. */
int cli_timeline_finish(lraf_manager *tl, FILE *f, const char *path,
                        const char *title, double expect_share,
                        lraf_timeline_summary *sum);
/* The figures as one "lraf: timeline ..." line. */
void cli_timeline_line(FILE *f, const char *path,
                       const lraf_timeline_summary *s);

/* ---- cli_limits.c: helpers of run and bench ---- */
/* lraf_new failed under memory_limit: the usage error saying the limit
   is too small to start a state (and how much one takes), or, when
   that was not the reason, err as cli_report gives it. */
int cli_new_failed(const lraf_options *opt, const lraf_error *err);
/* The manager over a run: a limit (hierarchical over a rate when there
   is one, rate > 0), the rate alone, or a total; NULL: out of memory. */
lraf_manager *cli_manager_new(int64_t limit, double rate);
/* Whether native work is charged: --native / --no-native, else with a
   limit, a memory limit or the sandbox; *why says what decided. */
int cli_native(const cli_args *a, const char **why);

#endif
