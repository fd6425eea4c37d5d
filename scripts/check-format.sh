#!/usr/bin/env bash
# Fails when a C source or header of the repository differs from what
# clang-format (Debian 12's clang-format 14, .clang-format at the root) makes
# of it, naming each file and line. Fix with:  scripts/check-format.sh --fix
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format not found (scripts/deps.sh --tests installs it)" >&2; exit 2; }
# The tracked files when this is a git checkout, else every C file under the folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'include/*.h.in' \
    'tests/*.c' 'tests/*.h' 'tests/*.cpp' 'bench/*.c')
else
  mapfile -t files < <(find src include tests bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.h.in' -o -name '*.cpp' \) | sort)
fi
if [[ ${1:-} == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
clang-format --dry-run --Werror "${files[@]}"
echo "check-format: ${#files[@]} files formatted as .clang-format says"
