#!/bin/sh
# lravm/fetch.sh - the sources of the lraf VM: Lua 5.4.4 from Debian's
# lua5.4 source package, with Debian's patches, plus the patches that
# lravm/patches/series lists, in its order, into DEST (default build/lua-lravm; DEST/src holds the .c and .h files
# the Makefile compiles).  Nothing fetched here is committed.
#
# The source package comes from `apt-get source` through a private apt
# configuration in build/apt (tools/apt-source.sh: deb-src entries derived
# from the machine's apt sources, every file checked against the .dsc's
# SHA-256, Debian's patches applied by dpkg-source).  The version is that
# of the installed liblua5.4-dev when there is one, so that the lraf VM
# and the Lua that Debian's C modules were built for are the same release.
#
# Exit status 0 when DEST is ready (a second run does nothing), 1 with
# the reason on stderr otherwise.

set -u

DEST=${1:-build/lua-lravm}
HERE=$(cd "$(dirname "$0")" && pwd)
PATCHES=$HERE/patches
STAMP=$DEST/.ok

# every patch of the series, in order, as one text: what DEST was made
# with is kept beside it, so that a changed patch fetches again
series() {
  sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series"
}
series_text() {
  for p in $(series); do cat "$PATCHES/$p" || return 1; done
}

fail() {
  echo "lravm/fetch.sh: $*" >&2
  [ -n "${TMP:-}" ] && rm -rf "$TMP"
  exit 1
}

# up to date: fetched with this very patch
if [ -f "$STAMP" ] && series_text 2>/dev/null | cmp -s - "$DEST/series.patch"; then
  exit 0
fi

command -v patch >/dev/null 2>&1 || fail "patch not found"
ver=$(dpkg-query -W -f='${source:Version}' liblua5.4-dev 2>/dev/null)
case $ver in
  5.4.4-*) pkg="lua5.4=$ver" ;;
  *) pkg="lua5.4" ;;   # apt's candidate; checked below to be 5.4.4
esac

mkdir -p "$(dirname "$DEST")" || fail "cannot create $(dirname "$DEST")"
TMP=$(mktemp -d "$(cd "$(dirname "$DEST")" && pwd)/lravm-fetch.XXXXXX") ||
  fail "cannot create a temporary directory"
"$HERE/../tools/apt-source.sh" build/apt "$TMP/dl" "$pkg" ||
  fail "could not get Debian's lua5.4 source package"
top=$(ls -d "$TMP"/dl/lua5.4-5.4.4 2>/dev/null) ||
  fail "the lua5.4 source package is not Lua 5.4.4 (got: $(ls "$TMP/dl"))"
[ -f "$top/src/lvm.c" ] || fail "$top has no src/lvm.c"

# what debian/rules generates before building: the multiarch header
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null) ||
  arch=$(gcc -print-multiarch 2>/dev/null)
[ -n "$arch" ] || fail "cannot find the host's multiarch triplet"
cat >"$top/src/lua5.4-deb-multiarch.h" <<H
#ifndef _LUA_DEB_MULTIARCH_
#define _LUA_DEB_MULTIARCH_
#define DEB_HOST_MULTIARCH "$arch"
#endif
H

for p in $(series); do
  [ -f "$PATCHES/$p" ] || fail "lravm/patches/series names $p, which is missing"
  (cd "$top" && patch -p1 --dry-run -s <"$PATCHES/$p" >"$TMP/patch.log" 2>&1 &&
     patch -p1 -s <"$PATCHES/$p" >>"$TMP/patch.log" 2>&1) || {
    sed 's/^/  /' "$TMP/patch.log" >&2
    fail "lravm/patches/$p does not apply to $(basename "$top")"
  }
done

rm -rf "$DEST" && mkdir -p "$DEST" || fail "cannot create $DEST"
mv "$top/src" "$DEST/src" || fail "cannot move the sources into $DEST"
series_text >"$DEST/series.patch" || fail "cannot read lravm/patches"
dsc=$(ls "$TMP"/dl/*.dsc)
echo "$(basename "$dsc") (files checked against its SHA-256) + Debian's patches + lravm/patches: $(series | tr '\n' ' ')" >"$DEST/SOURCE"
touch "$STAMP"
rm -rf "$TMP"
echo "lravm/fetch.sh: Lua 5.4.4 ($pkg) with Debian's patches and lravm/patches in $DEST"
