/*
** tutil_vm.c - test helpers for the bytecode/ chunk reader and writer:
** compiling Lua source and dumping it to bytes, loading bytes back,
** rewriting it in the chunk model.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt_pipeline.h"
#include "tutil_vm.h"

static void set_msg(char *msg, size_t msgsize, const char *s) {
  if (msg != NULL && msgsize > 0)
    snprintf(msg, msgsize, "%s", s != NULL ? s : "?");
}

int tutil_vm_dump(const char *src, size_t len, const char *name, int strip,
                  tutil_vm_buf *out, char *msg, size_t msgsize) {
  lraf_error err;
  char *data = NULL;
  size_t size = 0;
  out->data = NULL;
  out->size = 0;
  if (rt_compile(src, len, name, strip, &data, &size, &err) != LRAF_OK) {
    set_msg(msg, msgsize, err.message);
    return 0;
  }
  out->data = (uint8_t *)data;
  out->size = size;
  return 1;
}

typedef struct reader_state {
  const void *data;
  size_t size;
} reader_state;

static const char *give_all(lua_State *L, void *ud, size_t *size) {
  reader_state *rs = ud;
  const void *d = rs->data;
  (void)L;
  *size = rs->size;
  rs->size = 0;
  return *size > 0 ? d : NULL;
}

int tutil_vm_load(const void *data, size_t size, char *msg, size_t msgsize) {
  lua_State *L = luaL_newstate();
  reader_state rs;
  int ok;
  if (L == NULL) {
    set_msg(msg, msgsize, "cannot create lua_State");
    return 0;
  }
  rs.data = data;
  rs.size = size;
  ok = lua_load(L, give_all, &rs, "=written", "b") == LUA_OK;
  if (!ok)
    set_msg(msg, msgsize, lua_tostring(L, -1));
  lua_close(L);
  return ok;
}

bc_chunk *tutil_vm_read(const char *src, const char *name) {
  tutil_vm_buf buf;
  char msg[256];
  bc_chunk *c = NULL;
  lraf_error err;
  if (!tutil_vm_dump(src, strlen(src), name, 0, &buf, msg, sizeof msg))
    fail_msg("%s does not compile: %s", name, msg);
  if (bc_read(buf.data, buf.size, NULL, &c, &err) != LRAF_OK)
    fail_msg("%s: bc_read: %s", name, err.message);
  free(buf.data);
  return c;
}

bc_chunk *tutil_vm_rewritten(const char *src, const char *name,
                             const rw_options *opt, rw_stats *stats) {
  rt_input in;
  bc_chunk *chunk = NULL;
  lraf_error err;
  memset(&in, 0, sizeof in);
  in.kind = RT_INPUT_SOURCE;
  in.data = src;
  in.size = strlen(src);
  in.name = name;
  memset(stats, 0, sizeof *stats);
  if (rt_pipeline(&in, opt, stats, &chunk, &err) != LRAF_OK)
    fail_msg("%s: %s: %s", name, lraf_status_name(err.code), err.message);
  return chunk;
}

const tutil_vm_mode tutil_vm_lravm_memory = {0, 1, 0, RW_LRAVM};
const tutil_vm_mode tutil_vm_keep[TUTIL_VM_NKEEP] = {
  {1, 1, 0, RW_LRAVM}, {0, 1, 1, RW_LRAVM}, {0, 0, 0, RW_LRAVM},
  {0, 1, 0, RW_STOCK}
};

bc_chunk *tutil_vm_rewritten_in(const char *src, const char *name,
                                const tutil_vm_mode *mode, rw_stats *stats) {
  rw_options opt;
  rw_default_options(&opt);
  opt.target = mode->target;
  opt.exact = mode->exact;
  opt.refunds = mode->refunds;
  opt.lines = mode->lines;
  return tutil_vm_rewritten(src, name, &opt, stats);
}

static const char *stock_why;

static void test_stock_build(void **state) {
  (void)state;
  print_message("  %s\n", stock_why);
  skip();
}

int tutil_vm_skip_stock(const char *why) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stock_build),
  };
  stock_why = why;
  return cmocka_run_group_tests(tests, NULL, NULL);
}
