#!/usr/bin/env bash
# make bench-native (and make bench): calibration of the native cost
# model and the overhead of native charging on the benchmark programs.
# BUILD=build (the lraf VM build) measures it with the
# VM's own size charges.  The output goes into docs/measurements.md's
# section "native" ("native-vm" with --vm) (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/stock}
mkdir -p "$BUILD/bench"
if [ -f "$BUILD/lua/liblua.a" ]; then  # the lraf VM's Lua (LRAF_VM=1)
  LUA_CFLAGS="-Ibuild/lua-lravm/src -DLRAF_VM"
  LUA_LIBS="$BUILD/lua/liblua.a -Wl,-E -ldl"
else
  LUA_CFLAGS=$(pkg-config --cflags lua5.4)
  LUA_LIBS=$(pkg-config --libs lua5.4)
fi
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude -Icommon -Ibytecode -Irewriter -Iaccounts -Iruntime -Iruntime/native -Itests/support \
  $LUA_CFLAGS \
  tests/bench/native.c tests/support/tutil_run.c tests/support/tutil_capture.c "$BUILD/liblraf.a" \
  $LUA_LIBS -lm -lpthread -o "$BUILD/bench/native"
name=native
case " $* " in *" --vm "*) name=native-vm ;; esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
LRAF="$BUILD/lraf" "$BUILD/bench/native" ${REPS:+-n$REPS} "$@" | tee "$out"
tools/measurements.sh section "$name" \
  "${REPS:+REPS=$REPS }BUILD=$BUILD tests/bench/native.sh${*:+ $*}" <"$out"
