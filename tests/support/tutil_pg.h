/*
** tutil_pg.h - a throwaway PostgreSQL server for the tests: initdb and
** pg_ctl of Debian's postgresql package in a temporary directory,
** listening on a Unix socket there only (no TCP), as the user nobody
** when run as root.
*/
#ifndef TUTIL_PG_H
#define TUTIL_PG_H

typedef struct tutil_pg {
  char dir[64];         /* data, socket and logs */
  char bindir[256];     /* PostgreSQL's programs */
  char conninfo[160];   /* "postgresql://lraf@/postgres?host=DIR" */
  int made;             /* initdb ran */
  int started;          /* the server runs */
} tutil_pg;

/* Make pg's temporary directory; 0 on success. */
int tutil_pg_init(tutil_pg *pg);
/* Start the server (made at the first call); NULL once it runs, else
   why it cannot (the test then says so and skips). */
const char *tutil_pg_start(tutil_pg *pg);
/* Stop it: mode "fast", or "immediate" (as a crash would); 0 on
   success. */
int tutil_pg_stop(tutil_pg *pg, const char *mode);
/* Stop it if it runs and remove its directory; 0 on success. */
int tutil_pg_cleanup(tutil_pg *pg);

#endif
