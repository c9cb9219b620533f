/*
** tutil_sh.c - shell commands for tests (see tutil_sh.h).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tutil_run.h"
#include "tutil_sh.h"

int tutil_sh_init(tutil_sh *sh, const char *tag) {
  snprintf(sh->dir, sizeof sh->dir, "/tmp/lraf-%s-XXXXXX", tag);
  if (mkdtemp(sh->dir) == NULL) return -1;
  snprintf(sh->out, sizeof sh->out, "%s/out.txt", sh->dir);
  snprintf(sh->err, sizeof sh->err, "%s/err.txt", sh->dir);
  return 0;
}

int tutil_sh_cleanup(tutil_sh *sh) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", sh->dir);
  return system(cmd) == 0 ? 0 : -1;
}

const char *tutil_sh_lraf(void) {
  const char *p = getenv("LRAF");
  return p ? p : "build/lraf";
}

int tutil_sh_exec(const char *cmd, const char *out, const char *err) {
  char full[4096];
  int st;
  snprintf(full, sizeof full, "%s > '%s' 2> '%s'", cmd, out, err);
  st = system(full);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(tutil_sh *sh, const char *prefix, const char *fmt,
               va_list ap) {
  char args[2048], cmd[3072];
  vsnprintf(args, sizeof args, fmt, ap);
  snprintf(cmd, sizeof cmd, "%s%s", prefix, args);
  return tutil_sh_exec(cmd, sh->out, sh->err);
}

int tutil_sh_run(tutil_sh *sh, const char *fmt, ...) {
  va_list ap;
  int st;
  va_start(ap, fmt);
  st = run(sh, "", fmt, ap);
  va_end(ap);
  return st;
}

int tutil_sh_lraf_run(tutil_sh *sh, const char *fmt, ...) {
  char prefix[1024];
  const char *lraf = tutil_sh_lraf();
  va_list ap;
  int st;
  /* a relative $LRAF names a file from the directory the test started
     in, which the shell keeps in $OLDPWD after the cd */
  snprintf(prefix, sizeof prefix, "cd '%s' && %s%s ", sh->dir,
           lraf[0] == '/' ? "" : "\"$OLDPWD\"/", lraf);
  va_start(ap, fmt);
  st = run(sh, prefix, fmt, ap);
  va_end(ap);
  return st;
}

int tutil_sh_lraf_here(tutil_sh *sh, const char *fmt, ...) {
  char prefix[1024];
  va_list ap;
  int st;
  snprintf(prefix, sizeof prefix, "%s ", tutil_sh_lraf());
  va_start(ap, fmt);
  st = run(sh, prefix, fmt, ap);
  va_end(ap);
  return st;
}

int tutil_sh_write(tutil_sh *sh, const char *name, const char *text) {
  char path[256];
  FILE *f;
  int ok;
  snprintf(path, sizeof path, "%s/%s", sh->dir, name);
  if ((f = fopen(path, "w")) == NULL) return -1;
  ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}

void tutil_sh_put(tutil_sh *sh, const char *name, const char *text) {
  if (tutil_sh_write(sh, name, text) != 0)
    fail_msg("cannot write %s/%s", sh->dir, name);
}

char *tutil_sh_read(const char *path) {
  size_t len;
  char *s = tutil_run_slurp(path, &len);
  if (s == NULL) fail_msg("cannot read %s", path);
  return s;
}

char *tutil_sh_slurp(tutil_sh *sh, const char *name) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", sh->dir, name);
  return tutil_sh_read(path);
}

int tutil_sh_setup(tutil_sh *sh, const char *tag, const tutil_file *files,
                   size_t n) {
  size_t i;
  if (tutil_sh_init(sh, tag) != 0) return -1;
  for (i = 0; i < n; i++)
    if (tutil_sh_write(sh, files[i].name, files[i].text) != 0) return -1;
  return 0;
}

void tutil_sh_expect(const char *path, const char *text) {
  size_t len;
  char *s = tutil_run_slurp(path, &len);
  if (s == NULL) fail_msg("cannot read %s", path);
  if (strstr(s, text) == NULL) fail_msg("%s: '%s' lacks '%s'", path, s, text);
  free(s);
}
