#!/usr/bin/env bash
# A disk that fills up during a run (issue #11, item 10), simulated for
# every user with an LD_PRELOAD shim (enospc_shim.c): writes under the
# output folder fail with ENOSPC past a byte budget or from a chosen write.
# Mode "checkpoint": the budget lets the first checkpoint through and fails
# the second. Mode "final": every checkpoint goes through and the run file
# written at the end fails, once at each of up to 12 writes spread over it,
# on each rank that writes into it, that rank alone (a full disk under one
# rank once left the other waiting forever in a collective HDF5 call: the
# cut must not depend on where a byte budget happens to fall). Each time
# dpbo must exit 3 (documented "other failure") without a crash (134/139)
# or a hang, print one error line naming the file and "No space left on
# device" and no HDF5 error stack, leave no temporary file, and keep the
# last checkpoint whole: `dpbo run --resume` then finishes the run.
#   disk_full.sh SHIM.so checkpoint|final
# DPBO_DISK_FULL_TIMEOUT: seconds a cut run may take (default 60: a run
# takes 2 s, 10 s under the sanitizers), past which it counts as a hang.
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

limit=${DPBO_DISK_FULL_TIMEOUT:-60}
# ASan (sanitizer build) insists on coming first among preloaded libraries.
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# One run with a full disk (the shim's settings as -x NAME=VALUE arguments),
# then every check; $steps and $complete: the checkpoint that must be left.
cut_run() {
  local what=$1 code n
  shift
  rm -rf out
  timeout -k 10 "$limit" "$mpiexec" -n 2 --oversubscribe -x LD_PRELOAD="$shim" \
    -x DPBO_ENOSPC_DIR="$work/out" "$@" -x ASAN_OPTIONS="$asan" \
    "$bin" run run.ini < /dev/null > stdout.txt 2> stderr.txt
  code=$?
  echo "--- $what: exit $code; stderr:"
  cat stderr.txt
  check '[[ $code -eq 3 ]]' "$what: exit code $code, expected 3 (134/139: crash, 124/137: hang)"
  # The file is the run file or its temporary (.run.h5.tmp.XXXXXXXXXXXX).
  n=$(grep -cE "$work/out/\.?run\.h5[^ ]*: No space left on device" stderr.txt)
  check '[[ $n -eq 1 ]]' "$what: $n lines name the file and 'No space left on device', expected 1"
  n=$(grep -Eci '^dpbo(\[0\])?:? error' stderr.txt)
  check '[[ $n -eq 1 ]]' "$what: $n error lines, expected 1"
  check '! grep -Eq "HDF5-DIAG|#0[0-9][0-9]: " stderr.txt stdout.txt' "$what: HDF5's error stack was printed"
  check '[[ -z $(find "$work/out" -mindepth 1 -name "*.tmp.*" -print -quit) ]]' \
    "$what: a temporary file was left behind"
  # The last checkpoint is whole and resumable.
  "$bin" info out/run.h5 > info.txt 2>&1
  check 'grep -q "^  complete = $complete" info.txt && grep -q "^  steps = $steps$" info.txt' \
    "$what: the checkpoint is not the $steps-step one: $(cat info.txt)"
  "$mpiexec" -n 2 --oversubscribe "$bin" run run.ini --resume --quiet < /dev/null > resume.txt 2>&1
  code=$?
  check '[[ $code -eq 0 ]]' "$what: --resume exited $code: $(cat resume.txt)"
  "$bin" info out/run.h5 > info.txt 2>&1
  check 'grep -q "^  complete = 1" info.txt && grep -q "^  steps = 4$" info.txt' \
    "$what: the resumed run did not complete its 4 steps"
}

if [[ $mode == checkpoint ]]; then
  # A checkpoint of one step, to size the budget: each checkpoint is a new
  # file at least that large, so 1.5 times its size admits the first only.
  "$mpiexec" -n 2 --oversubscribe "$bin" run run.ini --quiet --stop-after 1 > /dev/null 2>&1
  one=$(stat -c %s out/run.h5 2>/dev/null || echo 0)
  check '[[ $one -gt 0 ]]' "no one-step checkpoint to size the budget"
  budget=$((one * 3 / 2))
  echo "one-step checkpoint: $one bytes; budget $budget bytes"
  steps=1 complete=0
  cut_run "budget $budget bytes" -x DPBO_ENOSPC_BYTES="$budget"
else
  # What the whole run writes, per rank (the shim counts without a limit):
  # "rank bytes writes first", the run file's writes being first+1..writes.
  "$mpiexec" -n 2 --oversubscribe -x LD_PRELOAD="$shim" -x DPBO_ENOSPC_DIR="$work/out" \
    -x DPBO_ENOSPC_REPORT="$work/written.txt" -x ASAN_OPTIONS="$asan" \
    "$bin" run run.ini --quiet > /dev/null 2>&1
  echo "the whole run (rank, bytes, writes, writes before the run file):"
  cat written.txt
  wrote=$(awk '$3 > $4' written.txt | wc -l)
  check '[[ $wrote -ge 1 ]]' "no rank wrote the run file"
  steps=4 complete=1
  # (Read on fd 3: mpiexec passes its stdin on to rank 0, which would eat
  # the list.)
  while read -r -u 3 rank _ writes first; do
    n=$((writes - first))
    ((n > 0)) || continue
    # Up to 12 cuts from the run file's first write to its last, evenly.
    k=$((n < 12 ? n : 12))
    for ((i = 0; i < k; i++)); do
      at=$((first + 1 + (k > 1 ? i * (n - 1) / (k - 1) : 0)))
      cut_run "rank $rank, write $at" -x DPBO_ENOSPC_RANK="$rank" -x DPBO_ENOSPC_WRITES="$at"
    done
  done 3< written.txt
fi
exit $fail
