#!/usr/bin/env bash
# A worker rank dies (SIGKILL, from inside its 6th evaluation): the job ends
# with a message naming the lost rank, the checkpoint written after the 5th
# evaluation is whole, and `--resume` finishes the run with exactly the trace
# of a run that was never killed (issue #5).
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# The objective counts its calls; on the 6th, unless told not to, it kills
# the process that started it: the dpbo worker rank.
cat > "$work/obj.sh" <<'SH'
#!/bin/sh
n=$(( $(cat "$DPBO_LOST_DIR/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$DPBO_LOST_DIR/count"
if [ "$n" -eq 6 ] && [ ! -e "$DPBO_LOST_DIR/spare" ]; then kill -9 $PPID; sleep 5; fi
a=${1#a=}; b=${2#b=}
awk -v a="$a" -v b="$b" 'BEGIN { printf "%.17g\n", 0.9 - (a - 0.3)^2 - 0.5 * (b - 0.7)^2 }'
SH
chmod +x "$work/obj.sh"
export DPBO_LOST_DIR=$work
cat > "$work/run.ini" <<INI
[run]
iterations = 12
seed = 8
[space]
kind = sobol
points = 1000
dim.a = linear 0 1
dim.b = linear 0 1
[gp]
kernel = se
lengthscale = 0.3
mean = 0.5
signal_std = 0.3
noise_std = 0.01
[objective]
kind = command
command = $work/obj.sh
[output]
dir = $work
INI
trace() { "$bin" info "$1" --trace | sed -n '/^\/trace/,$p'; }
: > "$work/spare"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --set output.name=whole || fail "reference run exited $?"
rm -f "$work/spare" "$work/count"
timeout 120 "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --set output.name=lost > "$work/lost.txt" 2>&1
code=$?
[[ $code -ne 0 && $code -ne 124 ]] || { cat "$work/lost.txt"; fail "the job should end with an error when a rank dies (exit $code)"; }
grep -Eiq "rank 1|process.*(killed|signal 9)" "$work/lost.txt" || { cat "$work/lost.txt"; fail "no message names the lost rank"; }
"$bin" info "$work/lost.h5" > "$work/info.txt" || fail "the checkpoint is not a readable run file"
grep -q "complete = 0" "$work/info.txt" || fail "the checkpoint is not marked incomplete"
kept=$(($(trace "$work/lost.h5" | wc -l) - 1))
[[ $kept -eq 5 ]] || fail "the checkpoint should hold the 5 evaluations before the kill, holds $kept"
ls "$work"/lost.h5.tmp* >/dev/null 2>&1 && echo "note: a temporary file of an interrupted write was left: $(ls "$work"/lost.h5.tmp*)"
: > "$work/spare"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --set output.name=lost --resume || fail "--resume exited $?"
trace "$work/whole.h5" > "$work/whole.txt"
trace "$work/lost.h5" > "$work/resumed.txt"
cmp -s "$work/whole.txt" "$work/resumed.txt" || { diff "$work/whole.txt" "$work/resumed.txt" | head; fail "the resumed trace differs from the uninterrupted one"; }
echo "lost rank OK: job ended ($code) with the checkpoint of 5 evaluations; --resume matched the uninterrupted trace"
