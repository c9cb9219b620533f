/*
** cli_serve.c - lraf serve DIR: the options, the pool, the ledger and
** the billing (lraf_billing_*, service/) they make, and the life of the
** server (start, wait for SIGINT or SIGTERM, stop).  The HTTP front is
** cli_serve_http.c.
*/
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_serve.h"

/* A port already taken is bad usage (another --port), said before
   anything starts; the probe binds as the server will (SO_REUSEADDR). */
static int port_free(const char *bind_to, int port) {
  struct sockaddr_in addr;
  int fd, one = 1, e = 0;
  if (port == 0) return CLI_OK;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, bind_to, &addr.sin_addr) != 1) return CLI_OK;
  if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0) return CLI_OK;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0) e = errno;
  close(fd);
  if (e == EADDRINUSE)
    return cli_error("port %d on %s is already in use (another server "
                     "listens there; --port N picks another, 0 any free "
                     "one)", port, bind_to);
  return CLI_OK;
}

/* For tests only: the time written in the file $LRAF_TEST_CLOCK (an
   ISO 8601 time, read at each request), else the system's.  Lets a
   test cross a day or month boundary of the billing periods. */
static double test_clock(void *ud) {
  char buf[64];
  double t;
  size_t n;
  FILE *f = fopen((const char *)ud, "r");
  struct timespec ts;
  if (f != NULL) {
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) n--;
    buf[n] = '\0';
    if (lraf_time_parse(buf, &t, NULL) == LRAF_OK) return t;
  }
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The per-tenant options as billing terms. */
static lraf_term *terms(const srv *s) {
  lraf_term *t = calloc((size_t)s->ntv + 1, sizeof *t);
  int i;
  if (t == NULL) return NULL;
  for (i = 0; i < s->ntv; i++) {
    t[i].tenant = s->tv[i].tenant;
    t[i].value = s->tv[i].value;
    t[i].period = s->tv[i].period;
    t[i].kind = s->tv[i].opt == CLI_OPT_QUOTA  ? LRAF_TERM_QUOTA
              : s->tv[i].opt == CLI_OPT_TENANT_RATE ? LRAF_TERM_RATE
                                                    : LRAF_TERM_REQUEST_LIMIT;
  }
  return t;
}

static int start_billing(srv *s) {
  lraf_billing_options bo;
  lraf_error err;
  lraf_status st;
  lraf_billing_default_options(&bo);
  bo.pool = s->pool;
  bo.ledger = s->ledger;
  bo.max_tenants = s->max_tenants;
  bo.slice = s->slice;
  bo.nterms = s->ntv;
  bo.terms = terms(s);
  if (getenv("LRAF_TEST_CLOCK") != NULL && getenv("LRAF_TEST_CLOCK")[0]) {
    bo.clock = test_clock;
    bo.clock_ud = getenv("LRAF_TEST_CLOCK");
  }
  if (bo.terms == NULL) return cli_error("out of memory");
  st = lraf_billing_open(&bo, &s->billing, &err);
  free((void *)bo.terms);
  return st == LRAF_OK ? CLI_OK : cli_report(&err);
}

static int start(srv *s) {
  lraf_pool_options po;
  lraf_error err;
  struct stat sb;
  int st;
  if (stat(s->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return cli_error("%s is not a directory", s->dir);
  lraf_pool_default_options(&po);
  po.workers = s->workers;
  po.plain = !s->metering;
  po.state.memory_limit = (size_t)s->memory_limit;
  po.state.deterministic = s->deterministic;
  if (lraf_pool_new(&po, &s->pool, &err) != LRAF_OK) return cli_report(&err);
  if (s->metering && strcmp(s->ledger_spec, "none") != 0 &&
      lraf_ledger_open_durable(s->ledger_spec, s->durability, &s->ledger,
                               &err) != LRAF_OK) {
    lraf_pool_close(s->pool);
    return cli_report(&err);
  }
  if ((st = start_billing(s)) != CLI_OK) {
    lraf_pool_close(s->pool);
    lraf_ledger_close(s->ledger);
  }
  return st;
}

static void stop(srv *s) {
  lraf_pool_close(s->pool);
  lraf_billing_close(s->billing);
  lraf_ledger_close(s->ledger);
  free(s->contract);
  srv_auth_close(&s->auth);
  srv_metrics_free(&s->metrics);
  srv_timeline_close(s->timeline);
}

int cli_serve(int argc, char **argv) {
  static cli_args a;
  srv s;
  sigset_t sigs;
  struct MHD_Daemon *d;
  int st, sig;
  st = cli_parse(cli_command_find("serve"), argc, argv, &a);
  if (st == CLI_HELP) return CLI_OK;
  if (st != CLI_OK) return st;
  if (a.noperands != 1)
    return cli_error("lraf serve needs one DIR (lraf serve --help)");
  {
    struct in_addr ip;
    if (a.bind != NULL && inet_pton(AF_INET, a.bind, &ip) != 1)
      return cli_error("--bind needs an IPv4 address (got '%s')", a.bind);
  }
  memset(&s, 0, sizeof s);
  s.dir = argv[a.first];
  s.port = a.port >= 0 ? a.port : 8080;
  s.workers = a.workers > 0 ? a.workers : 4;
  s.metering = !a.no_metering;
  s.slice = a.slice > 0 ? a.slice : 1000000;
  s.memory_limit = a.memory > 0 ? a.memory : 0;
  s.deterministic = a.opt.deterministic != 0;  /* on unless said */
  s.bind = a.bind != NULL ? a.bind : "127.0.0.1";
  s.ledger_spec = a.ledger != NULL ? a.ledger : "sqlite:lraf-ledger.db";
  if (a.durability == NULL || strcmp(a.durability, "power") == 0)
    s.durability = LRAF_DURABLE_POWER;
  else if (strcmp(a.durability, "process") == 0)
    s.durability = LRAF_DURABLE_PROCESS;
  else
    return cli_error("--ledger-durability: expected power or process "
                     "(got '%s')", a.durability);
  s.max_tenants = a.max_tenants > 0 ? (int)a.max_tenants : 1000;
  s.max_conns = a.max_conns > 0 ? (int)a.max_conns : 512;
  s.max_per_ip = a.max_per_ip > 0 ? (int)a.max_per_ip : 64;
  s.idle_timeout = a.idle_timeout > 0 ? (int)a.idle_timeout : 10;
  s.tv = a.tenants;
  s.ntv = a.ntenants;
  if ((st = port_free(s.bind, s.port)) != CLI_OK) return st;
  if (a.contract != NULL) {
    if ((s.contract = malloc(sizeof *s.contract)) == NULL)
      return cli_error("out of memory");
    if ((st = cli_contract_load(a.contract, s.contract)) != CLI_OK) {
      free(s.contract);
      return st;
    }
  }
  if ((st = srv_auth_open(&s.auth, a.keys_file, a.admin_token_file)) !=
      CLI_OK) {
    free(s.contract);
    return st;
  }
  /* every thread started from here on leaves these signals to sigwait */
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);
  srv_metrics_init(&s.metrics);
  if ((st = srv_timeline_open(&s.timeline, a.timeline, a.expect_share)) !=
      CLI_OK) {
    srv_auth_close(&s.auth);
    srv_metrics_free(&s.metrics);
    return st;
  }
  if ((st = start(&s)) != CLI_OK) {
    free(s.contract);
    srv_auth_close(&s.auth);
    srv_metrics_free(&s.metrics);
    srv_timeline_close(s.timeline);
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
