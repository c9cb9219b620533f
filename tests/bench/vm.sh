#!/usr/bin/env bash
# make bench, lraf VM columns (docs/lraf-vm.md): the lraf VM build
# (make vm, in build/) measured two ways, each side by side in one
# run on the benchmark programs of the corpus:
#  1. bench.c built against the lraf VM: in one process, the program on
#     the lraf VM unrewritten (plain), with a count hook, and rewritten
#     for the lraf VM in the default and exact modes; accounting
#     instructions, code growth and rewriting against compiling, for
#     the target the lraf VM build uses by default (RW_LRAVM);
#  2. vmbench.c: whole processes, start and rewriting included, against
#     Debian's lua5.4 and against the lraf VM's own stand-alone lua.
# The output goes into docs/measurements.md's section "vm"
# (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build
make --no-print-directory -j2 vm >/dev/null
mkdir -p "$B/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude -Icommon -Ibytecode -Irewriter -Iaccounts -Iruntime -Itests/support \
  -Ibuild/lua-lravm/src -DLRAF_VM \
  tests/bench/bench.c tests/support/tutil_run.c tests/support/tutil_capture.c \
  "$B/liblraf.a" \
  "$B/lua/liblua.a" -Wl,-E -ldl -lm -o "$B/bench/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  tests/bench/vmbench.c -lm -o "$B/bench/vmbench"
progs=""
for p in richards deltablue json nbody bounce list mandelbrot permute queens \
         sieve storage towers raytrace binarytrees spectralnorm fannkuch \
         fasta copipe gsubbuild; do
  progs="$progs tests/corpus/$p.lua"
done
measure() {
  echo "== lraf VM, in one process (plain = the lraf VM running unrewritten code)"
  "$B/bench/bench" ${REPS:+-n$REPS} $progs
  echo
  echo "== lraf VM, whole processes against lua5.4 and the lraf VM's lua"
  "$B/bench/vmbench" ${REPS:+-n$REPS} "$(command -v lua5.4)" "$B/lua/lua" \
    "$B/lraf" $progs
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
measure | tee "$out"
tools/measurements.sh section vm "${REPS:+REPS=$REPS }tests/bench/vm.sh" <"$out"
