#!/usr/bin/env bash
# The test command: installs what is missing, builds with warnings as errors
# and runs CTest (everything but the `slow` label unless DPBO_TEST_ALL=1).
#   tests/run.sh [extra ctest arguments]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/build.sh" -DDPBO_WERROR=ON
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$here/build"
exclude=(-LE slow)
[[ ${DPBO_TEST_ALL:-0} == 1 ]] && exclude=()
ctest --output-on-failure "${exclude[@]}" "$@"
