#!/usr/bin/env bash
# tools/rwsame.sh [BASE] - whether the rewriter's output is byte-identical
# to that of commit BASE (default: where this branch left main) on every program of tests/corpus
# (its subfolders included), for both builds and all modes.  For a change
# that should alter how fast the rewriter works, not what it writes.
#
# BASE is exported with git archive into a scratch directory (no worktree,
# no checkout), and built there twice, in that tree's own layout (before
# 6063947: build/ stock and build/lravm the lraf VM; since: build/stock
# and build/), with the lraf VM's sources copied from this tree's
# build/lua-lravm.  Compared, for each program:
#  - `lraf rewrite` in the modes original, overhead, weighted (a weights
#    file with varied weights) and --exact (also with overhead), with
#    the stock build, and with the lraf VM build for both --vm lraf and
#    --vm stock (the offline path: dump, read, rewrite, verify, write);
#  - `lraf disasm` of the source and of the default rewrite, both builds;
#  - on the lraf VM, rewriting in memory (rt_pipeline_in_place) in the
#    same modes, lua_dump of the result (tools/rwsame_dump.c).
# Exit status 0 when everything is identical, 1 with the differences
# listed otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${1:-$(git merge-base HEAD main)}
HERE=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rwsame.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# layout TREE: the stock and the lraf VM build directories of TREE
layout() {
  if grep -q '^STOCK ' "$1/Makefile"; then STOCKDIR=build/stock VMDIR=build
  else STOCKDIR=build VMDIR=build/lravm; fi
}
# build TREE: both builds of TREE, in its layout
build() {
  layout "$1"
  (cd "$1" &&
   make --no-print-directory -j2 BUILD=$STOCKDIR LRAF_VM=0 $STOCKDIR/lraf &&
   make --no-print-directory -j2 BUILD=$VMDIR LRAF_VM=1 \
     $VMDIR/lraf $VMDIR/liblraf.a) >/dev/null 2>&1
}

[ -f build/lua-lravm/.ok ] || make --no-print-directory -j2 vm >/dev/null
build "$HERE" || { echo "rwsame: cannot build this tree" >&2; exit 1; }

mkdir -p "$WORK/base/build"
git archive "$BASE" | tar -x -C "$WORK/base"
cp -a build/lua-lravm "$WORK/base/build/lua-lravm"
build "$WORK/base" || {
  echo "rwsame: cannot build $BASE in $WORK/base" >&2; exit 1; }

cat > "$WORK/w.txt" <<'EOF'
# varied weights, so that weighted charges differ from the counts
CALL 5
GETTABLE 3
GETFIELD 2
CONCAT 7
ADD 2
FORLOOP 4
EOF

# dumper TREE: build tools/rwsame_dump.c against TREE's lraf VM build
dumper() {
  layout "$1"
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Wall -Wextra -Werror \
    -I"$1/include" -I"$1/common" -I"$1/vm" -I"$1/bytecode" -I"$1/rewriter" -I"$1/runtime" \
    -I"$1/build/lua-lravm/src" -DLRAF_VM "$HERE/tools/rwsame_dump.c" \
    "$1/$VMDIR/liblraf.a" "$1/$VMDIR/lua/liblua.a" -Wl,-E -ldl -lm \
    -o "$2"
}
dumper "$WORK/base" "$WORK/dump.base"
dumper "$HERE" "$WORK/dump.new"

# listings show where functions are in memory, as luac's do
noaddr() { sed -E 's/0x[0-9a-f]+/0xADDR/g'; }

# outputs TREE OUT DUMPER: everything compared, for TREE, into OUT/
outputs() {
  local tree=$1 out=$2 p n lraf vm mode args which
  layout "$tree"
  mkdir -p "$out"
  for p in tests/corpus/*.lua tests/corpus/*/*.lua; do
    n=$(echo "$p" | tr / _)
    for which in stock vm; do
      if [ $which = stock ]; then lraf=$STOCKDIR/lraf; else lraf=$VMDIR/lraf; fi
      for vm in lraf stock; do
        [ $which = stock ] && [ "$vm" = lraf ] && continue
        for mode in original overhead weighted exact exact-overhead; do
          case $mode in
            weighted) args="--mode weighted --weights $WORK/w.txt" ;;
            exact) args="--exact" ;;
            exact-overhead) args="--exact --mode overhead" ;;
            *) args="--mode $mode" ;;
          esac
          [ $which = vm ] && args="$args --vm $vm"
          local o="$out/$n.$which.$vm.$mode"
          "$tree/$lraf" rewrite $args "$p" -o "$o.luac" >"$o.msg" 2>&1 || true
          if [ "$mode" = original ] && [ -f "$o.luac" ]; then
            "$tree/$lraf" disasm "$o.luac" 2>&1 | noaddr >"$o.disasm" || true
          fi
        done
      done
      "$tree/$lraf" disasm "$p" 2>&1 |
        noaddr >"$out/$n.$which.src.disasm" || true
    done
  done
  "$3" tests/corpus/*.lua tests/corpus/*/*.lua >"$out/inplace.bin" 2>&1 || true
}
outputs "$WORK/base" "$WORK/out.base" "$WORK/dump.base"
outputs "$HERE" "$WORK/out.new" "$WORK/dump.new"

n=$(ls "$WORK/out.new" | wc -l)
if diff -r -q "$WORK/out.base" "$WORK/out.new"; then
  echo "rwsame: identical to $BASE ($n files: rewrite, disasm, in memory)"
else
  echo "rwsame: DIFFERENT from $BASE (above)"
  exit 1
fi
