#!/usr/bin/env bash
# Where a release goes and what dpbo opens (issue #27 items 1, 4, 6 and 7;
# the release transaction of run/publish.h):
#  1. A release never replaces a file: `dpbo release RUN --out <RUN's stem>`
#     (whose .h5 is the run file) and an --out over a user's file are refused
#     (exit 2, naming the file); the run file keeps its bytes and its mode
#     and can still be released.
#  4. A release that cannot be written costs nothing: --out /proc/nope/x, a
#     path over 200 characters and a file used as a folder are refused
#     before the draw (exit 2); the ledger (releases_drawn) is unchanged and
#     no file is left.
#  6. Rank 0 killed after the run file is complete and before the run
#     file's own ledger counts the release (strace kills it at that rename,
#     which follows the ledger file's charge): `--resume` draws the release
#     then (the run file's ledger goes 0 -> 1; seeded, it is the release of
#     an uninterrupted run but for the ledger's totals) and leaves no
#     temporary file; the ledger file keeps both charges (the lost draw was
#     charged and is never refunded: over-counting is the safe side).
#     Killed after the run file's ledger and before the files: `--resume`
#     says the release is missing and spent, exit 3, and draws nothing.
#  7. A FIFO at the run file's path: run, run --resume, run --overwrite,
#     info, release and utility end with an error naming it (not a hang:
#     each runs under timeout); a FIFO as compare.table on 2 ranks likewise.
# Part 6 needs strace; without it the rest runs and the test is skipped (77).
# DPBO_PATHS_PARTS picks parts (default "1 4 7 6").
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
parts=" ${DPBO_PATHS_PARTS:-1 4 7 6} "
cat > "$work/run.ini" <<INI
[run]
iterations = 6
seed = 9
[space]
kind = sobol
points = 64
dim.a = linear 0 1
dim.b = log 0.01 100
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0
signal_std = 1
noise_std = 0.1
[objective]
kind = synthetic
function = gp_prior
noise_std = 0.1
[privacy]
algorithm = 1
epsilon = 1
delta = 0.01
noise = seeded
[output]
dir = $work/out
name = small
INI
run_file=$work/out/small.h5
# Its runs kill no rank: a refusal is agreed by both ranks, which leave
# through MPI_Finalize, so Open MPI's 2 s of SIGTERM/SIGKILL sleeps after a
# non-zero exit are skipped (tests/CMakeLists.txt says more). The killed
# launches of part 6 keep them (the --resume after them waits for the lock).
mpi() {
  OMPI_MCA_odls_base_sigkill_timeout=0 timeout -k 5 "${FIFO_TIMEOUT:-60}" "$mpiexec" -n 2 --oversubscribe "$bin" "$@"
}
# One rank, started without mpiexec (whose teardown after a failed rank
# takes seconds): the refusals are made by rank 0 and agreed by all.
one() { timeout -k 5 "${FIFO_TIMEOUT:-60}" "$bin" "$@"; }
# The ledger's count of releases (0 when the attribute is absent).
ledger() { h5dump -a /releases_drawn "$1" 2> /dev/null | sed -n 's/^ *(0): //p' | grep . || echo 0; }
leftovers() { find "$work/out" -mindepth 1 -name '*.tmp.*' | wc -l; }

mpi run "$work/run.ini" --quiet > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the run exited $?"; }
[[ $(ledger "$run_file") -eq 1 ]] || fail "the run's own release should be in the ledger"
cp -p "$run_file" "$work/before.h5"
mode=$(stat -c %a "$run_file")

if [[ $parts == *" 1 "* ]]; then
# 1. Over the run file itself, and over a user's file.
mpi release "$run_file" --out "$work/out/small" > "$work/over.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "$run_file exists already: a release never replaces a file" "$work/over.log" ||
  { cat "$work/over.log"; fail "a release over the run file should be refused (exit 2) naming it, got $code"; }
cmp -s "$run_file" "$work/before.h5" || fail "the refused release changed the run file"
[[ $(stat -c %a "$run_file") == "$mode" ]] || fail "the refused release changed the run file's mode"
echo "my notes" > "$work/out/notes.json"
one release "$run_file" --out "$work/out/notes" > "$work/notes.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "notes.json exists already" "$work/notes.log" ||
  { cat "$work/notes.log"; fail "a release over a user's file should be refused (exit 2), got $code"; }
[[ $(cat "$work/out/notes.json") == "my notes" && ! -e $work/out/notes.h5 ]] ||
  fail "the refused release touched the user's file or wrote half a pair"
echo "1. a release over the run file or a user's file: refused, both intact"
fi

if [[ $parts == *" 4 "* ]]; then
# 4. Targets that cannot be written: refused before the draw.
long=$work/out/$(printf 'x%.0s' $(seq 220))
for out in /proc/nope/x "$long" "$run_file/x"; do
  one release "$run_file" --out "$out" > "$work/bad.log" 2>&1
  code=$?
  [[ $(ledger "$run_file") -eq 1 ]] || fail "--out ${out:0:60}... (exit $code) charged the ledger: releases_drawn $(ledger "$run_file")"
  [[ $code -eq 2 ]] && grep -q "nothing was drawn and no budget was spent" "$work/bad.log" ||
    { cat "$work/bad.log"; fail "--out ${out:0:60}... should be refused before the draw (exit 2), got $code"; }
done
cmp -s "$run_file" "$work/before.h5" || fail "a refused release changed the run file"
[[ $(leftovers) -eq 0 ]] || fail "a refused release left a temporary file"
# The run file is still releasable: the next draw is number 2.
mpi release "$run_file" > "$work/again.log" 2>&1 || { cat "$work/again.log"; fail "the release after the refusals failed"; }
[[ $(ledger "$run_file") -eq 2 && -e $work/out/small.release-2.json ]] || fail "the release after the refusals was not release 2"
echo "4. /proc/nope, a 220-character name, a file as folder: refused, ledger unchanged"
fi

if [[ $parts == *" 7 "* ]]; then
# 7. FIFOs (a hang ends after 20 s and fails).
mkdir -p "$work/fifo"
mkfifo "$work/fifo/q.h5"
fifo_run=(run "$work/run.ini" --quiet --set "output.dir=$work/fifo" --set output.name=q)
check_fifo() {
  local what=$1 how=$2
  shift 2
  FIFO_TIMEOUT=20 $how "$@" > "$work/fifo.log" 2>&1
  local code=$?
  [[ $code -ne 124 && $code -ne 137 ]] || fail "$what on a FIFO hangs"
  [[ $code -ne 0 ]] && grep -q "$work/fifo/q.h5.*\(FIFO\|not a regular file\)" "$work/fifo.log" ||
    { cat "$work/fifo.log"; fail "$what on a FIFO should fail naming it, got $code"; }
}
check_fifo "run" one "${fifo_run[@]}"
check_fifo "run --resume" one "${fifo_run[@]}" --resume
check_fifo "run --overwrite" one "${fifo_run[@]}" --overwrite
[[ -p $work/fifo/q.h5 ]] || fail "--overwrite removed the FIFO"
check_fifo "info" one info "$work/fifo/q.h5"
check_fifo "release" mpi release "$work/fifo/q.h5"
check_fifo "utility" one utility "$work/fifo/q.h5"
# compare.table: rank 0 opens it, rank 1 must not be left waiting.
awk 'BEGIN { srand(6); for (i = 0; i < 240; i++) { y = i % 2; printf "%.6f,%.6f,%d\n", rand() + y, rand() - y, y + 1 } }' > "$work/blobs.csv"
cat > "$work/cmp.ini" <<INI
[run]
iterations = 2
[space]
kind = sobol
points = 8
dim.C = log 0.01 1000
dim.gamma = log 0.001 10
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $work/blobs.csv
format = csv
train_rows = 80
validation_rows = 80
test_rows = 80
[privacy]
algorithm = 1
delta = 0.05
noise = seeded
[compare]
repetitions = 2
epsilons = 1
table = $work/fifo/q.h5
[output]
dir = $work/cmp
INI
check_fifo "compare with compare.table" mpi compare "$work/cmp.ini" --quiet
echo "7. a FIFO as run file (run, --resume, --overwrite, info, release, utility) or compare.table: refused"
fi

# 6. Kills between the complete run file and the release.
[[ $parts == *" 6 "* ]] || { echo "release paths OK (parts$parts)"; exit 0; }
if ! command -v strace > /dev/null; then
  echo "SKIP: part 6 needs strace"
  exit 77
fi
# Kills rank 0 at its N-th rename when DPBO_KILL_AT = N.
cat > "$work/kill_at.sh" <<'SH'
#!/bin/sh
if [ -n "$DPBO_KILL_AT" ] && [ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ]; then
  set -- strace -qq -o /dev/null -e trace=rename -e inject=rename:signal=KILL:when="$DPBO_KILL_AT" "$@"
fi
exec "$@"
SH
chmod +x "$work/kill_at.sh"
cp "$work/out/small.release.json" "$work/whole.json" # the uninterrupted run's release
# The renames of rank 0: T = 6 checkpoints, the run file, the ledger, the
# release's .h5 and .json: the ledger's is the 8th.
killed_run() {
  rm -rf "$work/out"
  DPBO_KILL_AT=$1 timeout -k 5 60 "$mpiexec" -n 2 --oversubscribe "$work/kill_at.sh" "$bin" run "$work/run.ini" --quiet > "$work/kill.log" 2>&1
  local code=$?
  [[ $code -ne 0 && $code -ne 2 && $code -ne 124 ]] || { cat "$work/kill.log"; fail "the kill at rename $1 did not happen (exit $code)"; }
  grep -q '(0): 1' <<< "$(h5dump -a /complete "$run_file")" || fail "after the kill at rename $1 the run file is not complete"
}
killed_run 8
[[ $(ledger "$run_file") -eq 0 && ! -e $work/out/small.release.json && $(leftovers) -eq 1 ]] ||
  { ls -a "$work/out"; fail "the kill at the ledger's rename should leave ledger 0, no release and a temporary file"; }
mpi run "$work/run.ini" --resume > "$work/resume.log" 2>&1 || { cat "$work/resume.log"; fail "--resume after the kill exited $?"; }
grep -q "its release was never drawn" "$work/resume.log" || { cat "$work/resume.log"; fail "--resume does not say the release was never drawn"; }
[[ $(ledger "$run_file") -eq 1 && $(leftovers) -eq 0 ]] || fail "--resume: ledger $(ledger "$run_file"), $(leftovers) temporary files"
"${DPBO_PYTHON:-python3}" - "$work/out/small.release.json" "$work/whole.json" "$work/out/dpbo-ledger" <<'PY' ||
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
la, lb = a.pop("ledger"), b.pop("ledger")
assert a == b, "the release drawn at --resume differs from the uninterrupted run's"
charges = [l for l in open(sys.argv[3]) if l.split("\t")[3:4] == ["charge"]]
assert len(charges) == 2 and la["draws"] == 2 and lb["draws"] == 1, (len(charges), la, lb)
PY
  fail "the release drawn at --resume is not the uninterrupted run's, or the ledger file does not hold both charges"
killed_run 9
[[ $(ledger "$run_file") -eq 1 && ! -e $work/out/small.release.h5 ]] || fail "the kill at the release's rename should leave ledger 1 and no release"
mpi run "$work/run.ini" --resume > "$work/lost.log" 2>&1
code=$?
[[ $code -eq 3 ]] && grep -q "small.release.h5 is missing.*not drawn again" "$work/lost.log" ||
  { cat "$work/lost.log"; fail "--resume with a charged, missing release should say so (exit 3), got $code"; }
[[ $(ledger "$run_file") -eq 1 && ! -e $work/out/small.release.h5 && $(leftovers) -eq 0 ]] ||
  fail "--resume drew the charged release again or left a temporary file"
echo "6. killed before the ledger: --resume draws the release; after it: --resume says it is spent and missing"
echo "release paths OK"
