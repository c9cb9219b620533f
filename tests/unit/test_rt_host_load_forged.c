/*
** test_rt_host_load_forged.c - forged chunks behind lraf's offline marker: the
** accounting of a chunk from lraf_rewrite edited (every increment made
** 0), changed (every increment negated), a check removed (the checks
** made to pass), and lraf's header copied onto lua5.4's bytecode.
** Without allow_offline each is refused in both environments; with a
** host key each is refused unless signed, and an edit of a signed chunk
** is refused.  The edits keep the chunk's form, which is what shows
** that form is not proof: with allow_offline the edited ones load
** (but for the removed check on the lraf VM, whose verifier finds
** loops without a check).  A signed chunk given to a host without the
** key is refused as one that looks signed.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "bc.h"
#include "tutil_rt.h"
#include "tutil_vm.h"

static const char *const SPIN = "local x = 0 while true do x = x + 1 end\n";
static const char KEY[] = "a host's key";

enum { EDIT_ZERO, EDIT_NEGATE, EDIT_NOCHECK, NUM_EDITS };
static const char *const edit_names[] = {
  "every increment 0", "every increment negated", "every check removed"
};

static size_t header_len(const unsigned char *p) {
  return LRAF_OFFLINE_MAGIC_LEN + 1 + p[LRAF_OFFLINE_MAGIC_LEN];
}

/* Apply edit to the accounting code of f; the number of instructions
   changed. */
static int edit_proto(bc_proto *f, int edit) {
  int pc, n = 0;
#ifdef LRAF_VM
  int first = 1;  /* the entry's check, which the verifier looks for */
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr i = f->code[pc];
    if (edit == EDIT_NOCHECK && bc_op(i) == BC_OP_JMPACCT)
      i = bc_set_op(i, BC_OP_JMP);  /* a loop's paying jump: plain again */
    else if (edit == EDIT_NOCHECK && bc_op(i) == BC_OP_FORLOOPACCT)
      i = bc_set_op(i, BC_OP_FORLOOP);
    if (bc_op(i) != BC_OP_ACCT) {
      n += i != f->code[pc];
      f->code[pc] = i;
      continue;
    }
    if (edit == EDIT_ZERO) i = bc_set_sbx(i, 0);
    else if (edit == EDIT_NEGATE) i = bc_set_sbx(i, -bc_sbx(i));
    else if (!first) i = bc_set_a(i, BC_ACCT_ADD);  /* the loop's */
    first = 0;
    n += i != f->code[pc];
    f->code[pc] = i;
  }
#else
  /* the scratch register is what GETUPVAL of the counter loads */
  int r = -1;
  for (pc = 0; pc < f->sizecode && r < 0; pc++)
    if (bc_op(f->code[pc]) == BC_OP_GETUPVAL &&
        bc_b(f->code[pc]) == f->sizeupvalues - 2)
      r = bc_a(f->code[pc]);
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr i = f->code[pc];
    if (bc_a(i) != r) continue;
    if (bc_op(i) == BC_OP_ADDI && bc_b(i) == r && edit != EDIT_NOCHECK)
      i = bc_set_c(i, edit == EDIT_ZERO ? BC_OFFSET_SC
                                        : BC_OFFSET_SC - bc_sc(i));
    else if (bc_op(i) == BC_OP_LTI && edit == EDIT_NOCHECK)
      i = bc_set_k(i, !bc_k(i));  /* consume runs while the budget lasts */
    n += i != f->code[pc];
    f->code[pc] = i;
  }
#endif
  return n;
}

/* chunk (from lraf_rewrite, signed or not) with edit applied: header,
   edited code, and the old signature when the chunk had one. */
static unsigned char *forge(const unsigned char *chunk, size_t size,
                            int signed_, int edit, size_t *outsize) {
  size_t hdr = header_len(chunk), body = size - hdr, n;
  bc_chunk *c = NULL;
  void *data = NULL;
  unsigned char *out;
  lraf_error err;
  if (signed_) body -= 32;
  assert_int_equal(bc_read_rewritten(chunk + hdr, body, NULL, &c, &err),
                   LRAF_OK);
  assert_true(edit_proto(c->main, edit) > 0);
  assert_int_equal(bc_write(c, &data, &n, &err), LRAF_OK);
  bc_chunk_free(c);
  *outsize = hdr + n + (signed_ ? 32 : 0);
  out = malloc(*outsize);
  assert_non_null(out);
  memcpy(out, chunk, hdr);
  memcpy(out + hdr, data, n);
  if (signed_) memcpy(out + hdr + n, chunk + size - 32, 32);
  free(data);
  return out;
}

/* lraf's header copied onto lua5.4's own bytecode of SPIN */
static unsigned char *foreign(const unsigned char *chunk, size_t *outsize) {
  size_t hdr = header_len(chunk);
  tutil_vm_buf bin;
  char msg[128];
  unsigned char *out;
  assert_true(tutil_vm_dump(SPIN, strlen(SPIN), "=spin", 0, &bin, msg,
                            sizeof msg));
  *outsize = hdr + bin.size;
  out = malloc(*outsize);
  assert_non_null(out);
  memcpy(out, chunk, hdr);
  memcpy(out + hdr, bin.data, bin.size);
  free(bin.data);
  return out;
}

/* The status of lraf_load_rewritten on a fresh state. */
static lraf_status load(lraf_env env, int allow, int keyed,
                        const void *data, size_t size, char *msg,
                        size_t msgsize) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  lraf_default_options(&opt);
  opt.env = env;
  opt.allow_offline = allow;
  if (keyed) {
    opt.offline_key = KEY;
    opt.offline_key_len = sizeof KEY - 1;
  }
  S = tutil_rt_new(&opt);
  st = lraf_load_rewritten(S, data, size, &err);
  snprintf(msg, msgsize, "%s", st == LRAF_OK ? "" : err.message);
  tutil_rt_close(S);
  return st;
}

/* SPIN rewritten offline, signed with KEY if keyed (free it). */
static void *rewrite_spin(int keyed, size_t *size) {
  lraf_options opt;
  lraf_error err;
  void *chunk;
  lraf_default_options(&opt);
  if (keyed) {
    opt.offline_key = KEY;
    opt.offline_key_len = sizeof KEY - 1;
  }
  assert_int_equal(lraf_rewrite(&opt, SPIN, strlen(SPIN), "=spin", &chunk,
                                size, &err), LRAF_OK);
  return chunk;
}

static void test_forged_unsigned(void **state) {
  void *chunk;
  size_t size, fsize;
  unsigned char *f;
  char msg[512];
  int edit, env, loaded = 0;
  (void)state;
  chunk = rewrite_spin(0, &size);
  /* the genuine chunk: refused in both environments, unless allowed */
  for (env = 0; env < 2; env++) {
    lraf_env e = env ? LRAF_ENV_SANDBOX : LRAF_ENV_FULL;
    assert_int_equal(load(e, 0, 0, chunk, size, msg, sizeof msg),
                     LRAF_EFORMAT);
    assert_non_null(strstr(msg, "allow_offline"));
    assert_non_null(strstr(msg, "--key-file"));
    assert_int_equal(load(e, 1, 0, chunk, size, msg, sizeof msg), LRAF_OK);
  }
  for (edit = 0; edit <= NUM_EDITS; edit++) {
    const char *name = edit < NUM_EDITS ? edit_names[edit]
                                        : "foreign bytecode";
    f = edit < NUM_EDITS ? forge(chunk, size, 0, edit, &fsize)
                         : foreign(chunk, &fsize);
    for (env = 0; env < 2; env++) {
      lraf_env e = env ? LRAF_ENV_SANDBOX : LRAF_ENV_FULL;
      if (load(e, 0, 0, f, fsize, msg, sizeof msg) != LRAF_EFORMAT ||
          strstr(msg, "allow_offline") == NULL)
        fail_msg("%s, %s: not refused: %s", name,
                 env ? "sandbox" : "full", msg);
      /* a host key refuses it too: it carries no signature */
      assert_int_equal(load(e, 0, 1, f, fsize, msg, sizeof msg),
                       LRAF_EVERIFY);
    }
    /* what allow_offline lets through: form is checked, not proof */
    if (load(LRAF_ENV_FULL, 1, 0, f, fsize, msg, sizeof msg) == LRAF_OK) {
      printf("  with allow_offline, loads: %s\n", name);
      loaded++;
    } else {
      printf("  with allow_offline, refused too: %s: %s\n", name, msg);
#ifdef LRAF_VM
      /* the lraf VM's verifier finds loops without a check */
      assert_true(edit == NUM_EDITS || edit == EDIT_NOCHECK);
#else
      assert_true(edit == NUM_EDITS);  /* only the foreign bytecode */
#endif
    }
    free(f);
  }
#ifdef LRAF_VM
  assert_int_equal(loaded, NUM_EDITS - 1);
#else
  assert_int_equal(loaded, NUM_EDITS);
#endif
  free(chunk);
}

static void test_forged_signed(void **state) {
  void *chunk;
  size_t size, fsize;
  unsigned char *f;
  char msg[512];
  int edit, env;
  (void)state;
  chunk = rewrite_spin(1, &size);
  for (env = 0; env < 2; env++) {
    lraf_env e = env ? LRAF_ENV_SANDBOX : LRAF_ENV_FULL;
    /* signed: loads where the key is held, without allow_offline */
    assert_int_equal(load(e, 0, 1, chunk, size, msg, sizeof msg), LRAF_OK);
    for (edit = 0; edit < NUM_EDITS; edit++) {
      f = forge(chunk, size, 1, edit, &fsize);
      /* the old signature does not cover the edited code, even with
         allow_offline (the key decides) */
      assert_int_equal(load(e, 0, 1, f, fsize, msg, sizeof msg),
                       LRAF_EVERIFY);
      assert_non_null(strstr(msg, "not signed with this host's key"));
      assert_int_equal(load(e, 1, 1, f, fsize, msg, sizeof msg),
                       LRAF_EVERIFY);
      free(f);
    }
  }
  free(chunk);
}

/* A signed chunk given to a host without a key is refused, with or
   without allow_offline, by a message that says it looks signed (not
   that its last 32 bytes are trailing garbage).  Without the key 32
   other bytes cannot be told from a signature; 31 are garbage. */
static void test_signed_without_key(void **state) {
  void *chunk, *plain;
  size_t size, psize;
  unsigned char *junk;
  char msg[512];
  int env, allow;
  (void)state;
  chunk = rewrite_spin(1, &size);
  plain = rewrite_spin(0, &psize);
  assert_int_equal(size, psize + 32);
  junk = malloc(size);
  assert_non_null(junk);
  memcpy(junk, plain, psize);
  memset(junk + psize, 'x', 32);
  for (env = 0; env < 2; env++)
    for (allow = 0; allow < 2; allow++) {
      lraf_env e = env ? LRAF_ENV_SANDBOX : LRAF_ENV_FULL;
      assert_int_equal(load(e, allow, 0, chunk, size, msg, sizeof msg),
                       LRAF_EFORMAT);
      if (strstr(msg, "as a signed chunk does, and this host has no key")
          == NULL || strstr(msg, "--key-file") == NULL)
        fail_msg("signed chunk, no key, allow_offline %d: %s", allow, msg);
      assert_int_equal(load(e, allow, 0, junk, size, msg, sizeof msg),
                       LRAF_EFORMAT);
      assert_non_null(strstr(msg, "as a signed chunk does"));
      assert_int_equal(load(e, allow, 0, junk, size - 1, msg, sizeof msg),
                       LRAF_EFORMAT);
      assert_null(strstr(msg, "as a signed chunk does"));
      if (allow) assert_non_null(strstr(msg, "trailing garbage: 31 bytes"));
      else assert_non_null(strstr(msg, "allow_offline"));
    }
  free(junk);
  free(plain);
  free(chunk);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_forged_unsigned),
    cmocka_unit_test(test_forged_signed),
    cmocka_unit_test(test_signed_without_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
