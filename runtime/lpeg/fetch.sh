#!/bin/sh
# runtime/lpeg/fetch.sh - the sources of lraf's metered LPeg: LPeg 1.0.2's
# C files from Debian's lua-lpeg source package, plus
# runtime/lpeg/lpeg-steps.patch (a step count in its matcher that calls
# back into lraf), into DEST (default build/lpeg-meter).  The Makefile
# compiles them into liblraf when this succeeds; otherwise lraf stays on
# Debian's lpeg.so (docs/cost-model.md).  Nothing fetched is committed.
#
# The upstream tarball comes from `apt-get source --download-only
# lua-lpeg` through the private apt configuration in build/apt that
# tools/apt-source.sh derives from the machine's apt sources (as
# tests/lpeg/fetch.sh and lravm/fetch.sh do); no host is named here.
# That script checks every file against the .dsc's SHA-256, and this one
# checks the tarball once more against the SHA-256 that lua-lpeg_1.0.2-2
# lists.  Debian applies no patches to it (debian/patches/series is
# empty), so these are the files Debian's lua-lpeg is built from.
#
# Exit status 0 when DEST is ready (a second run does nothing), 2 when a
# tool is missing (patch, apt-get: make deps installs them), 1 with the
# reason on stderr otherwise.

set -u

DEST=${1:-build/lpeg-meter}
HERE=$(cd "$(dirname "$0")" && pwd)
PATCH=$HERE/lpeg-steps.patch
ORIG=lua-lpeg_1.0.2.orig.tar.gz
SHA256=48d66576051b6c78388faad09b70493093264588fcd0f258ddaab1cdd4a15ffe
FILES="lpcap.c lpcap.h lpcode.c lpcode.h lpprint.c lpprint.h lptree.c lptree.h lptypes.h lpvm.c lpvm.h"

# up to date: fetched with this very patch
if [ -f "$DEST/.ok" ] && cmp -s "$PATCH" "$DEST/lpeg-steps.patch"; then
  exit 0
fi

fail() {
  echo "runtime/lpeg/fetch.sh: $*" >&2
  [ -n "${TMP:-}" ] && rm -rf "$TMP"
  exit 1
}

for tool in patch apt-get; do
  command -v $tool >/dev/null 2>&1 || {
    echo "runtime/lpeg/fetch.sh: $tool not found" >&2
    exit 2
  }
done
mkdir -p "$(dirname "$DEST")" || fail "cannot create $(dirname "$DEST")"
TMP=$(mktemp -d "$(cd "$(dirname "$DEST")" && pwd)/lpeg-meter.XXXXXX") ||
  fail "cannot create a temporary directory"
"$HERE/../../tools/apt-source.sh" build/apt "$TMP/dl" lua-lpeg=1.0.2-2 \
    --download-only ||
  fail "could not download $ORIG (no network? no deb source in apt's configuration?)"
[ -f "$TMP/dl/$ORIG" ] || fail "apt-get source lua-lpeg left no $ORIG"
sum=$(sha256sum "$TMP/dl/$ORIG" | cut -d' ' -f1)
[ "$sum" = "$SHA256" ] ||
  fail "$ORIG has SHA-256 $sum, expected $SHA256"

members=""
for f in $FILES; do members="$members lpeg-1.0.2/$f"; done
# shellcheck disable=SC2086
tar --no-same-owner -xzf "$TMP/dl/$ORIG" -C "$TMP" $members ||
  fail "$ORIG lacks one of: $FILES"
(cd "$TMP/lpeg-1.0.2" && patch -p1 --dry-run -s <"$PATCH" >"$TMP/patch.log" 2>&1 &&
   patch -p1 -s <"$PATCH" >>"$TMP/patch.log" 2>&1) || {
  sed 's/^/  /' "$TMP/patch.log" >&2
  fail "runtime/lpeg/lpeg-steps.patch does not apply to LPeg 1.0.2"
}

rm -rf "$DEST" && mkdir -p "$DEST" || fail "cannot create $DEST"
for f in $FILES; do
  mv "$TMP/lpeg-1.0.2/$f" "$DEST/" || fail "cannot move $f into $DEST"
done
cp "$PATCH" "$DEST/lpeg-steps.patch"
echo "$ORIG (sha256 $SHA256) from apt-get source lua-lpeg + lpeg-steps.patch" >"$DEST/SOURCE"
touch "$DEST/.ok"
rm -rf "$TMP"
echo "runtime/lpeg/fetch.sh: LPeg 1.0.2 with lpeg-steps.patch in $DEST"
