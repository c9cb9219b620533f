#!/bin/sh
# Build the fuzz seed corpora under DIR (default tests/fuzz/corpus-run):
#   DIR/chunks  tests/corpus/*.lua and generated programs compiled by
#               luac5.4, plain and stripped (for fuzz_read, fuzz_rewrite)
#   DIR/source  the same programs as source text (for fuzz_source)
# usage: tests/fuzz/mkcorpus.sh [DIR] [GENERATED]   (GENERATED default 40)
set -eu
dir=${1:-tests/fuzz/corpus-run}
ngen=${2:-40}
mkdir -p "$dir/chunks" "$dir/source"
for f in tests/corpus/*.lua; do
  cp "$f" "$dir/source/"
done
seed=1
while [ "$seed" -le "$ngen" ]; do
  lua5.4 tests/gen/gen.lua "$seed" > "$dir/source/gen_$seed.lua"
  seed=$((seed + 1))
done
for f in "$dir"/source/*.lua; do
  b=$(basename "$f" .lua)
  # Debian's luac5.4 aborts when given several files: one per call.
  luac5.4 -o "$dir/chunks/$b.luac" "$f"
  luac5.4 -s -o "$dir/chunks/$b.s.luac" "$f"
done
echo "fuzz corpus: $(ls "$dir/chunks" | wc -l) chunks, $(ls "$dir/source" | wc -l) sources in $dir"
