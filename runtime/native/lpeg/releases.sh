# runtime/native/lpeg/releases.sh - the LPeg releases lraf knows, sourced by
# runtime/native/lpeg/fetch.sh and tests/lpeg/fetch.sh.  release REL sets, for
# LPeg REL: DEB (Debian's lua-lpeg version), ORIG (the upstream tarball)
# and SHA256 (the tarball's, as that version's .dsc lists it), FILES (the
# C files lraf builds) and PATCH (lraf's step count for it); it returns 1
# for a release it does not know.  KNOWN lists them, newest first.
# lpeg_release prints the installed lua-lpeg's release (empty if none).
# The sourcing script sets LPEG_DIR, this folder's absolute path.

KNOWN="1.1.0 1.0.2"

release() {
  case $1 in
  1.0.2) DEB=1.0.2-2
         SHA256=48d66576051b6c78388faad09b70493093264588fcd0f258ddaab1cdd4a15ffe
         FILES="lpcap.c lpcap.h lpcode.c lpcode.h lpprint.c lpprint.h lptree.c lptree.h lptypes.h lpvm.c lpvm.h" ;;
  1.1.0) DEB=1.1.0-2
         SHA256=4b155d67d2246c1ffa7ad7bc466c1ea899bbc40fef0257cc9c03cecbaed4352a
         FILES="lpcap.c lpcap.h lpcode.c lpcode.h lpcset.c lpcset.h lpprint.c lpprint.h lptree.c lptree.h lptypes.h lpvm.c lpvm.h" ;;
  *) return 1 ;;
  esac
  REL=$1 ORIG=lua-lpeg_$1.orig.tar.gz
  PATCH=$LPEG_DIR/lpeg-steps-$1.patch
}

lpeg_release() {
  v=$(dpkg-query -W -f='${Version}' lua-lpeg 2>/dev/null)
  echo "${v%%-*}"
}
