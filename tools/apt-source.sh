#!/bin/sh
# tools/apt-source.sh - fetch a Debian source package with `apt-get source`
# through a private apt configuration, for lravm/fetch.sh and
# tests/lpeg/fetch.sh.
#
#   tools/apt-source.sh APTDIR DEST PACKAGE[=VERSION] [--download-only]
#
# APTDIR (e.g. build/apt) gets an apt configuration of its own: its
# deb-src entries are derived from the machine's configured apt sources
# (/etc/apt/sources.list.d/*.sources, deb822 stanzas of type deb, and
# "deb" lines of /etc/apt/sources.list and sources.list.d/*.list), with
# the same URIs, suites, components and signing keys.  No host name is
# written here: the machine's configuration names it.  `apt-get update`
# fills APTDIR's own lists (once; delete APTDIR/lists.ok to refresh),
# then `apt-get source` downloads into DEST.
#
# apt checks every downloaded file against the signed Sources index, and
# dpkg-source (run by apt-get source unless --download-only) checks each
# file's SHA-256 against the .dsc and applies Debian's patches.  Any
# failure ends this script with status 1 and the tool's own messages on
# stderr; nothing is left half-extracted in DEST's package directory.

set -u

if [ $# -lt 3 ]; then
  echo "usage: tools/apt-source.sh APTDIR DEST PACKAGE[=VERSION] [--download-only]" >&2
  exit 2
fi
APTDIR=$1 DEST=$2 PKG=$3
DLONLY=${4:-}

fail() {
  echo "tools/apt-source.sh: $*" >&2
  exit 1
}

command -v apt-get >/dev/null 2>&1 || fail "apt-get not found"
mkdir -p "$APTDIR/sources.list.d" "$APTDIR/lists/partial" \
  "$APTDIR/cache/archives/partial" "$DEST" ||
  fail "cannot create $APTDIR or $DEST"
APTDIR=$(cd "$APTDIR" && pwd)

# deb822 stanzas: keep those whose Types name deb, make them deb-src.
derive_deb822() {
  awk '
    function flush() {
      if (keep && n > 0) { for (i = 1; i <= n; i++) print buf[i]; print "" }
      n = 0; keep = 0
    }
    /^[ \t]*#/ { next }
    /^[ \t]*$/ { flush(); next }
    {
      line = $0
      if (tolower($1) == "types:") {
        for (i = 2; i <= NF; i++) if ($i == "deb") keep = 1
        line = "Types: deb-src"
      }
      if (tolower($1) == "enabled:" && tolower($2) == "no") { n = 0; keep = 0; skip = 1 }
      buf[++n] = line
    }
    END { flush() }' "$1"
}

# one-line entries: "deb [opts] uri suite comps" -> "deb-src ...".
derive_list() {
  sed -n 's/^[ \t]*deb[ \t]\{1,\}/deb-src /p' "$1"
}

out=$APTDIR/sources.list.d/derived.sources
outl=$APTDIR/sources.list.d/derived.list
: >"$out.new"; : >"$outl.new"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && derive_deb822 "$f" >>"$out.new"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && derive_list "$f" >>"$outl.new"
done
[ -s "$out.new" ] || [ -s "$outl.new" ] ||
  fail "no deb entry in the machine's apt sources to derive a deb-src entry from"
for f in "$out" "$outl"; do
  if ! cmp -s "$f.new" "$f"; then mv "$f.new" "$f"; rm -f "$APTDIR/lists.ok"
  else rm -f "$f.new"; fi
  [ -s "$f" ] || rm -f "$f"
done

cat >"$APTDIR/apt.conf" <<CONF
Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "$APTDIR/sources.list.d";
Dir::State::Lists "$APTDIR/lists";
Dir::Cache "$APTDIR/cache";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Debug::NoLocking "true";
APT::Sandbox::User "$(id -un)";
Acquire::Retries "1";
Acquire::http::Timeout "30";
CONF
export APT_CONFIG="$APTDIR/apt.conf"

if [ ! -f "$APTDIR/lists.ok" ]; then
  apt-get -q update >"$APTDIR/update.log" 2>&1 || {
    sed 's/^/  /' "$APTDIR/update.log" >&2
    fail "apt-get update with the derived deb-src entries failed"
  }
  # apt-get update exits 0 even when a source failed: insist on indexes
  ls "$APTDIR/lists/" | grep -q '_Sources' || {
    sed 's/^/  /' "$APTDIR/update.log" >&2
    fail "apt-get update fetched no Sources index"
  }
  touch "$APTDIR/lists.ok"
fi

case $DLONLY in
  --download-only) set -- --download-only ;;
  "") set -- ;;
  *) fail "unknown option $DLONLY" ;;
esac
(cd "$DEST" && apt-get -q source "$@" "$PKG") >"$APTDIR/source.log" 2>&1 || {
  sed 's/^/  /' "$APTDIR/source.log" >&2
  fail "apt-get source $PKG failed (checksum, signature or download)"
}

# Check again, here, every file the .dsc lists against its SHA-256
# (dpkg-source did for an extraction; --download-only skips it).
name=${PKG%%=*}
ndsc=0
for dsc in "$DEST/${name}_"*.dsc; do
  [ -f "$dsc" ] || continue
  ndsc=$((ndsc + 1))
  sums=$(awk '/^Checksums-Sha256:/ { on = 1; next }
              /^[^ ]/ { on = 0 }
              on && NF == 3 { print $1 "  " $3 }' "$dsc")
  [ -n "$sums" ] || fail "$dsc lists no SHA-256 checksums"
  (cd "$DEST" && echo "$sums" | sha256sum --quiet -c -) >&2 ||
    fail "a file of $dsc does not have the SHA-256 the .dsc lists"
done
[ "$ndsc" -gt 0 ] || fail "apt-get source $PKG left no ${name}_*.dsc in $DEST"
exit 0
