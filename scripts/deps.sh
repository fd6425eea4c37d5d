#!/usr/bin/env bash
# Installs the Debian packages dpbo needs, only those that are missing.
# Used by jobs/local.sh and tests/run.sh so that both work on a fresh machine.
#   scripts/deps.sh            what building and running dpbo needs
#   scripts/deps.sh --tests    that and the test stages' tools (tests/run.sh)
#   scripts/deps.sh PKG...     these packages instead (scripts/slurm-up.sh)
set -euo pipefail

packages=(
  build-essential cmake pkg-config groff-base  # groff: the man page's lint (test man_page)
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libscalapack-openmpi-dev liblapacke-dev libopenblas-dev
  libsvm-dev libsvm-tools liblinear-dev
  libinih-dev zlib1g-dev libsodium-dev libpcg-cpp-dev
  python3 python3-numpy python3-scipy python3-h5py python3-matplotlib
  python3-sklearn  # the model programs of examples/hard/ (configs/compare-mlp-fashion.ini, ...)
  dataset-fashion-mnist  # the Fashion-MNIST IDX files (configs/compare-fashion.ini)
)
# The test stages: valgrind (memcheck of the demo), clang with its runtime
# libraries (libclang_rt.fuzzer and the sanitizers of Debian 12's clang 14
# are in libclang-rt-14-dev) for the libFuzzer targets, strace (kills timed
# to a write, tests/run_storm.sh), clang-format (the format check).
if [[ ${1:-} == --tests ]]; then
  packages+=(valgrind clang libclang-rt-14-dev clang-format strace)
elif [[ $# -gt 0 ]]; then
  packages=("$@")
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "dpbo: installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "dpbo: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
