/*
** cli_serve_auth.c - who may ask lraf serve.  With --tenants, a request
** names its tenant by an API key ("Authorization: Bearer KEY"), looked
** up by its SHA-256 in constant time (lraf_keys_tenant); without, the
** X-Tenant header is taken as given, so a trusted gateway must set it.
** --admin-token-file guards /usage and /metrics the same way.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_serve_auth.h"

#define TOKEN_MIN 16

static int valid_tenant(const char *s) {
  size_t n = 0;
  for (; *s; s++, n++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '-' || *s == '.'))
      return 0;
  return n > 0 && n <= 64;
}

/* The credentials of "Bearer CREDENTIALS" (the scheme in any case), or
   NULL. */
static const char *bearer(const char *authorization) {
  const char *p;
  if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
    return NULL;
  for (p = authorization + 7; *p == ' '; p++) {}
  return *p != '\0' ? p : NULL;
}

/* A file of secrets that others may write is refused; one that others
   may read is refused too (secret: the admin token) or warned about. */
static int check_mode(const char *path, int secret) {
  struct stat sb;
  if (stat(path, &sb) != 0) return CLI_OK;   /* said when it is read */
  if (sb.st_mode & S_IWOTH)
    return cli_error("%s may be written by anyone: chmod o-w %s", path,
                     path);
  if (secret && (sb.st_mode & (S_IRWXG | S_IRWXO)))
    return cli_error("%s holds a secret but others may read it: "
                     "chmod 600 %s", path, path);
  if (sb.st_mode & S_IROTH)
    fprintf(stderr, "lraf serve: warning: %s may be read by anyone (the "
            "keys are hashed, but a weak key can be guessed from its "
            "hash): chmod o-r %s\n", path, path);
  return CLI_OK;
}

static int read_token(srv_auth *a, const char *path) {
  char *data = NULL;
  size_t len = 0, i;
  lraf_error err;
  int st;
  if ((st = check_mode(path, 1)) != CLI_OK) return st;
  if (cli_read_file_max(path, 4096, &data, &len, &err) != LRAF_OK)
    return cli_report(&err);
  if (len > 0 && data[len - 1] == '\n') len--;
  if (len > 0 && data[len - 1] == '\r') len--;
  for (i = 0; i < len; i++)
    if (data[i] <= ' ' || data[i] > '~') break;
  if (i < len || len < TOKEN_MIN) {
    free(data);
    return cli_error("%s: the admin token must be one line of at least %d "
                     "printable characters, no spaces", path, TOKEN_MIN);
  }
  lraf_key_hash(data, len, a->admin);
  memset(data, 0, len);
  free(data);
  return CLI_OK;
}

int srv_auth_open(srv_auth *a, const char *keys_file, const char *token_file) {
  lraf_error err;
  int st;
  memset(a, 0, sizeof *a);
  if (keys_file != NULL) {
    if ((st = check_mode(keys_file, 0)) != CLI_OK) return st;
    if (lraf_keys_load(keys_file, &a->keys, &err) != LRAF_OK)
      return cli_report(&err);
  }
  if (token_file != NULL && (st = read_token(a, token_file)) != CLI_OK) {
    srv_auth_close(a);
    return st;
  }
  return CLI_OK;
}

void srv_auth_close(srv_auth *a) {
  lraf_keys_free(a->keys);
  memset(a, 0, sizeof *a);
}

const char *srv_auth_tenant(const srv_auth *a, const char *authorization,
                            const char *x_tenant, int *status,
                            const char **why) {
  const char *key, *tenant;
  if (a->keys == NULL) {
    if (x_tenant != NULL && valid_tenant(x_tenant)) return x_tenant;
    *status = 400;
    *why = "missing or bad X-Tenant header (1-64 of A-Z a-z 0-9 _ - .)\n";
    return NULL;
  }
  key = bearer(authorization);
  tenant = key != NULL ? lraf_keys_tenant(a->keys, key, strlen(key)) : NULL;
  if (tenant == NULL) {
    *status = 401;
    *why = key == NULL ? "an API key is needed: Authorization: Bearer KEY\n"
                       : "unknown API key\n";
    return NULL;
  }
  if (x_tenant != NULL && strcmp(x_tenant, tenant) != 0) {
    *status = 403;
    *why = "X-Tenant names another tenant than the API key's\n";
    return NULL;
  }
  return tenant;
}

int srv_auth_admin(const srv_auth *a, const char *authorization) {
  const char *token;
  if (a->admin[0] == '\0') return 1;
  token = bearer(authorization);
  return token != NULL && lraf_key_matches(token, strlen(token), a->admin);
}
