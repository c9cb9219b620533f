/*
** fuzz_pool.c - libFuzzer target: the request pool (service/) with the
** bytes as a request.  Up to the first "\n--\n" they are the handler
** chunk's source; after it, the query value n and then the body.  One
** pool of one worker with a 4 MiB memory limit serves every input for
** one tenant, each request under a limit of 20000 instructions, so that
** states are reused, stopped and replaced as in a server.  Checked: the
** response is whole (a status of 100..599, a body, a cost-model id), a
** failure has the status of its code, native units are part of the
** count, and the tenant was charged at least what its requests were.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static lraf_pool *pool;
static lraf_manager *tenant;
static int64_t billed;

/* The first "\n--\n" in s[0..n), or NULL. */
static const char *separator(const char *s, size_t n) {
  size_t i;
  for (i = 0; i + 4 <= n; i++)
    if (memcmp(s + i, "\n--\n", 4) == 0) return s + i;
  return NULL;
}

static void fail(const char *why) {
  fprintf(stderr, "fuzz_pool: %s\n", why);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *src = (const char *)data, *sep, *n = "", *body = "";
  char *copy;
  size_t slen = size, blen = 0;
  const char *query[3] = {"n", NULL, NULL};
  lraf_request rq;
  lraf_response res;
  if (pool == NULL) {
    lraf_pool_options o;
    lraf_error err;
    lraf_pool_default_options(&o);
    o.workers = 1;
    o.state.memory_limit = 4 << 20;
    if (lraf_pool_new(&o, &pool, &err) != LRAF_OK) fail(err.message);
    tenant = lraf_total_new();
  }
  /* a NUL-terminated copy, split in place */
  copy = malloc(size + 1);
  if (copy == NULL) return 0;
  memcpy(copy, data, size);
  copy[size] = '\0';
  src = copy;
  sep = separator(copy, size);
  if (sep != NULL) {
    char *rest = (char *)sep + 4, *nl;
    slen = (size_t)(sep - copy);
    n = rest;
    nl = strchr(rest, '\n');
    if (nl != NULL) {
      *nl = '\0';
      body = nl + 1;
      blen = size - (size_t)(body - copy);
    }
  }
  query[1] = n;
  memset(&rq, 0, sizeof rq);
  rq.tenant = "fuzz";
  rq.tenant_manager = tenant;
  rq.limit = 20000;
  rq.handler = "fuzz";
  rq.source = src;
  rq.source_len = slen;
  rq.method = "POST";
  rq.path = "/fuzz";
  rq.query = query;
  rq.body = body;
  rq.body_len = blen;
  lraf_pool_run(pool, &rq, &res);
  if (res.status < 100 || res.status > 599) fail("status out of range");
  if (res.body == NULL) fail("no body");
  if (res.model[0] == '\0') fail("no cost-model id");
  if (res.code == LRAF_EQUOTA && res.status != 429) fail("quota not 429");
  if (res.code == LRAF_EMEMLIMIT && res.status != 507) fail("memory not 507");
  if ((res.code == LRAF_ERUN || res.code == LRAF_ESYNTAX) &&
      res.status != 500)
    fail("error not 500");
  if (res.instructions < 0 || res.native < 0 ||
      res.native > res.instructions)
    fail("native units not part of the count");
  billed += res.instructions;
  if (lraf_manager_total(tenant) < billed)
    fail("the tenant was charged less than its requests");
  lraf_response_free(&res);
  free(copy);
  return 0;
}
