#!/usr/bin/env bash
# make bench-rwmem: what loading one huge function takes, lua5.4 against
# lraf run on both builds, side by side in one run: the peak resident
# memory of the whole process and its CPU time, and their ratios to
# lua5.4's.  The function is generated (tests/corpus/tools/mklongfunc.lua
# with RWMEM_LINES statements, 160000 by default) and called once.  Each
# program runs REPS times (default 3), alternately; the least of each
# figure is kept.  Output goes into docs/measurements.md's section
# "rwmem" (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
make --no-print-directory -j2 stock >/dev/null
make --no-print-directory -j2 vm >/dev/null
LINES=${RWMEM_LINES:-160000}
REPS_ASKED=${REPS:-}
REPS=${REPS:-3}
mkdir -p build/bench
big=build/bench/bigfunc.lua
lua5.4 tests/corpus/tools/mklongfunc.lua "$LINES" > "$big"
cc -std=c11 -O2 -Wall -Wextra -Werror tests/bench/maxrss.c \
  -o build/bench/maxrss

names=("lua5.4" "lraf run (stock)" "lraf run (lraf VM)")
cmds=("lua5.4 $big" "build/stock/lraf run $big" "build/lraf run $big")
declare -a rss cpu
expect=$(lua5.4 "$big")
for ((r = 0; r < REPS; r++)); do
  for i in 0 1 2; do
    # shellcheck disable=SC2086
    got=$(build/bench/maxrss ${cmds[$i]} 2>build/bench/maxrss.out)
    if [ "$got" != "$expect" ]; then
      echo "rwmem: ${names[$i]} printed '$got', lua5.4 '$expect'" >&2
      exit 1
    fi
    read -r _ kb _ s < build/bench/maxrss.out
    if [ -z "${rss[$i]:-}" ] || [ "$kb" -lt "${rss[$i]}" ]; then rss[$i]=$kb; fi
    if [ -z "${cpu[$i]:-}" ] || awk "BEGIN{exit !($s < ${cpu[$i]})}"; then
      cpu[$i]=$s
    fi
  done
done

measure() {
  echo "one function of $LINES generated statements ($(wc -c < "$big") bytes of source), loaded and called once; least of $REPS runs"
  echo
  printf '%-20s %12s %8s %10s %10s\n' program "max RSS MB" "CPU s" "RSS ratio" "CPU ratio"
  for i in 0 1 2; do
    awk -v n="${names[$i]}" -v kb="${rss[$i]}" -v s="${cpu[$i]}" \
        -v kb0="${rss[0]}" -v s0="${cpu[0]}" 'BEGIN {
      printf "%-20s %12.1f %8.2f %9.2fx %9.2fx\n", n, kb / 1024, s,
             kb / kb0, (s0 > 0 ? s / s0 : 0) }'
  done
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
measure | tee "$out"
tools/measurements.sh section rwmem "${REPS_ASKED:+REPS=$REPS_ASKED }${RWMEM_LINES:+RWMEM_LINES=$RWMEM_LINES }tests/bench/rwmem.sh" <"$out"
