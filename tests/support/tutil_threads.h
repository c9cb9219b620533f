/*
** tutil_threads.h - this process's threads by name (/proc/self/task).
*/
#ifndef TUTIL_THREADS_H
#define TUTIL_THREADS_H

/* How many of this process's threads are named name (-1: no /proc). */
int tutil_threads_named(const char *name);
/* tutil_threads_named once it is n, or after ms milliseconds (a thread
   names itself when it starts). */
int tutil_threads_await(const char *name, int n, int ms);

#endif
