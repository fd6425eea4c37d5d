#!/bin/sh
# A slow, deterministic `command` objective for tests/test_slurm.sh:
#   slurm_objective.sh x=VALUE y=VALUE
# sleeps DPBO_TEST_SLEEP seconds (default 1, so that a signal lands in the
# middle of a run) and prints a smooth function of (x, y) on [0, 1]^2 with a
# single interior maximum and some ripple, to 17 significant digits.
for arg in "$@"; do
  case $arg in
    x=*) x=${arg#x=} ;;
    y=*) y=${arg#y=} ;;
    *) echo "slurm_objective.sh: unexpected argument '$arg'" >&2; exit 2 ;;
  esac
done
[ -n "${x:-}" ] && [ -n "${y:-}" ] || { echo "slurm_objective.sh: needs x=... y=..." >&2; exit 2; }
sleep "${DPBO_TEST_SLEEP:-1}"
awk -v x="$x" -v y="$y" 'BEGIN {
  printf "%.17g\n", 1 - (x - 0.3)^2 - (y - 0.7)^2 + 0.05 * sin(13 * x) * cos(7 * y)
}'
