/*
** cli_profile.c - lraf profile: run a script like lraf run and write
** its exact profile (lraf_profile_*) as a table, folded stacks,
** Callgrind's format, an SVG flame graph or JSON.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct profile_ctx {
  const char *format;
  const char *output;  /* NULL: standard output */
  int64_t top;
  int started;
} profile_ctx;

static const char usage_text[] =
  "usage: lraf profile [--format table|folded|callgrind|svg|json] [-o FILE]\n"
  "                    [--top N] [run options] SCRIPT [ARGS...]";

/* lraf run's options that take a value (they are passed on as is). */
static int run_option_with_value(const char *a) {
  static const char *const names[] = {"--limit", "--rate", "--granularity",
    "--mode", "--weights", "--report", "--memory-limit", NULL};
  int i;
  for (i = 0; names[i] != NULL; i++)
    if (strcmp(a, names[i]) == 0) return 1;
  return 0;
}

static int before(lraf_state *S, void *ud) {
  profile_ctx *p = ud;
  lraf_error err;
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
  if (lraf_profile_stop(S, &P, &err) != LRAF_OK) return cli_report(&err);
  fflush(stdout);
  if (p->output != NULL && (out = fopen(p->output, "w")) == NULL) {
    lraf_profile_free(P);
    return cli_error("cannot write the profile to %s", p->output);
  }
  st = lraf_profile_write(P, p->format, (int)p->top, out, &err);
  lraf_profile_free(P);
  if (out != stdout && fclose(out) != 0 && st == LRAF_OK)
    return cli_error("cannot write the profile to %s", p->output);
  return st == LRAF_OK ? CLI_OK : cli_report(&err);
}

int cli_profile(int argc, char **argv) {
  profile_ctx p;
  cli_run_hooks hooks;
  /* args[-1] is the program's name, as in the argv lraf run gets */
  char **mem = malloc(((size_t)argc + 2) * sizeof *mem), **args = mem + 1;
  int i, n = 0, rc;
  if (mem == NULL) return cli_error("out of memory");
  mem[0] = argv[-1];
  memset(&p, 0, sizeof p);
  p.format = "table";
  p.top = 20;
  args[n++] = argv[0];
  for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) break;
    if (strcmp(a, "--format") == 0 || strcmp(a, "-o") == 0 ||
        strcmp(a, "--top") == 0) {
      if (i + 1 >= argc) {
        free(mem);
        return cli_error("%s needs a value\n%s", a, usage_text);
      }
      if (a[1] == 'o') {
        p.output = argv[++i];
      } else if (strcmp(a, "--top") == 0) {
        if (!cli_parse_int(argv[++i], &p.top) || p.top > 1000000) {
          free(mem);
          return cli_error("--top needs an integer from 0 to 1000000");
        }
      } else {
        p.format = argv[++i];
        if (strcmp(p.format, "table") && strcmp(p.format, "folded") &&
            strcmp(p.format, "callgrind") && strcmp(p.format, "svg") &&
            strcmp(p.format, "json")) {
          free(mem);
          return cli_error("unknown format '%s' (table, folded, callgrind, "
                           "svg or json)\n%s", p.format, usage_text);
        }
      }
      continue;
    }
    args[n++] = argv[i];
    if (run_option_with_value(a) && i + 1 < argc) args[n++] = argv[++i];
  }
  for (; i < argc; i++) args[n++] = argv[i];
  args[n] = NULL;
  hooks.before = before;
  hooks.after = after;
  hooks.ud = &p;
  rc = cli_run_with(n, args, &hooks);
  free(mem);
  return rc;
}
