#!/usr/bin/env bash
# The rough edges a new user met (issue #23, "Clean edges"), one per call:
#   edges.sh CASE
#   csv_header_ranks  a CSV with a header row read by 2 ranks: the note that
#                     the header was skipped reaches the log (only a worker
#                     reads the data), before the label error it explains
#   one_message       bad input under `mpiexec -n 2` (a usage mistake, an
#                     unknown command, a bad config): exit 2, one line from
#                     dpbo on stderr (the usage text no longer follows), no
#                     MPI_ABORT text; what follows is mpiexec's own notice
#                     of a non-zero exit (its "-----" banners), nothing else
#   readme_root_note  README.md: the note on running as root comes before
#                     the first mpiexec example
#   sbatch_fits       jobs/submit.sh, on a partition of one 2-CPU node (a fake
#                     sinfo): jobs/bo.sbatch's 4 tasks are refused at once
#                     with the reason (exit 2, sbatch not called) instead of
#                     a job pending for ever; --ntasks=2 is submitted as given
set -uo pipefail
case_name=$1
bin=${DPBO_BIN:?}
src=${DPBO_SOURCE_DIR:?}
mpiexec=${MPIEXEC:-mpiexec}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

case $case_name in
  csv_header_ranks)
    # The wine table's mistake: a header, the label first, no label_column.
    { echo "class,alcohol,proline"; for i in $(seq 1 30); do echo "$((i % 2 + 1)),0.$i,$((100 + i))"; done; } > d.csv
    cat > run.ini <<INI
[run]
iterations = 2
[space]
kind = sobol
points = 16
dim.C = log 0.1 10
dim.gamma = log 0.01 1
[gp]
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $work/d.csv
train_rows = 20
validation_rows = 10
[output]
dir = $work/out
name = run
INI
    for np in 1 2 3; do
      timeout -k 10 120 "$mpiexec" -n $np --oversubscribe "$bin" run run.ini > out.txt 2> err.txt
      code=$?
      n=$(grep -c "d.csv:1: a header row (it is not all numbers), skipped" out.txt)
      [[ $code -eq 2 ]] || { echo "FAIL: $np ranks: exit code $code, expected 2"; fail=1; }
      [[ $n -eq 1 ]] || { echo "FAIL: $np ranks: the header note is printed $n times, expected once"; fail=1; }
      grep -q "the label column holds 30 distinct values" err.txt || { echo "FAIL: $np ranks: no label error"; fail=1; }
      echo "--- $np ranks: stdout:"; cat out.txt; echo "--- stderr:"; cat err.txt
    done ;;
  one_message)
    printf '[run]\niterations = 3\nsede = 1\n' > bad.ini
    check_one() { # check_one EXPECTED_LINE_REGEX DPBO_ARGS...
      local want=$1; shift
      timeout -k 10 120 "$mpiexec" -n 2 --oversubscribe "$bin" "$@" > out.txt 2> err.txt
      local code=$?
      echo "--- mpiexec -n 2 dpbo $*: exit $code, stderr:"; cat err.txt
      # dpbo's part of stderr: the lines before mpiexec's first banner.
      local ours
      ours=$(sed '/^-----/,$d' err.txt)
      [[ $code -eq 2 ]] || { echo "FAIL: exit code $code, expected 2"; fail=1; }
      [[ $(grep -c . <<< "$ours") -eq 1 ]] || { echo "FAIL: dpbo printed $(grep -c . <<< "$ours") lines on stderr, expected 1"; fail=1; }
      grep -Eq "^dpbo: error: $want" <<< "$ours" || { echo "FAIL: stderr does not begin with /dpbo: error: $want/"; fail=1; }
      ! grep -q "MPI_ABORT" err.txt || { echo "FAIL: MPI_ABORT text"; fail=1; }
    }
    check_one "dpbo run: missing CONFIG \(dpbo run --help shows its usage\)" run
    check_one "dpbo run: unexpected argument '--bogus'" run bad.ini --bogus
    check_one "dpbo info: missing FILE.h5" info
    check_one "unknown command 'frobnicate'" frobnicate
    check_one "bad.ini: " run bad.ini
    ;;
  readme_root_note)
    readme=$src/README.md
    # The first command line that starts mpiexec, and the first that allows root.
    first_mpiexec=$(grep -nE '^\s*mpiexec ' "$readme" | head -n 1 | cut -d: -f1)
    root_note=$(grep -nE '^\s*export OMPI_ALLOW_RUN_AS_ROOT=1' "$readme" | head -n 1 | cut -d: -f1)
    echo "first mpiexec: line ${first_mpiexec:-none}; first OMPI_ALLOW_RUN_AS_ROOT: line ${root_note:-none}"
    if [[ -z $root_note || -z $first_mpiexec || $root_note -gt $first_mpiexec ]]; then
      echo "FAIL: the root note must come before the first mpiexec"; fail=1
    fi ;;
  sbatch_fits)
    # A fake Slurm: one 2-CPU node with 3800 MB in partition test (time
    # limit 1 h); sbatch records its arguments.
    mkdir bin
    cat > bin/sinfo <<'FAKE'
#!/bin/bash
case "$*" in
  "-h -o %P") echo "test*" ;;
  "-h -N -p test -o %c %m") echo "2 3800" ;;
  "-h -p test -o %l") echo "1:00:00" ;;
  *) echo "fake sinfo: unexpected arguments: $*" >&2; exit 1 ;;
esac
FAKE
    printf '#!/bin/bash\necho "sbatch $*" > "%s/sbatch.args"\necho "Submitted batch job 7"\n' "$work" > bin/sbatch
    chmod +x bin/sinfo bin/sbatch
    submit=$src/jobs/submit.sh
    [[ -x $submit ]] || { echo "FAIL: no jobs/submit.sh"; exit 1; }
    try() { # try EXPECTED_CODE ARGS...: runs submit.sh, checks the code
      local want=$1; shift
      rm -f sbatch.args
      PATH=$work/bin:$PATH "$submit" "$@" > out.txt 2> err.txt
      local code=$?
      echo "--- jobs/submit.sh $*: exit $code"; cat out.txt err.txt
      [[ $code -eq $want ]] || { echo "FAIL: exit code $code, expected $want"; fail=1; }
    }
    try 2 "$src/jobs/bo.sbatch" configs/demo.ini
    grep -q "asks for 4 tasks x 1 CPU on one node, but the largest node of partition test has 2 CPUs (ask for at most --ntasks=2)" err.txt \
      || { echo "FAIL: no reason naming the tasks and the node's CPUs"; fail=1; }
    [[ ! -e sbatch.args ]] || { echo "FAIL: sbatch was called"; fail=1; }
    try 0 --ntasks=2 "$src/jobs/bo.sbatch" configs/demo.ini
    grep -qx "sbatch --ntasks=2 $src/jobs/bo.sbatch configs/demo.ini" sbatch.args || { echo "FAIL: sbatch not called as given"; fail=1; }
    # Memory and time: 2 tasks x 3G > 3800 MB; 2 h > 1 h.
    try 2 -n 2 --mem-per-cpu=3G --time=02:00:00 "$src/jobs/bo.sbatch"
    grep -q "asks for 6144 MB of memory" err.txt || { echo "FAIL: no memory reason"; fail=1; }
    grep -q "asks for --time=02:00:00, but partition test allows at most 1:00:00" err.txt || { echo "FAIL: no time reason"; fail=1; }
    # k1sweep.sbatch's 32 tasks x 2G, refused for both.
    try 2 "$src/jobs/k1sweep.sbatch"
    grep -q "asks for 32 tasks" err.txt || { echo "FAIL: k1sweep.sbatch's 32 tasks not refused"; fail=1; }
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
exit $fail
