#!/usr/bin/env bash
# Who may write a run file (issues #10 and #11).
#  1. One writer at a time: while a `dpbo run` holds a run (it waits inside
#     its first evaluation, on a file this script creates), a second `dpbo
#     run`, a `--resume`, a `dpbo release` and a `dpbo utility` of the same
#     run file are refused (exit 2) naming the holder's host and pid; the
#     lock of a SIGKILLed holder does not block.
#  2. A finished run file is never replaced: rerunning its config is refused
#     (exit 2) and leaves the file, its ledger and its release files as they
#     were; --overwrite replaces it and removes its old release files.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc_guard.sh"
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
cleanup() {
  touch "$work/go"
  [[ -n ${holder:-} ]] && guard_kill 9 "$holder" # tests/proc_guard.sh
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# wait_for FILE: polls for FILE for up to 60 s.
wait_for() {
  for _ in $(seq 1 600); do [[ -e $1 ]] && return 0; sleep 0.1; done
  fail "$1 did not appear within 60 s"
}
# The first evaluation records its parent (the evaluating rank, rank 0 on
# one rank) and waits for $work/go; the others return at once.
cat > "$work/obj.sh" <<'SH'
#!/bin/sh
if [ ! -e "$DPBO_W/first-done" ]; then
  : > "$DPBO_W/first-done"
  echo $PPID > "$DPBO_W/holder.pid"
  i=0
  while [ ! -e "$DPBO_W/go" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
fi
a=${1#a=}
awk -v a="$a" 'BEGIN { printf "%.17g\n", 1 - (a - 0.4)^2 }'
SH
chmod +x "$work/obj.sh"
export DPBO_W=$work
cat > "$work/run.ini" <<INI
[run]
iterations = 4
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
value_range = 0 1
timeout_s = 120
[privacy]
algorithm = 1
epsilon = 1
delta = 0.1
noise = seeded
failures_public = yes
[output]
dir = $work
name = x
INI

# --- 1. one writer ------------------------------------------------------------
"$mpiexec" -n 1 "$bin" run "$work/run.ini" --quiet > "$work/first.txt" 2>&1 &
holder=$!
wait_for "$work/holder.pid"
pid=$(cat "$work/holder.pid")
host=$(hostname)
refused() { # refused NAME: the last command exited 2 naming host and pid
  local code=$1 name=$2
  [[ $code -eq 2 ]] || { cat "$work/$name.txt"; fail "$name while another dpbo writes x.h5: exit $code, expected 2"; }
  grep -q "in use by another dpbo" "$work/$name.txt" && grep -q "pid $pid on host $host" "$work/$name.txt" ||
    { cat "$work/$name.txt"; fail "$name: the refusal does not name pid $pid on host $host"; }
}
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet > "$work/second.txt" 2>&1
refused $? second
"$mpiexec" -n 1 "$bin" run "$work/run.ini" --quiet --resume > "$work/resume.txt" 2>&1
refused $? resume
"$bin" release "$work/x.h5" > "$work/release.txt" 2>&1
refused $? release
"$bin" utility "$work/x.h5" > "$work/utility.txt" 2>&1
refused $? utility
# Only a new run can write elsewhere: the others are told to wait (issue #27:
# a refused release suggested --set output.name); --resume waited first.
for name in resume release utility; do
  ! grep -q "output.name" "$work/$name.txt" && grep -q "wait for it to end, then try again" "$work/$name.txt" ||
    { cat "$work/$name.txt"; fail "$name: the refusal should say to wait, not to change output.name"; }
done
grep -q -- "--set output.name" "$work/second.txt" || { cat "$work/second.txt"; fail "a second run should be told of output.name"; }
grep -q "waiting up to 10 s" "$work/resume.txt" || { cat "$work/resume.txt"; fail "--resume did not say it waits for the lock"; }
[[ ! -e $work/x.h5 ]] || fail "a refused writer wrote x.h5"
touch "$work/go"
wait $holder
code=$?
holder=
[[ $code -eq 0 ]] || { cat "$work/first.txt"; fail "the first run exited $code"; }
[[ -e $work/x.release.json ]] || fail "the first run wrote no release"

# A holder killed with SIGKILL leaves its lock file, not its lock.
rm -f "$work/first-done" "$work/holder.pid" "$work/go"
"$mpiexec" -n 1 "$bin" run "$work/run.ini" --quiet --set output.name=k > "$work/killed.txt" 2>&1 &
holder=$!
wait_for "$work/holder.pid"
kill -9 "$(cat "$work/holder.pid")"
wait $holder
holder=
[[ -e $work/.k.h5.lock ]] || fail "no lock file .k.h5.lock beside the run file"
touch "$work/go"
"$mpiexec" -n 1 "$bin" run "$work/run.ini" --quiet --set output.name=k > "$work/after.txt" 2>&1 ||
  { cat "$work/after.txt"; fail "a run after a SIGKILLed holder was refused"; }

# --- 2. a finished run is never replaced ----------------------------------------
"$bin" release "$work/x.h5" > "$work/rel2.txt" 2>&1 || { cat "$work/rel2.txt"; fail "dpbo release exited $?"; }
[[ -e $work/x.release-2.json ]] || fail "dpbo release wrote no x.release-2.json"
ledger() {
  "$py" - "$work/x.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    print(int(f.attrs["releases_drawn"]), repr(float(f.attrs["release_epsilon_spent"])))
PY
}
before=$(ledger)
[[ $before == "2 "* ]] || fail "the ledger should count 2 releases, reads '$before'"
sums() { (cd "$work" && sha256sum x.h5 x.release.h5 x.release.json x.release-2.h5 x.release-2.json); }
sums > "$work/sums.before"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet > "$work/rerun.txt" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q -- "--overwrite" "$work/rerun.txt" ||
  { cat "$work/rerun.txt"; fail "rerunning a finished run should be refused (exit 2, naming --overwrite), got $code"; }
sums | cmp -s - "$work/sums.before" || fail "a refused rerun changed the run file or its release files"
[[ $(ledger) == "$before" ]] || fail "a refused rerun changed the ledger"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --overwrite > "$work/over.txt" 2>&1 ||
  { cat "$work/over.txt"; fail "--overwrite exited $?"; }
[[ ! -e $work/x.release-2.json && ! -e $work/x.release-2.h5 ]] || fail "--overwrite left x.release-2 beside the new run"
[[ $(ledger) == "1 "* ]] || fail "after --overwrite the ledger should count the new run's 1 release, reads '$(ledger)'"
# Release files whose run file is gone are not left beside a new run either.
rm -f "$work/x.h5"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet > "$work/orphan.txt" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "x.release" "$work/orphan.txt" ||
  { cat "$work/orphan.txt"; fail "a run beside an earlier run's release files should be refused (exit 2), got $code"; }
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --resume --overwrite > "$work/both.txt" 2>&1
[[ $? -eq 2 ]] || fail "--resume with --overwrite should be refused as usage (exit 2)"
# A new run creates its output folder (the lock file goes there first).
"$mpiexec" -n 1 "$bin" run "$work/run.ini" --quiet --set output.dir="$work/new/sub" > "$work/new.txt" 2>&1 ||
  { cat "$work/new.txt"; fail "a run into a new folder exited $?"; }
[[ -e $work/new/sub/x.h5 ]] || fail "no run file in the new folder"
echo "writers OK: a second writer is refused naming pid $pid on $host; a finished run and its ledger stay unless --overwrite"
