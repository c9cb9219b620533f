#!/usr/bin/env bash
# run_suites.sh - run cmocka test binaries one after another and add up
# what cmocka reports, so that `make test` can end with one line.
#
#   tests/run_suites.sh TALLY [--quiet] [--prefix CMD] BINARY...
#       runs each BINARY (under CMD, e.g. valgrind, when given), shows its
#       output (only on failure with --quiet), stops at the first failing
#       one, and appends "suites tests passed skipped" to the file TALLY
#   tests/run_suites.sh --total TALLY
#       prints "N suites, M tests passed" over every line of TALLY
set -u

if [ "${1:-}" = "--total" ]; then
  awk '{ s += $1; t += $2; p += $3; k += $4 }
       END { line = s " suites, " p " tests passed";
             if (k > 0) line = line ", " k " skipped";
             print line; exit (p + k == t && s > 0) ? 0 : 1 }' "$2"
  exit
fi

tally=$1; shift
quiet=0; prefix=""
while [ $# -gt 0 ]; do
  case $1 in
    --quiet) quiet=1; shift ;;
    --prefix) prefix=$2; shift 2 ;;
    *) break ;;
  esac
done

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in "$@"; do
  echo "== $prefix${prefix:+ }$t"
  $prefix "$t" > "$out" 2>&1
  st=$?
  [ $quiet = 0 ] || [ $st != 0 ] && cat "$out"
  # cmocka 1.1.5 prints "[==========] 5 test(s) run.", 1.1.7 puts the
  # group's name before the count ("[==========] tests: 5 test(s) run.")
  run=$(sed -nE 's/^\[=+\] ([^ ]+: )?([0-9]+) test\(s\) run\..*/\2/p' "$out" | tail -1)
  passed=$(sed -nE 's/^\[  PASSED  \] ([^ ]+: )?([0-9]+) test\(s\)\..*/\2/p' "$out" | tail -1)
  skipped=$(sed -nE 's/^\[  SKIPPED \] ([^ ]+: )?([0-9]+) test\(s\).*/\2/p' "$out" | tail -1)
  if [ $st != 0 ] || [ -z "$run" ]; then
    echo "FAILED: $t (exit status $st)"
    exit 1
  fi
  echo "1 $run ${passed:-0} ${skipped:-0}" >> "$tally"
done
