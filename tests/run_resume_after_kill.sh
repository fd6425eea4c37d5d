#!/usr/bin/env bash
# `--resume` at once after a rank was killed (issue #27). The killed job's
# rank 0 lives on until its launcher ends it (Open MPI: SIGCONT, SIGTERM 1 s
# later, SIGKILL 1 s after that), holding the run file's lock, so a resume
# started right away was refused ("in use by another dpbo", exit 2). It now
# waits for the lock (at most 10 s, src/base/lock.c) and finishes the run.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc_guard.sh"
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
cleanup() {
  touch "$work/go"
  [[ -n ${first:-} ]] && guard_kill 9 "$first" # tests/proc_guard.sh
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# The 3rd evaluation records its parent (the evaluating rank, rank 1 of 2)
# and waits for $work/go (at most 60 s); the others return at once.
cat > "$work/obj.sh" <<'SH'
#!/bin/sh
n=$(( $(cat "$DPBO_K/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$DPBO_K/count"
if [ "$n" -eq 3 ]; then
  echo $PPID > "$DPBO_K/rank.pid"
  i=0
  while [ ! -e "$DPBO_K/go" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
fi
a=${1#a=}
awk -v a="$a" 'BEGIN { printf "%.17g\n", 1 - (a - 0.4)^2 }'
SH
chmod +x "$work/obj.sh"
export DPBO_K=$work
cat > "$work/run.ini" <<INI
[run]
iterations = 5
seed = 5
[space]
kind = grid
dim.a = linear 0 1 21
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.5
noise_std = 0.05
[objective]
kind = command
command = $work/obj.sh
timeout_s = 120
[output]
dir = $work
name = x
INI

"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet > "$work/first.txt" 2>&1 &
first=$!
for _ in $(seq 1 600); do [[ -s $work/rank.pid ]] && break; sleep 0.1; done
[[ -s $work/rank.pid ]] || { cat "$work/first.txt"; fail "the 3rd evaluation did not start within 60 s"; }
# Kill the evaluating rank and resume at once, while the first job's rank 0
# is still being ended by its launcher.
kill -9 "$(cat "$work/rank.pid")"
touch "$work/go"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --resume > "$work/resume.txt" 2>&1
code=$?
wait "$first"
first_code=$?
first=
[[ $first_code -ne 0 ]] || { cat "$work/first.txt"; fail "the job whose rank was killed exited 0"; }
[[ $code -eq 0 ]] || { cat "$work/resume.txt"; fail "--resume right after the kill exited $code, expected 0"; }
"$bin" info "$work/x.h5" > "$work/info.txt" 2>&1 || { cat "$work/info.txt"; fail "dpbo info exited $?"; }
grep -q "complete = 1" "$work/info.txt" || { cat "$work/info.txt"; fail "the resumed run is not complete"; }
waited=no
grep -q "waiting up to 10 s" "$work/resume.txt" && waited=yes
echo "resume after a killed rank OK (the first job exited $first_code; the resume waited for the lock: $waited)"
