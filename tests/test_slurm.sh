#!/usr/bin/env bash
# The sbatch scripts users get, on a real one-node Slurm cluster (Debian's
# slurm-wlm and munge, started by scripts/slurm-up.sh):
#   test_slurm.sh bo        jobs/bo.sbatch: `dpbo run` of a command objective
#                           that sleeps 1 s per evaluation (50 evaluations),
#                           stopped by the walltime's --signal
#   test_slurm.sh k1sweep   jobs/k1sweep.sbatch: configs/k1sweep-small.ini
#                           with 24 SVMs, stopped by `scancel --signal`
# Both jobs run on 2 tasks.
#
# bo: a one-minute walltime and `--signal=USR1@15`. slurmctld looks at time
# limits every 30 s and sends the signal early rather than late (sbatch(1):
# "up to 60 seconds earlier"): at the first look at which at most 15 + 30 s
# remain, i.e. 15-45 s after the start (measured here). The run needs over
# 55 s uninterrupted, whatever the machine's speed (the objective sleeps), so
# the signal lands in its middle.
# k1sweep: its work is CPU-bound, so a run long enough for that 30 s jitter
# on a fast machine would take minutes of CPU on a slow one. Instead the
# test sends SIGUSR1 with `scancel --signal=USR1` once the checkpoint holds
# 3 models: Slurm delivers it exactly as the walltime's `--signal` (without
# "B:"), to every task of the job's steps and not to the batch shell.
#
# The test then sees
#  1. the checkpoint appear while the job runs (the incomplete run file of
#     `dpbo run`, or <name>.partial.h5 of k1sweep);
#  2. the job interrupted (dpbo exits 4 after the signal) and requeued by its
#     own script (Restarts >= 1), with a checkpoint that holds some but not
#     all of the work;
#  3. the requeued job resuming (`--resume` added by bo.sbatch; "resuming
#     from" in the k1sweep log) and completing (COMPLETED, exit 0). Once the
#     requeue is seen, the test raises the bo job's time limit to 10 minutes,
#     so that the rerun is not signalled in its turn 15-45 s after its start:
#     that would only repeat steps 1-2 and make the test longer;
#  4. the results equal those of an uninterrupted run of the same config
#     (mpiexec, in parallel with the job): trace/index and trace/gain of the
#     run file exactly, or the k1sweep's models, F matrices and likelihood.
# The bo objective does not handle signals: Slurm signals every process of
# the step, so its `sh` and `sleep` die of the SIGUSR1 too, and dpbo must not
# let that change the trace.
# The cluster is started if it does not run and stopped afterwards if the
# test started it. Skipped (77, with the reason) without root, when the
# daemons cannot be started, without the Covertype file (k1sweep), and, for
# bo, while `dpbo run` has no --resume.
set -uo pipefail
mode=${1:?usage: test_slurm.sh bo|k1sweep}
bin=${DPBO_BIN:?}
src=${DPBO_SOURCE_DIR:?}
# The reference run's pid is killed at cleanup only while it is ours: bash
# reaps a finished background job at once, and its pid can be reused.
source "$src/tests/proc_guard.sh"
python=${DPBO_PYTHON:-/usr/bin/python3}
mpiexec=${MPIEXEC:-mpiexec}
data=${DPBO_SHARED_DIR:-$src/../shared}/data/covtype-206k.data.gz
skip() { echo "SKIP: $*"; exit 77; }

case $mode in
  bo) ;;
  k1sweep) [[ -r $data ]] || skip "$data not found" ;;
  *) echo "usage: test_slurm.sh bo|k1sweep"; exit 2 ;;
esac
[[ $(id -u) -eq 0 ]] || skip "the one-node Slurm cluster runs its daemons as root (scripts/slurm-up.sh)"

export DPBO_SLURM_DIR=${DPBO_SLURM_DIR:-/tmp/dpbo-slurm}
work=$(mktemp -d /tmp/dpbo-test-slurm.XXXXXX)
job=
ref_pid=
was_up=0
grep -q "is UP" <<< "$(SLURM_CONF=$DPBO_SLURM_DIR/slurm.conf timeout 10 scontrol ping 2>/dev/null)" && was_up=1
cleanup() {
  [[ -n $job ]] && scancel "$job" 2>/dev/null
  [[ -n $ref_pid ]] && guard_kill TERM "$ref_pid"
  [[ $was_up -eq 0 ]] && "$src/scripts/slurm-down.sh" 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$work"/*.out; do [[ -f $f ]] && { echo "--- $f"; cat "$f"; }; done
  [[ -n $job ]] && scontrol show job "$job"
  exit 1
}

# 0. The cluster.
t0=$SECONDS
if ! up=$("$src/scripts/slurm-up.sh" 2> "$work/up.log"); then
  cat "$work/up.log"
  skip "cannot start the one-node Slurm cluster (scripts/slurm-up.sh failed, output above)"
fi
cat "$work/up.log"
eval "$up"
t_up=$(( SECONDS - t0 ))
echo "cluster ready after $t_up s (was already up: $was_up); SLURM_CONF=$SLURM_CONF"
srun --mpi=pmix -n 2 hostname > "$work/hostname.out" 2>&1 || { cat "$work/hostname.out"; fail "srun --mpi=pmix -n 2 hostname"; }
[[ $(wc -l < "$work/hostname.out") -eq 2 ]] || fail "srun -n 2 hostname: $(cat "$work/hostname.out")"

# 1. The job and, in parallel, the uninterrupted reference run.
cd "$work" || fail "cd $work"
# Nothing is prepared: the job script creates results/ and its log goes to
# this (the submission) directory, while the script lives in $src/jobs.
if [[ $mode == bo ]]; then
  cat > bo.ini <<EOF
[run]
iterations = 50
seed = 20150706

[space]
kind = sobol
points = 1024
dim.x = linear 0 1
dim.y = linear 0 1

[gp]
kernel = matern52
lengthscale = 0.2
mean = 0.5
signal_std = 0.5
noise_std = 0.01

[objective]
kind = command
command = /bin/sh $src/tests/slurm_objective.sh
timeout_s = 30

[output]
dir = results
EOF
  script=$src/jobs/bo.sbatch
  config=$work/bo.ini
  args=(--set output.name=slurm)
  total=50
  checkpoint=results/slurm.h5
  DPBO_TEST_SLEEP=0 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
    "$mpiexec" -n 2 --oversubscribe "$bin" run "$config" --set output.name=ref \
    > ref.log 2>&1 &
  ref_pid=$!
  export DPBO_TEST_SLEEP=1
else
  script=$src/jobs/k1sweep.sbatch
  config=$src/configs/k1sweep-small.ini
  args=(--set "k1sweep.data=$data" --set k1sweep.models=24 --set output.name=slurm)
  total=24
  checkpoint=results/slurm.partial.h5
  # One BLAS thread per rank, as k1sweep.sbatch sets it for its 1-CPU tasks:
  # the likelihood's last bits depend on the thread count.
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
    "$mpiexec" -n 2 --oversubscribe "$bin" k1sweep "$config" "${args[@]:0:4}" --set output.name=ref \
    > ref.log 2>&1 &
  ref_pid=$!
fi
if [[ $mode == bo ]]; then
  limits=(--time=1 --signal=USR1@15)
else
  limits=(--time=10)   # k1sweep.sbatch's own --signal=USR1@180 comes 6.5 min later
fi
t_submit=$SECONDS
# The job finds the binary itself (build/dpbo of the tree its script is in)
# when that is the binary under test; otherwise it is named by DPBO_BIN.
job_env=(env DPBO_BIN="$bin")
[[ $(realpath "$bin") == "$(realpath -m "$src/build/dpbo")" ]] && job_env=(env -u DPBO_BIN)
job=$("${job_env[@]}" sbatch --parsable --ntasks=2 "${limits[@]}" "$script" "$config" -- "${args[@]}") ||
  fail "sbatch refused the job"
job=${job%%;*}
log=dpbo-${mode}-$job.out
echo "submitted job $job ($script, 2 tasks, ${limits[*]})"

# done_of FILE: the work a checkpoint holds and whether it is final, as "K
# COMPLETE" (bo: the trace's length and the run file's `complete`; k1sweep:
# the models in the partial file, never complete).
done_of() {
  "$python" - "$1" "$mode" <<'PY' 2>/dev/null
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    if sys.argv[2] == "bo":
        print(len(f["trace/index"]), int(f.attrs["complete"]))
    else:
        print(len(f["model"]), 0)
PY
}

# 2. Watch it: the checkpoint while the first run goes, the requeue, the end.
first_ckpt= ; requeue_ckpt= ; restarts=0 ; t_requeue= ; state= ; signalled=
while :; do
  show=$(scontrol show job -o "$job" 2>/dev/null)
  state=$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' <<<"$show")
  restarts=$(sed -n 's/.* Restarts=\([0-9]*\) .*/\1/p' <<<"$show")
  if [[ -z $first_ckpt && $restarts -eq 0 && -f $checkpoint ]]; then
    first_ckpt=$(done_of "$checkpoint")
    [[ -n $first_ckpt ]] && echo "$(( SECONDS - t_submit )) s: checkpoint $checkpoint appeared ($first_ckpt)"
  fi
  if [[ $mode == k1sweep && -z $signalled && $restarts -eq 0 && -f $checkpoint ]]; then
    read -r k _ <<<"$(done_of "$checkpoint")"
    if [[ ${k:-0} -ge 3 ]]; then
      scancel --signal=USR1 "$job" || fail "scancel --signal=USR1 $job"
      signalled=1
      echo "$(( SECONDS - t_submit )) s: SIGUSR1 to the tasks of job $job (checkpoint: $k models)"
    fi
  fi
  if [[ -z $t_requeue && ${restarts:-0} -ge 1 ]]; then
    t_requeue=$(( SECONDS - t_submit ))
    requeue_ckpt=$(done_of "$checkpoint")
    echo "$t_requeue s: job requeued (state $state, restarts $restarts); checkpoint holds: ${requeue_ckpt:-nothing}"
    if [[ $mode == bo ]]; then
      scontrol update JobId="$job" TimeLimit=10 || fail "cannot raise the time limit of job $job"
    fi
  fi
  case $state in
    COMPLETED) break ;;
    FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)
      fail "job $job ended $state" ;;
  esac
  # About 80 s (bo) and 40 s (k1sweep, CPU-bound) on an idle machine;
  # generous for a loaded one.
  (( SECONDS - t_submit < 300 )) || fail "job $job not finished after 300 s (state $state)"
  sleep 1
done
t_done=$(( SECONDS - t_submit ))
echo "$t_done s: job $job COMPLETED after $restarts restart(s)"
[[ -f $log ]] || fail "no job log $log in the submission directory"
cat "$log"

# 3. What the job went through.
grep -q ", binary $(realpath "$bin")\$" "$log" || fail "the job did not run $(realpath "$bin")"
[[ -n $first_ckpt ]] || fail "no checkpoint seen during the first run"
[[ $restarts -ge 1 ]] || fail "the job was not requeued: the signal came after the end of the run?"
read -r k complete <<<"$requeue_ckpt"
[[ -n ${k:-} && $k -gt 0 && $k -lt $total && $complete -eq 0 ]] ||
  fail "checkpoint at the requeue should hold some but not all of $total: '$requeue_ckpt'"
grep -q "interrupted with the checkpoint written; requeueing job $job" "$log" ||
  fail "the log does not show the exit code 4 and the requeue"
[[ $(grep -c "restart [1-9]" "$log") -ge 1 ]] || fail "the log shows no rerun"
if [[ $mode == bo ]]; then
  grep -q "^dpbo run .* --resume on 2 tasks, job $job (restart 1)" "$log" ||
    fail "the rerun was not started with --resume"
  [[ $(done_of "$checkpoint") == "$total 1" ]] || fail "final run file not complete: $(done_of "$checkpoint")"
else
  grep -q "resuming from .*: [0-9]* of $total models" "$log" || fail "the rerun did not resume"
  [[ ! -e $checkpoint ]] || fail "checkpoint left behind after completion"
fi

# 4. The same results as without the interruption.
wait "$ref_pid"
rc=$?
ref_pid=
[[ $rc -eq 0 ]] || { cat ref.log; fail "the uninterrupted reference run exited $rc"; }
"$python" - "$mode" results/ref.h5 results/slurm.h5 <<'PY' || fail "the resumed results differ from the uninterrupted run"
import sys, h5py, numpy as np
mode, ref, got = sys.argv[1:]
with h5py.File(ref, "r") as a, h5py.File(got, "r") as b:
    if mode == "bo":
        names = ["trace/index", "trace/gain"]
    else:
        names = ["models/correct_bits", "models/pool_accuracy", "models/support_vectors", "models/lambda"]
        for m in (200, 400):
            names += [f"m{m}/{n}" for n in ("F_V", "F_Vp", "valid_rows", "neighbour_row", "likelihood/loglik")]
    for name in names:
        x, y = a[name][...], b[name][...]
        assert x.shape == y.shape and np.array_equal(x, y), f"{name}: {x} != {y}"
        print(f"{name}: {x.shape} identical")
PY
echo "timings: cluster ready in $t_up s; requeue seen at $t_requeue s, job done at $t_done s after submission"
echo "PASS"
