#!/bin/bash
# Generate programs with tests/gen/gen.lua for a seed range and check each:
# luac5.4 -p accepts it, two runs under lua5.4 exit 0 with identical output
# (the first run goes through timeit.lua, which also measures CPU time and
# starts the program under seed % 61 extra stack frames; the second is a
# plain `lua5.4 prog.lua`).
# usage: tests/gen/check.sh [FIRST [LAST]]   (default 1 600)
# Env: KEEP=dir keeps the generated programs there; MAXMS=n reports
# programs whose first run took more than n ms of CPU time (default 20),
# measured in-process by timeit.lua so interpreter start-up is excluded.
set -u
here=$(cd "$(dirname "$0")" && pwd)
first=${1:-1}
last=${2:-600}
maxms=${MAXMS:-20}
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
fail=0; slow=0; total_us=0; max_us=0; lines=0
start_all=$(date +%s%N)
for seed in $(seq "$first" "$last"); do
  prog="$work/gen_$seed.lua"
  if ! lua5.4 "$here/gen.lua" "$seed" > "$prog"; then
    echo "seed $seed: generator failed"; fail=$((fail + 1)); continue
  fi
  lines=$((lines + $(wc -l < "$prog")))
  if ! luac5.4 -p "$prog" 2> "$work/err_$seed"; then
    echo "seed $seed: luac5.4 -p rejected it: $(head -c 300 "$work/err_$seed")"; fail=$((fail + 1)); continue
  fi
  lua5.4 "$here/timeit.lua" "$prog" $((seed % 61)) > "$work/out1_$seed" 2> "$work/err_$seed"; rc1=$?
  lua5.4 "$prog" > "$work/out2_$seed" 2>> "$work/err_$seed"; rc2=$?
  us=$(awk '/^cpu_ms /{printf "%d", $2 * 1000}' "$work/err_$seed")
  us=${us:-0}
  total_us=$((total_us + us))
  [ $us -gt $max_us ] && max_us=$us
  if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
    echo "seed $seed: exit status $rc1/$rc2: $(head -c 300 "$work/err_$seed")"; fail=$((fail + 1)); continue
  fi
  if ! cmp -s "$work/out1_$seed" "$work/out2_$seed"; then
    echo "seed $seed: output differs between runs"; fail=$((fail + 1)); continue
  fi
  if [ $us -gt $((maxms * 1000)) ]; then
    echo "seed $seed: slow run ($((us / 1000)) ms CPU)"; slow=$((slow + 1))
  fi
  [ -z "${KEEP:-}" ] && rm -f "$prog" "$work/out1_$seed" "$work/out2_$seed" "$work/err_$seed"
done
n=$((last - first + 1))
all_ms=$(( ($(date +%s%N) - start_all) / 1000000 ))
echo "seeds $first..$last: $n programs, $fail failed, $slow over ${maxms} ms CPU," \
     "avg $((lines / n)) lines; program CPU time: total $((total_us / 1000)) ms," \
     "max $((max_us / 1000)).$(printf %03d $((max_us % 1000))) ms; whole check ${all_ms} ms wall"
[ -z "${KEEP:-}" ] && rm -rf "$work"
[ $fail -eq 0 ]
