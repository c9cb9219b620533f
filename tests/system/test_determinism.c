/*
** test_determinism.c - one count everywhere: deterministic states give
** byte-identical reports, profiles, serve counts and C API counts for
** the same program, run after run, with address space randomization on
** and off, a large environment, another working directory, a long
** symlinked script path and a competing busy process.  The programs are
** what varied before: string-keyed tables iterated with pairs, sorts
** (Lua's pivot after a bad partition came from the clock), math.random,
** a memory stop (its count followed the script's and the report's path)
** and a table keyed by tables left at the first match (addresses); a
** script with its own debug hooks gets the same profile from both
** targets.
** On the stock target Lua's string hash seed stays random, and table
** keys hash by address: the order-dependent cases run on the lraf VM
** only (docs/cost-model.md, "Determinism").  Runs $LRAF.
*/
#define _XOPEN_SOURCE 700  /* realpath */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lua.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_serve.h"
#include "tutil_sh.h"

#define RUNS 5

static tutil_sh sh;
static char lraf[PATH_MAX];
static int vm;           /* the lraf under test runs the lraf VM */
static int have_setarch;

/* string keys, pairs, a sort of 500 numbers */
static const char prog_pairs[] =
    "local t = {}\n"
    "for i = 1, 2000 do t['k' .. i] = i end\n"
    "local s, n = 0, 0\n"
    "for k, v in pairs(t) do s = s + v; n = n + 1; if n == 700 then break end end\n"
    "local a = {}\n"
    "for i = 1, 500 do a[i] = (i * 7919) % 1000 end\n"
    "table.sort(a)\n"
    "print(s, a[1], a[500])\n";
/* a sort with a Lua comparator that makes Lua re-pick its pivot */
static const char prog_sort[] =
    "local a = {}\n"
    "for i = 1, 3000 do a[i] = i <= 1500 and i or 3001 - i end\n"
    "table.sort(a, function(x, y) return x < y end)\n"
    "print(a[1], a[3000])\n";
/* math.random before the script seeds it */
static const char prog_random[] =
    "local s = 0\n"
    "for i = 1, math.random(100, 10000) do s = s + math.random(10) end\n"
    "print(s)\n";
/* a memory stop */
static const char prog_memory[] =
    "local t, i = {}, 0\n"
    "while true do i = i + 1; t[i] = {i, tostring(i)} end\n";
/* a table keyed by tables, left at the first match */
static const char prog_tablekeys[] =
    "local keys, t = {}, {}\n"
    "for i = 1, 300 do keys[i] = {}; t[keys[i]] = i end\n"
    "local n = 0\n"
    "for k in pairs(t) do n = n + 1; if k == keys[150] then break end end\n"
    "print(n)\n";

/* nested traversals of tables with integer keys in their hash parts
   (next's hint cache once chose its entry by the table's address) */
static const char prog_nested[] =
    "local ts = {}\n"
    "for j = 1, 12 do ts[j] = {}; for i = 1, 40 do ts[j][i * 1009 + j] = i end end\n"
    "local s = 0\n"
    "for j = 1, 12 do for _, a in pairs(ts[j]) do\n"
    "  for _, b in pairs(ts[(j % 12) + 1]) do s = s + a * b end end end\n"
    "print(s)\n";

/* a script's own line, call and return hooks, in a coroutine too (the
   profiles only: its hook functions are frames of their own) */
static const char prog_hooks[] =
    "local n = 0\n"
    "local function work(k) local s = 0 for i = 1, k do s = s + i end\n"
    "  return s end\n"
    "local function count(e, l) n = n + 1 end\n"
    "debug.sethook(count, 'crl')\n"
    "local co = coroutine.wrap(function()\n"
    "  debug.sethook(count, 'r')\n"
    "  for i = 1, 5 do coroutine.yield(work(i)) end end)\n"
    "for i = 1, 5 do co() end\n"
    "local s = #string.rep('ab', 10)\n"
    "debug.sethook()\n"
    "print(n, s)\n";

typedef struct prog {
  const char *name, *text;
  int order;        /* depends on pairs order: the lraf VM only */
  const char *opts; /* extra options */
} prog;

static const prog progs[] = {
    {"pairs.lua", prog_pairs, 1, ""},
    {"sort.lua", prog_sort, 0, ""},
    {"random.lua", prog_random, 0, ""},
    {"memory.lua", prog_memory, 0, "--memory-limit 2MiB"},
    {"tablekeys.lua", prog_tablekeys, 1, ""},
    {"nested.lua", prog_nested, 0, ""},
};
#define NPROGS (sizeof progs / sizeof progs[0])

static const char *const modes[] = {"", "--exact", "--native", "--sandbox",
                                    "--limit 1G"};
#define NMODES (sizeof modes / sizeof modes[0])

/* The long symlinked directory every script is also reached through. */
#define LONGDIR "a-long-directory-name-so-that-the-chunk-name-is-long-too"

static int setup(void **state) {
  const char *l = tutil_sh_lraf();
  size_t i;
  char cmd[2 * PATH_MAX];
  (void)state;
  if (tutil_sh_init(&sh, "det") != 0 || realpath(l, lraf) == NULL) return -1;
  vm = lraf_vm_builtin();
  have_setarch = system("setarch -R true >/dev/null 2>&1") == 0;
  for (i = 0; i < NPROGS; i++)
    if (tutil_sh_write(&sh, progs[i].name, progs[i].text) != 0) return -1;
  if (tutil_sh_write(&sh, "hooks.lua", prog_hooks) != 0) return -1;
  snprintf(cmd, sizeof cmd,
           "cd '%s' && mkdir -p other " LONGDIR "/sub && "
           "for f in *.lua; do ln -sf \"$PWD/$f\" " LONGDIR "/sub/"
           "linked-with-a-long-name-$f; done",
           sh.dir);
  return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* The shell command of variant v (0..RUNS-1) running `lraf ARGS` on
   script: plain; ASLR off; a large environment; from another directory
   through the long symlink; beside a busy process. */
static void variant(char *cmd, size_t size, int v, const char *args,
                    const char *script) {
  static const char pad[] = "0123456789abcdef0123456789abcdef";
  switch (v) {
    case 1:
      snprintf(cmd, size, "cd '%s' && %s'%s' %s %s", sh.dir,
               have_setarch ? "setarch -R " : "", lraf, args, script);
      break;
    case 2:
      snprintf(cmd, size,
               "cd '%s' && P=%s; P=$P$P$P$P$P$P$P$P; P=$P$P$P$P$P$P$P$P; "
               "env LRAF_TEST_PAD=$P$P$P$P '%s' %s %s",
               sh.dir, pad, lraf, args, script);
      break;
    case 3:
      snprintf(cmd, size, "cd '%s/other' && '%s' %s ../" LONGDIR
               "/sub/linked-with-a-long-name-%s", sh.dir, lraf, args,
               script);
      break;
    case 4:
      snprintf(cmd, size,
               "cd '%s' && { (while :; do :; done) & B=$!; '%s' %s %s; "
               "s=$?; kill $B; exit $s; }", sh.dir, lraf, args, script);
      break;
    default:
      snprintf(cmd, size, "cd '%s' && '%s' %s %s", sh.dir, lraf, args,
               script);
      break;
  }
}

/* A file's text without the lines that hold a time or a path (and, with
   peak, the memory peak). */
static char *stable_peak(const char *path, int peak) {
  size_t n;
  char *t = tutil_run_slurp(path, &n), *r, *w;
  assert_non_null(t);
  for (r = w = t; *r != '\0';) {
    char *e = strchr(r, '\n');
    size_t len = e ? (size_t)(e - r + 1) : strlen(r);
    char *s = strstr(r, "second");  /* wall, cpu, per cpu second */
    if ((s == NULL || s >= r + len) &&
        strncmp(r, "  \"script\"", 10) != 0 &&
        strncmp(r, "  \"stopped_at\"", 14) != 0 &&
        (peak || strncmp(r, "  \"memory_peak\"", 15) != 0)) {
      memmove(w, r, len);
      w += len;
    }
    r += len;
  }
  *w = '\0';
  return t;
}

static char *stable(const char *path) {
  return stable_peak(path, 1);
}

/* Run `lraf ARGS script` in every variant; the reports (and stdout)
   must be the same.  Returns the first report. */
static char *same_everywhere(const char *args, const char *script) {
  char cmd[4 * PATH_MAX], full[2 * PATH_MAX], report[PATH_MAX];
  char *first = NULL, *first_np = NULL, *first_out = NULL;
  int v, st0 = -2;
  snprintf(report, sizeof report, "%s/report.json", sh.dir);
  for (v = 0; v < RUNS; v++) {
    char *rep, *out;
    const char *want;
    int st;
    snprintf(full, sizeof full, "run --report '%s' %s", report, args);
    variant(cmd, sizeof cmd, v, full, script);
    st = tutil_sh_run(&sh, "%s", cmd);
    /* the peak may differ by a few bytes between a short and a long
       chunk name (docs/cost-model.md lists the gap); counts may not */
    rep = stable_peak(report, v != 3);
    out = stable(sh.out);
    if (first == NULL) {
      first = rep;
      first_np = stable_peak(report, 0);
      first_out = out;
      st0 = st;
      continue;
    }
    want = v == 3 ? first_np : first;
    if (st != st0 || strcmp(rep, want) != 0 || strcmp(out, first_out) != 0)
      fail_msg("lraf run %s %s: variant %d differs (status %d, %d)\n"
               "--- first\n%s%s--- this\n%s%s", args, script, v, st0, st,
               first_out, want, out, rep);
    free(rep);
    free(out);
  }
  free(first_out);
  free(first_np);
  return first;
}

static void test_run_everywhere(void **state) {
  size_t p, m;
  (void)state;
  for (p = 0; p < NPROGS; p++) {
    for (m = 0; m < NMODES; m++) {
      char args[256];
      int native = strcmp(modes[m], "") != 0 && strcmp(modes[m], "--exact");
      if (progs[p].order && !vm) continue;  /* stock: hash order */
      if (strcmp(progs[p].name, "pairs.lua") == 0 && !vm && native)
        continue;
      snprintf(args, sizeof args, "--deterministic %s %s", modes[m],
               progs[p].opts);
      free(same_everywhere(args, progs[p].name));
    }
  }
}

/* The memory stop, from a short and a long script path and report path:
   the same count (the chunk name and arg are the host's). */
static void test_memory_stop_paths(void **state) {
  char *a, *b;
  (void)state;
  a = same_everywhere("--deterministic --memory-limit 3MiB", "memory.lua");
  assert_non_null(strstr(a, "\"status\": \"memory\""));
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' run --deterministic "
                   "--memory-limit 3MiB --report '%s/" LONGDIR "/r.json' "
                   "'%s/" LONGDIR "/sub/linked-with-a-long-name-memory.lua'",
                   sh.dir, lraf, sh.dir, sh.dir), 4);
  {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" LONGDIR "/r.json", sh.dir);
    b = stable(path);
  }
  assert_string_equal(a, b);
  free(a);
  free(b);
}

/* Twenty runs with ASLR on: the table-keyed loop stops at one count. */
static void test_table_keys_aslr(void **state) {
  char first[64] = "", buf[64];
  int i;
  (void)state;
  if (!vm) skip();  /* stock Lua hashes table keys by address */
  for (i = 0; i < 20; i++) {
    size_t n;
    char *out;
    assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' run --deterministic "
                     "--report - tablekeys.lua 2>&1 | head -2", sh.dir,
                     lraf), 0);
    out = tutil_run_slurp(sh.out, &n);
    assert_non_null(out);
    snprintf(buf, sizeof buf, "%.60s", out);
    free(out);
    if (i == 0) strcpy(first, buf);
    else assert_string_equal(first, buf);
  }
}

/* lraf profile (deterministic by default): the same folded profile. */
static void test_profile_everywhere(void **state) {
  static const char *const scripts[] = {"pairs.lua", "sort.lua",
                                        "random.lua", "hooks.lua"};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
    char cmd[4 * PATH_MAX], *first = NULL;
    int v;
    if (!vm && i == 0) continue;
    for (v = 0; v < RUNS; v++) {
      char *out;
      size_t n;
      if (v == 3) continue;  /* the frames name the script's path */
      variant(cmd, sizeof cmd, v, "profile --format folded --native",
              scripts[i]);
      assert_int_equal(tutil_sh_run(&sh, "%s", cmd), 0);
      out = tutil_run_slurp(sh.out, &n);
      assert_non_null(out);
      if (first == NULL) first = out;
      else {
        if (strcmp(first, out) != 0)
          fail_msg("lraf profile %s: variant %d differs\n%s---\n%s",
                   scripts[i], v, first, out);
        free(out);
      }
    }
    free(first);
  }
}

/* The two targets of the lraf VM build agree function by function on
   corpus programs, the examples and a script with its own debug hooks
   (lraf profile --vm stock). */
static void test_profile_targets_agree(void **state) {
  static const char *const scripts[] = {
      "examples/sort/quick.lua", "examples/sort/merge.lua",
      "tests/corpus/queens.lua", "tests/corpus/richards.lua",
      "tests/corpus/closures.lua", "tests/corpus/coroutines.lua",
      "hooks.lua"};
  size_t i;
  (void)state;
  if (!vm) skip();  /* the stock build has one target */
  for (i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
    char *a, *b, file[PATH_MAX];
    size_t n;
    /* the repository's, or written by setup */
    snprintf(file, sizeof file, "%s/%s",
             strchr(scripts[i], '/') != NULL ? "." : sh.dir, scripts[i]);
    assert_int_equal(tutil_sh_run(&sh, "'%s' profile --format folded '%s'",
                                  lraf, file), 0);
    a = tutil_run_slurp(sh.out, &n);
    assert_int_equal(tutil_sh_run(&sh, "'%s' profile --vm stock --format "
                                  "folded '%s'", lraf, file), 0);
    b = tutil_run_slurp(sh.out, &n);
    assert_non_null(a);
    assert_non_null(b);
    if (strcmp(a, b) != 0)
      fail_msg("%s: the targets' profiles differ\n%s---\n%s", scripts[i], a,
               b);
    free(a);
    free(b);
  }
}

/* table.sort in a deterministic state (on the stock target lraf's own,
   rt_sort.c) sorts and fails as Lua's does: the same output with and
   without --deterministic. */
static void test_sort_semantics(void **state) {
  char *a, *b;
  size_t n;
  (void)state;
  assert_int_equal(tutil_sh_write(&sh, "sortsem.lua",
      "local function show(...) print(select('#', ...), ...) end\n"
      "local r = {}\n"
      "for i = 1, 400 do r[i] = (i * 37) % 101 end\n"
      "table.sort(r)\n"
      "print(table.concat(r, ' ', 1, 40))\n"
      "local s = {}\n"
      "for i = 1, 300 do s[i] = tostring((i * 13) % 29) end\n"
      "table.sort(s, function(x, y) return x > y end)\n"
      "print(table.concat(s, ' ', 1, 40))\n"
      "show(pcall(table.sort, 5))\n"
      "show(pcall(table.sort, {3, 1, 2}, 7))\n"
      "show(pcall(table.sort, {3, 1, 'x'}))\n"
      "local bad = {}\n"
      "for i = 1, 200 do bad[i] = i % 7 end\n"
      "show(pcall(table.sort, bad, function() return true end))\n"
      "local p = setmetatable({}, {__index = function(_, i) return 10 - i end,\n"
      "  __newindex = function(t, i, v) rawset(t, i, v) end,\n"
      "  __len = function() return 9 end})\n"
      "table.sort(p)\n"
      "print(rawget(p, 1), rawget(p, 9))\n"
      "show(table.sort({}), table.sort({1}))\n"), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' run --deterministic "
                                "sortsem.lua", sh.dir, lraf), 0);
  a = tutil_run_slurp(sh.out, &n);
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' run "
                                "--no-deterministic sortsem.lua", sh.dir,
                                lraf), 0);
  b = tutil_run_slurp(sh.out, &n);
  assert_non_null(a);
  assert_non_null(b);
  assert_non_null(strstr(a, "invalid order function for sorting"));
  assert_non_null(strstr(a, "table expected, got number"));
  assert_string_equal(a, b);
  free(a);
  free(b);
}

/* lraf bench: one count over its runs, and a script that reads the
   clock fails with the reason. */
static void test_bench(void **state) {
  size_t n;
  char *err;
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' bench -n 5 sort.lua "
                   "random.lua", sh.dir, lraf), 0);
  assert_int_equal(tutil_sh_write(&sh, "clock.lua",
                   "local c = os.clock()\n"
                   "for i = 1, 200000 do end\n"
                   "for i = 1, math.floor((os.clock() - c) * 1e6) % 97 do end\n"),
                   0);
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' bench -n 8 clock.lua",
                                sh.dir, lraf), 1);
  err = tutil_run_slurp(sh.err, &n);
  assert_non_null(err);
  assert_non_null(strstr(err, "differs between runs"));
  assert_non_null(strstr(err, "the clock"));
  free(err);
}

/* lraf serve: the same POST body, the same count, from two servers. */
static void test_serve(void **state) {
  char dir[PATH_MAX], log[PATH_MAX], first[32] = "";
  int s;
  (void)state;
  snprintf(dir, sizeof dir, "%s/handlers", sh.dir);
  assert_int_equal(tutil_sh_run(&sh, "mkdir -p '%s'", dir), 0);
  assert_int_equal(tutil_sh_write(&sh, "handlers/work.lua",
                   "return function(req)\n"
                   "  local t, n = {}, 0\n"
                   "  for w in req.body:gmatch('%a+') do t[w] = (t[w] or 0) + 1 end\n"
                   "  for k, v in pairs(t) do n = n + v; if n > 40 then break end end\n"
                   "  local a = {}\n"
                   "  for i = 1, 300 do a[i] = math.random(1000) end\n"
                   "  table.sort(a, function(x, y) return x > y end)\n"
                   "  return 200, tostring(n)\n"
                   "end\n"), 0);
  for (s = 0; s < 2; s++) {
    const char *args[] = {"--port", "0", "--workers", "2",
                          "--ledger", "none", dir, NULL};
    int port, r;
    pid_t pid;
    snprintf(log, sizeof log, "%s/serve%d.log", sh.dir, s);
    pid = tutil_serve_start(args, log, &port);
    assert_true(pid > 0);
    for (r = 0; r < 3; r++) {
      tutil_http resp;
      char v[32];
      assert_int_equal(tutil_http_once(port, "POST", "/work",
                       "X-Tenant: det\r\n",
                       "the quick brown fox jumps over the lazy dog and the "
                       "dog sleeps while the fox runs over the hill and the "
                       "quick cat watches the lazy fox and the brown dog",
                       &resp), 0);
      assert_int_equal(resp.status, 200);
      assert_non_null(tutil_http_header(&resp, "X-Lraf-Instructions", v,
                                        sizeof v));
      tutil_http_free(&resp);
      if (first[0] == '\0') strcpy(first, v);
      else if (strcmp(first, v) != 0)
        fail_msg("server %d request %d: %s instructions, first %s", s, r, v,
                 first);
    }
    tutil_serve_stop(pid, SIGTERM);
  }
}

static int quiet(lua_State *L) {
  (void)L;
  return 0;
}

/* The C API: fresh deterministic states in one process (their objects
   at other addresses each time) count the same, native units too. */
static void test_c_api(void **state) {
  size_t p;
  (void)state;
  for (p = 0; p < NPROGS; p++) {
    int64_t first = -1, first_native = -1;
    int r;
    if (progs[p].order && !vm) continue;
    for (r = 0; r < RUNS; r++) {
      lraf_options o;
      lraf_state *S;
      lraf_error err;
      lraf_manager *m = lraf_total_new();
      void *junk = malloc((size_t)(r + 1) * 4099);  /* move the heap */
      int64_t n, nat;
      lraf_default_options(&o);
      o.deterministic = 1;
      o.native = 1;
      o.manager = m;
      if (strcmp(progs[p].name, "memory.lua") == 0) o.memory_limit = 2 << 20;
      assert_int_equal(lraf_new(&o, &S, &err), LRAF_OK);
      assert_int_equal(lraf_load_string(S, progs[p].text,
                                        strlen(progs[p].text), progs[p].name,
                                        &err), LRAF_OK);
      lua_pushcfunction(lraf_lua(S), quiet);
      lua_setglobal(lraf_lua(S), "print");
      (void)lraf_call(S, 0, 0, &err);
      n = lraf_manager_total(m);
      nat = lraf_native_units(S);
      lraf_close(S);
      lraf_manager_release(m);
      free(junk);
      if (first < 0) {
        first = n;
        first_native = nat;
      } else if (n != first || nat != first_native) {
        fail_msg("%s: state %d counted %lld (%lld native), the first %lld "
                 "(%lld)", progs[p].name, r, (long long)n, (long long)nat,
                 (long long)first, (long long)first_native);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_everywhere),
      cmocka_unit_test(test_memory_stop_paths),
      cmocka_unit_test(test_table_keys_aslr),
      cmocka_unit_test(test_profile_everywhere),
      cmocka_unit_test(test_profile_targets_agree),
      cmocka_unit_test(test_sort_semantics),
      cmocka_unit_test(test_bench),
      cmocka_unit_test(test_serve),
      cmocka_unit_test(test_c_api),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
