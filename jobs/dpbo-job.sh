# Shared by the job scripts of jobs/ (sourced, not run). Slurm runs a copy of
# a batch script from its spool directory, so the script cannot find its
# folder from $0; each job script first finds its own path through
# `scontrol show job` (dpbo_job_script below is repeated in each, three lines)
# and then sources this file from beside it.
#
# What a job needs, wherever it was submitted from and whether dpbo runs
# from a source tree or an installed prefix:
#   dpbo_job_start DIR   cd to the submission directory, create results/,
#                        one BLAS thread per CPU of the task, root allowed;
#                        says the BLAS core setting in the job log
#   dpbo_job_bin DIR     the dpbo binary: $DPBO_BIN, else DIR/../build/dpbo
#                        (a source tree), else DIR/../../../bin/dpbo (an
#                        installed prefix: share/dpbo/jobs), else dpbo on PATH
#   dpbo_job_file DIR F  a default file named relative to the repository
#                        (configs/..., analysis/...): F in the submission
#                        directory if it is there, else beside the job scripts

dpbo_job_start() {
  cd "${SLURM_SUBMIT_DIR:-.}" || return 1
  mkdir -p results || return 1
  # Open MPI refuses root unless told (Slurm test clusters often run as root).
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # One BLAS thread per CPU of the task: more would compete for the task's
  # cores, and the thread count changes the last bits of LAPACK's results
  # (where Slurm does not bind tasks, OpenBLAS would start a thread per core).
  export OPENBLAS_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1} OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
  # OpenBLAS's kernels: on a CPU model it does not know, OpenBLAS falls back
  # to weak ones (Prescott: dgemm 3.5x slower on an AVX-512 VM, issue #24),
  # and each dpbo rank starts itself again with OPENBLAS_CORETYPE set to the
  # best core the CPU runs; a set OPENBLAS_CORETYPE is kept (warned about if
  # weaker), DPBO_BLAS_CORE=keep keeps OpenBLAS's choice (src/base/blas.h).
  # The log says which: here the setting, and in dpbo's start-up header
  # ("dpbo: BLAS: OpenBLAS 0.3.21, core SkylakeX, ...") the core it runs.
  # (Not `dpbo --version` here: outside srun it would start MPI as a
  # singleton in the batch shell.)
  echo "dpbo job: BLAS kernels: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset (dpbo chooses the best core of the CPU)}, DPBO_BLAS_CORE=${DPBO_BLAS_CORE:-auto}; CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
}

dpbo_job_bin() {
  local dir=$1 candidate
  if [[ -n ${DPBO_BIN:-} ]]; then
    echo "$DPBO_BIN"
    return 0
  fi
  for candidate in "$dir/../build/dpbo" "$dir/../../../bin/dpbo"; do
    [[ -x $candidate ]] && { realpath "$candidate"; return 0; }
  done
  command -v dpbo && return 0
  echo "dpbo job: no dpbo binary: not in $dir/../build (run scripts/build.sh there)," \
    "not installed beside this script, not on PATH; or set DPBO_BIN" >&2
  return 1
}

dpbo_job_file() {
  local dir=$1 file=$2
  if [[ -e $file || $file == /* ]]; then
    echo "$file"
  else
    realpath -m "$dir/../$file"
  fi
}
