#!/usr/bin/env bash
# Runs the main dpbo job on this machine: sets everything up (Debian packages,
# build) and runs `dpbo run CONFIG` on NPROCS MPI ranks.
#   jobs/local.sh [CONFIG] [NPROCS] [-- extra dpbo arguments, e.g. --set run.iterations=10]
# Defaults: configs/demo.ini on 2 ranks. DPBO_BIN: another binary (no build).
#
# The demo (no CONFIG, or configs/demo.ini) is rerun with --overwrite, so
# that the main command works every time: it replaces results/demo.h5 and its
# release files. Any other finished run file is kept: dpbo refuses to replace
# it unless you pass `-- --overwrite`.
#
# SIGTERM, SIGINT (Ctrl-C) or SIGHUP to this script stops the run with its
# checkpoint written and exit code 4, as for SIGUSR1: it is passed on to
# mpiexec as SIGUSR1, which Open MPI forwards to every rank (Open MPI's
# mpiexec itself answers SIGTERM or SIGINT by killing the ranks and exits 1).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=${1:-$here/configs/demo.ini}
nprocs=${2:-2}
shift $(( $# < 2 ? $# : 2 ))
[[ ${1:-} == "--" ]] && shift

extra=()
if [[ $(realpath -m "$config") == "$here/configs/demo.ini" ]] && [[ " $* " != *" --resume "* ]] &&
   [[ " $* " != *" --overwrite "* ]]; then
  extra=(--overwrite)
  echo "jobs/local.sh: the demo replaces its earlier run file and release files (--overwrite)"
fi
bin=${DPBO_BIN:-}
if [[ -z $bin ]]; then
  "$here/scripts/build.sh"
  bin=$here/build/dpbo
fi
# Open MPI refuses root unless told; more ranks than cores need oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# mpiexec in a process group of its own (set -m), so that Ctrl-C in a
# terminal reaches only this script, which turns it into SIGUSR1; stdin is
# not the terminal's, which a background group may not read.
set -m
mpiexec -n "$nprocs" --oversubscribe "$bin" run "$config" "${extra[@]}" "$@" < /dev/null &
launcher=$!
set +m
stopping=0
trap 'stopping=1; kill -USR1 "$launcher" 2>/dev/null || true' TERM INT HUP
# `wait` returns early when a trapped signal arrives: then wait again for
# mpiexec's own exit code.
code=0
wait "$launcher" || code=$?
while (( stopping == 1 )); do
  stopping=2
  code=0
  wait "$launcher" || code=$?
done
exit "$code"
