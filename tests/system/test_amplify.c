/*
** test_amplify.c - the amplification suite: every script in
** tests/amplify repeats one cheap-looking operation whose work grows
** with its operands, and must end with exit 3 (quota) or 4 (memory
** limit) within a deadline under `lraf run --limit 1000000
** --memory-limit 200000000`, in the sandbox and in the full
** environment.  A watchdog kills a run that outlives the deadline, so
** a hang fails the test instead of hanging it.  Scripts marked
** "-- gap: TARGET ..." are what TARGET cannot charge
** (docs/cost-model.md): "stock" skips them in a build for stock Lua
** (lraf_vm_builtin() is 0; the lraf VM build runs them), "lpeg" in a
** build without the metered LPeg (require "lpeg" with native charging
** does not say "lraf:metered"), "all" in every build;
** LRAF_AMPLIFY_GAPS=1 runs them anyway.
** Scripts marked "-- env: full" need the full environment (io) and
** run only there; "-- memory-limit: N" runs a script under that limit.
** Also: the rewriter's memory counts against --memory-limit.
** Runs the command named by $LRAF (the Makefile sets it).
*/
#define _DEFAULT_SOURCE  /* wait4 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>

#include "lraf.h"

#define CASE_DIR "tests/amplify"
#define MAX_CASES 64

static const char *lraf(void) {
  const char *p = getenv("LRAF");
  return p ? p : "build/lraf";
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds a case may run: a few seconds, more under the sanitizers
   (LRAF_QUICK is set there). */
static double deadline(void) {
  return getenv("LRAF_QUICK") ? 40.0 : 10.0;
}

typedef struct outcome {
  int status;      /* exit status; -1: killed by the watchdog */
  double secs;
  long maxrss_kb;  /* the child's peak resident size */
  char err[256];   /* the start of its stderr */
} outcome;

/* Run lraf with argv (NULL-terminated, after "lraf") and a watchdog. */
static void run(char *const args[], outcome *o) {
  char errpath[] = "/tmp/lraf_amplify_XXXXXX";
  int fd = mkstemp(errpath);
  double t0 = now(), limit = deadline();
  struct rusage ru;
  pid_t pid;
  int st = 0;
  ssize_t n;
  assert_true(fd >= 0);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    char *argv[16];
    int i = 0, null = open("/dev/null", O_RDWR);
    argv[i++] = (char *)lraf();
    for (; args[i - 1] != NULL && i < 15; i++) argv[i] = args[i - 1];
    argv[i] = NULL;
    dup2(null, 0);
    dup2(null, 1);
    dup2(fd, 2);
    execv(argv[0], argv);
    _exit(127);
  }
  o->status = -2;
  for (;;) {
    pid_t w = wait4(pid, &st, WNOHANG, &ru);
    if (w == pid) break;
    if (now() - t0 > limit) {
      kill(pid, SIGKILL);
      wait4(pid, &st, 0, &ru);
      o->status = -1;
      break;
    }
    nanosleep(&(struct timespec){0, 5000000}, NULL);
  }
  o->secs = now() - t0;
  o->maxrss_kb = ru.ru_maxrss;
  if (o->status != -1)
    o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  n = pread(fd, o->err, sizeof o->err - 1, 0);
  o->err[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(errpath);
}

typedef struct ncase {
  char path[512];
  char what[160];  /* the script's first line */
  char gap[16];    /* the target of "-- gap: TARGET ...", or "" */
  int full_only;   /* marked "-- env: full" */
  char memlimit[24];  /* "-- memory-limit: N", or the default */
} ncase;

static ncase cases[MAX_CASES];
static int ncases;

static int by_name(const void *a, const void *b) {
  return strcmp(((const ncase *)a)->path, ((const ncase *)b)->path);
}

static void read_cases(void) {
  DIR *d = opendir(CASE_DIR);
  struct dirent *e;
  if (d == NULL) return;
  while ((e = readdir(d)) != NULL && ncases < MAX_CASES) {
    size_t l = strlen(e->d_name);
    ncase *c = &cases[ncases];
    char first[160] = "", second[160] = "";
    FILE *f;
    if (l < 5 || strcmp(e->d_name + l - 4, ".lua") != 0) continue;
    snprintf(c->path, sizeof c->path, "%s/%s", CASE_DIR, e->d_name);
    f = fopen(c->path, "r");
    if (f == NULL) continue;
    if (fgets(first, sizeof first, f) != NULL &&
        fgets(second, sizeof second, f) == NULL)
      second[0] = '\0';
    fclose(f);
    first[strcspn(first, "\n")] = '\0';
    snprintf(c->what, sizeof c->what, "%.150s",
             first + (strlen(first) > 3 ? 3 : 0));
    c->gap[0] = '\0';
    if (strncmp(second, "-- gap: ", 8) == 0)
      snprintf(c->gap, sizeof c->gap, "%.*s",
               (int)strcspn(second + 8, " \n"), second + 8);
    c->full_only = strncmp(second, "-- env: full", 12) == 0;
    snprintf(c->memlimit, sizeof c->memlimit, "200000000");
    if (strncmp(second, "-- memory-limit: ", 17) == 0)
      snprintf(c->memlimit, sizeof c->memlimit, "%.*s",
               (int)strspn(second + 17, "0123456789"), second + 17);
    ncases++;
  }
  closedir(d);
  qsort(cases, (size_t)ncases, sizeof *cases, by_name);
}

/* Whether a state with native charging loads lraf's metered LPeg. */
static int metered_lpeg(void) {
  static const char probe[] = "return (select(2, require 'lpeg'))";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lua_State *L;
  int yes;
  lraf_default_options(&opt);
  opt.native = 1;
  if (lraf_new(&opt, &S, &err) != LRAF_OK) fail_msg("%s", err.message);
  L = lraf_lua(S);
  yes = lraf_load_string(S, probe, sizeof probe - 1, "=probe", &err) ==
            LRAF_OK &&
        lraf_call(S, 0, 1, &err) == LRAF_OK && lua_isstring(L, -1) &&
        strcmp(lua_tostring(L, -1), "lraf:metered") == 0;
  lraf_close(S);
  return yes;
}

/* Whether this build cannot charge a case marked "-- gap: TARGET":
   "stock" where the library is built for stock Lua, "lpeg" without the
   metered LPeg, "all" everywhere (an unknown target counts as a gap, so
   a typo skips loudly). */
static int is_gap(const char *target) {
  if (target[0] == '\0') return 0;
  if (strcmp(target, "stock") == 0) return !lraf_vm_builtin();
  if (strcmp(target, "lpeg") == 0) return !metered_lpeg();
  return 1;
}

static void test_case(void **state) {
  const ncase *c = *state;
  int env;
  if (is_gap(c->gap) && getenv("LRAF_AMPLIFY_GAPS") == NULL) {
    printf("  %s: a gap of this build (%s; docs/cost-model.md)\n",
           c->path, c->gap);
    skip();
  }
  for (env = c->full_only ? 1 : 0; env < 2; env++) {
    char *sandbox[] = {"run", "--sandbox", "--limit", "1000000",
                       "--memory-limit", (char *)c->memlimit,
                       (char *)c->path, NULL};
    char *full[] = {"run", "--limit", "1000000", "--memory-limit",
                    (char *)c->memlimit, (char *)c->path, NULL};
    outcome o;
    run(env == 0 ? sandbox : full, &o);
    if (o.status == -1)
      fail_msg("%s (%s): still running after %.0f s: %s", c->path,
               env == 0 ? "sandbox" : "full", deadline(), c->what);
    if (o.status != 3 && o.status != 4)
      fail_msg("%s (%s): exit %d, not 3 or 4: %s", c->path,
               env == 0 ? "sandbox" : "full", o.status, o.err);
    printf("  %-22s %-7s exit %d in %5.2f s\n", c->path + sizeof CASE_DIR,
           env == 0 ? "sandbox" : "full", o.status, o.secs);
  }
}

/* Compiling and rewriting what a script loads counts against its
   memory limit: 7.8 MB of source from a reader (2M instructions) under
   a 50 MB limit ends with exit 4, and the process stays near the limit
   (uncounted, the rewriter took it past 100 MB and the load succeeded). */
static void test_rewriter_memory(void **state) {
  char path[] = "/tmp/lraf_amplify_mem_XXXXXX";
  const char *src =
      "local piece = 'a=1 '\n"
      "for i = 1, 15 do piece = piece .. piece end\n"
      "piece = piece:sub(1, 112 * 1024 - 4) .. '\\n'\n"
      "local n = 0\n"
      "local f = load(function() n = n + 1 if n <= %d then return piece "
      "end end)\n"
      "print(f ~= nil)\n";
  int pieces = getenv("LRAF_QUICK") ? 20 : 70;
  long limit = getenv("LRAF_QUICK") ? 15000000 : 50000000;
  char lim[32];
  char *args[] = {"run", "--memory-limit", lim, path, NULL};
  outcome o;
  FILE *f;
  int fd = mkstemp(path);
  (void)state;
  assert_true(fd >= 0);
  f = fdopen(fd, "w");
  assert_non_null(f);
  fprintf(f, src, pieces);
  fclose(f);
  snprintf(lim, sizeof lim, "%ld", limit);
  run(args, &o);
  unlink(path);
  printf("  %d x 112 KB under --memory-limit %ld: exit %d, peak RSS %ld KB,"
         " %.2f s\n", pieces, limit, o.status, o.maxrss_kb, o.secs);
  if (o.status != 4)
    fail_msg("exit %d, not 4 (memory limit): %s", o.status, o.err);
  /* the limit, plus the interpreter, plus a margin for what the state
     frees late */
  assert_true(o.maxrss_kb < (limit + 80000000) / 1024);
}

int main(void) {
  struct CMUnitTest tests[MAX_CASES + 1];
  int i;
  read_cases();
  if (ncases == 0) {
    fprintf(stderr, "test_amplify: no cases in %s (run from the "
            "repository's root)\n", CASE_DIR);
    return 1;
  }
  for (i = 0; i < ncases; i++) {
    memset(&tests[i], 0, sizeof tests[i]);
    tests[i].name = cases[i].path + sizeof CASE_DIR;
    tests[i].test_func = test_case;
    tests[i].initial_state = &cases[i];
  }
  memset(&tests[ncases], 0, sizeof tests[ncases]);
  tests[ncases].name = "rewriter_memory";
  tests[ncases].test_func = test_rewriter_memory;
  return _cmocka_run_group_tests("amplify", tests, (size_t)ncases + 1, NULL,
                                 NULL);
}
