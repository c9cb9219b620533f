#!/bin/sh
# runtime/native/lpeg/fetch.sh - the sources of lraf's metered LPeg: LPeg's C
# files from Debian's lua-lpeg source package, plus
# runtime/native/lpeg/lpeg-steps-VERSION.patch (a step count in its matcher
# that calls back into lraf), into DEST (default build/lpeg-meter).  The
# Makefile compiles DEST's .c files into liblraf when this succeeds;
# otherwise lraf stays on Debian's lpeg.so (docs/cost-model.md).
# Nothing fetched is committed.
#
# The LPeg releases with a patch: 1.0.2 (Debian 12's lua-lpeg 1.0.2-2)
# and 1.1.0 (Debian 13's lua-lpeg 1.1.0-2).  The release is that of the
# installed lua-lpeg, so that the metered LPeg and Debian's lpeg.so
# agree, else the newest one apt can get.
#
# The upstream tarball comes from `apt-get source --download-only
# lua-lpeg` through the private apt configuration in build/apt that
# tools/apt-source.sh derives from the machine's apt sources (as
# tests/lpeg/fetch.sh and lravm/fetch.sh do); no host is named here.
# That script checks every file against the .dsc's SHA-256, and this one
# checks the tarball once more against the SHA-256 that the .dsc of that
# Debian version lists (below).  Debian applies no patches to either
# release, so these are the files Debian's lua-lpeg is built from.
#
# Exit status 0 when DEST is ready (a second run does nothing), 2 when a
# tool is missing (patch, apt-get: make deps installs them), 1 with the
# reason on stderr otherwise.

set -u

DEST=${1:-build/lpeg-meter}
HERE=$(cd "$(dirname "$0")" && pwd)

LPEG_DIR=$HERE
. "$LPEG_DIR/releases.sh"  # release, KNOWN, lpeg_release
inst=$(lpeg_release)

# up to date: fetched with this very patch (for the installed release)
if [ -f "$DEST/.ok" ] && [ -f "$DEST/RELEASE" ]; then
  have=$(cat "$DEST/RELEASE")
  if { [ -z "$inst" ] || [ "$inst" = "$have" ]; } && release "$have" &&
     cmp -s "$PATCH" "$DEST/lpeg-steps.patch"; then
    exit 0
  fi
fi

fail() {
  echo "runtime/native/lpeg/fetch.sh: $*" >&2
  [ -n "${TMP:-}" ] && rm -rf "$TMP"
  exit 1
}

for tool in patch apt-get; do
  command -v $tool >/dev/null 2>&1 || {
    echo "runtime/native/lpeg/fetch.sh: $tool not found" >&2
    exit 2
  }
done
mkdir -p "$(dirname "$DEST")" || fail "cannot create $(dirname "$DEST")"
TMP=$(mktemp -d "$(cd "$(dirname "$DEST")" && pwd)/lpeg-meter.XXXXXX") ||
  fail "cannot create a temporary directory"
if [ -n "$inst" ]; then
  release "$inst" ||
    fail "the installed lua-lpeg is LPeg $inst; lraf's metered LPeg has a patch for LPeg $KNOWN only (runtime/native/lpeg/lpeg-steps-*.patch)"
  "$HERE/../../../tools/apt-source.sh" build/apt "$TMP/dl" "lua-lpeg=$DEB" \
      --download-only ||
    fail "could not download $ORIG (no network? no deb source in apt's configuration?)"
else  # no lua-lpeg installed: the newest release apt can get
  got=""
  for r in $KNOWN; do
    release "$r"
    "$HERE/../../../tools/apt-source.sh" build/apt "$TMP/dl" "lua-lpeg=$DEB" \
        --download-only 2>/dev/null && { got=$r; break; }
  done
  [ -n "$got" ] ||
    fail "could not download lua-lpeg $KNOWN (no network? no deb source in apt's configuration?)"
fi
[ -f "$TMP/dl/$ORIG" ] || fail "apt-get source lua-lpeg left no $ORIG"
sum=$(sha256sum "$TMP/dl/$ORIG" | cut -d' ' -f1)
[ "$sum" = "$SHA256" ] ||
  fail "$ORIG has SHA-256 $sum, expected $SHA256"

members=""
for f in $FILES; do members="$members lpeg-$REL/$f"; done
# shellcheck disable=SC2086
tar --no-same-owner -xzf "$TMP/dl/$ORIG" -C "$TMP" $members ||
  fail "$ORIG lacks one of: $FILES"
(cd "$TMP/lpeg-$REL" && patch -p1 --dry-run -s <"$PATCH" >"$TMP/patch.log" 2>&1 &&
   patch -p1 -s <"$PATCH" >>"$TMP/patch.log" 2>&1) || {
  sed 's/^/  /' "$TMP/patch.log" >&2
  fail "runtime/native/lpeg/lpeg-steps-$REL.patch does not apply to LPeg $REL"
}

rm -rf "$DEST" && mkdir -p "$DEST" || fail "cannot create $DEST"
for f in $FILES; do
  mv "$TMP/lpeg-$REL/$f" "$DEST/" || fail "cannot move $f into $DEST"
done
cp "$PATCH" "$DEST/lpeg-steps.patch"
echo "$REL" >"$DEST/RELEASE"
echo "$ORIG (sha256 $SHA256) from apt-get source lua-lpeg=$DEB + lpeg-steps-$REL.patch" >"$DEST/SOURCE"
touch "$DEST/.ok"
rm -rf "$TMP"
echo "runtime/native/lpeg/fetch.sh: LPeg $REL with lpeg-steps-$REL.patch in $DEST"
