/*
** tutil_sqlite.h - reading an SQLite ledger file from a test (a test
** that calls it links -lsqlite3).
*/
#ifndef TUTIL_SQLITE_H
#define TUTIL_SQLITE_H

#include <stdint.h>

/* The first column of sql's first row in the database file at path
   (opened read-only, waiting up to 5 s for a lock), or -1. */
int64_t tutil_sqlite_int(const char *path, const char *sql);

#endif
