#!/usr/bin/env bash
# make bench (and make bench-timeline): what --timeline costs over lraf
# run, on the benchmark programs of the corpus, whole processes side by
# side: each repetition runs every program with and without --timeline,
# one after the other, on the lraf VM build (build/lraf) when there is
# one, else on the stock build; the best of REPS (default 5) CPU times
# (user + system, the timeline's writing included) is kept.  The table
# goes into docs/measurements.md's section "timeline".
set -euo pipefail
cd "$(dirname "$0")/../.."
REPS=${REPS:-5}
LRAF=${LRAF:-build/lraf}
[ -x "$LRAF" ] || LRAF=build/stock/lraf
progs="richards deltablue json nbody bounce list mandelbrot permute queens
       sieve storage towers raytrace binarytrees spectralnorm fannkuch
       fasta copipe gsubbuild"
tmp=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$tmp" "$out"' EXIT

# CPU seconds of one command (its stdout and stderr dropped)
cpu() {
  local TIMEFORMAT=%3U+%3S t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 ) || return 1
  awk -F+ '{ print $1 + $2 }' <<<"$t"
}

for r in $(seq "$REPS"); do
  for p in $progs; do
    a=$(cpu "$LRAF" run "tests/corpus/$p.lua")
    b=$(cpu "$LRAF" run --timeline "$tmp/t.json" "tests/corpus/$p.lua")
    echo "$p $a $b"
  done
done | awk -v reps="$REPS" -v lraf="$LRAF" '
  { if (!($1 in a) || $2 < a[$1]) a[$1] = $2
    if (!($1 in b) || $3 < b[$1]) b[$1] = $3
    if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
  END {
    printf "--timeline over lraf run (%s), CPU seconds, best of %d,\n", lraf, reps
    printf "whole processes, interleaved\n\n"
    printf "%-16s %8s %8s %8s\n", "program", "run s", "tl s", "ratio"
    for (i = 0; i < n; i++) {
      p = order[i]; r = b[p] / a[p]; g += log(r)
      if (r > worst) { worst = r; wp = p }
      printf "%-16s %8.3f %8.3f %7.3fx\n", p, a[p], b[p], r
    }
    printf "\n%-16s %17s %7.3fx\n", "geometric mean", "", exp(g / n)
    printf "%-16s %17s %7.3fx (%s)\n", "worst", "", worst, wp
  }' | tee "$out"
tools/measurements.sh section timeline "REPS=$REPS tests/bench/timeline.sh" <"$out"
