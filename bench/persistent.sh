#!/usr/bin/env bash
# objective.mode = persistent against per_evaluation: the same Python model
# (tests/persistent_model.py) for N evaluations in each mode, one rank, and
# the wall time of each run per evaluation and their ratio. The model imports
# numpy when a python3 with numpy is found (Debian's python3-numpy: the
# start-up of a real model); otherwise it sleeps DPBO_BENCH_STARTUP_S
# (default 0.3 s) at start instead, and says so.
#   bench/persistent.sh [N]        (default 30; DPBO_BIN, default build/dpbo)
# Run it on a quiet machine: it measures wall time.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${DPBO_BIN:-$src/build/dpbo}
n=${1:-30}
model=$src/tests/persistent_model.py
py=
for candidate in /usr/bin/python3 python3; do
  if command -v "$candidate" > /dev/null && "$candidate" -c 'import numpy' 2> /dev/null; then
    py=$(command -v "$candidate")
    break
  fi
done
unset DPBO_TEST_DIR DPBO_TEST_IMPORT DPBO_TEST_STARTUP_S
if [[ -n $py ]]; then
  export DPBO_TEST_IMPORT=numpy
  startup="import numpy ($py, numpy $("$py" -c 'import numpy; print(numpy.__version__)'))"
else
  py=$(command -v python3)
  export DPBO_TEST_STARTUP_S=${DPBO_BENCH_STARTUP_S:-0.3}
  startup="no python3 with numpy: a start-up sleep of $DPBO_TEST_STARTUP_S s"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One config per mode; the grid and the seed fix the λ sequence, so both
# modes evaluate the same N points (the run checks it below).
for mode in per_evaluation persistent; do
  serve=
  [[ $mode == persistent ]] && serve=--serve
  cat > "$work/$mode.ini" <<INI
[run]
iterations = $n
seed = 5
[space]
kind = grid
dim.a = linear 0 1 21
dim.b = linear 0 1 21
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.5
noise_std = 0.05
[objective]
kind = command
command = $py $model $serve
mode = $mode
timeout_s = 600
[output]
dir = $work
name = $mode
INI
done
now() { date +%s.%N; }
echo "persistent.sh: $n evaluations per mode, 1 rank, model start-up: $startup"
declare -A per
for mode in per_evaluation persistent; do
  t0=$(now)
  "$bin" run "$work/$mode.ini" --quiet > "$work/$mode.log" 2>&1 || { cat "$work/$mode.log"; exit 1; }
  t1=$(now)
  per[$mode]=$(awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.4f", (b - a) / n }')
  printf '%-15s %8.3f s per evaluation (%.2f s in all)\n' "$mode" "${per[$mode]}" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
done
cmp -s <("$bin" info "$work/per_evaluation.h5" --trace | sed -n '/^\/trace/,$p' | cut -d' ' -f1-5) \
  <("$bin" info "$work/persistent.h5" --trace | sed -n '/^\/trace/,$p' | cut -d' ' -f1-5) ||
  { echo "persistent.sh: the two modes evaluated different points or values"; exit 1; }
awk -v a="${per[per_evaluation]}" -v b="${per[persistent]}" \
  'BEGIN { printf "ratio           %8.1fx (per_evaluation / persistent), same points and values\n", a / b }'
