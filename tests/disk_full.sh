#!/usr/bin/env bash
# A disk that fills up during a run (issue #11, item 10), simulated for
# every user with an LD_PRELOAD shim (enospc_shim.c): the files under the
# output folder may grow by a byte budget, then writes fail with ENOSPC.
# Mode "checkpoint": the budget lets the first checkpoint through and fails
# the second. Mode "final": it lets every checkpoint through and fails the
# run file written at the end, collectively by both ranks. dpbo must exit 3 (documented "other failure") without a crash (134/139) or a
# hang, print one error line naming the file and "No space left on device"
# and no HDF5 error stack, leave no temporary file, and keep the first
# checkpoint whole: `dpbo run --resume` then finishes the run.
#   disk_full.sh SHIM.so checkpoint|final
set -uo pipefail
shim=${1:?usage: disk_full.sh SHIM.so checkpoint|final}
mode=${2:-checkpoint}
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; fi; }

cat > run.ini <<INI
[run]
iterations = 4
seed = 1
[space]
kind = sobol
points = 64
dim.x1 = linear -5 10
dim.x2 = linear 0 15
[gp]
kernel = se
lengthscale = 0.3
signal_std = 50
noise_std = 1
[objective]
kind = synthetic
function = branin
[output]
dir = $work/out
name = run
INI

if [[ $mode == checkpoint ]]; then
  # A checkpoint of one step, to size the budget: each checkpoint is a new
  # file at least that large, so 1.5 times its size admits the first only.
  "$mpiexec" -n 2 --oversubscribe "$bin" run run.ini --quiet --stop-after 1 > /dev/null 2>&1
  one=$(stat -c %s out/run.h5 2>/dev/null || echo 0)
  check '[[ $one -gt 0 ]]' "no one-step checkpoint to size the budget"
  budget=$((one * 3 / 2))
  steps=1 complete=0
  echo "one-step checkpoint: $one bytes; budget $budget bytes"
else
  # What the whole run writes (the shim counts, per process, without a
  # limit); 2,000 bytes less fails the run file's last datasets (each of
  # /posterior's 64 doubles is 512 bytes), after the last checkpoint.
  "$mpiexec" -n 2 --oversubscribe -x LD_PRELOAD="$shim" -x DPBO_ENOSPC_DIR="$work/out" \
    -x DPBO_ENOSPC_BYTES=1000000000 -x DPBO_ENOSPC_REPORT="$work/written.txt" \
    -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$bin" run run.ini --quiet > /dev/null 2>&1
  total=$(sort -n written.txt 2>/dev/null | tail -1)
  check '[[ ${total:-0} -gt 2000 ]]' "the shim counted no writes"
  budget=$((${total:-0} - 2000))
  steps=4 complete=1
  echo "the whole run writes $total bytes (rank 0); budget $budget bytes"
fi
rm -rf out

# ASan (sanitizer build) insists on coming first among preloaded libraries.
timeout -k 10 120 "$mpiexec" -n 2 --oversubscribe -x LD_PRELOAD="$shim" -x DPBO_ENOSPC_DIR="$work/out" \
  -x DPBO_ENOSPC_BYTES="$budget" -x ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  "$bin" run run.ini > stdout.txt 2> stderr.txt
code=$?
echo "--- stderr:"; cat stderr.txt
check '[[ $code -eq 3 ]]' "exit code $code, expected 3 (134/139: crash, 124/137: hang)"
# The file is the run file or its temporary (.run.h5.tmp.XXXXXXXXXXXX).
n=$(grep -cE "$work/out/\.?run\.h5[^ ]*: No space left on device" stderr.txt)
check '[[ $n -eq 1 ]]' "$n lines name the file and 'No space left on device', expected 1"
n=$(grep -Eci '^dpbo(\[0\])?:? error' stderr.txt)
check '[[ $n -eq 1 ]]' "$n error lines, expected 1"
check '! grep -Eq "HDF5-DIAG|#0[0-9][0-9]: " stderr.txt stdout.txt' "HDF5's error stack was printed"
check '[[ -z $(find "$work/out" -mindepth 1 -name "*.tmp.*" -print -quit) ]]' "a temporary file was left behind"

# The last checkpoint is whole and resumable.
"$bin" info out/run.h5 > info.txt 2>&1
check 'grep -q "^  complete = $complete" info.txt && grep -q "^  steps = $steps$" info.txt' "the checkpoint is not the $steps-step one: $(cat info.txt)"
"$mpiexec" -n 2 --oversubscribe "$bin" run run.ini --resume --quiet > resume.txt 2>&1
code=$?
check '[[ $code -eq 0 ]]' "--resume exited $code: $(cat resume.txt)"
"$bin" info out/run.h5 > info.txt 2>&1
check 'grep -q "^  complete = 1" info.txt && grep -q "^  steps = 4$" info.txt' "the resumed run did not complete its 4 steps"
exit $fail
