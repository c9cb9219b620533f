/*
** cli_rewrite.c - `lraf rewrite IN.lua|IN.luac -o OUT`: offline
** rewriting (J-RAF2's offline mode).  OUT carries lraf's marker and
** cost-model id, so only lraf_load_rewritten (and `lraf run`) load it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_text[] =
  "usage: lraf rewrite [--exact] [--mode original|overhead|weighted]\n"
  "                    [--weights FILE] IN.lua|IN.luac -o OUT";

int cli_rewrite(int argc, char **argv) {
  lraf_options opt;
  uint32_t weights[LRAF_NUM_OPCODES];
  const char *in = NULL, *out = NULL, *wfile = NULL;
  char *src, *name;
  size_t len, size;
  void *data;
  lraf_error err;
  FILE *f;
  int i;
  lraf_default_options(&opt);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--exact") == 0) {
      opt.exact = 1;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (strcmp(a, "--weights") == 0 && i + 1 < argc) {
      wfile = argv[++i];
      opt.mode = LRAF_MODE_WEIGHTED;
    } else if (strcmp(a, "--mode") == 0 && i + 1 < argc) {
      const char *m = argv[++i];
      if (strcmp(m, "original") == 0) opt.mode = LRAF_MODE_ORIGINAL;
      else if (strcmp(m, "overhead") == 0) opt.mode = LRAF_MODE_OVERHEAD;
      else if (strcmp(m, "weighted") == 0) opt.mode = LRAF_MODE_WEIGHTED;
      else return cli_error("unknown mode '%s'\n%s", m, usage_text);
    } else if (a[0] == '-' || in != NULL) {
      return cli_error("unexpected '%s'\n%s", a, usage_text);
    } else {
      in = a;
    }
  }
  if (in == NULL || out == NULL) return cli_error("%s", usage_text);
  if (opt.mode == LRAF_MODE_WEIGHTED) {
    char *text;
    if (wfile == NULL) return cli_error("--mode weighted needs --weights");
    if (cli_read_file(wfile, &text, &len, &err) != LRAF_OK)
      return cli_report(&err);
    if (lraf_parse_weights(text, len, weights, &err) != LRAF_OK) {
      free(text);
      return cli_report(&err);
    }
    free(text);
    opt.weights = weights;
  }
  if (cli_read_file(in, &src, &len, &err) != LRAF_OK) return cli_report(&err);
  name = malloc(strlen(in) + 2);
  if (name == NULL) {
    free(src);
    return cli_error("out of memory");
  }
  name[0] = '@';
  strcpy(name + 1, in);
  /* a '#' first line is skipped as lua5.4 does, keeping line numbers */
  if (len > 0 && src[0] == '#') {
    size_t k = 0;
    while (k < len && src[k] != '\n') src[k++] = ' ';
  }
  if (lraf_rewrite(&opt, src, len, name, &data, &size, &err) != LRAF_OK) {
    free(src);
    free(name);
    return cli_report(&err);
  }
  free(src);
  free(name);
  f = fopen(out, "wb");
  if (f == NULL || fwrite(data, 1, size, f) != size) {
    if (f != NULL) fclose(f);
    free(data);
    return cli_error("cannot write %s", out);
  }
  free(data);
  return fclose(f) == 0 ? CLI_OK : cli_error("cannot write %s", out);
}
