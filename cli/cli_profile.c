/*
** cli_profile.c - lraf profile: run a script like lraf run and write
** its exact profile (lraf_profile_*) as a table, folded stacks,
** Callgrind's format, an SVG flame graph or JSON (docs/profiling.md).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct profile_ctx {
  const char *format;
  const char *output;  /* NULL: standard output */
  int top;
  int started;
} profile_ctx;

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
  if (lraf_profile_start(S, &err) != LRAF_OK) return cli_report(&err);
  p->started = 1;
  return CLI_OK;
}

static int after(lraf_state *S, void *ud) {
  profile_ctx *p = ud;
  lraf_profile *P;
  lraf_error err;
  FILE *out = stdout;
  lraf_status st;
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
  hooks.before = before;
  hooks.after = after;
  hooks.ud = &p;
  return cli_run_with(argc, argv, &hooks);
}
