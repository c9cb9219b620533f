#!/usr/bin/env bash
# tools/measurements.sh - docs/measurements.md, the one file of measured
# figures, generated from what the benchmarks print.
#
#   tools/measurements.sh section NAME COMMAND < OUTPUT
#       write build/measurements/NAME.md: section NAME's title and
#       description, when, where and with what command it was measured,
#       and OUTPUT (what the benchmark printed) as it is.  The scripts of
#       tests/bench call it after a successful run.
#   tools/measurements.sh [assemble]
#       write docs/measurements.md: a header, then every section in the
#       order below, from build/measurements/NAME.md when that is newer
#       than docs/measurements.md, otherwise carried over from
#       docs/measurements.md as it is (so a partial run, such as
#       make bench-rw, updates its own section and keeps the others).
#
# Sections are delimited by <!-- begin NAME --> and <!-- end NAME -->.
# The machine is described by its core count and CPU model, never by its
# host name.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTDIR=build/measurements
DOC=docs/measurements.md
SECTIONS="overhead vm rw rwmem native native-vm profile timeline serve manual"

title() {
  case $1 in
    overhead)  echo "Overhead on the stock target (\`tests/bench/run.sh\`)" ;;
    vm)        echo "Overhead on the lraf VM (\`tests/bench/vm.sh\`)" ;;
    rw)        echo "Rewriting against compiling (\`tests/bench/rwtime.sh\`, \`make bench-rw\`)" ;;
    rwmem)     echo "Loading a huge function: memory and time (\`tests/bench/rwmem.sh\`, \`make bench-rwmem\`)" ;;
    native)    echo "Native charging on the stock target (\`tests/bench/native.sh\`)" ;;
    native-vm) echo "Native charging on the lraf VM (\`tests/bench/native.sh --vm\`, \`make bench-native\`)" ;;
    profile)   echo "What lraf profile costs (\`tests/bench/profile.sh\`)" ;;
    timeline)  echo "What --timeline costs (\`tests/bench/timeline.sh\`)" ;;
    serve)     echo "The request pool and lraf serve (\`tests/bench/serve.sh\`)" ;;
    manual)    echo "Measured by hand (not by \`make bench\`)" ;;
    *) echo "tools/measurements.sh: unknown section '$1'" >&2; return 1 ;;
  esac
}

describe() {
  case $1 in
    overhead) cat <<'EOF'
The 19 benchmark programs of `tests/corpus` side by side in one process
on Debian's liblua5.4 (`tests/bench/bench.c`): plain, with a count hook
every 1000 instructions (the usual way scripts are limited), and
rewritten by lraf for the stock target (default and `--exact`), with
the accounting instructions run, the code growth and the time to
rewrite against the time to compile.  The legend under the table says
what each column is.
EOF
    ;;
    vm) cat <<'EOF'
The lraf VM build (build/) measured two ways on the same 19 programs:
`bench.c` in one process (plain is the lraf VM running unrewritten
code), and `vmbench.c` as whole processes, start and rewriting
included, against Debian's `lua5.4` and against the lraf VM's own
stand-alone `lua` (the baseline: same interpreter, same alignment).
EOF
    ;;
    rw) cat <<'EOF'
`tests/bench/rwtime.c` times only rewriting: for each benchmark program,
`luaL_loadbuffer` against rewriting its result as the loader does,
alternately in one process, CPU time.  On the lraf VM build that is
rewriting in memory (read, rewrite, lean verify, write back); on the
stock build compiling includes `lua_dump`, and rewriting is reading,
rewriting, verifying and writing the dump.  Ratios are rewriting time
over compiling time, geometric mean and total.
EOF
    ;;
    rwmem) cat <<'EOF'
One function of 160,000 generated statements
(`tests/corpus/tools/mklongfunc.lua 160000`), loaded and called once
by `lua5.4`, `lraf run` of the stock build and `lraf run` of the lraf
VM build, as whole processes, alternately: each one's peak resident
memory (ru_maxrss, `tests/bench/maxrss.c`) and CPU time, and their
ratios to lua5.4's.  lraf's figure holds the script read whole, the
original dump kept for string.dump, the rewriter's peak and, on the
stock build, a rewritten chunk whose metamethod stubs each repeat the
locals of the op they stand for.
EOF
    ;;
    native|native-vm) cat <<'EOF'
`tests/bench/native.c` times each charged built-in at a large size in an
lraf state with and without charging, next to the average VM
instruction of the benchmark programs, and prints the time per charged
unit in instruction times (1.00x: a unit costs what an instruction
does), then the overhead of native charging on the benchmark programs.
The same case varies by up to 2x between runs under load.
EOF
    ;;
    profile) cat <<'EOF'
`lraf profile` against plain Lua (its own build's) and against `lraf
run`, on the 19 benchmark programs, both builds interleaved: the stock
build (a call and return hook) and the lraf VM build (the VM's own call
and return events, with per-line counts).  CPU time, best of REPS.
EOF
    ;;
    timeline) cat <<'EOF'
`lraf run --timeline` against `lraf run` on the 19 benchmark programs,
whole processes, CPU time (the trace's writing included), each
repetition running the two back to back in turn first (ABBA); a
program's ratio is the median of its REPS ratios: what recording a
sample at every consume and writing the trace cost.
EOF
    ;;
    serve) cat <<'EOF'
The request pool alone (`tests/bench/pool.c`, the stock target), then
`lraf serve` of the lraf VM build (`tests/bench/serve.c`) with metering
off, metering without a ledger, metering with the SQLite ledger at
power durability (its journal fsynced before each response) and at
process durability (`--ledger-durability process`: the journal
written, not fsynced), at power durability in a tmpfs ("free flush":
an fsync that returns at once) and with the PostgreSQL ledger (a
throwaway server), side by side, on a light and a heavier handler:
requests/s, p50 and p99 latency, their ratios to metering off, how
many records one commit held and how long a commit took under the
load; then each configuration's CPU per request, split into the
server's workers, `lraf-commit`, `lraf-ledger` and the rest (the HTTP
side), and the clients' own; and the time and CPU of an fsync on the
disk unloaded, the bound the time sets on what 16 clients waiting for
their records could get at power durability, and what the CPU comes
to per request (docs/service.md, "What a durable record costs").
EOF
    ;;
    manual) cat <<'EOF'
Figures that no benchmark script prints, measured once by hand; the
generator keeps this section as it is.
EOF
    ;;
  esac
}

machine() {
  local model
  model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo \
            2>/dev/null | head -1)
  echo "$(nproc) cores, ${model:-unknown CPU}"
}

section() {
  local name=$1 cmd=$2 t
  t=$(title "$name")
  mkdir -p "$OUTDIR"
  {
    echo "<!-- begin $name -->"
    echo "## $t"
    echo
    describe "$name"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(machine), load average"
    echo "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) at the end, by \`$cmd\`:"
    echo
    echo '```text'
    cat
    echo '```'
    echo "<!-- end $name -->"
  } >"$OUTDIR/$name.md.tmp"
  mv "$OUTDIR/$name.md.tmp" "$OUTDIR/$name.md"
}

# section NAME of the current docs/measurements.md, markers included
carried() {
  [ -f "$DOC" ] || return 0
  awk -v n="$1" '$0 == "<!-- begin " n " -->" { on = 1 }
                 on { print }
                 $0 == "<!-- end " n " -->" { on = 0 }' "$DOC"
}

assemble() {
  local tmp name part
  tmp=$(mktemp)
  {
    echo "# Measurements"
    echo
    echo "Generated by \`make bench\` (\`tools/measurements.sh\`); do not edit"
    echo "by hand.  Assembled $(date -u '+%Y-%m-%d') on $(machine)."
    echo "Each section says when, on which machine and with which command it"
    echo "was measured; a benchmark run alone (\`make bench-rw\`,"
    echo "\`make bench-native\`, \`make bench-vm\`, \`make bench-profile\`)"
    echo "replaces its own section and keeps the others."
    echo
    echo "Figures move with the machine's load: compare ratios measured side"
    echo "by side in one run, not numbers from different days.  The words are"
    echo "those of [docs/glossary.md](glossary.md)."
    for name in $SECTIONS; do
      echo
      if [ "$name" != manual ] && [ -f "$OUTDIR/$name.md" ] &&
         { [ ! -f "$DOC" ] || [ "$OUTDIR/$name.md" -nt "$DOC" ]; }; then
        cat "$OUTDIR/$name.md"
      else
        part=$(carried "$name")
        if [ -n "$part" ]; then
          printf '%s\n' "$part"
        else
          echo "<!-- begin $name -->"
          echo "## $(title "$name")"
          echo
          echo "Not measured yet."
          echo "<!-- end $name -->"
        fi
      fi
    done
  } >"$tmp"
  mv "$tmp" "$DOC"
  echo "tools/measurements.sh: wrote $DOC"
}

case ${1:-assemble} in
  section) [ $# -eq 3 ] || { echo "usage: $0 section NAME COMMAND" >&2; exit 2; }
           title "$2" >/dev/null; section "$2" "$3" ;;
  assemble) assemble ;;
  *) echo "usage: $0 [assemble] | section NAME COMMAND < OUTPUT" >&2; exit 2 ;;
esac
