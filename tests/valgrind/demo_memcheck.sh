#!/usr/bin/env bash
# The paper's Algorithm 1 on the demo's problem (configs/alg1-digits.ini: SVM on digits)
# under valgrind memcheck on 2 ranks at a tiny size: 64 candidates, T = 3,
# 200 training and 100 validation rows. Passes only if both ranks finish the
# run with no memcheck error (invalid reads and writes, uses of
# uninitialised values, bad frees) and no definite leak outside the MPI
# runtime's own (tests/valgrind/openmpi.supp names only library objects).
#   demo_memcheck.sh            (CTest: valgrind_demo)
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
command -v valgrind > /dev/null \
  || { echo "FAIL: valgrind is not installed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --keep-debuginfo: Open MPI unloads its components in MPI_Finalize; without
# their symbols the leak stacks could not be matched to the suppressions.
"$mpiexec" -n 2 --oversubscribe \
  valgrind --error-exitcode=99 --keep-debuginfo=yes --num-callers=40 \
    --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --suppressions="$src/tests/valgrind/openmpi.supp" --log-file="$work/memcheck.%p.log" \
  "$bin" run "$src/configs/alg1-digits.ini" \
    --set run.iterations=3 --set space.points=64 \
    --set objective.train_rows=200 --set objective.validation_rows=100 \
    --set output.dir="$work/out" > "$work/run.log" 2>&1
rc=$?
cat "$work/run.log"

fail=0
logs=("$work"/memcheck.*.log)
if [[ ${#logs[@]} -ne 2 || ! -f ${logs[0]} ]]; then
  echo "FAIL: expected one memcheck log per rank, found ${#logs[@]}"
  fail=1
fi
for log in "${logs[@]}"; do
  [[ -f $log ]] || continue
  summary=$(grep -h 'ERROR SUMMARY:' "$log" | tail -1)
  if [[ $summary != *"ERROR SUMMARY: 0 errors"* ]]; then
    echo "FAIL: memcheck found errors ($(basename "$log")):"
    cat "$log"
    fail=1
  else
    echo "$(basename "$log"): ${summary#*== }"
  fi
done
[[ $rc -eq 0 ]] || { echo "FAIL: mpiexec exited $rc (99: a memcheck error)"; fail=1; }
grep -q "best validation gain" "$work/run.log" || { echo "FAIL: the run did not finish"; fail=1; }
[[ -f $work/out/alg1-digits.h5 ]] || { echo "FAIL: no run file"; fail=1; }
exit $fail
