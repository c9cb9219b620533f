/*
** test_rt_pipeline.c - the load pipeline (rt_pipeline.c): a function
** at the top of a state, its source text and its binary chunk give the
** same rewritten and verified chunk; without options the chunk is read
** only (written back, the compiler's bytes); a rewritten chunk fed back
** is verified and never rewritten twice; a plain chunk presented as
** rewritten, a syntax error and bytes that are no chunk are refused
** with a message; in-place rewriting exists on the lraf VM only.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "tutil_rt.h"

static const char src[] =
  "local t = {}\n"
  "for i = 1, 10 do t[i] = i * i end\n"
  "local function f(n) if n < 2 then return n end\n"
  "  return f(n - 1) + f(n - 2) end\n"
  "return f(10) + #t\n";

typedef struct bytes {
  void *data;
  size_t size;
} bytes;

/* The chunk of in, rewritten with opt (NULL: read only), as bytes. */
static lraf_status through(const rt_input *in, const rw_options *opt,
                           bytes *out, lraf_error *err) {
  bc_chunk *chunk;
  lraf_status st = rt_pipeline(in, opt, NULL, &chunk, err);
  if (st != LRAF_OK) return st;
  assert_int_equal(bc_write(chunk, &out->data, &out->size, err), LRAF_OK);
  bc_chunk_free(chunk);
  return LRAF_OK;
}

static void same(const bytes *a, const bytes *b) {
  assert_int_equal(a->size, b->size);
  assert_memory_equal(a->data, b->data, a->size);
}

/* Each kind of input, each target: one result. */
static void test_kinds_agree(void **state) {
  static const rw_target targets[] = {RW_STOCK, RW_LRAVM};
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    rw_options opt;
    lraf_error err;
    char *dump;
    size_t dsize;
    bytes from_src, from_chunk, from_top, again;
    rt_input in = {RT_INPUT_SOURCE, NULL, src, strlen(src), "=p"};
    lua_State *L = luaL_newstate();
    rw_default_options(&opt);
    opt.target = targets[i];
    assert_int_equal(rt_compile(src, strlen(src), "=p", 0, &dump, &dsize,
                                &err), LRAF_OK);
    assert_int_equal(through(&in, &opt, &from_src, &err), LRAF_OK);
    in.kind = RT_INPUT_CHUNK;
    in.data = dump;
    in.size = dsize;
    assert_int_equal(through(&in, &opt, &from_chunk, &err), LRAF_OK);
    assert_int_equal(luaL_loadbuffer(L, src, strlen(src), "=p"), LUA_OK);
    in.kind = RT_INPUT_TOP;
    in.L = L;
    assert_int_equal(through(&in, &opt, &from_top, &err), LRAF_OK);
    assert_int_equal(lua_gettop(L), 0);  /* popped */
    same(&from_src, &from_chunk);
    same(&from_src, &from_top);
    /* rewritten already: verified, the same bytes again */
    in.kind = RT_INPUT_REWRITTEN;
    in.data = from_src.data;
    in.size = from_src.size;
    assert_int_equal(through(&in, &opt, &again, &err), LRAF_OK);
    same(&from_src, &again);
    assert_true(from_src.size > dsize);
    free(again.data);
    free(from_top.data);
    free(from_chunk.data);
    free(from_src.data);
    free(dump);
    lua_close(L);
  }
}

/* Without options: read only, the compiler's bytes back. */
static void test_read_only(void **state) {
  static const int strips[] = {0, 1};
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    lraf_error err;
    char *dump;
    size_t dsize;
    bytes out;
    rt_input in = {RT_INPUT_CHUNK, NULL, NULL, 0, NULL};
    assert_int_equal(rt_compile(src, strlen(src), "=p", strips[i], &dump,
                                &dsize, &err), LRAF_OK);
    in.data = dump;
    in.size = dsize;
    assert_int_equal(through(&in, NULL, &out, &err), LRAF_OK);
    assert_int_equal(out.size, dsize);
    assert_memory_equal(out.data, dump, dsize);
    free(out.data);
    free(dump);
  }
}

/* What is refused, and the message says what. */
static void test_refused(void **state) {
  rw_options opt;
  lraf_error err;
  char *dump;
  size_t dsize;
  bytes out;
  rt_input in = {RT_INPUT_SOURCE, NULL, "local = 1", 9, "=bad"};
  (void)state;
  rw_default_options(&opt);
  assert_int_equal(through(&in, &opt, &out, &err), LRAF_ESYNTAX);
  assert_non_null(strstr(err.message, "bad:1:"));
  in.kind = RT_INPUT_CHUNK;
  in.data = "\x1bLua not really a chunk";
  in.size = 23;
  assert_int_not_equal(through(&in, &opt, &out, &err), LRAF_OK);
  assert_true(strlen(err.message) > 0);
  /* a plain chunk is no rewritten one */
  assert_int_equal(rt_compile(src, strlen(src), "=p", 0, &dump, &dsize,
                              &err), LRAF_OK);
  in.kind = RT_INPUT_REWRITTEN;
  in.data = dump;
  in.size = dsize;
  assert_int_not_equal(through(&in, &opt, &out, &err), LRAF_OK);
  assert_true(strlen(err.message) > 0);
  free(dump);
}

/* In place: the lraf VM's build only. */
static void test_in_place(void **state) {
  lraf_options o;
  lraf_state *S;
  lua_State *L;
  rw_options opt;
  lraf_error err;
  lraf_status st;
  (void)state;
  lraf_default_options(&o);
  S = tutil_rt_new(&o);
  L = lraf_lua(S);
  rw_default_options(&opt);
  opt.target = RW_LRAVM;
  assert_int_equal(luaL_loadbuffer(L, src, strlen(src), "=p"), LUA_OK);
  st = rt_pipeline_in_place(L, &opt, NULL, &err);
  if (!lraf_vm_builtin()) {
    assert_int_equal(st, LRAF_EARG);
  } else {
    assert_int_equal(st, LRAF_OK);
    assert_true(lua_isfunction(L, -1));
  }
  lua_settop(L, 0);
  tutil_rt_close(S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_kinds_agree),
    cmocka_unit_test(test_read_only),
    cmocka_unit_test(test_refused),
    cmocka_unit_test(test_in_place),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
