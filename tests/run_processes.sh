#!/usr/bin/env bash
# How dpbo run's processes end (issue #11, items 5-8). The `command`
# objective starts, at every evaluation, a background child and a child that
# leaves its session with setsid (each records its pid), and on the
# evaluation chosen by $DPBO_P/hang it hangs until killed.
#  A. time-out: the hanging evaluation times out; after the run no child of
#     any evaluation is alive (killed at the time-out and at the end of each
#     evaluation); the start log shows the time-out (default 3600 s) and a
#     run with timeout_s = 0 warns.
#  B. SIGUSR1 to mpiexec while the first evaluation hangs: exit 4, the
#     evaluation's processes are gone, and no --resume advice (no run file).
#  C. SIGTERM to the worker rank alone, in the 3rd evaluation: the run stops
#     with exit 4 and --resume advice; the evaluation's processes are gone.
#  D. SIGKILL of mpiexec in the 3rd evaluation: both ranks and the
#     evaluation's processes are gone within 20 s and the run file is not
#     written again.
#  E. SIGTERM to jobs/local.sh: exit 4 (it asks mpiexec with SIGUSR1).
#  F. SIGUSR1 to a single rank (no mpiexec) inside its 2nd evaluation: exit 4
#     at once, the evaluation's processes gone.
#  G, H. SIGKILL of a rank, not of mpiexec, while a rank evaluates
#     `sh -c "sleep N; echo 0.5"` (timeout_s = 60): G kills the evaluating
#     rank 1 of 2; H kills rank 0 of 2 while rank 1 evaluates, then the
#     evaluating rank 0 of 1. The shell's `sleep` (no child of the rank)
#     is gone within 20 s, not left under PID 1 (issue #27, item 5).
# Every wait polls for a file or a state, with a generous upper bound.
# DPBO_CASES (default ABCDEFGH) picks some of the cases.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc_guard.sh"
cases=${DPBO_CASES:-ABCDEFGH}
want() { [[ $cases == *$1* ]]; }
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
work=$(mktemp -d)
# G and H: a sleep of a length no other process uses, to find leftovers by.
sleep_arg=1003.$$
leftover_sleeps() { pgrep -f "^sleep $sleep_arg\$"; }
cleanup() {
  touch "$work/release"
  # Only this test's processes (tests/proc_guard.sh): a recorded pid may
  # since be another test's.
  [[ -n ${job:-} ]] && guard_kill 9 "$job"
  for f in "$work"/*/bg-* "$work"/*/sid-* "$work"/*/ranks; do
    [[ -s $f ]] && guard_kill 9 $(cat "$f")
  done
  guard_kill 9 $(leftover_sleeps)
  wait 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# running PID: the process exists, is not a zombie and is this test's (a
# recorded pid may since be another test's process).
running() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" | cut -c1) != Z ]] && guard_ours "$1"; }
# wait_for CONDITION...: polls for up to 60 s.
wait_for() {
  for _ in $(seq 1 600); do "$@" && return 0; sleep 0.1; done
  fail "timed out (60 s) waiting for: $*"
}
# all_gone DIR: no recorded child of any evaluation runs.
all_gone() {
  local f
  for f in "$1"/bg-* "$1"/sid-*; do
    [[ -s $f ]] && running "$(cat "$f")" && return 1
  done
  return 0
}
cat > "$work/obj.sh" <<'SH'
#!/bin/sh
D=$DPBO_P
n=$(( $(cat "$D/count" 2>/dev/null || echo 0) + 1 ))
echo $n > "$D/count"
echo $PPID > "$D/rank.pid"
sh -c 'echo $$ > "$1"; exec sleep 300' sh "$D/bg-$n" &
setsid sh -c 'echo $$ > "$1"; exec sleep 300' sh "$D/sid-$n" &
i=0
while { [ ! -s "$D/bg-$n" ] || [ ! -s "$D/sid-$n" ]; } && [ $i -lt 1000 ]; do sleep 0.02; i=$((i + 1)); done
if [ "$n" = "$(cat "$D/hang" 2>/dev/null)" ]; then
  : > "$D/hanging"
  i=0
  while [ ! -e "$D/../release" ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
fi
a=${1#a=}
awk -v a="$a" 'BEGIN { printf "%.17g\n", 1 - (a - 0.4)^2 }'
SH
chmod +x "$work/obj.sh"
# case_dir NAME HANG [extra config lines]: a fresh folder and its config.
case_dir() {
  local d=$work/$1
  mkdir -p "$d"
  echo "$2" > "$d/hang"
  cat > "$d/run.ini" <<INI
[run]
iterations = 5
retries = 0
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
$3
[output]
dir = $d
name = r
INI
}
trace_rows() { "$bin" info "$1" --trace | sed -n '/^\/trace/,$p' | tail -n +2 | wc -l; }

# --- A. time-out, and leftovers of finished evaluations ------------------------
if want A; then
case_dir a 2 "timeout_s = 2"
DPBO_P=$work/a "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/a/run.ini" > "$work/a/log" 2>&1 ||
  { cat "$work/a/log"; fail "A: the run exited $?"; }
grep -q "timed out after 2 s" "$work/a/log" || { cat "$work/a/log"; fail "A: evaluation 2 did not time out"; }
[[ $(cat "$work/a/count") -ge 5 ]] || fail "A: expected at least 5 evaluations"
all_gone "$work/a" || fail "A: a backgrounded or setsid child of an evaluation outlived it: $(cd "$work/a" && grep -l . bg-* sid-* | while read -r f; do running "$(cat "$f")" && echo "$f"; done)"
case_dir a0 0 "timeout_s = 0"
DPBO_P=$work/a0 "$mpiexec" -n 1 "$bin" run "$work/a0/run.ini" --set run.iterations=1 > "$work/a0/log" 2>&1 ||
  { cat "$work/a0/log"; fail "A: the run with timeout_s = 0 exited $?"; }
grep -q "timeout_s = 0: no time limit" "$work/a0/log" || { cat "$work/a0/log"; fail "A: no warning for timeout_s = 0"; }
case_dir ad 0 ""
DPBO_P=$work/ad "$mpiexec" -n 1 "$bin" run "$work/ad/run.ini" --set run.iterations=1 > "$work/ad/log" 2>&1 ||
  { cat "$work/ad/log"; fail "A: the run with the default time-out exited $?"; }
grep -q "time-out 3600 s per evaluation" "$work/ad/log" && ! grep -q "no time limit" "$work/ad/log" ||
  { cat "$work/ad/log"; fail "A: the log does not show the default time-out of 3600 s"; }
fi

# --- B. SIGUSR1 to mpiexec in the first evaluation ---------------------------------
if want B; then
case_dir b 1 ""
DPBO_P=$work/b "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/b/run.ini" > "$work/b/log" 2>&1 &
job=$!
wait_for test -e "$work/b/hanging"
kill -USR1 $job
wait $job
code=$?
job=
[[ $code -eq 4 ]] || { cat "$work/b/log"; fail "B: SIGUSR1 should stop the run with exit 4, got $code"; }
grep -q "continue with: .*--resume" "$work/b/log" && { cat "$work/b/log"; fail "B: --resume advised though nothing was written"; }
grep -q "nothing was written" "$work/b/log" || { cat "$work/b/log"; fail "B: the stop message does not say nothing was written"; }
[[ ! -e $work/b/r.h5 ]] || fail "B: a run file was written"
wait_for all_gone "$work/b"
fi

# --- C. SIGTERM to the worker rank alone ----------------------------------------------
if want C; then
case_dir c 3 ""
DPBO_P=$work/c "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/c/run.ini" > "$work/c/log" 2>&1 &
job=$!
wait_for test -e "$work/c/hanging"
kill -TERM "$(cat "$work/c/rank.pid")"
for _ in $(seq 1 600); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
kill -0 $job 2>/dev/null && fail "C: SIGTERM to the worker rank did not stop the run within 60 s"
wait $job
code=$?
job=
[[ $code -eq 4 ]] || { cat "$work/c/log"; fail "C: SIGTERM to a worker rank should stop the run with exit 4, got $code"; }
grep -q "continue with: .*--resume" "$work/c/log" || { cat "$work/c/log"; fail "C: no --resume advice after 2 evaluations"; }
[[ $(trace_rows "$work/c/r.h5") -eq 2 ]] || fail "C: the checkpoint should hold the 2 finished evaluations"
wait_for all_gone "$work/c"
fi

# --- D. SIGKILL of mpiexec -------------------------------------------------------------
if want D; then
case_dir d 3 ""
DPBO_P=$work/d "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/d/run.ini" --quiet > "$work/d/log" 2>&1 &
job=$!
wait_for test -e "$work/d/hanging"
pgrep -P $job > "$work/d/ranks"
[[ $(wc -l < "$work/d/ranks") -eq 2 ]] || fail "D: expected 2 ranks under mpiexec, found: $(cat "$work/d/ranks")"
sum=$(sha256sum < "$work/d/r.h5")
kill -9 $job
wait $job 2>/dev/null
job=
ranks_gone() { local p; for p in $(cat "$work/d/ranks"); do running "$p" && return 1; done; return 0; }
for _ in $(seq 1 200); do ranks_gone && break; sleep 0.1; done
ranks_gone || fail "D: ranks $(cat "$work/d/ranks" | tr '\n' ' ')still run 20 s after mpiexec was killed"
wait_for all_gone "$work/d"
touch "$work/release" # had anything survived, it would now finish its evaluation
sleep 1
[[ $(sha256sum < "$work/d/r.h5") == "$sum" ]] || fail "D: the run file was written after mpiexec was killed"
rm -f "$work/release"
fi

# --- E. SIGTERM to jobs/local.sh -------------------------------------------------------
if want E; then
case_dir e 3 ""
DPBO_P=$work/e DPBO_BIN=$bin bash "$src/jobs/local.sh" "$work/e/run.ini" 2 -- --quiet > "$work/e/log" 2>&1 &
job=$!
wait_for test -e "$work/e/hanging"
kill -TERM $job
wait $job
code=$?
job=
[[ $code -eq 4 ]] || { cat "$work/e/log"; fail "E: SIGTERM to jobs/local.sh should stop the run with exit 4, got $code"; }
wait_for all_gone "$work/e"
fi

# --- F. SIGUSR1 to a single rank --------------------------------------------------------
if want F; then
case_dir f 2 ""
DPBO_P=$work/f "$bin" run "$work/f/run.ini" > "$work/f/log" 2>&1 &
job=$!
wait_for test -e "$work/f/hanging"
kill -USR1 $job
for _ in $(seq 1 600); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
kill -0 $job 2>/dev/null && fail "F: SIGUSR1 did not stop a single rank within 60 s"
wait $job
code=$?
job=
[[ $code -eq 4 ]] || { cat "$work/f/log"; fail "F: SIGUSR1 to a single rank should stop it with exit 4, got $code"; }
[[ $(trace_rows "$work/f/r.h5") -eq 1 ]] || fail "F: the checkpoint should hold the 1 finished evaluation"
wait_for all_gone "$work/f"
fi

# --- G, H. SIGKILL of one rank, not of mpiexec -------------------------------------
# The evaluation sleeps on one rank only (the other rank's, if any, finish at
# once), so that rank is running `sleep` in a shell when a rank is killed.
cat > "$work/sleeper.sh" <<'SH'
#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" = "$DPBO_SLEEP_RANK" ]; then
  exec sh -c "sleep $DPBO_SLEEP; echo 0.5"
fi
echo 0.5
SH
chmod +x "$work/sleeper.sh"
# rank_pid JOB RANK: the pid of MPI rank RANK among mpiexec JOB's children.
rank_pid() {
  local p
  for p in $(pgrep -P "$1"); do
    grep -qx "OMPI_COMM_WORLD_RANK=$2" <<< "$(tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null)" && echo "$p"
  done
}
# kill_rank NAME RANKS SLEEPING_RANK KILLED_RANK
kill_rank() {
  local name=$1 d=$work/$1 victim
  mkdir -p "$d"
  cat > "$d/run.ini" <<INI
[run]
iterations = 6
seed = 5
[space]
kind = grid
dim.a = linear 0 1 21
[gp]
noise_std = 0.05
[objective]
kind = command
command = $work/sleeper.sh
timeout_s = 60
[output]
dir = $d
name = r
INI
  DPBO_SLEEP_RANK=$3 DPBO_SLEEP=$sleep_arg \
    "$mpiexec" -n "$2" --oversubscribe "$bin" run "$d/run.ini" --quiet > "$d/log" 2>&1 &
  job=$!
  wait_for leftover_sleeps > /dev/null
  victim=$(rank_pid $job "$4")
  [[ -n $victim ]] || fail "$name: rank $4 not found under mpiexec"
  echo "$victim" > "$d/ranks"
  kill -9 "$victim"
  for _ in $(seq 1 600); do kill -0 $job 2>/dev/null || break; sleep 0.1; done
  kill -0 $job 2>/dev/null && fail "$name: the run did not end within 60 s of SIGKILL to rank $4"
  wait $job 2>/dev/null
  job=
  for _ in $(seq 1 200); do [[ -z $(leftover_sleeps) ]] && break; sleep 0.1; done
  [[ -z $(leftover_sleeps) ]] || fail "$name: 20 s after SIGKILL to rank $4 (of $2), the \`sleep\` of rank $3's evaluation still runs (pid $(leftover_sleeps | tr '\n' ' ')with parent $(ps -o ppid= -p "$(leftover_sleeps | head -1)"))"
}
# G: the evaluating rank 1 of 2 is killed. H: rank 0 of 2 is killed while
# rank 1 evaluates, then the evaluating rank 0 of a 1-rank job.
if want G; then kill_rank g 2 1 1; fi
if want H; then kill_rank h2 2 1 0; kill_rank h1 1 0 0; fi

echo "processes OK: time-out, SIGUSR1, SIGTERM to a worker, SIGKILL of mpiexec, SIGTERM to jobs/local.sh, SIGUSR1 to a single rank and SIGKILL of rank 1 or rank 0 leave no process behind"
