/*
** plugin_host.c - example: a host that runs untrusted plugins.
**
** Each plugin (examples/plugins/NAME.lua) is a Lua file that uses LPeg
** grammars and returns {name = ..., handle = function(input) ... end}.
** Each runs in its own sandboxed lraf state with its own manager: a
** quota (the instructions it may use in its whole life) drawn from a
** rate (instructions per second).  The host feeds every plugin a few
** inputs, round by round.  runaway.lua loops forever on one input: its
** quota stops it, and the other plugins go on as if nothing happened.
** At the end the host prints each plugin's usage.
**
**   usage: plugin_host [PLUGIN_DIR]     (default examples/plugins)
**
** Note: LPeg's matching runs in C and is not counted; what is counted is
** the plugins' Lua code, including the Lua functions LPeg calls back.
*/
#include <inttypes.h>
#include <stdio.h>

#include <lauxlib.h>
#include <lua.h>

#include "lraf.h"

#define ROUNDS 3

typedef struct plugin {
  const char *name;
  int64_t quota;                 /* instructions for its whole life */
  double rate;                   /* instructions per second */
  const char *inputs[ROUNDS];    /* one input per round */
  lraf_state *S;
  lraf_manager *manager;         /* our reference to its manager */
  int handle;                    /* registry reference to handle() */
  int calls;
  const char *status;
} plugin;

static plugin plugins[] = {
  {.name = "csv", .quota = 20000, .rate = 1e6,
   .inputs = {"id,name,city", "7,\"Smith, Anna\",Oslo",
              "8,\"Lee \"\"Jo\"\"\",Lima"}},
  {.name = "calc", .quota = 20000, .rate = 1e6,
   .inputs = {"2 * (3 + 4)", "100 / 7 - 2", "1 +"}},
  {.name = "runaway", .quota = 50000, .rate = 1e6,
   .inputs = {"hello world", "lazy zebra", "never seen"}},
};
#define NPLUGINS (int)(sizeof plugins / sizeof plugins[0])

/* Create p's state and manager, load the plugin and keep its handle.
   Everything the plugin does, loading included, is charged to it. */
static int start(plugin *p, const char *dir) {
  char path[512];
  lraf_options opt;
  lraf_error err;
  lraf_manager *rate = lraf_rate_new(p->rate, 0.1, NULL);
  lua_State *L;
  p->manager = lraf_hier_new(rate, p->quota);  /* quota within the rate */
  lraf_manager_release(rate);                  /* the quota holds it */
  if (p->manager == NULL) return 0;
  lraf_default_options(&opt);
  opt.env = LRAF_ENV_SANDBOX;      /* no io, os.exit, debug, loadlib */
  opt.manager = p->manager;        /* the state takes its own reference */
  if (lraf_new(&opt, &p->S, &err) != LRAF_OK) {
    fprintf(stderr, "%s: %s\n", p->name, err.message);
    return 0;
  }
  L = lraf_lua(p->S);
  snprintf(path, sizeof path, "%s/%s.lua", dir, p->name);
  if (lraf_load_file(p->S, path, &err) != LRAF_OK ||
      lraf_call(p->S, 0, 1, &err) != LRAF_OK) {
    fprintf(stderr, "%s: %s\n", p->name, err.message);
    return 0;
  }
  lua_getfield(L, -1, "handle");       /* plugin table, handle */
  p->handle = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 1);
  p->status = "ok";
  return 1;
}

/* Call p's handle(input) and print what it returned. */
static void call(plugin *p, const char *input) {
  lua_State *L = lraf_lua(p->S);
  lraf_error err;
  lraf_status st;
  lua_rawgeti(L, LUA_REGISTRYINDEX, p->handle);
  lua_pushstring(L, input);
  st = lraf_call(p->S, 1, 1, &err);
  p->calls++;
  if (st == LRAF_OK) {
    printf("  %-8s %s\n", p->name, lua_tostring(L, -1));
    lua_pop(L, 1);
  } else if (st == LRAF_EQUOTA) {
    /* the quota is spent for good: no more calls to this plugin */
    printf("  %-8s STOPPED: quota of %" PRId64 " instructions exceeded\n",
           p->name, p->quota);
    p->status = "stopped";
  } else {
    /* an ordinary Lua error: report it, the plugin stays usable */
    printf("  %-8s error: %s\n", p->name, err.message);
  }
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "examples/plugins";
  int i, round, ok = 1;
  for (i = 0; i < NPLUGINS; i++) ok = start(&plugins[i], dir) && ok;
  for (round = 0; ok && round < ROUNDS; round++) {
    printf("round %d\n", round + 1);
    for (i = 0; i < NPLUGINS; i++)
      if (plugins[i].status[0] == 'o')   /* still "ok" */
        call(&plugins[i], plugins[i].inputs[round]);
  }
  if (ok) {
    printf("\n%-8s %5s %12s %12s  %s\n", "plugin", "calls", "instructions",
           "quota", "status");
    for (i = 0; i < NPLUGINS; i++) {
      plugin *p = &plugins[i];
      printf("%-8s %5d %12" PRId64 " %12" PRId64 "  %s\n", p->name, p->calls,
             lraf_manager_total(p->manager), p->quota, p->status);
    }
  }
  for (i = 0; i < NPLUGINS; i++) {
    lraf_close(plugins[i].S);          /* NULL is not closed */
    lraf_manager_release(plugins[i].manager);
  }
  return ok ? 0 : 1;
}
