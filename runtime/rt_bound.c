/*
** rt_bound.c - lraf_bound: declared costs of a script (rw_bound.c's
** analysis of its bytecode) as a table, JSON or an execution contract.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rw_bound.h"

#define MM_NOTE "assuming no metamethod runs Lua code"

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

static void write_table(FILE *f, const rw_bound_result *r) {
  int i, mm = 0;
  fprintf(f, "%-24s %6s  %s\n", "function", "line",
          "bound (instructions per call, original cost model)");
  for (i = 0; i < r->n; i++) {
    const rw_bound_fn *fn = &r->fn[i];
    fprintf(f, "%-24s %6d  ", fn->name, fn->line);
    if (fn->bounded) {
      fprintf(f, "%llu%s%s\n", (unsigned long long)fn->bound,
              fn->loopfree ? "" : " (loops)", fn->metamethods ? " *" : "");
      mm |= fn->metamethods;
    } else {
      fprintf(f, "unbounded: %s at line %d\n", fn->reason, fn->reason_line);
    }
  }
  if (mm) fprintf(f, "* " MM_NOTE " (docs/bound.md)\n");
}

static void write_json(FILE *f, const rw_bound_result *r) {
  int i;
  fprintf(f, "{\"format\": \"lraf-bound\", \"version\": 1,\n"
             " \"model\": \"original\",\n \"functions\": [\n");
  for (i = 0; i < r->n; i++) {
    const rw_bound_fn *fn = &r->fn[i];
    fprintf(f, "  {\"name\": ");
    json_str(f, fn->name);
    fprintf(f, ", \"line\": %d, \"global\": %s, \"returned\": %s, "
            "\"bounded\": %s", fn->line, fn->global ? "true" : "false",
            fn->returned ? "true" : "false", fn->bounded ? "true" : "false");
    if (fn->bounded)
      fprintf(f, ", \"bound\": %llu, \"loop_free\": %s, "
              "\"assumes_no_lua_metamethods\": %s}",
              (unsigned long long)fn->bound, fn->loopfree ? "true" : "false",
              fn->metamethods ? "true" : "false");
    else {
      fprintf(f, ", \"reason\": ");
      json_str(f, fn->reason);
      fprintf(f, ", \"reason_line\": %d}", fn->reason_line);
    }
    fprintf(f, "%s\n", i + 1 < r->n ? "," : "");
  }
  fprintf(f, " ]\n}\n");
}

/* Whether a global name is assigned by more than one function. */
static int name_shared(const rw_bound_result *r, int i) {
  int j;
  for (j = 0; j < r->n; j++)
    if (j != i && r->fn[j].global && strcmp(r->fn[j].name, r->fn[i].name) == 0)
      return 1;
  return 0;
}

/* Whether s is a Lua name (a contract line holds no other). */
static int is_name(const char *s) {
  if (!(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

static void write_contract(FILE *f, const rw_bound_result *r,
                           const char *name) {
  int i;
  fprintf(f, "# lraf execution contract for %s: FUNCTION MAX_INSTRUCTIONS\n"
             "# (one call of the global function; original cost model)\n",
          name);
  for (i = 0; i < r->n; i++)
    if (r->fn[i].global && r->fn[i].bounded && is_name(r->fn[i].name) &&
        !name_shared(r, i))
      fprintf(f, "%s %llu\n", r->fn[i].name,
              (unsigned long long)r->fn[i].bound);
  for (i = 0; i < r->n; i++)
    if (r->fn[i].returned && r->fn[i].bounded)
      fprintf(f, "# the function the chunk returns (a lraf serve handler)\n"
                 "return %llu\n", (unsigned long long)r->fn[i].bound);
}

lraf_status lraf_bound(const void *data, size_t size, const char *name,
                       const char *format, char **out, size_t *outlen,
                       lraf_error *err) {
  const char *p = data;
  bc_chunk *chunk = NULL;
  rw_bound_result r;
  rt_input in;
  lraf_status st;
  FILE *f;
  if (data == NULL || out == NULL || outlen == NULL)
    return err_fail(err, LRAF_EARG, "lraf_bound: missing argument");
  if (format == NULL) format = "table";
  if (strcmp(format, "table") && strcmp(format, "json") &&
      strcmp(format, "contract"))
    return err_fail(err, LRAF_EARG, "lraf_bound: unknown format '%s' (table, "
                    "json or contract)", format);
  if (size >= LRAF_OFFLINE_MAGIC_LEN &&
      memcmp(p, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN) == 0)
    return err_fail(err, LRAF_EARG, "lraf_bound: %s is a rewritten chunk; "
                    "bound its source", name ? name : "the input");
  in.kind = size >= 4 && memcmp(p, "\x1bLua", 4) == 0 ? RT_INPUT_CHUNK
                                                      : RT_INPUT_SOURCE;
  in.L = NULL;
  in.data = p;
  in.size = size;
  in.name = name ? name : "=(lraf)";
  st = rt_pipeline(&in, NULL, NULL, &chunk, err);
  if (st != LRAF_OK) return st;
  st = rw_bound_chunk(chunk, &r, err);
  bc_chunk_free(chunk);
  if (st != LRAF_OK) return st;
  *out = NULL;
  f = open_memstream(out, outlen);
  if (f == NULL) {
    rw_bound_free(&r);
    return err_fail(err, LRAF_EMEM, "out of memory writing bounds");
  }
  if (strcmp(format, "json") == 0) write_json(f, &r);
  else if (strcmp(format, "contract") == 0)
    write_contract(f, &r, in.name[0] == '@' ? in.name + 1 : in.name);
  else write_table(f, &r);
  rw_bound_free(&r);
  if (fclose(f) != 0) {
    free(*out);
    *out = NULL;
    return err_fail(err, LRAF_EMEM, "out of memory writing bounds");
  }
  return LRAF_OK;
}
