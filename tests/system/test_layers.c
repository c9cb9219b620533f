/*
** test_layers.c - the layering rules of the sources: an #include never
** runs from a lower layer to a higher one (include/ <- common/ <- bytecode/
** <- rewriter/ <- runtime/ <- service/ <- cli/; accounts/ and profile/
** sit on common/ and know no Lua; service/ and cli/ see only
** include/lraf.h; runtime/native/ is part of runtime/), and no two
** folders of the library call each other in a loop (from `nm` of the
** objects next to the lraf binary named by $LRAF).  Files of one folder
** may call each other as they need, as in Lua's own core.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_sh.h"

/* The folders, lowest first, and which ones each may include from. */
enum { INCLUDE, COMMON, BYTECODE, REWRITER, ACCOUNTS, PROFILE, RUNTIME, SERVICE,
       CLI, NLAYERS };
static const char *const layer_dir[NLAYERS] = {
  "include", "common", "bytecode", "rewriter", "accounts", "profile", "runtime",
  "service",
  "cli"
};
#define B(l) (1u << (l))
static const unsigned may_include[NLAYERS] = {
  B(INCLUDE),
  B(INCLUDE) | B(COMMON),
  B(INCLUDE) | B(COMMON) | B(BYTECODE),
  B(INCLUDE) | B(COMMON) | B(BYTECODE) | B(REWRITER),
  B(INCLUDE) | B(COMMON) | B(ACCOUNTS),
  B(INCLUDE) | B(COMMON) | B(PROFILE),
  B(INCLUDE) | B(COMMON) | B(BYTECODE) | B(REWRITER) | B(ACCOUNTS) | B(PROFILE) |
    B(RUNTIME),
  B(INCLUDE) | B(SERVICE),   /* the request pool: lraf.h and Lua only */
  B(INCLUDE) | B(CLI),
};

/* The folders of the sources and the layer each belongs to: a subfolder
   is part of its parent's layer. */
static const struct { const char *dir; int layer; } folder[] = {
  {"include", INCLUDE}, {"common", COMMON}, {"bytecode", BYTECODE},
  {"rewriter", REWRITER}, {"accounts", ACCOUNTS}, {"profile", PROFILE},
  {"runtime", RUNTIME}, {"runtime/native", RUNTIME}, {"service", SERVICE},
  {"cli", CLI},
};
#define NFOLDERS ((int)(sizeof folder / sizeof folder[0]))

/* The layer of the folder that holds header name, or -1. */
static int layer_of(const char *name) {
  int i;
  for (i = 0; i < NFOLDERS; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", folder[i].dir, name);
    if (access(path, F_OK) == 0) return folder[i].layer;
  }
  return -1;
}

/* Check the #include lines of one file of layer l. */
static int check_includes(int l, const char *path) {
  size_t len;
  char *text = tutil_run_slurp(path, &len), *p;
  int bad = 0;
  assert_non_null(text);
  for (p = text; (p = strstr(p, "#include ")) != NULL; p++) {
    char name[256];
    if (p != text && p[-1] != '\n') continue;
    if (sscanf(p, "#include \"%255[^\"]\"", name) == 1) {
      int to = layer_of(name);
      if (to >= 0 && !(may_include[l] & B(to))) {
        print_error("%s includes %s/%s\n", path, layer_dir[to], name);
        bad++;
      }
    } else if ((l == ACCOUNTS || l == PROFILE) &&
               sscanf(p, "#include <%255[^>]>", name) == 1 &&
               (strcmp(name, "lua.h") == 0 ||
                strcmp(name, "lauxlib.h") == 0 ||
                strcmp(name, "lualib.h") == 0)) {
      print_error("%s includes <%s>: %s/ knows no Lua\n", path, name,
                  layer_dir[l]);
      bad++;
    }
  }
  free(text);
  return bad;
}

static int is_source(const char *name) {
  size_t n = strlen(name);
  return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' ||
                                         name[n - 1] == 'h');
}

static void test_includes_go_down(void **state) {
  int i, bad = 0, files = 0;
  (void)state;
  for (i = 0; i < NFOLDERS; i++) {
    DIR *d = opendir(folder[i].dir);
    struct dirent *e;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
      char path[512];
      if (!is_source(e->d_name)) continue;
      snprintf(path, sizeof path, "%s/%s", folder[i].dir, e->d_name);
      bad += check_includes(folder[i].layer, path);
      files++;
    }
    closedir(d);
  }
  assert_true(files > 50);
  assert_int_equal(bad, 0);
}

/* ---- calls between the library's folders ---- */

#define MAXFILES 256
#define MAXSYMS 16384

typedef struct graph {
  char *file[MAXFILES];
  int layer[MAXFILES];     /* the layer of each file */
  int nfiles;
  char *sym[MAXSYMS];      /* defined global symbols ... */
  int owner[MAXSYMS];      /* ... and the file defining each */
  int nsyms;
  char *use[MAXSYMS];      /* undefined symbols ... */
  int user[MAXSYMS];       /* ... and the file using each */
  int nuses;
  /* edge[a][b] >= 0: a file of layer a calls one of layer b; the use
     (index into use[]) that shows it */
  int edge[NLAYERS][NLAYERS];
  int callee[NLAYERS][NLAYERS];  /* the file that use reaches */
} graph;

static int owner_of(const graph *g, const char *sym) {
  int i;
  for (i = 0; i < g->nsyms; i++)
    if (strcmp(g->sym[i], sym) == 0) return g->owner[i];
  return -1;
}

static int file_index(const graph *g, const char *path) {
  int i;
  for (i = 0; i < g->nfiles; i++)
    if (strcmp(g->file[i], path) == 0) return i;
  return -1;
}

/* One `nm -A` over every object: the symbols each defines and uses;
   then an edge from each file's layer to the layers of the files
   defining what it uses. */
static void scan(graph *g) {
  static char cmd[MAXFILES * 1100];
  char line[1400];
  size_t n;
  int f, i, a, b;
  FILE *p;
  for (a = 0; a < NLAYERS; a++)
    for (b = 0; b < NLAYERS; b++) g->edge[a][b] = -1;
  n = (size_t)snprintf(cmd, sizeof cmd, "nm -A");
  for (f = 0; f < g->nfiles; f++)
    n += (size_t)snprintf(cmd + n, sizeof cmd - n, " '%s'", g->file[f]);
  p = popen(cmd, "r");
  assert_non_null(p);
  while (fgets(line, sizeof line, p) != NULL) {
    char *colon = strstr(line, ".o:"), x[128], y[128], z[256];
    int k;
    if (colon == NULL) continue;
    colon[2] = '\0';
    f = file_index(g, line);
    assert_true(f >= 0);
    k = sscanf(colon + 3, "%127s %127s %255s", x, y, z);
    if (k == 3 && strchr("TDBR", y[0]) != NULL) {
      assert_true(g->nsyms < MAXSYMS);
      g->sym[g->nsyms] = strdup(z);
      g->owner[g->nsyms++] = f;
    } else if (k == 2 && strcmp(x, "U") == 0) {
      assert_true(g->nuses < MAXSYMS);
      g->use[g->nuses] = strdup(y);
      g->user[g->nuses++] = f;
    }
  }
  assert_int_equal(pclose(p), 0);
  for (i = 0; i < g->nuses; i++) {
    int to = owner_of(g, g->use[i]);
    if (to < 0) continue;
    a = g->layer[g->user[i]];
    b = g->layer[to];
    if (a != b && g->edge[a][b] < 0) {
      g->edge[a][b] = i;
      g->callee[a][b] = to;
    }
  }
}

/* Depth-first search for a loop of layers; on finding one, print it,
   with a call that makes each step, and stop (the search is not resumed
   after a loop). */
static int loop_from(const graph *g, int l, unsigned char *color,
                     int *path, int depth) {
  int to;
  color[l] = 1;
  path[depth] = l;
  for (to = 0; to < NLAYERS; to++) {
    if (g->edge[l][to] < 0) continue;
    if (color[to] == 1) {
      int i = depth;
      while (path[i] != to) i--;
      print_error("call loop between folders:\n");
      for (; i <= depth; i++) {
        int a = path[i], b = i < depth ? path[i + 1] : to, u = g->edge[a][b];
        print_error("  %s/ -> %s/ (%s calls %s of %s)\n", layer_dir[a],
                    layer_dir[b], g->file[g->user[u]], g->use[u],
                    g->file[g->callee[a][b]]);
      }
      return 1;
    }
    if (color[to] == 0 && loop_from(g, to, color, path, depth + 1)) return 1;
  }
  color[l] = 2;
  return 0;
}

/* Gather the objects of the library's folders (next to $LRAF). */
static void gather(graph *g) {
  const char *lraf = tutil_sh_lraf(), *slash = strrchr(lraf, '/');
  int i;
  for (i = 0; i < NFOLDERS; i++) {
    char dir[1024];
    DIR *d;
    struct dirent *e;
    if (folder[i].layer < COMMON || folder[i].layer >= CLI) continue;
    snprintf(dir, sizeof dir, "%.*s/%s", slash ? (int)(slash - lraf) : 1,
             slash ? lraf : ".", folder[i].dir);
    if ((d = opendir(dir)) == NULL) continue;  /* e.g. no .c in it */
    while ((e = readdir(d)) != NULL) {
      size_t n = strlen(e->d_name);
      char src[512];
      if (n < 3 || strcmp(e->d_name + n - 2, ".o") != 0) continue;
      /* only objects of sources that exist (not stale ones) */
      snprintf(src, sizeof src, "%s/%.*s.c", folder[i].dir, (int)(n - 2),
               e->d_name);
      if (access(src, F_OK) != 0) continue;
      assert_true(g->nfiles < MAXFILES);
      g->file[g->nfiles] = malloc(strlen(dir) + n + 2);
      assert_non_null(g->file[g->nfiles]);
      sprintf(g->file[g->nfiles], "%s/%s", dir, e->d_name);
      g->layer[g->nfiles++] = folder[i].layer;
    }
    closedir(d);
  }
}

static void test_no_call_loops(void **state) {
  static graph g;
  unsigned char color[NLAYERS];
  int path[NLAYERS];
  int l, f, loops = 0, runtime_native = 0;
  (void)state;
  gather(&g);
  assert_true(g.nfiles > 30);
  for (f = 0; f < g.nfiles; f++)
    if (strstr(g.file[f], "/runtime/native/") != NULL) runtime_native++;
  assert_true(runtime_native > 0);  /* the subfolder was read */
  scan(&g);
  /* the test sees calls at all: runtime/ calls rewriter/ */
  assert_true(g.edge[RUNTIME][REWRITER] >= 0);
  memset(color, 0, sizeof color);
  for (l = 0; l < NLAYERS && loops == 0; l++)
    if (color[l] == 0) loops = loop_from(&g, l, color, path, 0);
  assert_int_equal(loops, 0);
  for (f = 0; f < g.nfiles; f++) free(g.file[f]);
  for (f = 0; f < g.nsyms; f++) free(g.sym[f]);
  for (f = 0; f < g.nuses; f++) free(g.use[f]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_includes_go_down),
    cmocka_unit_test(test_no_call_loops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
