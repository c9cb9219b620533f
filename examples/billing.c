/*
** billing.c - example: billing customers for the plugin calls they make.
**
** Every customer gets one sandboxed lraf state whose manager is a total
** for the customer.  Each plugin the customer uses gets a child manager
** (hierarchical, no budget of its own) under that total; before calling
** a plugin the host moves the state's main account onto the plugin's
** child, so the instructions land on the right ledger line and on the
** customer's total at the same time.  Loading a plugin is billed to it
** like its calls.  At the end the host writes a usage ledger as CSV,
**
**   customer,plugin,calls,instructions,cost
**
** with the cost at PRICE per million instructions, and prints each
** customer's total as its manager has it (the ledger lines add up to it).
**
**   usage: billing LEDGER.csv [PLUGIN_DIR]   (default examples/plugins)
*/
#include <inttypes.h>
#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>

#include "lraf.h"

#define PRICE 40.0   /* per million instructions */

static const char *const customers[] = {"acme", "globex", "initech"};
static const char *const plugins[] = {"calc", "csv"};
#define NCUST 3
#define NPLUG 2

/* The calls of the day: customer, plugin, input. */
static const struct job {
  int customer, plugin;
  const char *input;
} jobs[] = {
  {0, 0, "1 + 2 * 3"},      {0, 0, "(10 - 4) * (2 + 5) / 3"},
  {0, 1, "a,b,c"},          {1, 1, "2024-01-02,\"Oslo, NO\",17.5,ok"},
  {1, 1, "x"},              {1, 1, "\"a\"\"b\",c"},
  {2, 0, "7 * 6"},          {0, 0, "((1))"},
  {2, 1, "one,two,three,four,five,six,seven,eight"},
};
#define NJOBS (int)(sizeof jobs / sizeof jobs[0])

typedef struct usage {
  lraf_manager *manager;   /* child of the customer's total */
  int handle;              /* registry reference to handle(); 0: not loaded */
  int calls;
} usage;

static lraf_state *state[NCUST];
static lraf_manager *total[NCUST];
static usage use[NCUST][NPLUG];

/* Bill what S runs from now on to customer c's plugin p; load the
   plugin the first time (0 on failure). */
static int switch_to(int c, int p, const char *dir) {
  lraf_state *S = state[c];
  lua_State *L = lraf_lua(S);
  usage *u = &use[c][p];
  lraf_error err;
  char path[512];
  if (u->manager == NULL && (u->manager = lraf_hier_new(total[c], -1)) == NULL)
    return 0;
  if (lraf_set_manager(S, lraf_main_account(S), u->manager, &err) != LRAF_OK)
    return 0;
  if (u->handle != 0) return 1;
  snprintf(path, sizeof path, "%s/%s.lua", dir, plugins[p]);
  if (lraf_load_file(S, path, &err) != LRAF_OK ||
      lraf_call(S, 0, 1, &err) != LRAF_OK) {
    fprintf(stderr, "%s: %s\n", path, err.message);
    return 0;
  }
  lua_getfield(L, -1, "handle");
  u->handle = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 1);
  return 1;
}

/* Run one job; the plugin's answer goes to stdout. */
static int run_job(const struct job *j, const char *dir) {
  lraf_state *S = state[j->customer];
  lua_State *L = lraf_lua(S);
  lraf_error err;
  if (!switch_to(j->customer, j->plugin, dir)) return 0;
  lua_rawgeti(L, LUA_REGISTRYINDEX, use[j->customer][j->plugin].handle);
  lua_pushstring(L, j->input);
  use[j->customer][j->plugin].calls++;
  if (lraf_call(S, 1, 1, &err) != LRAF_OK) {
    printf("%s/%s: error: %s\n", customers[j->customer], plugins[j->plugin],
           err.message);   /* failed calls are billed too */
    return 1;
  }
  printf("%s/%s: %s\n", customers[j->customer], plugins[j->plugin],
         lua_tostring(L, -1));
  lua_pop(L, 1);
  return 1;
}

static void write_ledger(FILE *f) {
  int c, p;
  fprintf(f, "customer,plugin,calls,instructions,cost\n");
  for (c = 0; c < NCUST; c++)
    for (p = 0; p < NPLUG; p++) {
      int64_t n;
      if (use[c][p].manager == NULL) continue;   /* never used */
      n = lraf_manager_total(use[c][p].manager);
      fprintf(f, "%s,%s,%d,%" PRId64 ",%.6f\n", customers[c], plugins[p],
              use[c][p].calls, n, (double)n * PRICE / 1e6);
    }
}

int main(int argc, char **argv) {
  const char *dir = argc > 2 ? argv[2] : "examples/plugins";
  lraf_options opt;
  lraf_error err;
  FILE *f;
  int c, p, i, ok = 1;
  if (argc < 2) {
    fprintf(stderr, "usage: billing LEDGER.csv [PLUGIN_DIR]\n");
    return 2;
  }
  for (c = 0; c < NCUST && ok; c++) {
    lraf_default_options(&opt);
    opt.env = LRAF_ENV_SANDBOX;
    opt.manager = total[c] = lraf_total_new();
    ok = total[c] != NULL && lraf_new(&opt, &state[c], &err) == LRAF_OK;
  }
  for (i = 0; i < NJOBS && ok; i++) ok = run_job(&jobs[i], dir);
  if (ok && (f = fopen(argv[1], "w")) != NULL) {
    write_ledger(f);
    ok = fclose(f) == 0;
    for (c = 0; c < NCUST; c++)
      printf("total %s %" PRId64 " instructions\n", customers[c],
             lraf_manager_total(total[c]));
  } else {
    ok = 0;
  }
  for (c = 0; c < NCUST; c++) {
    lraf_close(state[c]);
    lraf_manager_release(total[c]);
    for (p = 0; p < NPLUG; p++) lraf_manager_release(use[c][p].manager);
  }
  if (!ok) fprintf(stderr, "billing: failed\n");
  return ok ? 0 : 1;
}
