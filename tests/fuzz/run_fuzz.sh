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
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: run_fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET ...]}
seconds=${2:-30}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_config fuzz_csv fuzz_libsvm fuzz_idx)

failed=()
for t in "${targets[@]}"; do
  bin=$build/tests/fuzz/$t
  [[ -x $bin ]] || { echo "run_fuzz: $bin is missing (configure with CC=clang -DDPBO_FUZZ=ON)" >&2; exit 1; }
  work=$build/fuzz-corpus/$t
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$work" "$artifacts"
  # Config lines are short; dataset lines may be long (the reader's line
  # buffer starts at 64 KiB and doubles).
  max_len=8192
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
    failed+=("$t")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: failed: ${failed[*]}"
  exit 1
fi
