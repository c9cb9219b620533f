#!/usr/bin/env bash
# make bench (and make bench-timeline): what --timeline costs over lraf
# run, on the benchmark programs of the corpus, whole processes side by
# side, on the lraf VM build (build/lraf) when there is one, else on the
# stock build.  Each repetition runs every program with and without
# --timeline back to back, in turn first (ABBA order, so that a drift of
# the machine's speed falls on both alike), and keeps their ratio of CPU
# times (user + system, the timeline's writing included); a program's
# figure is the median of its REPS (default 7) ratios, so that a
# repetition a neighbour disturbed does not move it.  The table goes
# into docs/measurements.md's section "timeline".
set -euo pipefail
cd "$(dirname "$0")/../.."
REPS=${REPS:-7}
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

plain() { cpu "$LRAF" run "tests/corpus/$1.lua"; }
traced() { cpu "$LRAF" run --timeline "$tmp/t.json" "tests/corpus/$1.lua"; }

for r in $(seq "$REPS"); do
  for p in $progs; do
    if [ $((r % 2)) = 1 ]; then a=$(plain "$p"); b=$(traced "$p")
    else b=$(traced "$p"); a=$(plain "$p"); fi
    echo "$p $a $b"
  done
done | awk -v reps="$REPS" -v lraf="$LRAF" '
  function median(s,   v, k, i, j, t) {
    k = split(s, v, " ")
    for (i = 2; i <= k; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  { if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 }
    a[$1] = a[$1] " " $2; b[$1] = b[$1] " " $3
    r[$1] = r[$1] " " ($2 > 0 ? $3 / $2 : 1) }
  END {
    printf "--timeline over lraf run (%s), CPU seconds, median of %d,\n", lraf, reps
    printf "whole processes, interleaved in turn (ABBA); ratio: the median of\n"
    printf "the ratios of the repetitions\n\n"
    printf "%-16s %8s %8s %8s\n", "program", "run s", "tl s", "ratio"
    for (i = 0; i < n; i++) {
      p = order[i]; m = median(r[p]); g += log(m)
      if (m > worst) { worst = m; wp = p }
      printf "%-16s %8.3f %8.3f %7.3fx\n", p, median(a[p]), median(b[p]), m
    }
    printf "\n%-16s %17s %7.3fx\n", "geometric mean", "", exp(g / n)
    printf "%-16s %17s %7.3fx (%s)\n", "worst", "", worst, wp
  }' | tee "$out"
tools/measurements.sh section timeline "REPS=$REPS tests/bench/timeline.sh" <"$out"
