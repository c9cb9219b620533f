/*
** fuzz_http.c - libFuzzer target: the bytes as a raw HTTP request to
** lraf serve's HTTP front (cli/cli_serve_http.c, linked in, over the
** library's billing), started once in this process on a
** free port of 127.0.0.1 with a request pool of 2 workers, the
** handlers of $LRAF_FUZZ_HANDLERS (default tests/system/serve-fuzz) and
** an SQLite ledger in a temporary directory ($TMPDIR, else /dev/shm or
** /tmp).  What is sent and checked: tests/support/tutil_fuzz_http.c.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cli_serve.h"
#include "tutil_fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static srv s;
static char dir[256], spec[300];
static int port;

static void cleanup(void) {
  char p[320];
  const char *const ext[] = {"", "-wal", "-shm"};
  int i;
  for (i = 0; i < 3; i++) {
    snprintf(p, sizeof p, "%s/ledger.db%s", dir, ext[i]);
    unlink(p);
  }
  rmdir(dir);
}

static void die(const char *what, const lraf_error *err) {
  fprintf(stderr, "fuzz_http: %s%s%s\n", what, err ? ": " : "",
          err ? err->message : "");
  exit(1);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *tmp = getenv("TMPDIR"), *handlers = getenv("LRAF_FUZZ_HANDLERS");
  lraf_pool_options po;
  lraf_billing_options bo;
  lraf_error err;
  struct MHD_Daemon *d;
  const union MHD_DaemonInfo *info;
  (void)argc, (void)argv;
  signal(SIGPIPE, SIG_IGN);
  if (tmp == NULL) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/lraf-fuzz-http-XXXXXX", tmp);
  if (mkdtemp(dir) == NULL) die("mkdtemp failed", NULL);
  atexit(cleanup);
  snprintf(spec, sizeof spec, "sqlite:%s/ledger.db", dir);
  memset(&s, 0, sizeof s);
  srv_metrics_init(&s.metrics);
  s.dir = handlers != NULL ? handlers : "tests/system/serve-fuzz";
  s.ledger_spec = spec;
  s.bind = "127.0.0.1";
  s.port = 0;
  s.workers = 2;
  s.metering = 1;
  s.slice = 1000000;
  s.memory_limit = 16 << 20;
  s.max_tenants = 1000;
  s.max_conns = 256;
  s.max_per_ip = 256;   /* every input comes from 127.0.0.1 */
  s.idle_timeout = 10;
  lraf_pool_default_options(&po);
  po.workers = s.workers;
  po.state.memory_limit = (size_t)s.memory_limit;
  if (lraf_pool_new(&po, &s.pool, &err) != LRAF_OK) die("pool", &err);
  if (lraf_ledger_open(spec, &s.ledger, &err) != LRAF_OK) die("ledger", &err);
  lraf_billing_default_options(&bo);
  bo.pool = s.pool;
  bo.ledger = s.ledger;
  if (lraf_billing_open(&bo, &s.billing, &err) != LRAF_OK)
    die("billing", &err);
  d = srv_http_start(&s);
  if (d == NULL) die("the HTTP front did not start", NULL);
  info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  if (info == NULL || info->port == 0) die("no port", NULL);
  port = info->port;
  /* the server runs until the process ends (libFuzzer exits) */
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char why[600];
  if (tutil_fuzz_http(port, data, size, why, sizeof why) != 0) {
    fprintf(stderr, "fuzz_http: %s\n", why);
    abort();
  }
  return 0;
}
