/*
** tutil_pg.c - a throwaway PostgreSQL server for the tests
** (tutil_pg.h).
*/
#include <glob.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutil_pg.h"

/* Run a shell command, as nobody when we are root. */
static int sh(const char *fmt, ...) {
  char cmd[2048], full[2300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  if (geteuid() == 0)
    snprintf(full, sizeof full, "runuser -u nobody -- sh -c '%s'", cmd);
  else
    snprintf(full, sizeof full, "%s", cmd);
  return system(full);
}

int tutil_pg_init(tutil_pg *pg) {
  memset(pg, 0, sizeof *pg);
  strcpy(pg->dir, "/tmp/lraf-pg-XXXXXX");
  return mkdtemp(pg->dir) != NULL ? 0 : -1;
}

/* initdb in pg->dir; NULL, or why not. */
static const char *make(tutil_pg *pg) {
  glob_t g;
  char *slash;
  if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) != 0)
    return "initdb not found (Debian package postgresql not installed)";
  snprintf(pg->bindir, sizeof pg->bindir, "%s", g.gl_pathv[g.gl_pathc - 1]);
  globfree(&g);
  slash = strrchr(pg->bindir, '/');
  *slash = '\0';
  if (geteuid() == 0) {
    struct passwd *pw = getpwnam("nobody");
    if (pw == NULL || access("/usr/sbin/runuser", X_OK) != 0)
      return "running as root without a user nobody and runuser";
    if (chown(pg->dir, pw->pw_uid, pw->pw_gid) != 0)
      return "cannot give the temporary directory to nobody";
  }
  if (sh("%s/initdb -D %s/data -A trust -U lraf --no-sync >%s/initdb.log "
         "2>&1", pg->bindir, pg->dir, pg->dir) != 0)
    return "initdb failed (see its log in the temporary directory)";
  pg->made = 1;
  return NULL;
}

const char *tutil_pg_start(tutil_pg *pg) {
  const char *why;
  if (pg->started) return NULL;
  if (!pg->made && (why = make(pg)) != NULL) return why;
  if (sh("%s/pg_ctl -D %s/data -l %s/pg.log -w -t 60 -o \"-k %s -c "
         "listen_addresses= -p 5432\" start >/dev/null 2>&1", pg->bindir,
         pg->dir, pg->dir, pg->dir) != 0)
    return "pg_ctl could not start the server";
  pg->started = 1;
  snprintf(pg->conninfo, sizeof pg->conninfo,
           "postgresql://lraf@/postgres?host=%s", pg->dir);
  return NULL;
}

int tutil_pg_stop(tutil_pg *pg, const char *mode) {
  if (!pg->started) return 0;
  pg->started = 0;
  return sh("%s/pg_ctl -D %s/data -m %s -w stop >/dev/null 2>&1",
            pg->bindir, pg->dir, mode) == 0 ? 0 : -1;
}

int tutil_pg_cleanup(tutil_pg *pg) {
  char cmd[128];
  tutil_pg_stop(pg, "fast");
  if (pg->dir[0] == '\0') return 0;
  snprintf(cmd, sizeof cmd, "rm -rf %s", pg->dir);
  return system(cmd) == 0 ? 0 : -1;
}
