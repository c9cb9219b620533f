#!/usr/bin/env bash
# make bench: lraf serve with metering and the ledger against metering
# off (tests/bench/serve.c), on a light and a heavier handler; before
# that the request pool alone (tests/bench/pool.c).  The output goes
# into docs/measurements.md's section "serve" (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/stock}
mkdir -p "$BUILD/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Itests/support tests/bench/serve.c tests/support/tutil_serve.c \
  -lpthread -o "$BUILD/bench/serve"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude $(pkg-config --cflags lua5.4) tests/bench/pool.c \
  "$BUILD/liblraf.a" $(pkg-config --libs lua5.4) -lm -lpthread -ldl \
  -o "$BUILD/bench/pool"
export LRAF="$BUILD/lraf"
measure() {
  "$BUILD/bench/pool" 100
  "$BUILD/bench/pool" 20000
  "$BUILD/bench/serve" tests/system/serve hello n=100
  "$BUILD/bench/serve" tests/system/serve hello n=20000
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
measure | tee "$out"
tools/measurements.sh section serve "tests/bench/serve.sh" <"$out"
