#!/usr/bin/env bash
# objective.mode = persistent (issue #23, item 5): one process per worker rank
# answers one request line per λ. tests/persistent_model.py (a Python model)
# records its starts (pid, ppid, pgid), a global request count, and any
# zombie child of the rank it sees. Cases (all on 1 rank unless said):
#  many     40 λ: one process; the trace equals per-evaluation mode's
#           (same seed) bit for bit.
#  crash    exit 3 at the 3rd request: that evaluation fails (1 failure,
#           stderr quoted), the program is started again, the run completes.
#  hang     sleeps at the 3rd request (with a child `sleep` in its group),
#           timeout_s = 2: killed (the child too), failure, started again.
#  garbage  a reply line without a number at the 3rd request: one failure
#           naming the program and the line, started again.
#  quit     exits 0 after every 3rd reply: started again, no failure, the
#           trace equals per-evaluation mode's.
#  silent   exits 0 at start without replying: every evaluation fails
#           (exit 3, "without replying to its request 1").
#  stop     SIGTERM to dpbo in a hanging request: exit 4, group gone.
#  rankkill SIGKILL of the rank in a hanging request: the watchdog kills
#           the program's group within 20 s.
#  ranks    3 ranks (2 workers), batch 2: one process per worker rank,
#           every value equal to the model's per evaluation.
# After every run no process of this test in any recorded process group is
# left (guard_group: a recorded pgid may since be another test's), and no
# zombie child of the rank was seen.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc_guard.sh"
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
model=$src/tests/persistent_model.py
work=$(mktemp -d)
cleanup() {
  for f in "$work"/*/starts; do
    [[ -s $f ]] && while read -r _ _ g; do guard_kill_group 9 "$g"; done < "$f"
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# setup NAME MODE "EXTRA ARGS" [config lines]: a fresh folder and its config.
setup() {
  local d=$work/$1 cmd=$model
  mkdir -p "$d"
  [[ $2 == persistent ]] && cmd="$model --serve"
  cat > "$d/run.ini" <<INI
[run]
iterations = ${iterations:-12}
batch = ${batch:-1}
retries = 0
seed = 5
[space]
kind = grid
dim.a = linear 0 1 11
dim.b = linear 0 1 11
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.5
noise_std = 0.05
[objective]
kind = command
command = $cmd $3
mode = $2
timeout_s = ${timeout:-20}
${4:-}
[output]
dir = $d
name = r
INI
}
# run NAME [mpiexec -n N]: runs the case; its exit code in $code, log in NAME/log.
run() {
  local d=$work/$1 n=${2:-1}
  if [[ $n -eq 1 ]]; then
    DPBO_TEST_DIR=$d "$bin" run "$d/run.ini" > "$d/log" 2>&1
  else
    DPBO_TEST_DIR=$d "$mpiexec" -n "$n" --oversubscribe -x DPBO_TEST_DIR "$bin" run "$d/run.ini" \
      > "$d/log" 2>&1
  fi
  code=$?
}
trace() { "$bin" info "$work/$1/r.h5" --trace | sed -n '/^\/trace/,$p'; }
starts() { wc -l < "$work/$1/starts"; }
failures() { "$bin" info "$work/$1/r.h5" | sed -n 's/^ *failures = //p'; }
# no_leftovers NAME: no process of a recorded group runs, no zombie was seen.
no_leftovers() {
  local d=$work/$1 g left
  while read -r _ _ g; do
    left=$(guard_group "$g")
    [[ -z $left ]] || fail "$1: process group $g still has processes after the run: $left"
  done < "$d/starts"
  if [[ -s $d/hang-child ]] && [[ -n $(guard_filter "$(cat "$d/hang-child")") ]]; then
    fail "$1: the hanging program's child $(cat "$d/hang-child") outlived it"
  fi
  [[ ! -s $d/zombies ]] || fail "$1: zombie evaluation processes: $(cat "$d/zombies")"
}
same_trace() {
  diff <(trace "$1") <(trace "$2") > "$work/diff" ||
    { cat "$work/diff"; fail "$1 and $2: the traces differ"; }
}

# --- many: one process answers 40 λ, the same values as per evaluation --------
iterations=40 setup many persistent ""
iterations=40 setup many_ref per_evaluation ""
run many; [[ $code -eq 0 ]] || { cat "$work/many/log"; fail "many: exit $code"; }
run many_ref; [[ $code -eq 0 ]] || { cat "$work/many_ref/log"; fail "many_ref: exit $code"; }
[[ $(starts many) -eq 1 ]] || fail "many: expected 1 process start, got $(starts many)"
[[ $(starts many_ref) -eq 40 ]] || fail "many_ref: expected 40 starts, got $(starts many_ref)"
[[ $(cat "$work/many/requests") -eq 40 ]] || fail "many: expected 40 requests"
same_trace many many_ref
no_leftovers many
echo "many: 40 evaluations by 1 process, trace identical to per_evaluation mode"

# --- crash, hang, garbage at the 3rd request --------------------------------------
for kind in crash hang garbage; do
  timeout=2 setup $kind persistent "--misbehave=$kind@3"
  run $kind
  [[ $code -eq 0 ]] || { cat "$work/$kind/log"; fail "$kind: exit $code"; }
  [[ $(failures $kind) -eq 1 ]] || { cat "$work/$kind/log"; fail "$kind: expected 1 failure, got $(failures $kind)"; }
  [[ $(starts $kind) -eq 2 ]] || fail "$kind: expected 2 process starts, got $(starts $kind)"
  [[ $(trace $kind | tail -n +2 | wc -l) -eq 12 ]] || fail "$kind: expected 12 trace rows"
  no_leftovers $kind
  echo "$kind: $(grep -m1 -o "command '.*" "$work/$kind/log")"
done
grep -q "exited with status 3 without replying to its request 3.*crashing at request 3" "$work/crash/log" ||
  { cat "$work/crash/log"; fail "crash: the message does not give the exit, the request and stderr"; }
grep -q "timed out after 2 s at request 3" "$work/hang/log" ||
  { cat "$work/hang/log"; fail "hang: no time-out message"; }
grep -q "persistent_model.py --serve --misbehave=garbage@3'.*reply to its request 3 is not a number alone.*'hello from request 3'" "$work/garbage/log" ||
  { cat "$work/garbage/log"; fail "garbage: the message does not name the program and the line"; }

# --- quit: exit 0 after every 3rd reply: no failure, same values ----------------
setup quit persistent "--misbehave=quit@3"
run quit
[[ $code -eq 0 ]] || { cat "$work/quit/log"; fail "quit: exit $code"; }
[[ $(failures quit) -eq 0 ]] || { cat "$work/quit/log"; fail "quit: a clean exit between requests counted as a failure"; }
[[ $(starts quit) -eq 4 ]] || fail "quit: expected 4 process starts (12 requests, 3 each), got $(starts quit)"
setup quit_ref per_evaluation ""
run quit_ref
same_trace quit quit_ref
no_leftovers quit
echo "quit: 4 processes of 3 requests each, no failure, trace identical"

# --- silent: ends at start without replying ---------------------------------------
cat > "$work/silent.sh" <<'SH'
#!/bin/sh
echo "$$ $PPID $(ps -o pgid= -p $$ | tr -d ' ')" >> "$DPBO_TEST_DIR/starts"
exit 0
SH
chmod +x "$work/silent.sh"
iterations=3 setup silent persistent ""
sed -i "s|^command = .*|command = $work/silent.sh|" "$work/silent/run.ini"
run silent
[[ $code -eq 3 ]] || { cat "$work/silent/log"; fail "silent: expected exit 3 (every evaluation failed), got $code"; }
grep -q "exited with status 0 without replying to its request 1" "$work/silent/log" ||
  { cat "$work/silent/log"; fail "silent: no 'without replying' message"; }
no_leftovers silent
echo "silent: every evaluation failed, exit 3"

# --- ranks: 3 ranks, one process per worker rank ---------------------------------
# (batch 2 keeps both workers busy; which result arrives first is timing, so
# each row's value is checked against the per-evaluation model instead of a
# reference trace.)
iterations=16 batch=2 setup ranks persistent ""
run ranks 3; [[ $code -eq 0 ]] || { cat "$work/ranks/log"; fail "ranks: exit $code"; }
[[ $(starts ranks) -eq 2 ]] || fail "ranks: expected 2 process starts (one per worker rank), got $(starts ranks)"
[[ $(cut -d' ' -f2 "$work/ranks/starts" | sort -u | wc -l) -eq 2 ]] ||
  fail "ranks: the 2 processes do not belong to 2 different ranks: $(cat "$work/ranks/starts")"
[[ $(failures ranks) -eq 0 ]] || fail "ranks: $(failures ranks) failures"
rows=0
while read -r t _ a b gain _; do
  want=$(DPBO_TEST_DIR= "$model" "a=$a" "b=$b")
  [[ $want == "$gain" ]] || fail "ranks: step $t (a=$a b=$b) has $gain, the model per evaluation gives $want"
  rows=$((rows + 1))
done < <(trace ranks | tail -n +2)
[[ $rows -eq 16 ]] || fail "ranks: expected 16 trace rows, got $rows"
no_leftovers ranks
echo "ranks: 2 worker ranks, one process each; all 16 values equal the per-evaluation model's"
# --- stop and rankkill: SIGTERM to dpbo, SIGKILL of the rank, mid-request ------------
# (the hanging request: the stop kills the program's group at once; after a
# SIGKILL of the rank, its watchdog kills the group.)
group_gone() { [[ -z $(guard_group "$1") ]]; }
for kind in stop rankkill; do
  timeout=60 setup $kind persistent "--misbehave=hang@2"
  DPBO_TEST_DIR=$work/$kind "$bin" run "$work/$kind/run.ini" > "$work/$kind/log" 2>&1 &
  job=$!
  for _ in $(seq 1 300); do [[ -s $work/$kind/hang-child ]] && break; sleep 0.1; done
  [[ -s $work/$kind/hang-child ]] || { kill -9 $job; fail "$kind: the model never reached its hanging request"; }
  group=$(cut -d' ' -f3 "$work/$kind/starts")
  if [[ $kind == stop ]]; then kill -TERM $job; else kill -9 $job; fi
  { wait $job; } 2>/dev/null
  code=$?
  if [[ $kind == stop ]]; then
    [[ $code -eq 4 ]] || { cat "$work/$kind/log"; fail "stop: SIGTERM should end the run with exit 4, got $code"; }
  fi
  for _ in $(seq 1 200); do group_gone "$group" && break; sleep 0.1; done
  group_gone "$group" || fail "$kind: the program's process group $group outlived dpbo by 20 s: $(guard_group "$group")"
  no_leftovers $kind
  echo "$kind: exit $code, the program's process group is gone"
done
echo PASS
