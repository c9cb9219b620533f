/*
** tutil_threads.c - this process's threads by name: each thread's
** /proc/self/task/TID/comm, read once.
*/
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tutil_threads.h"

int tutil_threads_named(const char *name) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int n = 0;
  if (d == NULL) return -1;
  while ((e = readdir(d)) != NULL) {
    char path[300], comm[64] = "";
    FILE *f;
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    if ((f = fopen(path, "r")) == NULL) continue;   /* it has ended */
    if (fgets(comm, sizeof comm, f) != NULL) {
      comm[strcspn(comm, "\n")] = '\0';
      n += strcmp(comm, name) == 0;
    }
    fclose(f);
  }
  closedir(d);
  return n;
}

int tutil_threads_await(const char *name, int n, int ms) {
  struct timespec tick = {0, 1000000};
  int k;
  while ((k = tutil_threads_named(name)) != n && ms-- > 0)
    nanosleep(&tick, NULL);
  return k;
}
