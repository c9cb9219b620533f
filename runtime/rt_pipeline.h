/*
** rt_pipeline.h - the one owner of the load pipeline: Lua source or a
** binary chunk in, a rewritten and verified chunk out.
**
**   source --(Lua's parser)--> compiled function --(rt_dump)--> bytes
**   bytes --(bc_read)--> bc_chunk --(rw_rewrite)--> --(rw_verify)--> out
**
** On the lraf VM the state's loaders rewrite in memory instead
** (rt_pipeline_in_place): Proto tree -> bc_chunk -> rewrite, verify ->
** the same Proto tree.
**
** Every caller goes through rt_pipeline: the state's loaders
** (rt_load.c), offline rewriting and listings (rt_offline.c) and the
** test helpers (tests/support).  rt_dump holds the project's only
** lua_dump writer.
**
** Internal to lraf (prefix rt_).  Uses bytecode/ and rewriter/ through their
** headers, and Lua's C API.
*/
#ifndef RT_PIPELINE_H
#define RT_PIPELINE_H

#include <stddef.h>

#include <lua.h>

#include "lraf.h"
#include "rw.h"
#include "bc.h"

/* What enters the pipeline. */
typedef enum rt_input_kind {
  RT_INPUT_TOP,    /* the compiled Lua function at the top of L (popped) */
  RT_INPUT_SOURCE, /* Lua source text, compiled in a fresh Lua state */
  RT_INPUT_CHUNK,  /* a binary chunk (lua_dump's format, e.g. luac's) */
  RT_INPUT_REWRITTEN /* a chunk the rewriter wrote earlier (offline; its
                        header stripped): read with bc_read_rewritten,
                        verified again, never rewritten twice */
} rt_input_kind;

typedef struct rt_input {
  rt_input_kind kind;
  lua_State *L;     /* RT_INPUT_TOP */
  const char *data; /* the other kinds */
  size_t size;
  const char *name; /* RT_INPUT_SOURCE: the chunk name, as for lua_load */
} rt_input;

/* Read, rewrite with opt and verify in into *out (free it with
   bc_chunk_free).  opt NULL: read only, neither rewritten nor verified
   (listings).  RT_INPUT_REWRITTEN with opt: verified only.  stats (may be NULL) gets what the rewriter did.  On
   failure *out is untouched and err says what was wrong and where. */
lraf_status rt_pipeline(const rt_input *in, const rw_options *opt,
                        rw_stats *stats, bc_chunk **out, lraf_error *err);

/* The second half of rt_pipeline, for a chunk already read: rewrite it
   (unless rewrite is 0) and verify it with opt into *out.  chunk is
   *out's, or freed on failure. */
lraf_status rt_pipeline_chunk(bc_chunk *chunk, int rewrite,
                              const rw_options *opt, rw_stats *stats,
                              bc_chunk **out, lraf_error *err);

/* The lraf VM's target (RW_LRAVM) only: rewrite and verify the compiled
   Lua function at the top of L in place (rt_inplace.c).  Its Proto tree
   is read into the chunk model, rewritten and verified there, and the
   new code written back into the same Protos: no dump, no load, and
   constants keep their identity.  The function stays at the top; after
   a failure it is half rewritten and must be dropped.  Built against
   stock Lua it fails with LRAF_EARG. */
lraf_status rt_pipeline_in_place(lua_State *L, const rw_options *opt,
                                 rw_stats *stats, lraf_error *err);

/* lua_dump of the function at the top of L (left there), with debug
   information unless strip, into a new malloc'ed buffer. */
lraf_status rt_dump(lua_State *L, int strip, char **data, size_t *size,
                    lraf_error *err);

/* Compile source text (mode "t") in a fresh Lua state and dump it.  A
   syntax error is LRAF_ESYNTAX with Lua's message. */
lraf_status rt_compile(const char *src, size_t len, const char *name,
                       int strip, char **data, size_t *size,
                       lraf_error *err);

#endif
