/*
** tutil_corpus.c - the corpus' programs for oracle suites (see
** tutil_corpus.h).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_corpus.h"

const char *const tutil_corpus_abandons_blocks[] = {
  "coroutines.lua", "errors.lua", "json.lua", "loops.lua", "metatables.lua",
  "numbers.lua", "strings.lua", "tables.lua", "closures.lua", "varargs.lua",
  "nesting.lua", "utf8lib.lua", "pcallnest.lua", NULL
};
const char *const tutil_corpus_has_finalizers[] = {"metatables.lua", NULL};

int tutil_corpus_listed(const char *const *list, const char *name) {
  for (; *list != NULL; list++)
    if (strcmp(*list, name) == 0) return 1;
  return 0;
}

int tutil_corpus_quick(void) {
  return getenv("LRAF_QUICK") != NULL;
}

int tutil_corpus_list(tutil_corpus_file *files, int max) {
  DIR *d = opendir(TUTIL_CORPUS);
  struct dirent *e;
  int n = 0;
  assert_non_null(d);
  while ((e = readdir(d)) != NULL && n < max) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".lua") == 0) {
      snprintf(files[n].name, sizeof files[n].name, "%s", e->d_name);
      snprintf(files[n].path, sizeof files[n].path, TUTIL_CORPUS "/%s",
               e->d_name);
      n++;
    }
  }
  closedir(d);
  return n;
}

void tutil_corpus_check_all(int exact,
                            void (*check)(const tutil_corpus_file *cf,
                                          int exact, int *compared)) {
  tutil_corpus_file files[128];
  int n = tutil_corpus_list(files, 128), i, compared = 0;
  assert_true(n >= 20);
  for (i = 0; i < n; i++) check(&files[i], exact, &compared);
  assert_true(compared >= 20);
}
