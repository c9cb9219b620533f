/*
** cli.h - internal interface of the lraf command: the subcommand
** entry points (one file cli/cli_<cmd>.c each) and the helpers
** they share.  Only the command includes this header.
*/
#ifndef LRAF_CLI_H
#define LRAF_CLI_H

#include <stddef.h>

#include "lraf.h"
#include "vm.h"

/* Exit statuses of the command. */
#define CLI_OK 0
#define CLI_EFAIL 1   /* an internal failure, e.g. out of memory */
#define CLI_EUSAGE 2  /* bad usage or bad input */

/* A subcommand: argv[0] is the subcommand name; returns an exit status. */
typedef int (*cli_fn)(int argc, char **argv);

/* Subcommands. */
int cli_bench(int argc, char **argv);
int cli_disasm(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_rewrite(int argc, char **argv);

/* lraf run with callbacks around the script's call (lraf profile):
   before(S, ud) runs just before it and may refuse with an exit
   status; after(S, ud) runs once when it ended, also through os.exit,
   and its status becomes the command's when the script succeeded. */
typedef struct cli_run_hooks {
  int (*before)(lraf_state *S, void *ud);
  int (*after)(lraf_state *S, void *ud);
  void *ud;
} cli_run_hooks;
int cli_run_with(int argc, char **argv, const cli_run_hooks *hooks);
int cli_profile(int argc, char **argv);
int cli_diff(int argc, char **argv);

/* Parse a whole decimal integer of at least 0 into *v; 0 when s is not
   one. */
int cli_parse_int(const char *s, int64_t *v);
/* Print "lraf: <message>" on stderr and return CLI_EUSAGE. */
int cli_error(const char *fmt, ...);
/* Report err like cli_error; the status is CLI_EFAIL for LRAF_EMEM,
   CLI_EUSAGE otherwise. */
int cli_report(const lraf_error *err);

/* Read a whole file into a new malloc'ed buffer. */
lraf_status cli_read_file(const char *path, char **data, size_t *size,
                          lraf_error *err);
/* Load FILE.lua (compiled, then dumped with debug info) or a binary
   chunk (a file starting with "\x1bLua", read as is) into a chunk. */
lraf_status cli_load_chunk(const char *path, vm_chunk **out, lraf_error *err);

#endif
