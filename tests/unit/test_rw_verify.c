/*
** test_rw_verify.c - the lraf VM's verifier (rw_verify_target with
** RW_LRAVM) refuses what it must and accepts what the rewriter makes.
** Its search for loops without a zero check is compared with a slow
** oracle written here (from every instruction, can it come back to
** itself without passing a check?) on the rewritten corpus programs
** with zero checks taken out one at a time, and with backward jumps
** moved and JMPs put over the check that their target runs into (what
** the verifier's shortcut past the search relies on); jumps out of the
** code, a
** missing entry check and ACCT on the stock target are refused too.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rw.h"
#include "tutil_run.h"
#include "tutil_vm.h"

static const char *const programs[] = {
  "tests/corpus/gotos.lua", "tests/corpus/loops.lua",
  "tests/corpus/iterators.lua", "tests/corpus/richards.lua",
  "tests/corpus/json.lua", "tests/corpus/coroutines.lua",
};

static const char *const snippets[] = {
  /* irreducible: two ways into one cycle */
  "local n = ... or 0\nif n > 1 then goto b end\n::a:: n = n + 1\n"
  "::b:: if n < 10 then goto a end\nreturn n",
  "while true do if math.random() > 2 then break end end",
  "for i = 1, 3 do for j = 1, 3 do local x = i * j end end",
  "for k, v in pairs({1, 2}) do repeat local y = v until true end",
  "local t = {} for i = 1, 10 do t[i] = i > 5 and i or nil end return t",
};

/* A chunk of src rewritten for the lraf VM (exact mode or not). */
static bc_chunk *rewritten(const char *src, size_t len, const char *name,
                           int exact) {
  tutil_vm_buf buf;
  bc_chunk *chunk = NULL;
  rw_options opt;
  lraf_error err;
  char msg[256];
  if (!tutil_vm_dump(src, len, name, 0, &buf, msg, sizeof msg))
    fail_msg("%s does not compile: %s", name, msg);
  if (bc_read(buf.data, buf.size, NULL, &chunk, &err) != LRAF_OK)
    fail_msg("%s: %s", name, err.message);
  free(buf.data);
  rw_default_options(&opt);
  opt.target = RW_LRAVM;
  opt.exact = exact;
  if (rw_rewrite(chunk, &opt, NULL, &err) != LRAF_OK)
    fail_msg("%s: %s", name, err.message);
  return chunk;
}

/* An ACCT that checks, or a jump that pays with the ACCT after it and
   checks whichever way it goes. */
static int is_check(bc_instr i) {
  return (bc_op(i) == BC_OP_ACCT && bc_a(i) != BC_ACCT_ADD) ||
         bc_op(i) == BC_OP_JMPACCT || bc_op(i) == BC_OP_FORLOOPACCT;
}

/* i without its zero check: an ACCT that only adds, a paying jump made
   the plain jump again (whose ACCT then runs on a FORLOOP's exit). */
static bc_instr unchecked(bc_instr i) {
  if (bc_op(i) == BC_OP_JMPACCT) return bc_set_op(i, BC_OP_JMP);
  if (bc_op(i) == BC_OP_FORLOOPACCT) return bc_set_op(i, BC_OP_FORLOOP);
  return bc_set_a(i, BC_ACCT_ADD);
}

/* Where control may go after pc, written for the oracle from Lua's
   semantics: a jump's target; the next instruction unless pc always
   jumps; the one after it where pc may skip it (tests, arithmetic that
   skips its MMBIN, LFALSESKIP, an instruction with an EXTRAARG); a
   FORLOOPACCT's exit skips its ACCT. */
static int next_pcs(const bc_proto *f, int pc, int *s) {
  bc_instr i = f->code[pc];
  int op = bc_op(i), n = 0, t, k, m = 0;
  const bc_opinfo *oi = bc_opinfo_of(op);
  if (oi->flags & BC_OPF_ENDS) return 0;
  if (bc_jump_target(i, pc, &t)) s[n++] = t;
  if (op == BC_OP_FORLOOPACCT) s[n++] = pc + 2;
  else if (op != BC_OP_JMP && op != BC_OP_JMPACCT) s[n++] = pc + 1;
  if (oi->flags & (BC_OPF_TEST | BC_OPF_MMBIN | BC_OPF_SKIPNEXT) ||
      bc_required_next(i) == BC_OP_EXTRAARG)
    s[n++] = pc + 2;
  for (k = 0; k < n; k++)
    if (s[k] >= 0 && s[k] < f->sizecode) s[m++] = s[k];
  return m;
}

/* Instructions reachable from pc 0 (through checks too). */
static char *live_code(const bc_proto *f) {
  char *live = calloc((size_t)f->sizecode, 1);
  int *stack = malloc((size_t)f->sizecode * sizeof *stack), sp = 0;
  assert_non_null(live);
  assert_non_null(stack);
  stack[sp++] = 0;
  live[0] = 1;
  while (sp > 0) {
    int v = stack[--sp], s[3], ns = next_pcs(f, v, s), k;
    for (k = 0; k < ns; k++)
      if (!live[s[k]]) { live[s[k]] = 1; stack[sp++] = s[k]; }
  }
  free(stack);
  return live;
}

/* Whether the live instruction x, not a check, can come back to itself
   without passing a check. */
static int on_unchecked_cycle(const bc_proto *f, const char *live, int x) {
  char *seen = calloc((size_t)f->sizecode, 1);
  int *stack = malloc((size_t)f->sizecode * sizeof *stack), sp = 0, found = 0;
  int s[3], ns, k;
  assert_non_null(seen);
  assert_non_null(stack);
  if (!live[x] || is_check(f->code[x])) goto done;
  ns = next_pcs(f, x, s);
  for (k = 0; k < ns; k++)
    if (!seen[s[k]] && !is_check(f->code[s[k]])) {
      seen[s[k]] = 1;
      stack[sp++] = s[k];
    }
  while (sp > 0 && !found) {
    int v = stack[--sp];
    if (v == x) { found = 1; break; }
    ns = next_pcs(f, v, s);
    for (k = 0; k < ns; k++)
      if (!seen[s[k]] && !is_check(f->code[s[k]])) {
        seen[s[k]] = 1;
        stack[sp++] = s[k];
      }
  }
done:
  free(seen);
  free(stack);
  return found;
}

/* The oracle's verdict on f alone: has it a cycle without a check? */
static int oracle_cycle(const bc_proto *f) {
  char *live = live_code(f);
  int pc, found = 0;
  for (pc = 0; pc < f->sizecode && !found; pc++)
    found = on_unchecked_cycle(f, live, pc);
  free(live);
  return found;
}

/* The pc (1-based) that the verifier's message names, or -1. */
static int named_pc(const char *msg) {
  const char *p = strstr(msg, "loop through pc ");
  return p ? atoi(p + strlen("loop through pc ")) : -1;
}

static int mutations;

/* Take out f's zero checks one at a time (all but one that the entry
   needs) and compare the verifier with the oracle; then f's entry
   check. */
static void mutate_checks(bc_chunk *chunk, bc_proto *f, const char *name) {
  int pc, entry = -1;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr saved = f->code[pc];
    lraf_error err;
    lraf_status st;
    int expect;
    if (!is_check(saved)) continue;
    if (entry < 0) { entry = pc; continue; }
    f->code[pc] = unchecked(saved);
    expect = oracle_cycle(f);
    memset(&err, 0, sizeof err);
    st = rw_verify_target(chunk, RW_LRAVM, &err);
    if ((st != LRAF_OK) != expect)
      fail_msg("%s: without the check at pc %d the verifier says %s, the "
               "oracle %s", name, pc + 1, st == LRAF_OK ? "ok" : err.message,
               expect ? "a loop without a check" : "no such loop");
    if (expect) {
      char *live = live_code(f);
      int at = named_pc(err.message);
      assert_int_equal(st, LRAF_EVERIFY);
      assert_int_equal(err.code, LRAF_EVERIFY);
      if (at < 1 || at > f->sizecode || !on_unchecked_cycle(f, live, at - 1))
        fail_msg("%s: the verifier names pc %d, not on a loop without a "
                 "check: %s", name, at, err.message);
      free(live);
    }
    f->code[pc] = saved;
    mutations++;
  }
  if (entry >= 0) {
    bc_instr saved = f->code[entry];
    lraf_error err;
    f->code[entry] = bc_set_a(saved, BC_ACCT_ADD);
    assert_int_equal(rw_verify_target(chunk, RW_LRAVM, &err), LRAF_EVERIFY);
    if (strstr(err.message, "does not start with a zero check") == NULL &&
        strstr(err.message, "without a zero check") == NULL)
      fail_msg("%s: no entry check, yet: %s", name, err.message);
    f->code[entry] = saved;
  }
}

static int jump_mutations;

/* f, changed, against the oracle, where the change left valid code. */
static void compare_changed(bc_chunk *chunk, const bc_proto *f,
                            const char *name, const char *what, int pc) {
  lraf_error err;
  lraf_status st;
  int expect;
  if (bc_check_code(f, NULL, BC_CHECK_REWRITTEN, NULL) != LRAF_OK) return;
  expect = oracle_cycle(f);
  st = rw_verify_target(chunk, RW_LRAVM, &err);
  if ((st != LRAF_OK) != expect)
    fail_msg("%s: with %s at pc %d the verifier says %s, the oracle %s",
             name, what, pc + 1, st == LRAF_OK ? "ok" : err.message,
             expect ? "a loop without a check" : "no such loop");
  jump_mutations++;
}

/* The verifier skips its search when every backward jump lands on a run
   of plain instructions ending in a check: for each backward jump, move
   its target one on (past a check it landed on), and make its target a
   JMP over the check that ends the run, and compare with the oracle. */
static void mutate_back_jumps(bc_chunk *chunk, bc_proto *f, const char *name) {
  int pc, t, x;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr saved = f->code[pc], at;
    if (!bc_jump_target(saved, pc, &t) || t > pc || t < 0) continue;
    if (t + 1 <= pc && bc_set_jump_target(&f->code[pc], pc, t + 1))
      compare_changed(chunk, f, name, "a backward jump moved on", pc);
    f->code[pc] = saved;
    for (x = t; x < pc && !is_check(f->code[x]) &&
                !(bc_opinfo_of(bc_op(f->code[x]))->flags &
                  (BC_OPF_ENDS | BC_OPF_JUMP | BC_OPF_TEST | BC_OPF_MMBIN |
                   BC_OPF_SKIPNEXT)) &&
                bc_required_next(f->code[x]) != BC_OP_EXTRAARG; x++) {}
    if (x == t || x >= pc || !is_check(f->code[x])) continue;
    at = f->code[t];
    f->code[t] = bc_isj(BC_OP_JMP, 0);
    if (bc_set_jump_target(&f->code[t], t, x + 1))
      compare_changed(chunk, f, name, "a JMP over the check", t);
    f->code[t] = at;
  }
}

static void mutate_tree(bc_chunk *chunk, bc_proto *f, const char *name) {
  int i;
  mutate_checks(chunk, f, name);
  mutate_back_jumps(chunk, f, name);
  for (i = 0; i < f->sizep; i++) mutate_tree(chunk, f->p[i], name);
}

static void check_source(const char *src, size_t len, const char *name) {
  int exact;
  for (exact = 0; exact <= 1; exact++) {
    bc_chunk *chunk = rewritten(src, len, name, exact);
    lraf_error err;
    if (rw_verify_target(chunk, RW_LRAVM, &err) != LRAF_OK)
      fail_msg("%s as rewritten does not verify: %s", name, err.message);
    mutate_tree(chunk, chunk->main, name);
    assert_int_equal(rw_verify_target(chunk, RW_LRAVM, &err), LRAF_OK);
    bc_chunk_free(chunk);
  }
}

static void test_cycles_match_oracle(void **state) {
  size_t i;
  (void)state;
  mutations = 0;
  jump_mutations = 0;
  for (i = 0; i < sizeof snippets / sizeof snippets[0]; i++)
    check_source(snippets[i], strlen(snippets[i]), snippets[i]);
  for (i = 0; i < sizeof programs / sizeof programs[0]; i++) {
    size_t len;
    char *src = tutil_run_slurp(programs[i], &len);
    if (src == NULL) fail_msg("cannot read %s", programs[i]);
    check_source(src, len, programs[i]);
    free(src);
  }
  if (mutations < 100)
    fail_msg("only %d checks taken out", mutations);
  printf("%d checks taken out, %d backward jumps changed\n", mutations,
         jump_mutations);
  if (jump_mutations < 50)
    fail_msg("only %d backward jumps changed", jump_mutations);
}

/* A jump out of the code, the lraf VM's code on the stock target, and
   a chunk whose header disagrees with its main function. */
static void test_refuses_bad_code(void **state) {
  const char *src = "local s = 0 for i = 1, 10 do s = s + i end return s";
  bc_chunk *chunk = rewritten(src, strlen(src), "=loop", 0);
  bc_proto *f = chunk->main;
  lraf_error err;
  int pc, jumps = 0;
  (void)state;
  for (pc = 0; pc < f->sizecode; pc++) {
    bc_instr saved = f->code[pc];
    int t;
    if (!bc_jump_target(saved, pc, &t)) continue;
    jumps++;
    assert_true(bc_set_jump_target(&f->code[pc], pc, f->sizecode + 5) ||
                bc_set_jump_target(&f->code[pc], pc, -5));
    assert_int_equal(rw_verify_target(chunk, RW_LRAVM, &err), LRAF_EVERIFY);
    assert_non_null(strstr(err.message, "function 0 at depth 0"));
    f->code[pc] = saved;
  }
  assert_true(jumps >= 2);
  assert_int_equal(rw_verify_target(chunk, RW_LRAVM, &err), LRAF_OK);
  assert_int_equal(rw_verify_target(chunk, RW_STOCK, &err), LRAF_EVERIFY);
  assert_non_null(strstr(err.message, "ACCT"));
  chunk->nupvalues++;
  assert_int_equal(rw_verify_target(chunk, RW_LRAVM, &err), LRAF_EVERIFY);
  bc_chunk_free(chunk);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cycles_match_oracle),
    cmocka_unit_test(test_refuses_bad_code),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
