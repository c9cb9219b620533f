/*
** cli.h - internal interface of the lraf command: the subcommand
** entry points (one file cli/cli_<cmd>.c each), the option parser
** (cli_options.h) and the helpers they share.  Only the command
** includes this header.  The command uses the library through
** include/lraf.h alone (and Lua's own headers for the state it runs):
** no internal header of vm/, rewriter/, accounts/ or runtime/.
*/
#ifndef LRAF_CLI_H
#define LRAF_CLI_H

#include <stddef.h>

#include "lraf.h"
#include "cli_options.h"

/* Exit statuses of the command (cli_options.c says what each means). */
#define CLI_OK 0
#define CLI_EFAIL 1   /* the script failed, or an internal failure */
#define CLI_EUSAGE 2  /* bad usage or bad input */
#define CLI_EQUOTA 3  /* the instruction quota was exhausted */
#define CLI_EMEMORY 4 /* the memory limit was exceeded */

/* Subcommands. */
int cli_bench(int argc, char **argv);
int cli_disasm(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_rewrite(int argc, char **argv);

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

#endif
