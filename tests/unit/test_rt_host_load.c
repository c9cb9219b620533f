/*
** test_rt_host_load.c - the host's load functions (rt_host_load.c):
** every door (lraf_load_string, lraf_load_file, lraf_run_string,
** lraf_run_file, lraf_load_rewritten of lraf_rewrite's output) gives
** the same output and the same count for one program; what each
** refuses, with a message that says what: no source, a missing file,
** a syntax error, another state's binary chunk, an unsigned offline chunk, one made
** for another cost model.  (Forged offline chunks: test_rt_host_load_
** forged.)
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>

#include "lraf.h"
#include "tutil_rt.h"

static const char src[] =
  "local t = {}\n"
  "for i = 1, 200 do t[#t + 1] = i % 7 end\n"
  "print(#t, t[100])\n";

static char path[64];

static int setup(void **state) {
  FILE *f;
  int fd;
  (void)state;
  strcpy(path, "/tmp/lraf-hostload-XXXXXX");
  fd = mkstemp(path);
  if (fd < 0) return -1;
  close(fd);
  f = fopen(path, "w");
  if (f == NULL) return -1;
  fputs(src, f);
  fclose(f);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return unlink(path);
}

enum { STRING, FILE_, RUN_STRING, RUN_FILE, REWRITTEN, NDOORS };

static lraf_status through(lraf_state *S, int door, lraf_error *err) {
  lraf_status st = LRAF_OK;
  void *off;
  size_t size;
  lraf_options o;
  switch (door) {
    case STRING: st = lraf_load_string(S, src, strlen(src), "=d", err); break;
    case FILE_: st = lraf_load_file(S, path, err); break;
    case RUN_STRING: return lraf_run_string(S, src, "=d", err);
    case RUN_FILE: return lraf_run_file(S, path, err);
    default:
      lraf_default_options(&o);
      st = lraf_rewrite(&o, src, strlen(src), "=d", &off, &size, err);
      if (st == LRAF_OK) st = lraf_load_rewritten(S, off, size, err);
      free(off);
      break;
  }
  return st == LRAF_OK ? lraf_call(S, 0, 0, err) : st;
}

static void test_every_door(void **state) {
  int64_t count[NDOORS];
  int door;
  (void)state;
  for (door = 0; door < NDOORS; door++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_default_options(&opt);
    opt.allow_offline = 1;
    S = tutil_rt_new(&opt);
    if (through(S, door, &err) != LRAF_OK)
      fail_msg("door %d: %s", door, err.message);
    assert_string_equal(tutil_rt_output(S, NULL), "200\t2\n");
    count[door] = lraf_total(S);
    assert_int_equal(count[door], count[0]);
    tutil_rt_close(S);
  }
}

static void test_refused(void **state) {
  lraf_state *S = tutil_rt_new(NULL), *exact;
  lraf_options o;
  lraf_error err;
  void *off;
  size_t size;
  char *dump;
  (void)state;
  assert_int_equal(lraf_load_string(S, NULL, 0, "=x", &err), LRAF_EARG);
  assert_string_equal(err.message, "lraf_load_string: no source");
  assert_int_equal(lraf_run_string(S, NULL, "=x", &err), LRAF_EARG);
  assert_int_equal(lraf_load_file(NULL, path, &err), LRAF_EARG);
  assert_int_equal(lraf_load_rewritten(S, NULL, 0, &err), LRAF_EARG);
  assert_int_equal(lraf_load_file(S, "/nonexistent/x.lua", &err), LRAF_EIO);
  assert_non_null(strstr(err.message, "/nonexistent/x.lua"));
  assert_int_equal(lraf_load_string(S, "x = = 1", 7, "=syn", &err),
                   LRAF_ESYNTAX);
  assert_non_null(strstr(err.message, "syn:1:"));
  /* binary chunks: the state's own dumps load (full environment),
     another state's are refused, and neither is an offline chunk */
  {
    lraf_state *other = tutil_rt_new(NULL);
    lua_State *L = lraf_lua(other);
    const char *d;
    assert_int_equal(lraf_run_string(other, "DUMP = string.dump(function() "
                                     "end)", "=d", &err), LRAF_OK);
    lua_getglobal(L, "DUMP");
    d = lua_tolstring(L, -1, &size);
    dump = malloc(size);
    assert_non_null(dump);
    memcpy(dump, d, size);
    assert_int_not_equal(lraf_load_string(S, dump, size, "=b", &err),
                         LRAF_OK);
    assert_non_null(strstr(err.message, "binary chunk"));
    assert_int_equal(lraf_load_string(other, dump, size, "=b", &err),
                     LRAF_OK);
    assert_int_equal(lraf_load_rewritten(S, dump, size, &err), LRAF_EFORMAT);
    assert_non_null(strstr(err.message, "a plain Lua binary chunk"));
    free(dump);
    tutil_rt_close(other);
  }
  /* offline chunks: unsigned refused unless allowed; model checked */
  lraf_default_options(&o);
  assert_int_equal(lraf_rewrite(&o, src, strlen(src), "=d", &off, &size,
                                &err), LRAF_OK);
  assert_int_equal(lraf_load_rewritten(S, off, size, &err), LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "unsigned chunks rewritten offline "
                                      "are refused"));
  o.exact = 1;
  o.allow_offline = 1;
  exact = tutil_rt_new(&o);
  assert_int_equal(lraf_load_rewritten(exact, off, size, &err),
                   LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "chunk was rewritten for cost model "));
  assert_non_null(strstr(err.message, "/exact"));
  free(off);
  tutil_rt_close(exact);
  tutil_rt_close(S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_door),
    cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
