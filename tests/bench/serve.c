/*
** serve.c - make bench: lraf serve's throughput and latency with
** metering off (plain Lua), with metering and no ledger, with metering
** and the SQLite ledger (group commit into its journal) at each
** durability (power: the journal fsynced before each response;
** process: written, not fsynced), at power durability in a tmpfs
** (/dev/shm, where an fsync costs nothing: what the ledger costs
** without the disk's flush; skipped where /dev/shm is no tmpfs), and,
** when $PG names a PostgreSQL
** server, with metering and the PostgreSQL ledger, on the same
** handler, clients and machine, side by side in one run.  Each
** configuration runs ROUNDS times, interleaved; the median of each
** figure is reported with its ratio to metering off, and for the
** ledgers how many records one commit held on average and how long a
** commit took (writing and flushing), from /metrics.  Before each
** timed run, 60 requests warm the server up (states made, handlers
** rewritten and loaded).  At power durability every answered request
** waits for its record's fsync, so with CLIENTS clients the ledger
** serves at most CLIENTS / (a commit's time) requests per second: the
** fsync time of the temporary directory's disk, unloaded, is measured
** and the bound it would give printed, to set beside the commits' time
** under the load.  Where the time goes: the server's CPU per request
** (its threads named lraf-worker, lraf-commit and lraf-ledger apart,
** the rest being the HTTP side), the clients' CPU per request, and the
** CPU one fdatasync costs.
**
**   usage: serve HANDLER_DIR [HANDLER QUERY]   ($LRAF: the command)
**   env: CLIENTS (16), REQUESTS per client (1000), ROUNDS (3),
**        PG (a postgresql:// connection string; unset: no PostgreSQL)
** Traffic goes to 127.0.0.1 only.
*/
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "tutil_serve.h"

/* The configurations, in the order they run and are printed. */
enum { CONF_OFF, CONF_NONE, CONF_POWER, CONF_PROCESS,
       CONF_FREE,   /* SQLite at power durability in a tmpfs */
       CONF_PG, NCONF };

static const char *const conf_name[NCONF] = {
  "metering off", "metering, no ledger", "metering + SQLite",
  "SQLite, process", "SQLite, free flush", "metering + PostgreSQL"
};

/* The server's CPU: all of it, and that of its threads by name. */
enum { CPU_ALL, CPU_WORKER, CPU_COMMIT, CPU_DRAIN, CPU_HTTP, CPU_CLIENTS,
       NCPU };
static const char *const cpu_thread[CPU_HTTP] = {
  NULL, "lraf-worker", "lraf-commit", "lraf-ledger"
};

static int clients, per_client, port;
static const char *target;
static double *lat;   /* seconds, per request */
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *client(void *arg) {
  int id = (int)(long)arg, i, fd = tutil_http_connect(port);
  for (i = 0; i < per_client; i++) {
    char extra[64];
    tutil_http r;
    double t0 = now();
    snprintf(extra, sizeof extra, "X-Tenant: t%d\r\n", id % 3);
    if (fd < 0 || tutil_http_do(fd, "GET", target, extra, NULL, &r) != 0 ||
        r.status != 200) {
      pthread_mutex_lock(&lock);
      failures++;
      pthread_mutex_unlock(&lock);
      tutil_http_free(&r);
      break;
    }
    lat[id * per_client + i] = now() - t0;
    tutil_http_free(&r);
  }
  if (fd >= 0) close(fd);
  return NULL;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* From the server's /metrics: the commits, the records they held and
   the seconds they took (writing and flushing). */
static void commits_of(int port, double *commits, double *records,
                       double *seconds) {
  tutil_http r;
  const char *p;
  *commits = *records = *seconds = 0;
  if (tutil_http_once(port, "GET", "/metrics", NULL, NULL, &r) != 0) return;
  if (r.status == 200 && r.body != NULL) {
    if ((p = strstr(r.body, "lraf_ledger_commit_records_count ")) != NULL)
      *commits = atof(p + 33);
    if ((p = strstr(r.body, "lraf_ledger_commit_records_sum ")) != NULL)
      *records = atof(p + 31);
    if ((p = strstr(r.body, "lraf_ledger_commit_duration_seconds_sum ")) !=
        NULL)
      *seconds = atof(p + 40);
  }
  tutil_http_free(&r);
}

/* The user and system CPU seconds in a /proc stat file, or 0. */
static double stat_seconds(const char *path) {
  char line[1024], *p;
  unsigned long ut, st;
  FILE *f = fopen(path, "r");
  size_t n;
  if (f == NULL) return 0;
  n = fread(line, 1, sizeof line - 1, f);
  fclose(f);
  line[n] = '\0';
  /* fields 14 and 15, after the name in parentheses */
  if ((p = strrchr(line, ')')) == NULL ||
      sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
             &ut, &st) != 2)
    return 0;
  return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The CPU seconds of process pid so far, and of its threads by name. */
static void cpu_of(pid_t pid, double cpu[NCPU]) {
  char path[128], name[64];
  struct dirent *e;
  DIR *d;
  int k;
  memset(cpu, 0, NCPU * sizeof *cpu);
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  cpu[CPU_ALL] = stat_seconds(path);
  snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
  if ((d = opendir(path)) == NULL) return;
  while ((e = readdir(d)) != NULL) {
    FILE *f;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/%d/task/%.20s/comm", (int)pid,
             e->d_name);
    if ((f = fopen(path, "r")) == NULL) continue;
    if (fgets(name, sizeof name, f) == NULL) name[0] = '\0';
    fclose(f);
    name[strcspn(name, "\n")] = '\0';
    for (k = CPU_WORKER; k < CPU_HTTP; k++)
      if (strcmp(name, cpu_thread[k]) == 0) {
        snprintf(path, sizeof path, "/proc/%d/task/%.20s/stat", (int)pid,
                 e->d_name);
        cpu[k] += stat_seconds(path);
      }
  }
  closedir(d);
}

/* This process's CPU seconds so far (the clients'). */
static double own_cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
         (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/* A fresh directory in /dev/shm when that is a tmpfs, else NULL. */
static char *free_flush_dir(void) {
  static char dir[] = "/dev/shm/lraf-bench-serve-XXXXXX";
  struct statfs f;
  if (statfs("/dev/shm", &f) != 0 ||
      (unsigned long)f.f_type != TMPFS_MAGIC)
    return NULL;
  return mkdtemp(dir);
}

/* One run of configuration c: requests/s, p50 and p99 in ms, and the
   ledger's commits, the records they held and their seconds (lg), and
   the CPU microseconds per request (cpu). */
static int measure(int c, const char *dir, const char *tmp,
                   const char *shm, double *rps,
                   double *p50, double *p99, double lg[3],
                   double cpu[NCPU]) {
  char spec[160], log[160], cmd[200];
  const char *args[16];
  pthread_t th[256];
  int n = 0, i, k, total = clients * per_client;
  double t0, t1, cpu0[NCPU], own0;
  pid_t pid;
  const char *at = c == CONF_FREE ? shm : tmp;
  /* each SQLite run starts from an empty ledger */
  snprintf(cmd, sizeof cmd, "rm -f %s/ledger.db %s/ledger.db-wal "
           "%s/ledger.db-shm", at, at, at);
  if (system(cmd) != 0) return -1;
  snprintf(spec, sizeof spec, "sqlite:%s/ledger.db", at);
  snprintf(log, sizeof log, "%s/serve.log", tmp);
  args[n++] = "--port";
  args[n++] = "0";
  args[n++] = "--workers";
  args[n++] = "2";
  if (c == CONF_OFF) args[n++] = "--no-metering";
  args[n++] = "--ledger";
  args[n++] = c == CONF_POWER || c == CONF_PROCESS || c == CONF_FREE ? spec :
              c == CONF_PG ? getenv("PG") : "none";
  if (c == CONF_PROCESS) {
    args[n++] = "--ledger-durability";
    args[n++] = "process";
  }
  args[n++] = dir;
  args[n] = NULL;
  pid = tutil_serve_start(args, log, &port);
  if (pid <= 0) return -1;
  memset(lat, 0, (size_t)total * sizeof *lat);
  failures = 0;
  /* warm up: every worker makes its states and loads the handler */
  for (i = 0; i < 60; i++) {
    char extra[64];
    tutil_http r;
    snprintf(extra, sizeof extra, "X-Tenant: t%d\r\n", i % 3);
    if (tutil_http_once(port, "GET", target, extra, NULL, &r) != 0 ||
        r.status != 200)
      failures++;
    tutil_http_free(&r);
  }
  {
    double cm, rc, sc;
    commits_of(port, &cm, &rc, &sc);
    lg[0] = -cm, lg[1] = -rc, lg[2] = -sc;
  }
  cpu_of(pid, cpu0);
  own0 = own_cpu();
  t0 = now();
  for (i = 0; i < clients; i++)
    pthread_create(&th[i], NULL, client, (void *)(long)i);
  for (i = 0; i < clients; i++) pthread_join(th[i], NULL);
  t1 = now();
  cpu_of(pid, cpu);
  cpu[CPU_CLIENTS] = own_cpu() - own0;
  for (k = CPU_ALL; k < CPU_HTTP; k++) cpu[k] -= cpu0[k];
  cpu[CPU_HTTP] = cpu[CPU_ALL] - cpu[CPU_WORKER] - cpu[CPU_COMMIT] -
                  cpu[CPU_DRAIN];
  for (k = 0; k < NCPU; k++) cpu[k] *= 1e6 / total;
  {
    double cm, rc, sc;
    commits_of(port, &cm, &rc, &sc);
    lg[0] += cm, lg[1] += rc, lg[2] += sc;
  }
  tutil_serve_stop(pid, SIGTERM);
  if (failures > 0) return -1;
  qsort(lat, (size_t)total, sizeof *lat, by_value);
  *rps = total / (t1 - t0);
  *p50 = lat[total / 2] * 1e3;
  *p99 = lat[(int)(total * 0.99)] * 1e3;
  return 0;
}

/* This thread's CPU seconds so far. */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The median time of fdatasync after a 4 KiB write in dir, in ms, and
   the median CPU it took (cpu_ms). */
static double fsync_ms(const char *dir, double *cpu_ms) {
  char path[200], page[4096];
  double t[41], u[41], t0, u0;
  int fd, i;
  snprintf(path, sizeof path, "%s/fsync.probe", dir);
  if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0) return -1;
  memset(page, 'x', sizeof page);
  for (i = 0; i < 41; i++) {
    if (pwrite(fd, page, sizeof page, 0) != (ssize_t)sizeof page) break;
    t0 = now();
    u0 = thread_cpu();
    if (fdatasync(fd) != 0) break;
    u[i] = (thread_cpu() - u0) * 1e3;
    t[i] = (now() - t0) * 1e3;
  }
  close(fd);
  unlink(path);
  if (i < 41) return -1;
  qsort(t, 41, sizeof *t, by_value);
  qsort(u, 41, sizeof *u, by_value);
  *cpu_ms = u[20];
  return t[20];
}

static double median3(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, by_value);
  return v[n / 2];
}

int main(int argc, char **argv) {
  static char buf[256];
  char tmp[] = "/tmp/lraf-bench-serve-XXXXXX", cmd[128], *shm;
  int rounds, r, c, k, run[NCONF];
  double rps[NCONF][16], p50[NCONF][16], p99[NCONF][16], m[NCONF][3];
  double cpu[NCONF][NCPU][16], mc[NCONF][NCPU];
  double commits[NCONF], records[NCONF], seconds[NCONF], fs, fs_cpu;
  if (argc < 2) {
    fprintf(stderr, "usage: serve HANDLER_DIR [HANDLER QUERY]\n");
    return 2;
  }
  snprintf(buf, sizeof buf, "/%s?%s", argc > 2 ? argv[2] : "hello",
           argc > 3 ? argv[3] : "n=100");
  target = buf;
  clients = getenv("CLIENTS") ? atoi(getenv("CLIENTS")) : 16;
  per_client = getenv("REQUESTS") ? atoi(getenv("REQUESTS")) : 1000;
  rounds = getenv("ROUNDS") ? atoi(getenv("ROUNDS")) : 3;
  if (clients < 1 || clients > 256 || per_client < 10 || rounds < 1 ||
      rounds > 16 || mkdtemp(tmp) == NULL)
    return 2;
  shm = free_flush_dir();
  for (c = 0; c < NCONF; c++) run[c] = 1;
  run[CONF_FREE] = shm != NULL;
  run[CONF_PG] = getenv("PG") != NULL && getenv("PG")[0] != '\0';
  lat = malloc((size_t)clients * (size_t)per_client * sizeof *lat);
  if (lat == NULL) return 1;
  printf("lraf serve (%s): %s, %d clients x %d requests, 2 workers, "
         "%d rounds\n", getenv("LRAF") ? getenv("LRAF") : "lraf", target,
         clients, per_client, rounds);
  memset(commits, 0, sizeof commits);
  memset(records, 0, sizeof records);
  memset(seconds, 0, sizeof seconds);
  for (r = 0; r < rounds; r++)
    for (c = 0; c < NCONF; c++) {
      double lg[3], cr[NCPU];
      if (!run[c]) continue;
      if (measure(c, argv[1], tmp, shm, &rps[c][r], &p50[c][r], &p99[c][r],
                  lg, cr) != 0) {
        fprintf(stderr, "serve bench: %s failed\n", conf_name[c]);
        return 1;
      }
      commits[c] += lg[0], records[c] += lg[1], seconds[c] += lg[2];
      for (k = 0; k < NCPU; k++) cpu[c][k][r] = cr[k];
    }
  for (c = 0; c < NCONF; c++) {
    if (!run[c]) continue;
    m[c][0] = median3(rps[c], rounds);
    m[c][1] = median3(p50[c], rounds);
    m[c][2] = median3(p99[c], rounds);
    for (k = 0; k < NCPU; k++) mc[c][k] = median3(cpu[c][k], rounds);
  }
  printf("%-22s %9s %8s %8s  %-16s %s\n", "", "req/s", "p50 ms", "p99 ms",
         "ratios to off", "records per commit");
  printf("%-22s %9s %8s %8s  %-16s\n", "", "", "", "",
         "req/s  p50  p99");
  for (c = 0; c < NCONF; c++) {
    if (!run[c]) continue;
    printf("%-22s %9.0f %8.3f %8.3f  %.2f  %.2f %.2f", conf_name[c],
           m[c][0], m[c][1], m[c][2], m[c][0] / m[CONF_OFF][0],
           m[c][1] / m[CONF_OFF][1], m[c][2] / m[CONF_OFF][2]);
    if (commits[c] > 0)
      printf("  %.1f (%.0f commits, %.2f ms each)", records[c] / commits[c],
             commits[c], seconds[c] / commits[c] * 1e3);
    printf("\n");
  }
  printf("CPU per request, us (medians)  server   HTTP  workers  "
         "lraf-commit  lraf-ledger  clients\n");
  for (c = 0; c < NCONF; c++) {
    if (!run[c]) continue;
    printf("%-30s %6.1f %6.1f %8.1f", conf_name[c], mc[c][CPU_ALL],
           mc[c][CPU_HTTP], mc[c][CPU_WORKER]);
    for (k = CPU_COMMIT; k <= CPU_DRAIN; k++)
      if (mc[c][k] > 0) printf(" %12.1f", mc[c][k]);
      else printf(" %12s", "-");
    printf(" %8.1f\n", mc[c][CPU_CLIENTS]);
  }
  fs = fsync_ms(tmp, &fs_cpu);
  if (fs > 0) {
    printf("fdatasync in %s: %.2f ms, %.3f ms of CPU (medians of 41); %d "
           "clients each waiting for one: at most %.0f req/s at power "
           "durability\n", tmp, fs, fs_cpu, clients, clients / (fs * 1e-3));
    if (commits[CONF_POWER] > 0)
      printf("at %.1f records per commit, the fdatasync alone costs %.1f us "
             "of CPU per request at power durability\n",
             records[CONF_POWER] / commits[CONF_POWER],
             fs_cpu * 1e3 * commits[CONF_POWER] / records[CONF_POWER]);
  }
  if (!run[CONF_FREE])
    printf("SQLite, free flush: skipped (/dev/shm is no tmpfs)\n");
  free(lat);
  if (shm != NULL) {
    snprintf(cmd, sizeof cmd, "rm -rf %s", shm);
    if (system(cmd) != 0) return 1;
  }
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  return system(cmd) == 0 ? 0 : 1;
}
