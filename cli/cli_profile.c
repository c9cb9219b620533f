/*
** cli_profile.c - lraf profile: run a script like lraf run and write
** its exact profile (lraf_profile_*) as a table, folded stacks,
** Callgrind's format, an SVG flame graph or JSON (docs/profiling.md).
** Without -o the profile is standard output, and the script's own
** output (print, io.write, io.stdout) goes to standard error, so that
** the profile stays clean for the tools it is piped to.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct profile_ctx {
  const char *format;
  const char *output;  /* NULL: standard output */
  int top;
  int started;
  int saved;           /* standard output's descriptor while the script
                          writes to standard error; -1: none */
} profile_ctx;

/* The script's standard output becomes standard error (descriptor 1
   points where 2 does) until restore. */
static int divert(profile_ctx *p) {
  fflush(stdout);
  p->saved = dup(1);
  if (p->saved < 0 || dup2(2, 1) < 0) {
    if (p->saved >= 0) close(p->saved);
    p->saved = -1;
    return cli_error("cannot send the script's output to standard error");
  }
  return CLI_OK;
}

static void restore(profile_ctx *p) {
  if (p->saved < 0) return;
  fflush(stdout);
  dup2(p->saved, 1);
  close(p->saved);
  p->saved = -1;
}

static int before(lraf_state *S, const cli_args *a, void *ud) {
  profile_ctx *p = ud;
  lraf_error err;
  p->format = a->format != NULL ? a->format : "table";
  p->output = a->output;
  p->top = a->top >= 0 ? (int)a->top : 20;
  if (strcmp(p->format, "table") && strcmp(p->format, "folded") &&
      strcmp(p->format, "callgrind") && strcmp(p->format, "svg") &&
      strcmp(p->format, "json"))
    return cli_error("unknown format '%s' (table, folded, callgrind, svg "
                     "or json)", p->format);
  if (p->output == NULL && divert(p) != CLI_OK) return CLI_EUSAGE;
  if (lraf_profile_start(S, &err) != LRAF_OK) {
    restore(p);
    return cli_report(&err);
  }
  p->started = 1;
  return CLI_OK;
}

static int after(lraf_state *S, void *ud) {
  profile_ctx *p = ud;
  lraf_profile *P;
  lraf_error err;
  FILE *out = stdout;
  lraf_status st;
  restore(p);
  if (!p->started) return CLI_OK;
  p->started = 0;
  if ((st = lraf_profile_stop(S, &P, &err)) != LRAF_OK) {
    int rc = cli_report(&err);
    return st == LRAF_EMEMLIMIT ? CLI_EMEMORY : rc;  /* --memory-limit */
  }
  fflush(stdout);
  if (p->output != NULL && (out = fopen(p->output, "w")) == NULL) {
    lraf_profile_free(P);
    return cli_error("cannot write the profile to %s", p->output);
  }
  st = lraf_profile_write(P, p->format, p->top, out, &err);
  lraf_profile_free(P);
  if (st == LRAF_OK && strncmp(lraf_model(S), "lraf-vm", 7) != 0)
    fprintf(strcmp(p->format, "table") == 0 ? out : stderr,  /* missing */
            "lraf profile: no per-line counts on the stock target (the "
            "lraf VM's target has them)\n");
  if (out != stdout && fclose(out) != 0 && st == LRAF_OK)
    return cli_error("cannot write the profile to %s", p->output);
  return st == LRAF_OK ? CLI_OK : cli_report(&err);
}

int cli_profile(int argc, char **argv) {
  profile_ctx p;
  cli_run_hooks hooks;
  memset(&p, 0, sizeof p);
  p.saved = -1;
  hooks.before = before;
  hooks.after = after;
  hooks.ud = &p;
  {
    int rc = cli_run_with(argc, argv, &hooks);
    restore(&p);
    return rc;
  }
}
