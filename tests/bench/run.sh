#!/usr/bin/env bash
# make bench: build the overhead benchmark and run it on the benchmark
# programs of the corpus; its table goes into docs/measurements.md's
# section "overhead" (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/stock}
mkdir -p "$BUILD/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude -Icommon -Ibytecode -Irewriter -Iaccounts -Iruntime -Itests/support \
  $(pkg-config --cflags lua5.4) \
  tests/bench/bench.c tests/support/tutil_run.c tests/support/tutil_capture.c "$BUILD/liblraf.a" \
  $(pkg-config --libs lua5.4) -lm -o "$BUILD/bench/bench"
progs=""
for p in richards deltablue json nbody bounce list mandelbrot permute queens \
         sieve storage towers raytrace binarytrees spectralnorm fannkuch \
         fasta copipe gsubbuild; do
  progs="$progs tests/corpus/$p.lua"
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$BUILD/bench/bench" ${REPS:+-n$REPS} $progs | tee "$out"
tools/measurements.sh section overhead "${REPS:+REPS=$REPS }tests/bench/run.sh" <"$out"
