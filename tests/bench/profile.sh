#!/usr/bin/env bash
# make bench (and make bench-profile): what lraf profile costs over plain
# Lua and over lraf run, on the benchmark programs of the corpus
# (tests/bench/profile.c), for both builds side by side in one run: the
# stock build (Debian's liblua5.4; the hook collector) and the lraf VM
# build (build/, make vm; the VM's own call and return events, with per-line
# counts).  Each repetition runs every program under both builds, one
# after the other; the best of REPS (default 5) CPU times is kept.  The
# table goes into docs/measurements.md's section "profile"
# (tools/measurements.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/stock}
VMB=build
REPS=${REPS:-5}
mkdir -p "$BUILD/bench"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
  -Iinclude $(pkg-config --cflags lua5.4) \
  tests/bench/profile.c "$BUILD/liblraf.a" \
  $(pkg-config --libs lua5.4) -lm -lpthread -o "$BUILD/bench/profile"
vm=""
if make --no-print-directory -j2 vm >/dev/null 2>&1; then
  mkdir -p "$VMB/bench"
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror \
    -Iinclude -Ibuild/lua-lravm/src tests/bench/profile.c "$VMB/liblraf.a" \
    "$VMB/lua/liblua.a" -Wl,-E -ldl -lm -lpthread -o "$VMB/bench/profile"
  vm="$VMB/bench/profile"
else
  echo "SKIP: the lraf VM's columns: make vm failed"
fi
progs=""
for p in richards deltablue json nbody bounce list mandelbrot permute queens \
         sieve storage towers raytrace binarytrees spectralnorm fannkuch \
         fasta copipe gsubbuild; do
  progs="$progs tests/corpus/$p.lua"
done
raw=$(mktemp)
out=$(mktemp)
trap 'rm -f "$raw" "$out"' EXIT
for r in $(seq "$REPS"); do
  for p in $progs; do
    "$BUILD/bench/profile" -n1 -r "$p" | sed 's/^/stock /' >>"$raw"
    if [ -n "$vm" ]; then "$vm" -n1 -r "$p" | sed 's/^/vm /' >>"$raw"; fi
  done
done
awk -v reps="$REPS" '
  $3 == "failed" { failed[$1 " " $2] = 1; next }
  { k = $1 " " $2
    if (!(k in best) || $3 < p0[k]) p0[k] = $3
    if (!(k in best) || $4 < p1[k]) p1[k] = $4
    if (!(k in best) || $5 < p2[k]) p2[k] = $5
    best[k] = 1
    if (!($2 in seen)) { seen[$2] = 1; order[n++] = $2 } }
  function cols(b, name,   k) {
    k = b " " name
    if (k in failed || !(k in best)) return sprintf("%28s", "-")
    gl[b] += log(p2[k] / p0[k]); gr[b] += log(p2[k] / p1[k]); cnt[b]++
    if (p2[k] / p1[k] > worst[b]) worst[b] = p2[k] / p1[k]
    return sprintf("%8.3f %8.3f %8.3f %6.2fx %6.2fx", p0[k], p1[k], p2[k],
                   p2[k] / p0[k], p2[k] / p1[k])
  }
  END {
    printf "lraf profile: CPU time over plain Lua (its own build'"'"'s) and over lraf run,\n"
    printf "best of %d, both builds interleaved\n\n", reps
    printf "%-16s %-44s | %s\n", "", "stock build (hook collector)",
           "lraf VM build (VM events, per-line counts)"
    printf "%-16s %8s %8s %8s %7s %7s | %8s %8s %8s %7s %7s\n", "program",
           "lua s", "lraf s", "prof s", "/lua", "/lraf", "lua s", "lraf s",
           "prof s", "/lua", "/lraf"
    for (i = 0; i < n; i++)
      printf "%-16s %s | %s\n", order[i], cols("stock", order[i]),
             cols("vm", order[i])
    printf "\n%-16s %26s %6.2fx %6.2fx | %26s %6.2fx %6.2fx\n", "geometric mean",
           "", cnt["stock"] ? exp(gl["stock"] / cnt["stock"]) : 0,
           cnt["stock"] ? exp(gr["stock"] / cnt["stock"]) : 0, "",
           cnt["vm"] ? exp(gl["vm"] / cnt["vm"]) : 0,
           cnt["vm"] ? exp(gr["vm"] / cnt["vm"]) : 0
    printf "%-16s %41.2fx | %41.2fx\n", "max /lraf", worst["stock"], worst["vm"]
  }' "$raw" | tee "$out"
tools/measurements.sh section profile "REPS=$REPS tests/bench/profile.sh" <"$out"
