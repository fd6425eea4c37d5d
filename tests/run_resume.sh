#!/usr/bin/env bash
# Checkpoint and resume of `dpbo run` (issue #5): a run stopped after 9 of 25
# evaluations (--stop-after, as a signal would stop it) leaves a whole run
# file with complete = 0; `--resume` continues it, and the trace equals an
# uninterrupted run's bit for bit. A plain rerun refuses to overwrite the
# unfinished file, a resume with a changed setting names the key, and a
# SIGUSR1 to mpiexec mid-run checkpoints and exits 4, after which --resume
# again gives the uninterrupted trace.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/run.ini" <<INI
[run]
iterations = 25
seed = 11
[space]
kind = sobol
points = 2000
dim.a = linear 0 1
dim.b = log 0.001 1000
[gp]
kernel = matern52
lengthscale = 0.25
mean = 1
signal_std = 2
noise_std = 0.05
[objective]
kind = synthetic
function = gp_prior
features = 1024
noise_std = 0.05
[output]
dir = $work
INI
trace() { "$bin" info "$1" --trace | sed -n '/^\/trace/,$p'; }
run() { "$mpiexec" -n 2 --oversubscribe "$bin" run "$@"; }

run "$work/run.ini" --quiet --set output.name=whole || fail "uninterrupted run exited $?"
trace "$work/whole.h5" > "$work/whole.txt"
[[ $(wc -l < "$work/whole.txt") -eq 26 ]] || fail "uninterrupted trace has $(($(wc -l < "$work/whole.txt") - 1)) rows, expected 25"

run "$work/run.ini" --quiet --set output.name=cut --stop-after 9 2> "$work/stop.err"
code=$?
[[ $code -eq 4 ]] || { cat "$work/stop.err"; fail "--stop-after 9 should exit 4, got $code"; }
grep -q -- "--resume" "$work/stop.err" || fail "the stop message does not say how to continue"
grep -q "complete = 0" <<< "$("$bin" info "$work/cut.h5")" || fail "the checkpoint is not marked incomplete"
[[ $(trace "$work/cut.h5" | wc -l) -eq 10 ]] || fail "the checkpoint should hold 9 steps"

run "$work/run.ini" --quiet --set output.name=cut 2> "$work/refuse.err"
code=$?
[[ $code -eq 2 ]] && grep -q "unfinished run" "$work/refuse.err" || { cat "$work/refuse.err"; fail "a plain rerun over an unfinished run file should be refused (exit 2), got $code"; }

run "$work/run.ini" --quiet --set output.name=cut --set gp.lengthscale=0.3 --resume 2> "$work/changed.err"
code=$?
[[ $code -eq 2 ]] && grep -q "gp.lengthscale" "$work/changed.err" || { cat "$work/changed.err"; fail "a resume with a changed setting should name gp.lengthscale (exit 2), got $code"; }

run "$work/run.ini" --quiet --set output.name=cut --resume || fail "--resume exited $?"
trace "$work/cut.h5" > "$work/cut.txt"
cmp -s "$work/whole.txt" "$work/cut.txt" || { diff "$work/whole.txt" "$work/cut.txt" | head; fail "the resumed trace differs from the uninterrupted one"; }
grep -q "resumed_steps = 9" <<< "$("$bin" info "$work/cut.h5")" || fail "the summary does not record the 9 resumed steps"
run "$work/run.ini" --set output.name=cut --resume > "$work/again.out" 2>&1 || fail "resuming a complete run should succeed"
grep -q "complete already" "$work/again.out" || fail "resuming a complete run should say so"

# A real signal: slow evaluations (a command that sleeps), SIGUSR1 to mpiexec
# once the checkpoint holds 3 steps.
cat > "$work/slow.sh" <<'SH'
#!/bin/sh
# While the file `hold` exists beside this script, the fifth evaluation and
# later ones wait for the file `go`: the signalled run cannot finish before
# the test has sent its signal, however slow the machine.
d=$(dirname "$0")
if [ -e "$d/hold" ]; then
  n=$(($(cat "$d/count" 2>/dev/null || echo 0) + 1)); echo "$n" > "$d/count"
  if [ "$n" -gt 4 ]; then while [ ! -e "$d/go" ]; do sleep 0.05; done; fi
fi
sleep 0.3
a=${1#a=}; b=${2#b=}
awk -v a="$a" -v b="$b" 'BEGIN { printf "%.17g\n", 1 - (a - 0.4)^2 - 0.1 * (log(b) / log(10) - 1)^2 }'
SH
chmod +x "$work/slow.sh"
sed -n '1,/^\[objective\]/p' "$work/run.ini" | sed 's/^iterations = 25/iterations = 12/' > "$work/slow.ini"
cat >> "$work/slow.ini" <<INI
kind = command
command = $work/slow.sh
[output]
dir = $work
INI
run "$work/slow.ini" --quiet --set output.name=slow_whole || fail "uninterrupted command run exited $?"
touch "$work/hold"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/slow.ini" --quiet --set output.name=slow > "$work/sig.out" 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
  if [[ -e $work/slow.h5 ]] && (( $(trace "$work/slow.h5" 2>/dev/null | wc -l) >= 4 )); then break; fi
  sleep 0.1
done
kill -USR1 $pid
sleep 0.5
touch "$work/go"
wait $pid
code=$?
[[ $code -eq 4 ]] || { cat "$work/sig.out"; fail "SIGUSR1 should checkpoint and exit 4, got $code"; }
kept=$(($(trace "$work/slow.h5" | wc -l) - 1))
(( kept >= 3 && kept < 12 )) || fail "after SIGUSR1 the checkpoint holds $kept steps"
rm -f "$work/hold"
run "$work/slow.ini" --quiet --set output.name=slow --resume || fail "--resume after SIGUSR1 exited $?"
trace "$work/slow_whole.h5" > "$work/slow_whole.txt"
trace "$work/slow.h5" > "$work/slow.txt"
cmp -s "$work/slow_whole.txt" "$work/slow.txt" || { diff "$work/slow_whole.txt" "$work/slow.txt" | head; fail "the trace resumed after SIGUSR1 differs"; }
echo "resume OK: --stop-after 9 and SIGUSR1 after $kept of 12 evaluations both continue to the uninterrupted trace"
