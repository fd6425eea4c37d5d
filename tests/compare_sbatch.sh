#!/usr/bin/env bash
# jobs/compare.sbatch's issue #13 mode (no config) without a cluster: srun is
# a stub that records its command line and writes the output file it names,
# so the test sees which runs the script starts and in which order:
#  - the checkerboard data of configs/compare-hard.ini and compare-hard4.ini
#    made first;
#  - digits, hard, hard4, Fashion-MNIST, Covertype, each at delta = 1e-6
#    (output <name>) and 0.05 (<name>-delta0.05), then digits-logreg and
#    issue #26's mlp-fashion, hgb-covtype and svmw-covtype at their own
#    delta (output <name>), 14 runs: every configs/compare-*.ini but the
#    reduced -local ones (checked: no other config is left out);
#  - a rerun keeps the finished files and starts nothing;
#  - a run that fails (exit 2) makes the job fail with its code, the other
#    data sets still run.
set -euo pipefail
src=${DPBO_SOURCE_DIR:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/submit"
cat > "$work/bin/srun" <<'STUB'
#!/usr/bin/env bash
# srun --mpi=pmix BIN compare CONFIG [--set privacy.delta=D] --set output.name=OUT
echo "$*" >> "$STUB_LOG"
name=${!#}
name=${name#output.name=}
[[ $name == "${STUB_FAIL:-none}" ]] && exit 2
echo stub > "results/$name.h5"
STUB
chmod +x "$work/bin/srun"
run_job() {
  (cd "$work/submit" && PATH="$work/bin:$PATH" STUB_LOG="$work/calls.log" DPBO_BIN=/bin/true \
     SLURM_SUBMIT_DIR="$work/submit" SLURM_NTASKS=2 SLURM_JOB_ID=1 bash "$src/jobs/compare.sbatch" \
     > "$work/job.log" 2>&1)
}

run_job || { cat "$work/job.log"; echo "FAIL: the job failed"; exit 1; }
for data in checkerboard checkerboard-noise2; do
  [[ -s $work/submit/results/$data.csv ]] || { echo "FAIL: no $data data"; exit 1; }
done
expected=""
for name in compare-digits compare-hard compare-hard4 compare-fashion compare-covtype; do
  expected+="--mpi=pmix /bin/true compare $src/configs/$name.ini --set privacy.delta=1e-6 --set output.name=$name"$'\n'
  expected+="--mpi=pmix /bin/true compare $src/configs/$name.ini --set privacy.delta=0.05 --set output.name=$name-delta0.05"$'\n'
done
for name in compare-digits-logreg compare-mlp-fashion compare-hgb-covtype compare-svmw-covtype compare-svmw10-covtype \
  compare-svmguide-covtype; do
  expected+="--mpi=pmix /bin/true compare $src/configs/$name.ini --set output.name=$name"$'\n'
done
# Every shipped comparison runs but the reduced (-local) ones.
for config in "$src"/configs/compare-*.ini; do
  name=$(basename "$config" .ini)
  [[ $name == *-local ]] || grep -qF "compare $config " <<<"$expected" ||
    { echo "FAIL: jobs/compare.sbatch does not run $config"; exit 1; }
done
if [[ "$(cat "$work/calls.log")"$'\n' != "$expected" ]]; then
  echo "FAIL: the runs differ:"; diff <(printf '%s' "$expected") "$work/calls.log" || true; exit 1
fi

# A rerun: everything is there, nothing runs again.
rm "$work/calls.log"
run_job || { cat "$work/job.log"; echo "FAIL: the rerun failed"; exit 1; }
[[ ! -e $work/calls.log ]] || { echo "FAIL: the rerun started runs:"; cat "$work/calls.log"; exit 1; }
# One kept file per run of the first job.
kept=$(grep -c "exists: kept" "$work/job.log") runs=$(grep -c . <<<"$expected")
[[ $kept -eq $runs ]] || { cat "$work/job.log"; echo "FAIL: $kept kept files, expected $runs"; exit 1; }

# A failing run: the job's exit code is its code, and the later data sets run.
rm -f "$work/submit/results/compare-hard-delta0.05.h5" "$work/submit/results/compare-covtype.h5" \
  "$work/submit/results/compare-svmw-covtype.h5"
set +e
STUB_FAIL=compare-hard-delta0.05 run_job
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$work/job.log"; echo "FAIL: exit $rc, expected 2"; exit 1; }
grep -q "output.name=compare-covtype$" "$work/calls.log" || { echo "FAIL: Covertype did not run after the failure"; exit 1; }
grep -q "output.name=compare-svmw-covtype$" "$work/calls.log" || { echo "FAIL: svmw-covtype did not run after the failure"; exit 1; }
# A failing run at its own delta fails the job as well.
rm -f "$work/submit/results/compare-hgb-covtype.h5"
set +e
STUB_FAIL=compare-hgb-covtype run_job
rc=$?
set -e
[[ $rc -eq 2 ]] || { cat "$work/job.log"; echo "FAIL: exit $rc, expected 2 (hgb-covtype failed)"; exit 1; }
echo "compare_sbatch: ok"
