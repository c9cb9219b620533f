#!/usr/bin/env bash
# make bench-rw: what rewriting costs next to compiling (tests/bench/
# rwtime.c), on the corpus's benchmark programs, for both builds: the
# lraf VM (rewriting in memory) and stock Lua (dump, read, rewrite,
# verify, write).  RWTIME_LOOPS=N instead rewrites each program N times
# without timing, a loop to run under perf record.  Timed output goes
# into docs/measurements.md's section "rw" (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
make --no-print-directory -j2 stock >/dev/null
make --no-print-directory -j2 vm >/dev/null
progs=""
for p in richards deltablue json nbody bounce list mandelbrot permute queens \
         sieve storage towers raytrace binarytrees spectralnorm fannkuch \
         fasta copipe gsubbuild; do
  progs="$progs tests/corpus/$p.lua"
done
measure() {
for B in build build/stock; do
  if [ "$B" = build ]; then
    lua="-Ibuild/lua-lravm/src -DLRAF_VM"; libs="$B/lua/liblua.a -Wl,-E -ldl"
  else
    lua=$(pkg-config --cflags lua5.4); libs=$(pkg-config --libs lua5.4)
  fi
  mkdir -p "$B/bench"
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror \
    -Iinclude -Icommon -Ibytecode -Irewriter -Iaccounts -Iruntime -Itests/support \
    $lua tests/bench/rwtime.c tests/support/tutil_run.c \
    tests/support/tutil_capture.c "$B/liblraf.a" $libs -lm \
    -o "$B/bench/rwtime"
  echo "== $B"
  if [ -n "${RWTIME_LOOPS:-}" ]; then
    "$B/bench/rwtime" -l"$RWTIME_LOOPS" $progs
  else
    "$B/bench/rwtime" ${REPS:+-n$REPS} $progs
    "$B/bench/rwtime" ${REPS:+-n$REPS} -x $progs | tail -3
  fi
done
}
if [ -n "${RWTIME_LOOPS:-}" ]; then measure; exit; fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
measure | tee "$out"
tools/measurements.sh section rw "${REPS:+REPS=$REPS }tests/bench/rwtime.sh" <"$out"
