#!/usr/bin/env bash
# make bench-native (and make bench): calibration of the native cost
# model and the overhead of native charging on the benchmark programs.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/stock}
mkdir -p "$BUILD/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude -Icommon -Ivm -Irewriter -Iaccounts -Iruntime -Itests/support \
  $(pkg-config --cflags lua5.4) \
  tests/bench/native.c tests/support/tutil_run.c tests/support/tutil_capture.c "$BUILD/liblraf.a" \
  $(pkg-config --libs lua5.4) -lm -lpthread -o "$BUILD/bench/native"
LRAF="$BUILD/lraf" "$BUILD/bench/native" ${REPS:+-n$REPS} "$@"
