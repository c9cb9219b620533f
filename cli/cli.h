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
#define CLI_ECONTRACT 6 /* a call exceeded its --contract declaration (5:
                           reserved for regressions, lraf diff/bench) */

/* Subcommands. */
int cli_bench(int argc, char **argv);
int cli_bound(int argc, char **argv);
int cli_disasm(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_rewrite(int argc, char **argv);
int cli_serve(int argc, char **argv);
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
/* Report err like cli_error; the status is CLI_EFAIL for LRAF_EMEM,
   CLI_EUSAGE otherwise. */
int cli_report(const lraf_error *err);

/* Read a whole file into a new malloc'ed buffer; the error says which
   file and why. */
lraf_status cli_read_file(const char *path, char **data, size_t *size,
                          lraf_error *err);
/* cli_read_file for a script: a '#' first line is blanked (lua5.4
   skips it; line numbers stay), and *name (free it) gets the chunk
   name "@path". */
lraf_status cli_read_script(const char *path, char **data, size_t *size,
                            char **name, lraf_error *err);

/* ---- cli_outcome.c: what lraf run reports ---- */
typedef struct cli_outcome {
  const char *script;
  const char *status;      /* ok error quota memory exit usage */
  int exit_code;
  const char *error;       /* the error's whole message, or NULL */
  lraf_mode mode;
  int exact, native;
  const char *native_why;  /* what turned native charging on */
  int64_t granularity;
  int64_t limit, memory;   /* < 0: none */
  double rate;             /* 0: none */
  double wall, cpu;
  int loading;             /* the stop came while loading the script */
} cli_outcome;
/* "instructions", "weighted units" or, with native charging, "units". */
const char *cli_unit_name(lraf_mode mode, int native);
/* The line on stderr for a quota or memory stop: the limit, where the
   script was, whether native charging was on and what it added. */
void cli_stop_message(const cli_outcome *o, lraf_state *S);
/* The JSON report and the summary (S may be NULL: no state). */
void cli_outcome_json(FILE *f, lraf_state *S, const cli_outcome *o);
void cli_outcome_summary(FILE *f, lraf_state *S, const cli_outcome *o);

/* ---- cli_contract.c: lraf run --contract (docs/bound.md) ---- */
#define CLI_MAX_CONTRACTS 256
typedef struct cli_contract {
  struct { char name[64]; int64_t max; } fn[CLI_MAX_CONTRACTS];
  int n;
  lraf_manager *stop;  /* the run's hierarchical manager: set to 0 and
                          charged to stop the script */
  int violated, which;
  int64_t used;        /* the violating call's instructions */
} cli_contract;
/* Read a contract file; an exit status (usage errors say where). */
int cli_contract_load(const char *path, cli_contract *k);
/* Make the globals wrap each contracted Lua function the script
   assigns (their __newindex); 0 when the globals have a metatable. */
struct lua_State;
int cli_contract_install(struct lua_State *L, cli_contract *k);

/* ---- cli_limits.c: helpers of run and bench ---- */
/* lraf_new failed under memory_limit: the usage error saying the limit
   is too small to start a state (and how much one takes), or, when
   that was not the reason, err as cli_report gives it. */
int cli_new_failed(const lraf_options *opt, const lraf_error *err);

#endif
