/*
** tutil_rt.h - test helpers for the runtime: lraf states whose print
** and io.write are captured, per-account counts, and a per-thread
** count-hook oracle that runs the same source unmodified.
*/
#ifndef TUTIL_RT_H
#define TUTIL_RT_H

#include <stddef.h>
#include <stdint.h>

#include "lraf.h"

/* Instructions per thread: [0] is the main thread, then coroutines in
   the order they were created. */
typedef struct tutil_threads {
  long long *count;
  int n;
  int ok;             /* the chunk ran without an error */
  char error[512];
  char *output;       /* what print and io.write wrote */
  size_t outlen;
} tutil_threads;

/* A new state (opt may be NULL for the defaults) whose print and
   io.write append to a buffer; fails the test when it cannot. */
lraf_state *tutil_rt_new(const lraf_options *opt);
/* What the state printed so far (NUL-terminated, owned by the state). */
const char *tutil_rt_output(lraf_state *S, size_t *len);
/* Close a state made by tutil_rt_new. */
void tutil_rt_close(lraf_state *S);

/* Everything the state counted: all accounts plus retired ones. */
int64_t tutil_rt_total(lraf_state *S);
/* Counts per account id (needs keep_accounts for dead coroutines). */
void tutil_rt_counts(lraf_state *S, tutil_threads *t);

/* Run src unmodified with a count hook of 1 on every thread, counting
   per thread; coroutine.create and coroutine.wrap record the creation
   order. */
void tutil_rt_oracle(const char *src, size_t len, const char *name,
                     tutil_threads *t);
void tutil_threads_free(tutil_threads *t);

/* A manager that pauses at every consume that may pause, counting those
   in *pauses (release it with lraf_manager_release). */
lraf_manager *tutil_pausing_manager(int *pauses);

/* Load src (chunk name name) in S and run it in a new coroutine,
   resuming it for as long as S's manager pauses it; fails the test
   unless it returns n values without an error, which go to results (as
   numbers).  Leaves S's Lua stack as it found it. */
void tutil_rt_resume_all(lraf_state *S, const char *src, const char *name,
                         int n, double *results);

/* Run src in S (loaded with lraf_load_string, called with lraf_call);
   returns the status, with the message in err. */
lraf_status tutil_rt_run(lraf_state *S, const char *src, lraf_error *err);

/* Run src in exact mode in a new state made with opt (NULL: the
   defaults), keeping every account, and fail the test unless each
   thread's account equals what tutil_rt_oracle counts on that
   thread. */
void tutil_rt_agree(const lraf_options *opt, const char *src, size_t len,
                    const char *name);

/* Run src once in a new state made with opt (NULL: the defaults):
   returns the status, with the message in err and what the chunk
   printed in *out (malloc'ed, NUL-terminated; free it). */
lraf_status tutil_rt_once(const lraf_options *opt, const char *src,
                          lraf_error *err, char **out);

/* Run src with native charging on under a limit of quota units; fails
   the test unless the quota stops it.  Returns the units charged. */
int64_t tutil_rt_native_quota(const char *src, int64_t quota);

/* The native units one statement is charged: its count in a state with
   native charging minus its count in one without, after setup ran (both
   see a local N = n). */
int64_t tutil_rt_native_charge(const char *setup, const char *stmt,
                               long long n);

#endif
