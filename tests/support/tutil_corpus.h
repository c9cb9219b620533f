/*
** tutil_corpus.h - the programs of tests/corpus for the suites that run
** every one against the count-hook oracle: listing them, and the lists
** of those the oracle cannot count exactly.
*/
#ifndef TUTIL_CORPUS_H
#define TUTIL_CORPUS_H

#define TUTIL_CORPUS "tests/corpus"

/* One program: its file name and its path from the repository's root. */
typedef struct tutil_corpus_file {
  char name[256];
  char path[512];
} tutil_corpus_file;

/* Programs whose count in the default mode may exceed the oracle's: a
   block is charged when it starts, and they abandon blocks (a caught
   error, a coroutine never resumed).  NULL-terminated. */
extern const char *const tutil_corpus_abandons_blocks[];
/* Programs with Lua __gc finalizers, which Lua runs with hooks off: the
   oracle does not count them, lraf does.  NULL-terminated. */
extern const char *const tutil_corpus_has_finalizers[];

/* Whether name is in the NULL-terminated list. */
int tutil_corpus_listed(const char *const *list, const char *name);
/* Whether LRAF_QUICK is set (under the sanitizers and valgrind), where
   suites run less. */
int tutil_corpus_quick(void);

/* Fill files with up to max of the corpus' .lua programs (in the order
   the directory lists them); returns how many.  Fails the running test
   when the directory cannot be read. */
int tutil_corpus_list(tutil_corpus_file *files, int max);
/* Call check on every program with exact, counting in *compared those
   checked against the oracle; fails the running test unless there are
   at least 20 programs and 20 were compared. */
void tutil_corpus_check_all(int exact,
                            void (*check)(const tutil_corpus_file *cf,
                                          int exact, int *compared));

#endif
