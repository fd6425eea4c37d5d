#!/usr/bin/env bash
# Runs the libFuzzer targets of a DPBO_FUZZ=ON build for a bounded time each.
#   tests/fuzz/run_fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET ...]
# Targets: fuzz_config fuzz_csv fuzz_libsvm fuzz_idx (all by default); 30 s each by
# default. Each starts from its seeds in tests/fuzz/corpus/<target> (read
# only) plus what earlier runs found in BUILD_DIR/fuzz-corpus/<target>, where
# new inputs go. A crash, sanitizer report, leak, broken invariant or an
# input slower than 10 s stops that target, leaves the input in
# BUILD_DIR/fuzz-artifacts/<target>/ and makes the script fail; replay it
# with `BUILD_DIR/tests/fuzz/<target> FILE`.
# DPBO_FUZZ_JOBS targets run at once (default: the number of cores). Each
# libFuzzer process is single-threaded, so on an otherwise idle machine every
# target still gets a core for its whole time (the same executions as one at
# a time), and the stage takes SECONDS per round instead of per target.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: run_fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET ...]}
seconds=${2:-30}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_config fuzz_csv fuzz_libsvm fuzz_idx)

jobs=${DPBO_FUZZ_JOBS:-$(nproc)}
[[ $jobs -ge 1 ]] || jobs=1

# One target, its output in BUILD_DIR/fuzz-<target>.out (printed in order below).
fuzz_one() {
  local t=$1 bin=$build/tests/fuzz/$1 work=$build/fuzz-corpus/$1 artifacts=$build/fuzz-artifacts/$1
  # Config lines are short; dataset lines may be long (the reader's line
  # buffer starts at 64 KiB and doubles).
  local max_len=8192 start
  [[ $t == fuzz_config ]] || max_len=200000
  echo "=== $t: ${seconds} s"
  start=$(date +%s)
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
       -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "$here/corpus/$t" \
       > "$build/fuzz-$t.log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$build/fuzz-$t.log" || true
    echo "=== $t: no failure in $(( $(date +%s) - start )) s, corpus $(ls "$work" | wc -l) inputs"
  else
    tail -60 "$build/fuzz-$t.log"
    echo "=== $t: FAILED; input saved in $artifacts/ (log: $build/fuzz-$t.log)"
    return 1
  fi
}

for t in "${targets[@]}"; do
  [[ -x $build/tests/fuzz/$t ]] || { echo "run_fuzz: $build/tests/fuzz/$t is missing (configure with CC=clang -DDPBO_FUZZ=ON)" >&2; exit 1; }
  mkdir -p "$build/fuzz-corpus/$t" "$build/fuzz-artifacts/$t"
done
failed=()
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  round=("${targets[@]:i:jobs}")
  pids=()
  for t in "${round[@]}"; do
    fuzz_one "$t" > "$build/fuzz-$t.out" 2>&1 &
    pids+=($!)
  done
  for k in "${!round[@]}"; do
    wait "${pids[$k]}" || failed+=("${round[$k]}")
    cat "$build/fuzz-${round[$k]}.out"
  done
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
