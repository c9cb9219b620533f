#!/bin/sh
# tests/lpeg/fetch.sh - get LPeg 1.0.2's own test suite (test.lua) and
# re.lua from Debian's lua-lpeg 1.0.2 source package into DEST (default
# build/lpeg-src), for tests/system/test_lpeg_suite.c.  Nothing fetched
# here is committed; DEST is a cache, and a second run does nothing.
#
# The upstream tarball lua-lpeg_1.0.2.orig.tar.gz comes from
# `apt-get source --download-only lua-lpeg` (a deb-src line for
# bookworm), or else straight from deb.debian.org's pool with curl.
# Either way its SHA-256 must be the one Debian's lua-lpeg_1.0.2-2.dsc
# lists.  Debian applies no patches to it (debian/patches/series is
# empty), so these are the files the lua-lpeg package is built from.
#
# Exit status 0 when DEST holds test.lua and re.lua, 1 otherwise, with
# the reason on stderr.

set -u

DEST=${1:-build/lpeg-src}
ORIG=lua-lpeg_1.0.2.orig.tar.gz
SHA256=48d66576051b6c78388faad09b70493093264588fcd0f258ddaab1cdd4a15ffe
POOL=https://deb.debian.org/debian/pool/main/l/lua-lpeg

if [ -f "$DEST/test.lua" ] && [ -f "$DEST/re.lua" ]; then
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

got=""
echo "apt-get not found" >"$TMP/apt.log"
echo "curl not found" >"$TMP/curl.log"
if command -v apt-get >/dev/null 2>&1; then
  if (cd "$TMP" && apt-get -qq -o Acquire::Retries=0 \
        -o Acquire::http::Timeout=20 source --download-only lua-lpeg) \
        >"$TMP/apt.log" 2>&1 && [ -f "$TMP/$ORIG" ]; then
    got="apt-get source lua-lpeg"
  fi
fi
if [ -z "$got" ] && command -v curl >/dev/null 2>&1; then
  rm -f "$TMP/$ORIG"
  if curl -fsSL --connect-timeout 15 --max-time 120 -o "$TMP/$ORIG" \
       "$POOL/$ORIG" 2>"$TMP/curl.log"; then
    got="$POOL/$ORIG"
  fi
fi
if [ -z "$got" ]; then
  echo "tests/lpeg/fetch.sh: apt-get source said:" >&2
  sed 's/^/  /' "$TMP/apt.log" >&2
  echo "tests/lpeg/fetch.sh: curl $POOL/$ORIG said:" >&2
  sed 's/^/  /' "$TMP/curl.log" >&2
  fail "could not download $ORIG (no network? no deb-src line?)"
fi

sum=$(sha256sum "$TMP/$ORIG" | cut -d' ' -f1)
[ "$sum" = "$SHA256" ] ||
  fail "$ORIG from $got has SHA-256 $sum, expected $SHA256"

tar --no-same-owner -xzf "$TMP/$ORIG" -C "$TMP" lpeg-1.0.2/test.lua lpeg-1.0.2/re.lua ||
  fail "$ORIG has no lpeg-1.0.2/test.lua and re.lua"
mkdir -p "$DEST" || fail "cannot create $DEST"
mv "$TMP/lpeg-1.0.2/test.lua" "$TMP/lpeg-1.0.2/re.lua" "$DEST/" ||
  fail "cannot move the files into $DEST"
echo "$ORIG (sha256 $SHA256) from $got" >"$DEST/SOURCE"
rm -rf "$TMP"
echo "tests/lpeg/fetch.sh: test.lua and re.lua from $got into $DEST"
