/*
** vmbench.c - the lraf VM's overhead, measured side by side in one run
** as a user sees it: whole processes, start and rewriting included, by
** their CPU time.
** For each program, interleaved and best of N:
**   lua5.4     Debian's stand-alone lua (stock liblua5.4)
**   vm         the lraf VM's own stand-alone lua, unrewritten code
**   lraf       lraf run on the lraf VM (fused ACCT instructions)
**   exact      lraf run --exact on the lraf VM
**   stock      lraf run --vm stock on the lraf VM (the portable target)
** and the ratios of the last three to lua5.4 and to vm; the ratio
** vm / lua5.4 is what the compiler flags alone change.
**
**   vmbench -nREPS LUA VMLUA LRAF PROGRAM.lua...
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

enum { LUA, VM, LRAF, EXACT, STOCK, NV };
static const char *const names[NV] = {"lua5.4", "vm", "lraf", "exact",
                                      "stock"};

/* Run argv with stdout on /dev/null; the CPU time (user + system) of
   the process, or -1 on failure.  CPU time, not wall time: on a machine
   that others share, waiting for a core is not the program's cost. */
static double cpu_children(void) {
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static double run(char *const *argv) {
  double t = cpu_children();
  int status;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  if (waitpid(pid, &status, 0) < 0) return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return cpu_children() - t;
}

int main(int argc, char **argv) {
  int reps = 5, i, r, v, n = 0;
  double logs[NV] = {0}, logx[NV] = {0}, worst = 0;
  const char *worst_name = "";
  if (argc > 1 && strncmp(argv[1], "-n", 2) == 0) {
    reps = atoi(argv[1] + 2);
    argv++;
    argc--;
  }
  if (argc < 5) {
    fprintf(stderr, "usage: vmbench [-nREPS] LUA VMLUA LRAF PROGRAM.lua...\n");
    return 2;
  }
  printf("%-16s %8s %8s | %8s %8s %8s | %8s %8s %8s\n", "program",
         "lua5.4 s", "bytecode/lua", "lraf/lua", "exact", "stock", "lraf/vm",
         "exact", "stock");
  for (i = 4; i < argc; i++) {
    char *cmd[NV][6] = {
      {argv[1], argv[i], NULL},
      {argv[2], argv[i], NULL},
      {argv[3], "run", argv[i], NULL},
      {argv[3], "run", "--exact", argv[i], NULL},
      {argv[3], "run", "--vm", "stock", argv[i], NULL},
    };
    double best[NV];
    const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1
                                             : argv[i];
    for (v = 0; v < NV; v++) best[v] = 1e30;
    for (r = 0; r < reps; r++)
      for (v = 0; v < NV; v++) {
        double t = run(cmd[v]);
        if (t < 0) {
          fprintf(stderr, "vmbench: %s failed under %s\n", name, names[v]);
          return 1;
        }
        if (t < best[v]) best[v] = t;
      }
    printf("%-16s %8.3f %7.3fx | %7.3fx %7.3fx %7.3fx | %7.3fx %7.3fx "
           "%7.3fx\n", name, best[LUA], best[VM] / best[LUA],
           best[LRAF] / best[LUA], best[EXACT] / best[LUA],
           best[STOCK] / best[LUA], best[LRAF] / best[VM],
           best[EXACT] / best[VM], best[STOCK] / best[VM]);
    for (v = 0; v < NV; v++) {
      logs[v] += log(best[v] / best[LUA]);
      logx[v] += log(best[v] / best[VM]);
    }
    if (best[LRAF] / best[VM] > worst) {
      worst = best[LRAF] / best[VM];
      worst_name = name;
    }
    n++;
  }
  printf("%-16s %8s %7.3fx | %7.3fx %7.3fx %7.3fx | %7.3fx %7.3fx %7.3fx\n",
         "geomean", "", exp(logs[VM] / n), exp(logs[LRAF] / n),
         exp(logs[EXACT] / n), exp(logs[STOCK] / n), exp(logx[LRAF] / n),
         exp(logx[EXACT] / n), exp(logx[STOCK] / n));
  printf("(CPU time of whole processes, best of %d interleaved runs; "
         "lraf/vm worst: %s %.3fx)\n", reps, worst_name, worst);
  return 0;
}
