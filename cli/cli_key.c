/*
** cli_key.c - lraf key hash TENANT: the line of a --tenants file
** (TENANT sha256:HASH) for the API key read from standard input.  The
** key is read from standard input rather than the command line, where
** other users could see it (ps); it is kept nowhere.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define KEY_MAX 4096

/* The key: standard input's one line, its line end dropped. */
static int read_key(char *key, size_t *len) {
  size_t n = fread(key, 1, KEY_MAX + 2, stdin), i;
  if (ferror(stdin)) return cli_error("cannot read the key from standard "
                                      "input");
  if (n > 0 && key[n - 1] == '\n') n--;
  if (n > 0 && key[n - 1] == '\r') n--;
  if (n == 0) return cli_error("no key on standard input (printf %%s KEY | "
                               "lraf key hash TENANT)");
  if (n > KEY_MAX) return cli_error("the key is longer than %d bytes",
                                    KEY_MAX);
  for (i = 0; i < n; i++)
    if (key[i] <= ' ' || key[i] > '~')
      return cli_error("the key has a %s at byte %zu: keys are one line of "
                       "printable ASCII without spaces (they travel in an "
                       "HTTP header)", key[i] == '\n' ? "line break" :
                       "space or control character", i + 1);
  *len = n;
  return CLI_OK;
}

int cli_key(int argc, char **argv) {
  static cli_args a;
  static char key[KEY_MAX + 2];
  char hash[LRAF_KEY_HASH_SIZE], line[160];
  size_t len = 0;
  lraf_keys *k = NULL;
  lraf_error err;
  int st;
  st = cli_parse(cli_command_find("key"), argc, argv, &a);
  if (st == CLI_HELP) return CLI_OK;
  if (st != CLI_OK) return st;
  if (a.noperands != 2 || strcmp(argv[a.first], "hash") != 0)
    return cli_error("lraf key needs: hash TENANT (lraf key --help)");
  if ((st = read_key(key, &len)) != CLI_OK) return st;
  lraf_key_hash(key, len, hash);
  memset(key, 0, sizeof key);
  if (strlen(argv[a.first + 1]) > 64)
    return cli_error("a tenant name is at most 64 bytes");
  snprintf(line, sizeof line, "%s %s\n", argv[a.first + 1], hash);
  /* the line as lraf serve will read it: the hash is well formed, so
     whatever it refuses (a name with a blank, one starting a comment)
     is the tenant's name */
  if (lraf_keys_parse(line, strlen(line), "the line", &k, &err) != LRAF_OK)
    return cli_error("bad tenant name (1-64 of A-Z a-z 0-9 _ - .)");
  lraf_keys_free(k);
  fputs(line, stdout);
  return CLI_OK;
}
