#!/bin/sh
# lravm/refresh.sh - keep lravm/patches up to date one patch at a time,
# as quilt does, with one full copy of Lua's src/ per patch.
#
#   lravm/refresh.sh apply   RELEASE PRISTINE WORK
#   lravm/refresh.sh refresh RELEASE WORK [PATCH]
#   lravm/refresh.sh push    RELEASE WORK PATCH
#
# RELEASE is a Lua release with a series (5.4.4: lravm/patches/series-5.4.4).
# PRISTINE is a directory whose src/ holds Debian's Lua sources of that
# release after Debian's own patches and before lraf's: lravm/fetch.sh
# keeps them in build/lua-lravm/orig (for another release, unpack it
# with `tools/apt-source.sh build/apt DIR lua5.4=VERSION` on a machine
# whose apt knows it).  WORK is a scratch directory.
#
# apply: WORK/00-pristine/src is PRISTINE's src/, and WORK/NN-PATCH/src
#   is the tree after the NNth patch of the series.
# Then edit the tree of the patch you change, WORK/NN-PATCH/src, and
# refresh: each patch (or only PATCH) is regenerated as the difference
#   between the tree before it and its own.  A patch whose changes are
#   the same (it still applies to the tree before it, with patch's
#   default fuzz as fetch.sh applies it, and gives its tree exactly) is
#   left as it is, line numbers and all, so a patch shared by two series
#   stays shared: refresh for each release checks that it still gives
#   exactly that release's tree.  A shared patch that does
#   change for RELEASE is written as a variant, NAME-RELEASE.patch, and
#   series-RELEASE names it instead.  The header of a patch (its DEP-3
#   fields and text, everything before the first "diff " or "--- a/") is kept; a
#   new patch gets the header of the patch it replaces.
# push: after editing the tree of PATCH, rebuild the trees of the
#   patches after it by applying them to it again (a patch that no
#   longer applies stops the push with patch's message; fix that tree
#   by hand and refresh).
#
# A new patch: add its name to series-RELEASE, write a file with its
# DEP-3 header only, run apply (its tree is the one before it), edit
# its tree, refresh.  Exit status 0 on success, 1 with the reason.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
PATCHES=$HERE/patches

fail() { echo "lravm/refresh.sh: $*" >&2; exit 1; }
usage() {
  sed -n '4,6p' "$0" | sed 's/^# *//' >&2
  exit 2
}
[ $# -ge 3 ] || usage
cmd=$1 rel=$2
SERIES=$PATCHES/series-$rel
[ -f "$SERIES" ] || fail "no $SERIES (releases: $(cd "$PATCHES" && ls series-* | sed 's/series-//' | tr '\n' ' '))"

series() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES"; }
# the tree of the Nth patch (1-based) of the series
# (a release's variant, NAME-RELEASE.patch, keeps the tree of NAME)
stage() { printf '%s/%02d-%s' "$WORK" "$1" "$(basename "$2" .patch | sed "s/-$rel\$//")"; }
# apply FILE to a copy of DIR's src in OUT (no fuzz)
apply_one() {
  rm -rf "$3" && mkdir -p "$3" && cp -a "$1/src" "$3/src" || return 1
  hasdiff "$2" || return 0  # a new patch: its header only
  (cd "$3" && patch -p1 -s --no-backup-if-mismatch <"$2")
}
# the diff of two stage trees, as the patches hold it
tree_diff() {
  rm -rf "$WORK/.d" && mkdir -p "$WORK/.d/a" "$WORK/.d/b" &&
    cp -a "$1/src" "$WORK/.d/a/src" && cp -a "$2/src" "$WORK/.d/b/src" || return 1
  (cd "$WORK/.d" && diff -ruN a/src b/src |
     sed -e 's#^\(---\|+++\) \([^	]*\)	.*#\1 \2#')
  rm -rf "$WORK/.d"
}
# whether patch $1 has changes (a new patch has its header only); the
# header ends at the first "diff " line, or "--- a/" in a patch without
hasdiff() { grep -qE '^(diff |--- a/)' "$1"; }
header() { sed -nE '/^(diff |--- a\/)/q;p' "$1"; }
shared() {  # whether another series lists patch $1
  for s in "$PATCHES"/series-*; do
    [ "$s" = "$SERIES" ] && continue
    sed -e 's/#.*//' "$s" | grep -qx "[[:space:]]*$1[[:space:]]*" && return 0
  done
  return 1
}

case $cmd in
apply)
  [ $# -eq 4 ] || usage
  PRISTINE=$3 WORK=$4
  [ -f "$PRISTINE/src/lvm.c" ] || fail "$PRISTINE/src has no lvm.c"
  mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd) || fail "cannot create $WORK"
  rm -rf "$WORK"/[0-9][0-9]-* && mkdir -p "$WORK/00-pristine" &&
    cp -a "$PRISTINE/src" "$WORK/00-pristine/src" || fail "cannot copy $PRISTINE/src"
  prev=$WORK/00-pristine n=0
  for p in $(series); do
    n=$((n + 1)) dir=$(stage $n "$p")
    apply_one "$prev" "$PATCHES/$p" "$dir" || fail "$p does not apply (without fuzz) in $dir"
    prev=$dir
  done
  echo "lravm/refresh.sh: $n patches of series-$rel applied in $WORK"
  ;;
refresh)
  WORK=$(cd "$3" && pwd) || fail "no $3"
  only=${4:-}
  prev=$WORK/00-pristine n=0 done=0
  for p in $(series); do
    n=$((n + 1)) dir=$(stage $n "$p")
    [ -d "$dir/src" ] || fail "no $dir: run apply first"
    if [ -z "$only" ] || [ "$only" = "$p" ] || [ "$only" = "$(basename "$p" .patch)" ]; then
      done=1
      if [ -f "$PATCHES/$p" ] && apply_one "$prev" "$PATCHES/$p" "$WORK/.check" >/dev/null 2>&1 &&
         diff -r "$WORK/.check/src" "$dir/src" >/dev/null; then
        echo "  $p: unchanged"
      else
        out=$p
        if hasdiff "$PATCHES/$p" && shared "$p"; then
          out=$(basename "$p" .patch)-$rel.patch
          sed -i "s#^\([[:space:]]*\)$p\([[:space:]]*\)\$#\1$out\2#" "$SERIES"
        fi
        { if [ -f "$PATCHES/$out" ]; then header "$PATCHES/$out"; else header "$PATCHES/$p"; fi
          tree_diff "$prev" "$dir"; } >"$PATCHES/$out.new" &&
          mv "$PATCHES/$out.new" "$PATCHES/$out" || fail "cannot write $out"
        echo "  $out: refreshed ($(grep -c '^@@' "$PATCHES/$out") hunks)"
      fi
      rm -rf "$WORK/.check"
    fi
    prev=$dir
  done
  [ $done = 1 ] || fail "series-$rel has no patch $only"
  ;;
push)
  [ $# -eq 4 ] || usage
  WORK=$(cd "$3" && pwd) || fail "no $3"
  prev="" n=0 after=0
  for p in $(series); do
    n=$((n + 1)) dir=$(stage $n "$p")
    if [ $after = 1 ]; then
      apply_one "$prev" "$PATCHES/$p" "$dir" || fail "$p no longer applies after $(basename "$prev"); edit $dir/src and refresh"
      echo "  $p: applied again"
    fi
    { [ "$4" = "$p" ] || [ "$4" = "$(basename "$p" .patch)" ]; } && after=1
    prev=$dir
  done
  [ $after = 1 ] || fail "series-$rel has no patch $4"
  ;;
*) usage ;;
esac
