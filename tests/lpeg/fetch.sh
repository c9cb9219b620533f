#!/bin/sh
# tests/lpeg/fetch.sh - get LPeg's own test suite (test.lua) and
# re.lua from Debian's lua-lpeg source package (the installed release,
# runtime/native/lpeg/releases.sh) into DEST (default
# build/lpeg-src), for tests/system/test_lpeg_suite.c.  Nothing fetched
# here is committed; DEST is a cache, and a second run does nothing.
#
# The upstream tarball lua-lpeg_RELEASE.orig.tar.gz comes from
# `apt-get source --download-only lua-lpeg` through the private apt
# configuration in build/apt that tools/apt-source.sh derives from the
# machine's own apt sources (also used by lravm/fetch.sh); no host is
# named here.  That script checks every file against the SHA-256 that
# Debian's lua-lpeg .dsc lists, and this one checks the tarball once more
# against the SHA-256 of the .dsc (runtime/native/lpeg/releases.sh).  Debian applies no
# patches to it (debian/patches/series is empty), so these are the files
# the lua-lpeg package is built from.
#
# Exit status 0 when DEST holds test.lua and re.lua, 1 otherwise, with
# the reason on stderr.

set -u

DEST=${1:-build/lpeg-src}
HERE=$(cd "$(dirname "$0")" && pwd)
LPEG_DIR=$(cd "$HERE/../../runtime/native/lpeg" && pwd)
. "$LPEG_DIR/releases.sh"
# the installed lua-lpeg's release (the one Debian's lpeg.so is), else 1.0.2
rel=$(lpeg_release)
release "${rel:-1.0.2}" ||
  { echo "tests/lpeg/fetch.sh: no LPeg $rel in runtime/native/lpeg/releases.sh" >&2; exit 1; }

if [ -f "$DEST/test.lua" ] && [ -f "$DEST/re.lua" ] &&
   grep -qF "$ORIG" "$DEST/SOURCE" 2>/dev/null; then
  exit 0
fi

fail() {
  echo "tests/lpeg/fetch.sh: $*" >&2
  [ -n "${TMP:-}" ] && rm -rf "$TMP"
  exit 1
}

mkdir -p "$(dirname "$DEST")" || fail "cannot create $(dirname "$DEST")"
TMP=$(mktemp -d "$(dirname "$DEST")/lpeg-fetch.XXXXXX") ||
  fail "cannot create a temporary directory"

"$HERE/../../tools/apt-source.sh" build/apt "$TMP/dl" "lua-lpeg=$DEB" \
    --download-only ||
  fail "could not download $ORIG (no network? no deb source in apt's configuration?)"
[ -f "$TMP/dl/$ORIG" ] || fail "apt-get source lua-lpeg left no $ORIG"
mv "$TMP/dl/$ORIG" "$TMP/$ORIG" || fail "cannot move $ORIG"
got="apt-get source lua-lpeg"

sum=$(sha256sum "$TMP/$ORIG" | cut -d' ' -f1)
[ "$sum" = "$SHA256" ] ||
  fail "$ORIG from $got has SHA-256 $sum, expected $SHA256"

tar --no-same-owner -xzf "$TMP/$ORIG" -C "$TMP" lpeg-$REL/test.lua lpeg-$REL/re.lua ||
  fail "$ORIG has no lpeg-$REL/test.lua and re.lua"
mkdir -p "$DEST" || fail "cannot create $DEST"
mv "$TMP/lpeg-$REL/test.lua" "$TMP/lpeg-$REL/re.lua" "$DEST/" ||
  fail "cannot move the files into $DEST"
echo "$ORIG (sha256 $SHA256) from $got" >"$DEST/SOURCE"
rm -rf "$TMP"
echo "tests/lpeg/fetch.sh: test.lua and re.lua from $got into $DEST"
