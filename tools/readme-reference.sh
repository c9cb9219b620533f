#!/usr/bin/env bash
# readme-reference.sh - put `lraf help --markdown` (headings one level
# down) into README.md's "Command reference", from the line that starts
# "Numbers take" to the next "## " heading, so the README's option
# tables are the code's.  Usage: tools/readme-reference.sh [LRAF]
set -euo pipefail
lraf=${1:-build/lraf}
cd "$(dirname "$0")/.."
md=$(mktemp)
trap 'rm -f "$md"' EXIT
"$lraf" help --markdown | sed 's/^### /#### /' > "$md"
awk -v md="$md" '
  /^Numbers take/ && !done { while ((getline l < md) > 0) print l; print ""; skip = 1; done = 1; next }
  skip && /^## / { skip = 0 }
  !skip { print }
' README.md > README.md.new
mv README.md.new README.md

# The README's example runs ("    $ lraf ..." and the indented lines
# after it) are the command's output, from the lraf VM build (the
# README's model names are the lraf VM's); test_readme_examples checks
# them, timings aside.
ex=$(mktemp)
trap 'rm -f "$md" "$ex"' EXIT
awk '
  /^    \$ lraf / { print; cmd = substr($0, 7); sub(/^lraf /, "", cmd);
                    print "@@RUN@@ " cmd; skip = 1; next }
  skip && /^    / { next }
  { skip = 0; print }
' README.md > "$ex"
: > README.md.new
while IFS= read -r line; do
  case $line in
    "@@RUN@@ "*) "$lraf" ${line#@@RUN@@ } 2>&1 | sed 's/^/    /' >> README.md.new ;;
    *) printf '%s\n' "$line" >> README.md.new ;;
  esac
done < "$ex"
mv README.md.new README.md
