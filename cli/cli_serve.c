/*
** cli_serve.c - lraf serve DIR: the options, the tenants and their
** managers, and the life of the server (start, wait for SIGINT or
** SIGTERM, stop).  The HTTP front is cli_serve_http.c.
*/
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_serve.h"

static const char usage_text[] =
  "usage: lraf serve [--port N] [--bind ADDR] [--workers N]\n"
  "                  [--request-limit TENANT=N] [--quota TENANT=N]\n"
  "                  [--rate TENANT=N] [--memory-limit BYTES]\n"
  "                  [--ledger sqlite:PATH|postgresql://...] [--slice N]\n"
  "                  [--no-metering] DIR\n"
  "\n"
  "Serve GET and POST /NAME by running DIR/NAME.lua, which returns\n"
  "function(req) return status, body[, headers] end, for the tenant named\n"
  "by the X-Tenant header; every response carries X-Lraf-Instructions.\n"
  "GET /usage?tenant=T: the ledger's totals (JSON); GET /metrics:\n"
  "per-tenant counters (OpenMetrics).\n"
  "\n"
  "  --port N               TCP port (default 8080; 0: any free port)\n"
  "  --bind ADDR            IPv4 address to listen on (default 127.0.0.1)\n"
  "  --workers N            worker threads running handlers (default 4)\n"
  "  --request-limit T=N    each request of tenant T may run N\n"
  "                         instructions (429 past it)\n"
  "  --quota T=N            tenant T's total budget, kept in the ledger\n"
  "                         across restarts (429 once spent)\n"
  "  --rate T=N             tenant T runs at most N instructions/second\n"
  "  --memory-limit BYTES   the most a worker's state may hold (507 past\n"
  "                         it; the standard library and handlers included)\n"
  "  --ledger SPEC          sqlite:PATH (default sqlite:lraf-ledger.db),\n"
  "                         a postgresql:// connection string, or none\n"
  "                         (metering without a ledger: quotas in memory)\n"
  "  --slice N              PostgreSQL: quota leased per transaction\n"
  "                         (default 1000000)\n"
  "  --no-metering          plain Lua, no ledger (a benchmark's baseline)\n"
  "Per-tenant options repeat; T may be * for every other tenant.\n";

/* A whole decimal integer of at least 0, with an optional k, M or G
   (10^3, 10^6, 10^9) or KiB, MiB, GiB (2^10, 2^20, 2^30) as lraf's
   other options take. */
static int parse_count(const char *s, int64_t *v) {
  char *end;
  long long x;
  int64_t f = 1;
  errno = 0;
  x = strtoll(s, &end, 10);
  if (errno != 0 || end == s || x < 0) return 0;
  if (strcmp(end, "KiB") == 0) f = 1 << 10, end += 3;
  else if (strcmp(end, "MiB") == 0) f = 1 << 20, end += 3;
  else if (strcmp(end, "GiB") == 0) f = 1 << 30, end += 3;
  else if (*end == 'k' || *end == 'K') f = 1000, end++;
  else if (*end == 'M') f = 1000000, end++;
  else if (*end == 'G') f = 1000000000, end++;
  if (*end != '\0' || x > INT64_MAX / f) return 0;
  *v = (int64_t)x * f;
  return 1;
}

/* TENANT=N into set. */
static int add_setting(srv_setting *set, int *n, const char *opt,
                       const char *arg) {
  const char *eq = strrchr(arg, '=');
  static char names[SRV_MAX_SETTINGS * 3][65];
  static int used;
  int64_t v;
  size_t len;
  if (eq == NULL || eq == arg || !parse_count(eq + 1, &v))
    return cli_error("%s needs TENANT=N with N a non-negative integer "
                     "(got '%s')", opt, arg);
  len = (size_t)(eq - arg);
  if (len > 64)
    return cli_error("%s: tenant name longer than 64 bytes", opt);
  if (*n == SRV_MAX_SETTINGS || used == SRV_MAX_SETTINGS * 3)
    return cli_error("%s: too many tenants (at most %d)", opt,
                     SRV_MAX_SETTINGS);
  memcpy(names[used], arg, len);
  names[used][len] = '\0';
  set[*n].tenant = names[used++];
  set[*n].value = v;
  (*n)++;
  return CLI_OK;
}

static int parse(srv *s, int argc, char **argv) {
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int64_t v;
    int st = CLI_OK;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      exit(CLI_OK);
    } else if (strncmp(a, "--", 2) != 0) {
      if (s->dir != NULL)
        return cli_error("more than one DIR ('%s' and '%s')\n%s", s->dir, a,
                         usage_text);
      s->dir = a;
      continue;
    } else if (strcmp(a, "--no-metering") == 0) {
      s->metering = 0;
      continue;
    }
    if (i + 1 >= argc) return cli_error("%s needs a value\n%s", a, usage_text);
    if (strcmp(a, "--port") == 0) {
      if (!parse_count(argv[++i], &v) || v > 65535)
        return cli_error("--port needs a port number 0..65535 (got '%s')",
                         argv[i]);
      s->port = (int)v;
    } else if (strcmp(a, "--bind") == 0) {
      s->bind = argv[++i];
    } else if (strcmp(a, "--workers") == 0) {
      if (!parse_count(argv[++i], &v) || v < 1 || v > 1024)
        return cli_error("--workers needs a number 1..1024 (got '%s')",
                         argv[i]);
      s->workers = (int)v;
    } else if (strcmp(a, "--memory-limit") == 0) {
      if (!parse_count(argv[++i], &v) || v == 0)
        return cli_error("--memory-limit needs a positive number of bytes "
                         "(got '%s')", argv[i]);
      s->memory_limit = v;
    } else if (strcmp(a, "--slice") == 0) {
      if (!parse_count(argv[++i], &v) || v == 0)
        return cli_error("--slice needs a positive integer (got '%s')",
                         argv[i]);
      s->slice = v;
    } else if (strcmp(a, "--ledger") == 0) {
      s->ledger_spec = argv[++i];
    } else if (strcmp(a, "--request-limit") == 0) {
      st = add_setting(s->limit, &s->nlimit, a, argv[++i]);
    } else if (strcmp(a, "--quota") == 0) {
      st = add_setting(s->quota, &s->nquota, a, argv[++i]);
    } else if (strcmp(a, "--rate") == 0) {
      st = add_setting(s->rate, &s->nrate, a, argv[++i]);
      if (st == CLI_OK && s->rate[s->nrate - 1].value == 0)
        return cli_error("--rate needs a positive rate (got '%s')", argv[i]);
    } else {
      return cli_error("unknown option '%s'\n%s", a, usage_text);
    }
    if (st != CLI_OK) return st;
  }
  if (s->dir == NULL) return cli_error("no DIR\n%s", usage_text);
  return CLI_OK;
}

static int start(srv *s) {
  lraf_pool_options po;
  lraf_error err;
  struct stat sb;
  if (stat(s->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return cli_error("%s is not a directory", s->dir);
  lraf_pool_default_options(&po);
  po.workers = s->workers;
  po.plain = !s->metering;
  po.state.memory_limit = (size_t)s->memory_limit;
  if (lraf_pool_new(&po, &s->pool, &err) != LRAF_OK) return cli_report(&err);
  if (s->metering && strcmp(s->ledger_spec, "none") != 0 &&
      lraf_ledger_open(s->ledger_spec, &s->ledger, &err) != LRAF_OK) {
    lraf_pool_close(s->pool);
    return cli_report(&err);
  }
  return CLI_OK;
}

static void stop(srv *s) {
  srv_tenant *t, *next;
  lraf_pool_close(s->pool);
  for (t = s->tenants; t != NULL; t = next) {
    next = t->next;
    lraf_manager_release(t->manager);
    free(t);
  }
  lraf_ledger_close(s->ledger);
  pthread_mutex_destroy(&s->lock);
}

int cli_serve(int argc, char **argv) {
  srv s;
  sigset_t sigs;
  struct MHD_Daemon *d;
  int st, sig;
  memset(&s, 0, sizeof s);
  s.port = 8080;
  s.workers = 4;
  s.metering = 1;
  s.slice = 1000000;
  s.bind = "127.0.0.1";
  s.ledger_spec = "sqlite:lraf-ledger.db";
  if ((st = parse(&s, argc, argv)) != CLI_OK) return st;
  pthread_mutex_init(&s.lock, NULL);
  snprintf(s.boot, sizeof s.boot, "%08lx%06lx", (unsigned long)time(NULL),
           (unsigned long)getpid() & 0xffffff);
  /* every thread started from here on leaves these signals to sigwait */
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);
  if ((st = start(&s)) != CLI_OK) {
    pthread_mutex_destroy(&s.lock);
    return st;
  }
  d = srv_http_start(&s);
  if (d == NULL) {
    stop(&s);
    return CLI_EFAIL;
  }
  sigwait(&sigs, &sig);
  fprintf(stderr, "lraf serve: stopping\n");
  srv_http_stop(d);
  stop(&s);
  return CLI_OK;
}
