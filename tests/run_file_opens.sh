#!/usr/bin/env bash
# How the files of a run are opened (issue #27, item 10). Rank 0 writes the
# run file, its checkpoints, the ledger's update and the release files
# alone, so no MPI-IO: Open MPI's file layer reopened the temporary file by
# name with O_RDWR|O_CREAT and without O_NOFOLLOW (a symbolic link planted
# at that name in the moment between would have been followed) and created
# a predictable "<tmp>.locktest.0" beside it. Under strace, a 2-rank run
# with a release must open every temporary file (".<name>.tmp.<12>") only
# with O_EXCL and O_NOFOLLOW, and create no "*locktest*" file.
# (dpbo k1sweep's final file, written by every rank, still goes through
# MPI-IO.)
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
command -v strace > /dev/null || { echo "SKIP: strace is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > run.ini <<INI
[run]
iterations = 4
seed = 1
[space]
kind = sobol
points = 64
dim.x1 = linear -5 10
dim.x2 = linear 0 15
[gp]
kernel = se
lengthscale = 0.3
signal_std = 50
noise_std = 1
[objective]
kind = synthetic
function = branin
[privacy]
algorithm = 1
epsilon = 1.0
delta = 0.1
[output]
dir = $work/out
name = run
INI
strace -f -qq -e trace=open,openat,openat2,creat -o trace.txt \
  "$mpiexec" -n 2 --oversubscribe "$bin" run run.ini --quiet < /dev/null > out.txt 2>&1
code=$?
[[ $code -eq 0 ]] || { cat out.txt; echo "FAIL: the run exited $code"; exit 1; }
[[ -e out/run.release.json ]] || { echo "FAIL: no release was written"; exit 1; }
fail=0
temps=$(grep -E "\"$work/out/\\.run(\\.release)?\\.(h5|json)\\.tmp\\.[A-Za-z0-9]{12}\"" trace.txt)
[[ -n $temps ]] || { echo "FAIL: strace saw no temporary file opened"; exit 1; }
bad=$(grep -v 'O_EXCL' <<< "$temps"; grep -v 'O_NOFOLLOW' <<< "$temps")
if [[ -n $bad ]]; then
  echo "FAIL: a temporary file was opened by name without O_EXCL|O_NOFOLLOW:"
  sort -u <<< "$bad" | head -5
  fail=1
fi
if grep -q 'locktest' trace.txt; then
  echo "FAIL: a *locktest* file was opened:"
  grep 'locktest' trace.txt | head -3
  fail=1
fi
[[ -z $(find "$work/out" -name '*locktest*' | head -1) ]] || { echo "FAIL: a *locktest* file is left"; fail=1; }
[[ $fail -eq 0 ]] && echo "run file opens OK: $(wc -l <<< "$temps") opens of temporary files, each O_EXCL|O_NOFOLLOW; no locktest file"
exit $fail
