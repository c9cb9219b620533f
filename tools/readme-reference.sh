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
