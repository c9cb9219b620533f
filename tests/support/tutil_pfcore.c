/*
** tutil_pfcore.c - the profile helpers of tutil_pfcore.h.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_pfcore.h"

pf_profile *tutil_pfcore_sample(int64_t g_self) {
  pf_profile *P = pf_new("test/model");
  int s, main_fn, f, g;
  static const char frames[4] = {0};
  assert_non_null(P);
  main_fn = pf_func_id(P, "m.lua", 0, "main chunk", 0);
  f = pf_func_id(P, "m.lua", 3, "f", 0);
  g = pf_func_id(P, "m.lua", 7, "g \"quoted\"\n\x01\xff", 0);
  s = pf_stack_id(P, (const void *)P, 0);
  pf_enter(P, s, main_fn, &frames[0]);
  pf_charge(P, pf_top(P, s), 10);
  pf_enter(P, s, f, &frames[1]);
  pf_charge(P, pf_top(P, s), 5);
  pf_enter(P, s, g, &frames[2]);
  pf_charge(P, pf_top(P, s), g_self);
  pf_leave(P, s);
  pf_leave(P, s);
  pf_enter(P, s, g, &frames[1]);
  pf_charge(P, pf_top(P, s), g_self);
  assert_int_equal(pf_unwind(P, s, &frames[0]), 1);  /* g unwound */
  pf_leave(P, s);
  pf_finish(P);
  return P;
}

char *tutil_pfcore_write(const pf_profile *P, pf_format fmt, int top,
                         size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  lraf_error err;
  assert_non_null(f);
  if (pf_write(P, fmt, top, f, &err) != LRAF_OK)
    fail_msg("pf_write: %s", err.message);
  fclose(f);
  if (len != NULL) *len = n;
  return buf;
}

void tutil_pfcore_read(const pf_profile *P, const char *name, pf_read *r) {
  size_t len;
  char *text = tutil_pfcore_write(P, PF_JSON, 0, &len);
  lraf_error err;
  if (pf_read_json(text, len, name, r, &err) != LRAF_OK)
    fail_msg("%s: %s\n%s", name, err.message, text);
  free(text);
}

int tutil_pfcore_boxes(const char *svg, tutil_box *box, int max) {
  const char *at = svg;
  int n = 0;
  while ((at = strstr(at, "<g class=\"f\" ")) != NULL && n < max) {
    tutil_box *b = &box[n];
    long long w;
    int len = 0;
    const char *fill;
    if (sscanf(at, "<g class=\"f\" data-o=\"%lf\" data-w=\"%lld\" "
               "data-d=\"%d\" data-n=\"%255[^\"]\"%n", &b->o, &w, &b->d,
               b->name, &len) < 4 || len == 0)
      fail_msg("a box that does not read: %.120s", at);
    b->w = (int64_t)w;
    fill = strstr(at, "fill=\"rgb(");
    if (fill == NULL || sscanf(fill, "fill=\"rgb(%d,%d,%d)", &b->rgb[0],
                               &b->rgb[1], &b->rgb[2]) != 3)
      fail_msg("a box without its colour: %.120s", at);
    at += len;
    n++;
  }
  return n;
}

int tutil_pfcore_xmllint(const char *text, size_t len) {
  char path[] = "/tmp/tutil_pfcore_XXXXXX";
  int fd, st;
  FILE *f;
  pid_t pid;
  if (access("/usr/bin/xmllint", X_OK) != 0) return -1;
  fd = mkstemp(path);
  assert_true(fd >= 0);
  f = fdopen(fd, "w");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    execl("/usr/bin/xmllint", "xmllint", "--noout", "--nonet", path,
          (char *)NULL);
    _exit(127);
  }
  assert_int_equal(waitpid(pid, &st, 0), pid);
  unlink(path);
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
