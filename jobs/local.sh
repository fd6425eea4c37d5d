#!/usr/bin/env bash
# Runs the main dpbo job on this machine: sets everything up (Debian packages,
# build) and runs `dpbo run CONFIG` on NPROCS MPI ranks.
#   jobs/local.sh [CONFIG] [NPROCS] [-- extra dpbo arguments, e.g. --set run.iterations=10]
# Defaults: configs/demo.ini on 2 ranks.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
config=${1:-$here/configs/demo.ini}
nprocs=${2:-2}
shift $(( $# < 2 ? $# : 2 ))
[[ ${1:-} == "--" ]] && shift

"$here/scripts/build.sh"
# Open MPI refuses root unless told; more ranks than cores need oversubscribe.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpiexec -n "$nprocs" --oversubscribe "$here/build/dpbo" run "$config" "$@"
