#!/usr/bin/env bash
# make bench (and make bench-profile): what lraf profile costs over plain
# lua5.4 and over lraf run, on the benchmark programs of the corpus
# (tests/bench/profile.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/stock}
mkdir -p "$BUILD/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude $(pkg-config --cflags lua5.4) \
  tests/bench/profile.c "$BUILD/liblraf.a" \
  $(pkg-config --libs lua5.4) -lm -lpthread -o "$BUILD/bench/profile"
progs=""
for p in richards deltablue json nbody bounce list mandelbrot permute queens \
         sieve storage towers raytrace binarytrees spectralnorm fannkuch \
         fasta copipe gsubbuild; do
  progs="$progs tests/corpus/$p.lua"
done
"$BUILD/bench/profile" ${REPS:+-n$REPS} $progs
