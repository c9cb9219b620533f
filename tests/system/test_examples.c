/*
** test_examples.c - the programs in examples/ (built by make examples
** next to the lraf binary named by $LRAF) run and print what they
** should: embed (and the README carries its code verbatim), the plugin
** host, the sorting benchmark (the same numbers on every run, equal to
** the count-hook oracle), the billing ledger (format, and its lines
** add up to the customers' managers) and the metered API (a retry not
** billed, the limits hit, the ledger's totals the sum of the bills).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static char bindir[512];
static tutil_sh shell;
static char out2_path[128];

static int setup(void **state) {
  const char *lraf = getenv("LRAF");
  const char *slash;
  (void)state;
  if (lraf == NULL) lraf = "build/lraf";
  slash = strrchr(lraf, '/');
  snprintf(bindir, sizeof bindir, "%.*s/examples",
           slash ? (int)(slash - lraf) : 1, slash ? lraf : ".");
  if (tutil_sh_init(&shell, "ex") != 0) return -1;
  snprintf(out2_path, sizeof out2_path, "%s/out2.txt", shell.dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&shell);
}

/* Run example NAME with ARGS from the repository root, stdout to out;
   returns the exit status. */
static int run(const char *name, const char *args, const char *out) {
  char cmd[1024];
  int st;
  snprintf(cmd, sizeof cmd, "%s/%s %s", bindir, name, args);
  st = tutil_sh_exec(cmd, out, shell.err);
  assert_true(st >= 0);
  return st;
}

/* embed prints the script's output and the state's total, which the
   count hook sees too, work in a coroutine included (the main thread's
   account alone would miss it), and what is left of the quota; the
   README shows embed.c as it is. */
static void test_embed(void **state) {
  const char *src = "print(coroutine.wrap(function() local s = 0\n"
                    "  for i = 1, 100 do s = s + i end return s end)())";
  char want[128], *out, *readme, *code;
  tutil_run hook;
  (void)state;
  tutil_run_hook(src, strlen(src), "=demo", &hook);
  assert_true(hook.ok);
  assert_true(hook.count > 200);  /* the loop: 100 iterations */
  assert_int_equal(run("embed", "", shell.out), 0);
  out = tutil_sh_read(shell.out);
  {  /* the instructions are the hook's; the native units add to them */
    long long units, instr, native, left;
    char shown[200];
    assert_int_equal(sscanf(out, "5050\n%lld units: %lld instructions + "
                                 "%lld native (quota left %lld)\n",
                            &units, &instr, &native, &left), 4);
    assert_int_equal(instr, hook.count);
    assert_int_equal(units, instr + native);
    assert_int_equal(left, 1000000 - units);
    snprintf(want, sizeof want, "5050\n%lld units: %lld instructions + %lld "
             "native (quota left %lld)\n", units, instr, native, left);
    assert_string_equal(out, want);
    readme = tutil_sh_read("README.md");
    snprintf(shown, sizeof shown, " ./embed\n    5050\n    %lld units: %lld "
             "instructions + %lld native (quota left %lld)\n", units, instr,
             native, left);
    if (strstr(readme, shown) == NULL)  /* the README shows that output */
      fail_msg("README.md does not show embed's output:\n%s", shown);
  }
  tutil_run_free(&hook);
  free(out);
  code = tutil_sh_read("examples/embed.c");
  if (strstr(readme, code) == NULL)
    fail_msg("README.md does not contain examples/embed.c verbatim");
  free(readme);
  free(code);
}

/* Column COL (1: the first number) of the table row that starts with
   NAME and then numbers, in what an example printed. */
static long long column(const char *text, const char *name, int col) {
  const char *p = text;
  size_t len = strlen(name);
  while ((p = strstr(p, name)) != NULL) {
    size_t sp = len;
    while (p[sp] == ' ') sp++;
    if ((p == text || p[-1] == '\n') && sp > len && p[sp] >= '0' &&
        p[sp] <= '9') {
      long long v = 0;
      int i;
      char *end = (char *)p + len;
      for (i = 0; i < col; i++) v = strtoll(end, &end, 10);
      return v;
    }
    p += len;
  }
  fail_msg("no row %s", name);
  return -1;
}

/* The same numbers on every run, equal to the count-hook oracle, and in
   the order the algorithms deserve. */
static void test_sortbench(void **state) {
  static const char *const algo[] = {"insertion", "merge", "quick"};
  char *a, *b, path[128];
  int i;
  (void)state;
  assert_int_equal(run("sortbench", "", shell.out), 0);
  assert_int_equal(run("sortbench", "", out2_path), 0);
  a = tutil_sh_read(shell.out);
  b = tutil_sh_read(out2_path);
  assert_string_equal(a, b);
  assert_non_null(strstr(a, "quick sort\t1000\t20\t99900\n"));
  for (i = 0; i < 3; i++) {
    size_t len;
    char *src;
    tutil_run hook;
    snprintf(path, sizeof path, "examples/sort/%s.lua", algo[i]);
    src = tutil_run_slurp(path, &len);
    assert_non_null(src);
    tutil_run_hook(src, len, path, &hook);
    assert_true(hook.ok);
    assert_int_equal(column(a, algo[i], 1), hook.count);
    tutil_run_free(&hook);
    free(src);
  }
  assert_true(column(a, "quick", 1) < column(a, "merge", 1));
  assert_true(column(a, "merge", 1) < column(a, "insertion", 1));
  free(a);
  free(b);
}

/* The runaway plugin is stopped in round 2; the others answer in every
   round, and the usage table says so. */
static void test_plugin_host(void **state) {
  char *out;
  (void)state;
  assert_int_equal(run("plugin_host", "", shell.out), 0);
  out = tutil_sh_read(shell.out);
  assert_non_null(strstr(out, "  runaway  checked 11 characters\n"));
  assert_non_null(strstr(out, "round 2\n  csv      3 fields, 16 characters\n"
                              "  calc     100 / 7 - 2 = 12\n"
                              "  runaway  STOPPED: quota of 50000"));
  assert_non_null(strstr(out, "round 3\n  csv      3 fields, 13 characters\n"
                              "  calc     error: "));
  assert_null(strstr(out, "never seen"));
  /* calls, instructions, quota, status */
  assert_int_equal(column(out, "csv", 1), 3);
  assert_int_equal(column(out, "calc", 1), 3);
  assert_int_equal(column(out, "runaway", 1), 2);
  assert_true(column(out, "csv", 2) > 0);
  assert_true(column(out, "csv", 2) < 20000);
  assert_true(column(out, "runaway", 2) > 50000);
  assert_true(column(out, "runaway", 2) < 50000 + 1000);
  assert_non_null(strstr(out, " 20000  ok\ncalc "));
  assert_non_null(strstr(out, " 50000  stopped\n"));
  free(out);
}

/* The ledger: its header, five fields a line, cost at 40 per million,
   the calls of the day, and per customer the sum of its lines equals
   the total its manager has. */
static void test_billing(void **state) {
  static const char *const customers[] = {"acme", "globex", "initech"};
  static const char *const expect_calls[] = {
    "acme,calc,3,", "acme,csv,1,", "globex,csv,3,", "initech,calc,1,",
    "initech,csv,1,"};
  char ledger[160], args[256], *csv, *out, *line;
  long long sum[3] = {0, 0, 0};
  int rows = 0, calls = 0, i;
  (void)state;
  snprintf(ledger, sizeof ledger, "%s/ledger.csv", shell.dir);
  assert_int_equal(run("billing", "", shell.out), 2);   /* no ledger named */
  snprintf(args, sizeof args, "%s", ledger);
  assert_int_equal(run("billing", args, shell.out), 0);
  csv = tutil_sh_read(ledger);
  out = tutil_sh_read(shell.out);
  assert_memory_equal(csv, "customer,plugin,calls,instructions,cost\n", 40);
  for (i = 0; i < 5; i++) assert_non_null(strstr(csv, expect_calls[i]));
  for (line = strchr(csv, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
    char cust[32], plug[32], cost[32], want[32];
    long long n;
    int c, k, used = 0;
    assert_int_equal(sscanf(line, "%31[^,],%31[^,],%d,%lld,%31[^\n]%n", cust,
                            plug, &c, &n, cost, &used), 5);
    assert_int_equal(line[used], '\n');
    snprintf(want, sizeof want, "%.6f", (double)n * 40.0 / 1e6);
    assert_string_equal(cost, want);
    assert_true(n > 0);
    for (k = 0; k < 3 && strcmp(customers[k], cust) != 0; k++) {}
    assert_true(k < 3);
    sum[k] += n;
    calls += c;
    rows++;
  }
  assert_int_equal(rows, 5);
  assert_int_equal(calls, 9);
  for (i = 0; i < 3; i++) {
    char label[64];
    snprintf(label, sizeof label, "total %s ", customers[i]);
    assert_non_null(strstr(out, label));
    assert_int_equal(strtoll(strstr(out, label) + strlen(label), NULL, 10),
                     sum[i]);
  }
  assert_non_null(strstr(out, "acme/calc: (10 - 4) * (2 + 5) / 3 = 14\n"));
  free(csv);
  free(out);
}

/* metered_api: the retry answered from the ledger with the first call's
   count, the request limit and acme's quota stop calls (429), the
   spent customer is refused billed 0, and each customer's total in the
   ledger is the sum of its bills that ran; a second run on a new
   ledger prints the same. */
static void test_metered_api(void **state) {
  static const char *const customers[] = {"acme", "globex", "initech"};
  char args[256], *out, *again, *line;
  long long sum[3] = {0, 0, 0}, count[3] = {0, 0, 0}, first = -1;
  int calls = 0, refused = 0, i;
  (void)state;
  assert_int_equal(run("metered_api", "", shell.out), 2);
  snprintf(args, sizeof args, "%s/m1.db", shell.dir);
  assert_int_equal(run("metered_api", args, shell.out), 0);
  out = tutil_sh_read(shell.out);
  snprintf(args, sizeof args, "%s/m2.db", shell.dir);
  assert_int_equal(run("metered_api", args, out2_path), 0);
  again = tutil_sh_read(out2_path);
  assert_string_equal(out, again);
  for (line = out; strncmp(line, "call ", 5) == 0;
       line = strchr(line, '\n') + 1) {
    char cust[32], handler[16], key[32], outcome[16];
    int n, status, k;
    long long units;
    assert_int_equal(sscanf(line, "call %d %31s %15s %31s %15s %d %lld", &n,
                            cust, handler, key, outcome, &status, &units),
                     7);
    for (k = 0; k < 3 && strcmp(customers[k], cust) != 0; k++) {}
    assert_true(k < 3);
    if (n == 1) first = units;
    if (n == 2) {   /* the retry: the first call's record, not run */
      assert_string_equal(outcome, "repeat");
      assert_int_equal(units, first);
      continue;
    }
    assert_string_equal(outcome, "ran");
    if (status == 429) refused++;
    if (n == 8) {   /* acme spent: refused before it runs */
      assert_int_equal(status, 429);
      assert_int_equal(units, 0);
    }
    if (n == 4) assert_int_equal(status, 429);   /* the request limit */
    sum[k] += units;
    count[k]++;
    calls++;
  }
  assert_int_equal(calls, 7);
  assert_int_equal(refused, 3);
  assert_true(first > 0);
  for (i = 0; i < 3; i++) {
    char label[64];
    long long n, units;
    snprintf(label, sizeof label, "total %s ", customers[i]);
    assert_non_null(strstr(out, label));
    assert_int_equal(sscanf(strstr(out, label) + strlen(label), "%lld %lld",
                            &n, &units), 2);
    assert_int_equal(n, count[i]);
    assert_int_equal(units, sum[i]);
  }
  assert_true(sum[0] >= 9000 && sum[0] < 9100);   /* acme's quota */
  free(out);
  free(again);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_embed),
    cmocka_unit_test(test_sortbench),
    cmocka_unit_test(test_plugin_host),
    cmocka_unit_test(test_billing),
    cmocka_unit_test(test_metered_api),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
