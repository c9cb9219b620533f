/*
** test_pf_svg_chromium.c - the interactive flame graphs of lraf profile
** --format svg and lraf diff --format svg.  A real headless Chromium
** (Debian's chromium), driven over the DevTools protocol on a pipe
** (--remote-debugging-pipe: messages of JSON ending in a NUL byte on
** file descriptors 3 and 4), loads the SVG, gets a mouse click on a
** frame, which then fills the width, and a search through the search
** control, which shows the share of the matching frames.  Also: both
** SVGs pass xmllint and come out byte-identical twice; frame names
** with <, &, quotes and bytes that are not UTF-8 are escaped; the
** differential graph colours growth red and shrinkage blue.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tutil_prof.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;
static char lraf[512];  /* the lraf under test, an absolute path */

/* Run "lraf ARGS" with its output in the suite's directory. */
static int run(const char *fmt, ...) {
  char args[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  return tutil_sh_run(&sh, "%s %s", lraf, args);
}

static char *slurp_dir(const char *name, size_t *len) {
  char path[256];
  size_t n;
  char *s;
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  s = tutil_run_slurp(path, len ? len : &n);
  if (s == NULL) fail_msg("cannot read %s", path);
  return s;
}

static void put(const char *name, const char *text) {
  assert_int_equal(tutil_sh_write(&sh, name, text), 0);
}

/* A recursive merge sort of arg[1] numbers, a table.sort and a print. */
static const char sort_lua[] = TUTIL_PROF_MERGE_SORT("tonumber(arg[1])");

/* The inclusive count of the function whose frame starts with frame,
   from the JSON profile in file. */
static long long inclusive(const char *file, const char *frame) {
  char *j = slurp_dir(file, NULL), key[256], *p;
  long long v;
  snprintf(key, sizeof key, "\"frame\": \"%s", frame);
  p = strstr(j, key);
  if (p == NULL) fail_msg("%s is not in %s", frame, file);
  p = strstr(p, "\"inclusive\": ");
  assert_non_null(p);
  v = atoll(p + 13);
  free(j);
  return v;
}

static long long total_of(const char *file) {
  char *j = slurp_dir(file, NULL), *p = strstr(j, "\"total\": ");
  long long v;
  assert_non_null(p);
  v = atoll(p + 9);
  free(j);
  return v;
}

static int setup(void **state) {
  (void)state;
  char cwd[256];
  if (getcwd(cwd, sizeof cwd) == NULL) return -1;
  if (tutil_sh_lraf()[0] == '/')
    snprintf(lraf, sizeof lraf, "%s", tutil_sh_lraf());
  else
    snprintf(lraf, sizeof lraf, "%s/%s", cwd, tutil_sh_lraf());
  if (tutil_sh_init(&sh, "flame") != 0) return -1;
  put("flame.lua", sort_lua);
  return 0;
}

/* ---- Chromium over the DevTools protocol on a pipe ---- */

typedef struct browser {
  pid_t pid;
  int to, from;        /* our ends: fd 3 and fd 4 of chromium */
  int next_id;
  char session[128];
  char *buf;           /* messages read and not yet taken */
  size_t len, cap;
} browser;

static browser B = {0, -1, -1, 1, "", NULL, 0, 0};

#define WAIT_MS 90000  /* a loaded 2-core machine starts chromium slowly */

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, NULL);
}

/* Stop chromium and every process it started: asked to close, then
   its process group killed; the suite is their subreaper, so that none
   is left a zombie. */
static void browser_stop(void) {
  int i, status;
  if (B.to >= 0) {
    static const char bye[] = "{\"id\":999999,\"method\":\"Browser.close\"}";
    if (write(B.to, bye, sizeof bye) < 0) { /* gone already */ }
    close(B.to);
  }
  if (B.from >= 0) close(B.from);
  B.to = B.from = -1;
  if (B.pid > 0) {
    for (i = 0; i < 100 && waitpid(B.pid, &status, WNOHANG) == 0; i++)
      sleep_ms(50);
    kill(-B.pid, SIGKILL);
    waitpid(B.pid, &status, 0);
    B.pid = 0;
    for (i = 0; i < 100; i++) {  /* its orphans, reparented to us */
      pid_t p = waitpid(-1, &status, WNOHANG);
      if (p < 0) break;           /* no child left */
      if (p == 0) sleep_ms(50);
    }
  }
  free(B.buf);
  B.buf = NULL;
  B.len = B.cap = 0;
}

static int teardown(void **state) {
  (void)state;
  browser_stop();
  return tutil_sh_cleanup(&sh);
}

/* fd moved to a number above 10, so that dup2 to 3 and 4 cannot clash. */
static int high(int fd) {
  int h = fcntl(fd, F_DUPFD, 10);
  close(fd);
  return h;
}

static int browser_start(void) {
  int in[2], out[2];
  char profile[256], log[256];
  snprintf(profile, sizeof profile, "--user-data-dir=%s/chromium", sh.dir);
  snprintf(log, sizeof log, "%s/chromium.log", sh.dir);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (pipe(in) != 0 || pipe(out) != 0) return -1;
  in[0] = high(in[0]);
  in[1] = high(in[1]);
  out[0] = high(out[0]);
  out[1] = high(out[1]);
  B.pid = fork();
  if (B.pid < 0) return -1;
  if (B.pid == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    setpgid(0, 0);
    if (fd >= 0) { dup2(fd, 1); dup2(fd, 2); close(fd); }
    dup2(in[0], 3);
    dup2(out[1], 4);
    close(in[0]); close(in[1]); close(out[0]); close(out[1]);
    setenv("HOME", sh.dir, 1);
    execlp("chromium", "chromium", "--headless", "--no-sandbox",
           "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--window-size=1280,1000", "--remote-debugging-pipe", profile,
           "about:blank", (char *)NULL);
    _exit(127);
  }
  setpgid(B.pid, B.pid);
  close(in[0]);
  close(out[1]);
  B.to = in[1];
  B.from = out[0];
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

/* The next whole message (malloc'ed), or NULL after the deadline. */
static char *message(long long deadline) {
  for (;;) {
    char *nul = B.buf ? memchr(B.buf, '\0', B.len) : NULL;
    struct pollfd p;
    ssize_t r;
    long long left;
    if (nul != NULL) {
      size_t n = (size_t)(nul - B.buf) + 1;
      char *m = malloc(n);
      assert_non_null(m);
      memcpy(m, B.buf, n);
      memmove(B.buf, B.buf + n, B.len - n);
      B.len -= n;
      return m;
    }
    if ((left = deadline - now_ms()) <= 0) return NULL;
    p.fd = B.from;
    p.events = POLLIN;
    if (poll(&p, 1, (int)left) <= 0) continue;
    if (B.cap - B.len < 65536) {
      B.cap = B.cap * 2 + 65536;
      B.buf = realloc(B.buf, B.cap);
      assert_non_null(B.buf);
    }
    r = read(B.from, B.buf + B.len, B.cap - B.len);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      return NULL;  /* chromium has gone */
    }
    B.len += (size_t)r;
  }
}

/* Send one command (params: a JSON object) and return its reply
   (malloc'ed); fails the test on no reply or an error. */
static char *call(const char *method, const char *params) {
  char msg[8192], head[32];
  long long deadline = now_ms() + WAIT_MS;
  int id = B.next_id++;
  size_t n;
  if (B.session[0])
    n = (size_t)snprintf(msg, sizeof msg, "{\"id\":%d,\"sessionId\":\"%s\","
                         "\"method\":\"%s\",\"params\":%s}", id, B.session,
                         method, params);
  else
    n = (size_t)snprintf(msg, sizeof msg, "{\"id\":%d,\"method\":\"%s\","
                         "\"params\":%s}", id, method, params);
  assert_true(n < sizeof msg);
  if (write(B.to, msg, n + 1) != (ssize_t)(n + 1))  /* with its NUL */
    fail_msg("cannot write to chromium's pipe");
  snprintf(head, sizeof head, "{\"id\":%d,", id);
  for (;;) {
    char *m = message(deadline);
    if (m == NULL) {
      size_t n = 0;
      char *log = slurp_dir("chromium.log", &n);
      fail_msg("chromium gave no reply to %s within %d s; its log ends:\n%s",
               method, WAIT_MS / 1000, log + (n > 1500 ? n - 1500 : 0));
    }
    if (strncmp(m, head, strlen(head)) == 0) {
      if (strstr(m, "\"error\":") != NULL && strstr(m, "\"result\":") == NULL)
        fail_msg("chromium: %s: %s", method, m);
      return m;
    }
    free(m);  /* an event */
  }
}

/* The string after "key":" in m, up to its closing quote (no escapes
   in what the tests ask for), into out. */
static void string_of(const char *m, const char *key, char *out,
                      size_t size) {
  char k[64];
  const char *p, *q;
  snprintf(k, sizeof k, "\"%s\":\"", key);
  p = strstr(m, k);
  if (p == NULL) fail_msg("no %s in %s", key, m);
  p += strlen(k);
  q = strchr(p, '"');
  assert_non_null(q);
  assert_true((size_t)(q - p) < size);
  memcpy(out, p, (size_t)(q - p));
  out[q - p] = '\0';
}

/* Evaluate a JavaScript expression in the page; its value, a string,
   into out. */
static void eval(const char *expr, char *out, size_t size) {
  char params[6000], *m;
  size_t i, n = 0;
  n += (size_t)snprintf(params, sizeof params, "{\"expression\":\"");
  for (i = 0; expr[i] && n < sizeof params - 64; i++) {
    if (expr[i] == '"' || expr[i] == '\\') params[n++] = '\\';
    params[n++] = expr[i];
  }
  assert_int_equal(expr[i], '\0');
  snprintf(params + n, sizeof params - n, "\",\"returnByValue\":true}");
  m = call("Runtime.evaluate", params);
  if (strstr(m, "\"exceptionDetails\"") != NULL)
    fail_msg("the page threw on %s: %s", expr, m);
  string_of(m, "value", out, size);
  free(m);
}

/* Open url in a new tab and attach to it; wait until the document is
   loaded and its script has run (the boxes know their names). */
static void open_page(const char *url) {
  char params[1024], target[128], v[64];
  char *m;
  long long deadline = now_ms() + WAIT_MS;
  B.session[0] = '\0';  /* a command to the browser, not a page */
  snprintf(params, sizeof params, "{\"url\":\"%s\"}", url);
  m = call("Target.createTarget", params);
  string_of(m, "targetId", target, sizeof target);
  free(m);
  snprintf(params, sizeof params, "{\"targetId\":\"%s\",\"flatten\":true}",
           target);
  m = call("Target.attachToTarget", params);
  string_of(m, "sessionId", B.session, sizeof B.session);
  free(m);
  for (;;) {
    eval("String(document.readyState === 'complete' && "
         "document.getElementById('matched') !== null)", v, sizeof v);
    if (strcmp(v, "true") == 0) break;
    if (now_ms() > deadline) fail_msg("%s did not load", url);
    sleep_ms(100);
  }
}

/* A real mouse click at the middle of the element that the JavaScript
   expression sel finds. */
static void click(const char *sel) {
  char expr[1024], v[128], params[256];
  double x, y;
  const char *kind[] = {"mousePressed", "mouseReleased"};
  int i;
  snprintf(expr, sizeof expr, "(function () { var e = %s; "
           "var r = e.getBoundingClientRect(); "
           "return (r.left + r.width / 2) + ' ' + (r.top + r.height / 2) + "
           "' ' + window.innerWidth + ' ' + window.innerHeight; })()", sel);
  eval(expr, v, sizeof v);
  {
    double w, h;
    assert_int_equal(sscanf(v, "%lf %lf %lf %lf", &x, &y, &w, &h), 4);
    if (x < 0 || y < 0 || x >= w || y >= h)
      fail_msg("%s is outside the window (%s)", sel, v);
  }
  for (i = 0; i < 2; i++) {
    char *m;
    snprintf(params, sizeof params, "{\"type\":\"%s\",\"x\":%.1f,\"y\":%.1f,"
             "\"button\":\"left\",\"clickCount\":1}", kind[i], x, y);
    m = call("Input.dispatchMouseEvent", params);
    free(m);
  }
}

#define FRAME(prefix) \
  "Array.prototype.find.call(document.querySelectorAll('g.f'), " \
  "function (g) { return g.getAttribute('data-n').indexOf('" prefix \
  "') === 0; })"

/* The share the search control shows for term, after clicking it; the
   expected share from the profile. */
static void search(const char *term, double want) {
  char expr[512], v[128], pct[64];
  snprintf(expr, sizeof expr, "(function () { window.prompt = function () "
           "{ return '%s'; }; return 'ok'; })()", term);
  eval(expr, v, sizeof v);
  click("document.getElementById('search')");
  eval("document.getElementById('matched').textContent", v, sizeof v);
  snprintf(pct, sizeof pct, "Matched: %.2f%%", want);
  print_message("search '%s': the SVG shows '%s', the profile gives %.4f%%\n",
                term, v, want);
  assert_string_equal(v, pct);
  click("document.getElementById('search')");  /* clears it */
  eval("document.getElementById('matched').textContent", v, sizeof v);
  assert_string_equal(v, "");
}

static void test_chromium(void **state) {
  char url[512], v[256], full[64];
  double tot, sort_share;
  (void)state;
  if (tutil_sh_run(&sh, "command -v chromium") != 0) {
    print_message("SKIP: no chromium (Debian's package chromium could not "
                  "be installed): the SVG flame graph is not checked in a "
                  "browser\n");
    skip();
    return;
  }
  assert_int_equal(run("profile --format svg -o %s/p.svg %s/flame.lua 300",
                       sh.dir, sh.dir), 0);
  assert_int_equal(run("profile --format json -o %s/p.json %s/flame.lua 300",
                       sh.dir, sh.dir), 0);
  assert_int_equal(browser_start(), 0);
  snprintf(url, sizeof url, "file://%s/p.svg", sh.dir);
  open_page(url);
  /* the full width: the root's box before any zoom */
  eval(FRAME("all") ".querySelector('rect').getAttribute('width')", full,
       sizeof full);
  eval(FRAME("merge (") ".querySelector('rect').getAttribute('width')", v,
       sizeof v);
  print_message("full width %s, merge's box %s before the click\n", full, v);
  assert_true(strtod(v, NULL) < strtod(full, NULL));
  click(FRAME("merge ("));
  eval(FRAME("merge (") ".querySelector('rect').getAttribute('width')", v,
       sizeof v);
  print_message("merge's box %s after the click\n", v);
  assert_string_equal(v, full);
  eval(FRAME("merge (") ".querySelector('rect').getBoundingClientRect()"
       ".width.toFixed(0)", v, sizeof v);
  assert_int_equal(atoi(v), atoi(full));
  /* a frame outside it is hidden; its callers span the width, dimmed */
  eval(FRAME("[C] table.sort") ".style.display", v, sizeof v);
  assert_string_equal(v, "none");
  eval(FRAME("main chunk") ".querySelector('rect').getAttribute('width') + "
       "' ' + " FRAME("main chunk") ".getAttribute('opacity')", v, sizeof v);
  snprintf(url, sizeof url, "%s 0.5", full);
  assert_string_equal(v, url);
  /* reset */
  eval("document.getElementById('reset').getAttribute('opacity')", v,
       sizeof v);
  assert_string_equal(v, "1");
  click("document.getElementById('reset')");
  eval(FRAME("[C] table.sort") ".style.display + '|' + "
       FRAME("merge (") ".querySelector('rect').getAttribute('width')", v,
       sizeof v);
  assert_true(strncmp(v, "|", 1) == 0);
  assert_true(strtod(v + 1, NULL) < strtod(full, NULL));
  /* search: merge alone; "sort" matches merge_sort (recursive: nested
     matches count once) and table.sort */
  tot = (double)total_of("p.json");
  search("^merge ", 100.0 * (double)inclusive("p.json", "merge (") / tot);
  sort_share = 100.0 * (double)(inclusive("p.json", "merge_sort (") +
                                inclusive("p.json", "[C] table.sort")) / tot;
  search("sort", sort_share);
  /* the differential graph: the same zoom */
  assert_int_equal(tutil_sh_run(&sh, "(cd %s && mkdir -p a b && cp flame.lua "
                                "a/ && cp flame.lua b/ && %s profile --format "
                                "json -o a.json a/flame.lua 200 && %s profile "
                                "--format json -o b.json b/flame.lua 300 && "
                                "%s diff a.json b.json --format svg > d.svg)",
                                sh.dir, lraf, lraf, lraf), 0);
  snprintf(url, sizeof url, "file://%s/d.svg", sh.dir);
  open_page(url);
  click(FRAME("merge ("));
  eval(FRAME("merge (") ".querySelector('rect').getAttribute('width')", v,
       sizeof v);
  assert_string_equal(v, full);
  browser_stop();
}

/* The script, edited: merge copies its result twice. */
static void slower(const char *dir) {
  char *src = slurp_dir("flame.lua", NULL), *p, path[256], *edited;
  const char *line = "  for k = 1, #t do a[lo + k - 1] = t[k] end\n";
  size_t n = strlen(src) + strlen(line) + 1;
  p = strstr(src, line);
  assert_non_null(p);
  edited = malloc(n);
  assert_non_null(edited);
  memcpy(edited, src, (size_t)(p - src) + strlen(line));
  strcpy(edited + (p - src) + strlen(line), p);
  snprintf(path, sizeof path, "%s/flame.lua", dir);
  put(path, edited);
  free(src);
  free(edited);
}

/* The fills of the boxes whose data-n starts with prefix: how many are
   red (255, g, g with g < 225), blue (b, b, 255) and grey. */
static void fills(const char *svg, const char *prefix, int *red, int *blue,
                  int *grey) {
  char key[128];
  const char *p = svg;
  *red = *blue = *grey = 0;
  snprintf(key, sizeof key, "data-n=\"%s", prefix);
  while ((p = strstr(p, key)) != NULL) {
    int r, g, b;
    p = strstr(p, "fill=\"rgb(");
    assert_non_null(p);
    assert_int_equal(sscanf(p + 10, "%d,%d,%d", &r, &g, &b), 3);
    if (r == 255 && g == b && g < 225) (*red)++;
    else if (b == 255 && r == g && r < 225) (*blue)++;
    else if (r == 225 && g == 225 && b == 225) (*grey)++;
  }
}

static void xmllint(const char *file) {
  assert_int_equal(tutil_sh_run(&sh, "xmllint --noout %s/%s", sh.dir, file),
                   0);
}

/* lraf diff --format svg: growth red, shrinkage blue, unchanged grey;
   valid XML; the same bytes every time. */
static void test_diff_svg(void **state) {
  char *up, *up2, *down;
  size_t n1, n2;
  int red, blue, grey;
  (void)state;
  assert_int_equal(tutil_sh_run(&sh, "mkdir -p %s/old %s/new && cp %s/"
                                "flame.lua %s/old/", sh.dir, sh.dir, sh.dir,
                                sh.dir), 0);
  slower("new");
  assert_int_equal(run("profile --format json -o %s/old.json %s/old/flame.lua"
                       " 300", sh.dir, sh.dir), 0);
  assert_int_equal(run("profile --format json -o %s/new.json %s/new/flame.lua"
                       " 300", sh.dir, sh.dir), 0);
  assert_int_equal(tutil_sh_run(&sh, "(cd %s && %s diff old.json new.json "
                                "--format svg > up.svg && %s diff old.json "
                                "new.json --format svg > up2.svg && %s diff "
                                "new.json old.json --format svg > down.svg)",
                                sh.dir, lraf, lraf, lraf), 0);
  xmllint("up.svg");
  xmllint("down.svg");
  up = slurp_dir("up.svg", &n1);
  up2 = slurp_dir("up2.svg", &n2);
  down = slurp_dir("down.svg", NULL);
  assert_true(n1 == n2 && memcmp(up, up2, n1) == 0);
  assert_non_null(strstr(up, "\"middle\">lraf diff: old.json -&gt; new.json<"));
  fills(up, "merge (", &red, &blue, &grey);
  print_message("merge's boxes grown: %d red, %d blue, %d grey\n", red, blue,
                grey);
  assert_true(red > 0 && blue == 0 && grey == 0);
  fills(down, "merge (", &red, &blue, &grey);
  assert_true(blue > 0 && red == 0 && grey == 0);
  fills(up, "merge_sort (", &red, &blue, &grey);
  assert_true(grey > 0 && red == 0 && blue == 0);
  /* with a gate it still writes the graph and exits 5 */
  assert_int_equal(run("diff %s/old.json %s/new.json --format svg "
                       "--threshold 1", sh.dir, sh.dir), 5);
  free(up);
  free(up2);
  free(down);
  assert_int_equal(run("diff %s/old.json %s/new.json --format png", sh.dir,
                       sh.dir), 2);
}

/* Names with <, &, quotes and bytes that are not UTF-8, in the frames
   and in the file's name: valid XML, the characters escaped. */
static const char odd_lua[] =
  "_G['a<b&c\"d\\'e]]>\xff\xfe'] = function (n) local s = 0 "
  "for i = 1, n do s = s + i end return s end\n"
  "local f = _G['a<b&c\"d\\'e]]>\xff\xfe']\n"
  "print(f(1000))\n";

static void test_escaped_names(void **state) {
  char *svg, *diff;
  (void)state;
  put("we<ird&'\".lua", odd_lua);
  assert_int_equal(tutil_sh_run(&sh, "(cd %s && %s profile --format svg -o "
                                "odd.svg 'we<ird&'\\''\".lua' && %s profile "
                                "--format json -o odd.json "
                                "'we<ird&'\\''\".lua' && %s diff odd.json "
                                "odd.json --format svg > odd-diff.svg)",
                                sh.dir, lraf, lraf, lraf), 0);
  xmllint("odd.svg");
  xmllint("odd-diff.svg");
  svg = slurp_dir("odd.svg", NULL);
  diff = slurp_dir("odd-diff.svg", NULL);
  assert_non_null(strstr(svg, "a&lt;b&amp;c&quot;d'e]]&gt;??"));
  assert_non_null(strstr(diff, "a&lt;b&amp;c&quot;d'e]]&gt;??"));
  assert_non_null(strstr(svg, "lraf profile: we&lt;ird&amp;'&quot;.lua"));
  free(svg);
  free(diff);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_chromium),
    cmocka_unit_test(test_diff_svg),
    cmocka_unit_test(test_escaped_names),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
