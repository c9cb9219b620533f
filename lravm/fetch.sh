#!/bin/sh
# lravm/fetch.sh - the sources of the lraf VM: Lua 5.4.x from Debian's
# lua5.4 source package, with Debian's patches, plus the patches that
# lravm/patches/series-5.4.x lists for that release, in its order, into
# DEST (default build/lua-lravm; DEST/src holds the .c and .h files the
# Makefile compiles; DEST/orig/src the same before lraf's patches, which
# lravm/refresh.sh starts from).  Nothing fetched here is committed.
#
# The releases the lraf VM is ported to are those with a series file:
# lravm/patches/series-5.4.4 (Debian 12) and series-5.4.7 (Debian 13).
# Any other release is refused with the list of those it knows.
#
# The source package comes from `apt-get source` through a private apt
# configuration in build/apt (tools/apt-source.sh: deb-src entries derived
# from the machine's apt sources, every file checked against the .dsc's
# SHA-256, Debian's patches applied by dpkg-source).  The version is that
# of the installed liblua5.4-dev when there is one, so that the lraf VM
# and the Lua that Debian's C modules were built for are the same
# release; else apt's candidate.
#
# Exit status 0 when DEST is ready (a second run does nothing), 1 with
# the reason on stderr otherwise.

set -u

DEST=${1:-build/lua-lravm}
HERE=$(cd "$(dirname "$0")" && pwd)
PATCHES=$HERE/patches
STAMP=$DEST/.ok

fail() {
  echo "lravm/fetch.sh: $*" >&2
  [ -n "${TMP:-}" ] && rm -rf "$TMP"
  exit 1
}

# the releases with a series: 5.4.4 5.4.7 ...
known() {
  (cd "$PATCHES" && ls series-* 2>/dev/null) | sed 's/^series-//' | tr '\n' ' '
}
# the patches of release $1's series, in order
series() {
  sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$PATCHES/series-$1"
}
# every patch of the series, in order, as one text: what DEST was made
# with is kept beside it, so that a changed patch fetches again
series_text() {
  for p in $(series "$1"); do cat "$PATCHES/$p" || return 1; done
}

# the installed liblua5.4-dev's upstream release (5.4.4), if any
ver=$(dpkg-query -W -f='${source:Version}' liblua5.4-dev 2>/dev/null)
want=${ver%%-*}

# up to date: fetched for that release with this very series
if [ -f "$STAMP" ] && [ -f "$DEST/VERSION" ]; then
  have=$(cat "$DEST/VERSION")
  if [ -z "$want" ] || [ "$want" = "$have" ]; then
    [ -f "$PATCHES/series-$have" ] &&
      series_text "$have" 2>/dev/null | cmp -s - "$DEST/series.patch" && exit 0
  fi
fi

command -v patch >/dev/null 2>&1 || fail "patch not found"
if [ -n "$want" ]; then
  [ -f "$PATCHES/series-$want" ] ||
    fail "the installed liblua5.4-dev is Lua $want ($ver); the lraf VM has a patch series for Lua $(known)only (lravm/patches/series-*)"
  pkg="lua5.4=$ver"
else
  pkg="lua5.4"   # apt's candidate; its release is checked below
fi

mkdir -p "$(dirname "$DEST")" || fail "cannot create $(dirname "$DEST")"
TMP=$(mktemp -d "$(cd "$(dirname "$DEST")" && pwd)/lravm-fetch.XXXXXX") ||
  fail "cannot create a temporary directory"
"$HERE/../tools/apt-source.sh" build/apt "$TMP/dl" "$pkg" ||
  fail "could not get Debian's lua5.4 source package"
top=$(ls -d "$TMP"/dl/lua5.4-5.4.* 2>/dev/null | head -n 1)
[ -n "$top" ] || fail "the lua5.4 source package is not Lua 5.4 (got: $(ls "$TMP/dl"))"
rel=${top##*/lua5.4-}
[ -f "$PATCHES/series-$rel" ] ||
  fail "Debian's lua5.4 source package is Lua $rel; the lraf VM has a patch series for Lua $(known)only (lravm/patches/series-*)"
[ -f "$top/src/lvm.c" ] || fail "$top has no src/lvm.c"

# Debian's sources before lraf's patches, for lravm/refresh.sh
cp -a "$top/src" "$TMP/orig" || fail "cannot copy $top/src"

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

for p in $(series "$rel"); do
  [ -f "$PATCHES/$p" ] || fail "lravm/patches/series-$rel names $p, which is missing"
  (cd "$top" && patch -p1 --dry-run -s <"$PATCHES/$p" >"$TMP/patch.log" 2>&1 &&
     patch -p1 -s --no-backup-if-mismatch <"$PATCHES/$p" >>"$TMP/patch.log" 2>&1) || {
    sed 's/^/  /' "$TMP/patch.log" >&2
    fail "lravm/patches/$p does not apply to $(basename "$top")"
  }
done

rm -rf "$DEST" && mkdir -p "$DEST" || fail "cannot create $DEST"
mv "$top/src" "$DEST/src" || fail "cannot move the sources into $DEST"
mkdir -p "$DEST/orig" && mv "$TMP/orig" "$DEST/orig/src" ||
  fail "cannot move Debian's sources into $DEST/orig"
series_text "$rel" >"$DEST/series.patch" || fail "cannot read lravm/patches"
echo "$rel" >"$DEST/VERSION"
dsc=$(ls "$TMP"/dl/*.dsc)
echo "$(basename "$dsc") (files checked against its SHA-256) + Debian's patches + lravm/patches/series-$rel: $(series "$rel" | tr '\n' ' ')" >"$DEST/SOURCE"
touch "$STAMP"
rm -rf "$TMP"
echo "lravm/fetch.sh: Lua $rel ($pkg) with Debian's patches and lravm/patches/series-$rel in $DEST"
