#!/usr/bin/env bash
# Fails when the run, experiments or app layer decides per release algorithm
# by comparing it with a constant (`algorithm ==`, `!=`, `case
# DPBO_ALGORITHM_...`) instead of asking the registry (src/run/algorithm.h:
# one ops row per algorithm, issue #22). The registry's own files
# (algorithm.c, alg_*.c) and core/privacy.c's formula table are exempt.
# Usage: scripts/check-algorithm-dispatch.sh [REPO]
set -euo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
hits=$(grep -rnE 'algorithm[[:space:]]*[!=]=|case[[:space:]]+DPBO_ALGORITHM_' \
  --include='*.c' --include='*.h' --exclude='algorithm.c' --exclude='alg_*.c' \
  src/run src/experiments src/app || true)
if [[ -n $hits ]]; then
  printf '%s\n' "$hits"
  echo "check-algorithm-dispatch: ask dpbo_algorithm_ops_get (src/run/algorithm.h) instead" >&2
  exit 1
fi
echo "check-algorithm-dispatch: every per-algorithm decision in src/run, experiments, app goes through the registry"
