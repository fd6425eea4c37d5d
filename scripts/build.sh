#!/usr/bin/env bash
# Installs missing Debian packages, configures CMake into build/ and builds.
# Extra arguments go to CMake's configure step (e.g. -DDPBO_SANITIZE=ON).
# DPBO_BUILD_DIR: another build directory; DPBO_BUILD_JOBS: parallel jobs
# (default: the number of cores).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$here/scripts/deps.sh"
build_dir=${DPBO_BUILD_DIR:-$here/build}
cmake -S "$here" -B "$build_dir" "$@" >/dev/null
cmake --build "$build_dir" -j "${DPBO_BUILD_JOBS:-$(nproc)}"
