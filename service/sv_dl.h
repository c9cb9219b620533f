/*
** sv_dl.h - libsqlite3 and libpq, opened at run time on first use
** (sv_dl.c), so that a process that only meters never maps them, nor
** the libraries they pull in.
**
** Each table holds the functions service/ calls, with the prototypes of
** <sqlite3.h> and <libpq-fe.h>, and is filled once.  Call a table only
** after its loader returned 1.
*/
#ifndef SV_DL_H
#define SV_DL_H

#include <stddef.h>

#include <libpq-fe.h>
#include <sqlite3.h>

/* ---- what the two loaders share ---- */

/* dlopen the library named by environment variable env when set (the
   test hook, and a way to point at another copy), else soname; NULL
   with why = "cannot load NAME (what): dlerror's text". */
void *sv_dl_open(const char *env, const char *soname, const char *what,
                 char *why, size_t size);
/* Store symbol name of handle h into the function pointer at slot (of
   size bytes); 0 with why set when h has no such symbol. */
int sv_dl_sym(void *h, const char *name, void *slot, size_t size, char *why,
              size_t whysize);

/* ---- libsqlite3 ---- */
typedef struct sv_dl_sqlite {
  int (*open_v2)(const char *filename, sqlite3 **ppDb, int flags,
                 const char *zVfs);
  int (*close)(sqlite3 *);
  int (*busy_timeout)(sqlite3 *, int ms);
  int (*exec)(sqlite3 *, const char *sql,
              int (*callback)(void *, int, char **, char **), void *,
              char **errmsg);
  const char *(*errmsg)(sqlite3 *);
  int (*prepare_v2)(sqlite3 *db, const char *zSql, int nByte,
                    sqlite3_stmt **ppStmt, const char **pzTail);
  int (*bind_text)(sqlite3_stmt *, int, const char *, int, void (*)(void *));
  int (*bind_int)(sqlite3_stmt *, int, int);
  int (*bind_int64)(sqlite3_stmt *, int, sqlite3_int64);
  int (*bind_null)(sqlite3_stmt *, int);
  int (*step)(sqlite3_stmt *);
  int (*column_int)(sqlite3_stmt *, int iCol);
  sqlite3_int64 (*column_int64)(sqlite3_stmt *, int iCol);
  const unsigned char *(*column_text)(sqlite3_stmt *, int iCol);
  int (*reset)(sqlite3_stmt *pStmt);
  int (*finalize)(sqlite3_stmt *pStmt);
  int (*changes)(sqlite3 *);
  int (*wal_checkpoint_v2)(sqlite3 *db, const char *zDb, int eMode,
                           int *pnLog, int *pnCkpt);
} sv_dl_sqlite;

extern sv_dl_sqlite sv_sq;
/* Open libsqlite3 once; 1, or 0 with *why set to a message naming the
   library and dlerror's text (the same one on every later call). */
int sv_dl_sqlite_load(const char **why);

/* ---- libpq ---- */
typedef struct sv_dl_pg {
  PGconn *(*connectdb)(const char *conninfo);
  ConnStatusType (*status)(const PGconn *conn);
  void (*reset)(PGconn *conn);
  void (*finish)(PGconn *conn);
  char *(*errorMessage)(const PGconn *conn);
  PGresult *(*exec)(PGconn *conn, const char *query);
  PGresult *(*execParams)(PGconn *conn, const char *command, int nParams,
                          const Oid *paramTypes,
                          const char *const *paramValues,
                          const int *paramLengths, const int *paramFormats,
                          int resultFormat);
  ExecStatusType (*resultStatus)(const PGresult *res);
  char *(*resultErrorField)(const PGresult *res, int fieldcode);
  int (*ntuples)(const PGresult *res);
  char *(*getvalue)(const PGresult *res, int tup_num, int field_num);
  void (*clear)(PGresult *res);
} sv_dl_pg;

extern sv_dl_pg sv_pq;
/* Open libpq once, as sv_dl_sqlite_load does libsqlite3. */
int sv_dl_pg_load(const char **why);

#endif
