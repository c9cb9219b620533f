/*
** maxrss.c - run a command and say what it took: its peak resident
** memory (ru_maxrss) and its CPU time (user + system), on stderr as
** "maxrss KB cpu SECONDS" (tests/bench/rwmem.sh).  The command's own
** output is left as it is; the exit status is the command's.
**
**   maxrss COMMAND [ARGS...]
*/
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval t) {
  return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv) {
  struct rusage ru;
  int status;
  pid_t pid;
  if (argc < 2) {
    fprintf(stderr, "usage: maxrss COMMAND [ARGS...]\n");
    return 2;
  }
  pid = fork();
  if (pid < 0) {
    perror("maxrss: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[1], argv + 1);
    perror("maxrss: exec");
    _exit(127);
  }
  if (wait4(pid, &status, 0, &ru) != pid) {
    perror("maxrss: wait4");
    return 2;
  }
  fprintf(stderr, "maxrss %ld cpu %.3f\n", ru.ru_maxrss,
          seconds(ru.ru_utime) + seconds(ru.ru_stime));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
