#!/usr/bin/env bash
# make bench: lraf serve with metering off, with metering and no
# ledger, with the SQLite ledger (on the disk, and in a tmpfs) and with
# the PostgreSQL ledger, side by side (tests/bench/serve.c), on a light and a heavier handler; before
# that the request pool alone (tests/bench/pool.c).  lraf serve is the
# lraf VM build (build/, what `make install` installs) when there is
# one, else the stock target's.  PostgreSQL: a throwaway server (initdb
# and pg_ctl of Debian's postgresql) in a temporary directory, skipped
# with a message when there is none.  The output goes into
# docs/measurements.md's section "serve" (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
STOCK=build/stock
if [ -z "${BUILD:-}" ]; then
  if [ -x build/lraf ]; then BUILD=build; else BUILD=$STOCK; fi
fi
mkdir -p "$STOCK/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Itests/support tests/bench/serve.c tests/support/tutil_serve.c \
  -lpthread -o "$STOCK/bench/serve"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude $(pkg-config --cflags lua5.4) tests/bench/pool.c \
  "$STOCK/liblraf.a" $(pkg-config --libs lua5.4) -lm -lpthread -ldl \
  -o "$STOCK/bench/pool"
export LRAF="$BUILD/lraf"

out=$(mktemp)
pgdir=
cleanup() {
  if [ -n "$pgdir" ]; then
    as_pg "$pgbin/pg_ctl -D $pgdir/data -m fast -w stop" >/dev/null 2>&1 || :
    rm -rf "$pgdir"
  fi
  rm -f "$out" "$out.pg"
}
trap cleanup EXIT

# PostgreSQL refuses to run as root: as nobody then.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u nobody -- sh -c "$1"; else sh -c "$1"; fi
}

# Start a throwaway PostgreSQL server; PG is its connection string.
start_pg() {
  local initdb
  initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -1)
  if [ -z "$initdb" ]; then
    echo "PostgreSQL: skipped (initdb not found: Debian package postgresql not installed)"
    return 1
  fi
  pgbin=$(dirname "$initdb")
  pgdir=$(mktemp -d /tmp/lraf-bench-pg-XXXXXX)
  if [ "$(id -u)" = 0 ]; then chown nobody "$pgdir"; fi
  if ! as_pg "$pgbin/initdb -D $pgdir/data -A trust -U lraf --no-sync" \
       >"$pgdir/initdb.log" 2>&1 ||
     ! as_pg "$pgbin/pg_ctl -D $pgdir/data -l $pgdir/pg.log -w -t 60 -o \"-k $pgdir -c listen_addresses= -p 5432\" start" \
       >/dev/null 2>&1; then
    echo "PostgreSQL: skipped (the throwaway server did not start)"
    return 1
  fi
  export PG="postgresql://lraf@/postgres?host=$pgdir"
}

start_pg >"$out.pg" || :
measure() {
  "$STOCK/bench/pool" 100
  "$STOCK/bench/pool" 20000
  cat "$out.pg"
  "$STOCK/bench/serve" tests/system/serve hello n=100
  "$STOCK/bench/serve" tests/system/serve hello n=20000
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}
measure | tee "$out"
tools/measurements.sh section serve "tests/bench/serve.sh" <"$out"
