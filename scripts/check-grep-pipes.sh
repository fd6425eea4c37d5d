#!/usr/bin/env bash
# Fails when a shell test pipes a command into grep -q (`cmd | grep -q PAT`,
# also -qE, -Eq, -E -q, --quiet), naming each file and line. Tests run under
# `set -euo pipefail`: grep -q exits at its first match, a command that
# writes more afterwards dies of SIGPIPE and the pipeline fails now and then.
# Write  grep -q PAT <<< "$(cmd)"  instead (or capture the output first).
# Usage: scripts/check-grep-pipes.sh [DIR...]  (default: tests jobs scripts)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
dirs=("$@")
[[ ${#dirs[@]} -gt 0 ]] || dirs=(tests jobs scripts)
# A single | (not ||), then grep with a quiet option among its options.
pattern='(^|[^|])\|[[:space:]]*grep([[:space:]]+-[-a-zA-Z]+)*[[:space:]]+(-[a-zA-Z]*q[a-zA-Z]*|--quiet)([[:space:]]|$)'
hits=$(grep -rnE --include='*.sh' --include='*.bash' --include='*.sbatch' --exclude=check-grep-pipes.sh --include='*.cmake' --include='CMakeLists.txt' \
  -- "$pattern" "${dirs[@]}" || true)
if [[ -n $hits ]]; then
  printf '%s\n' "$hits"
  echo "check-grep-pipes: 'cmd | grep -q' above: write  grep -q PAT <<< \"\$(cmd)\"  (SIGPIPE under pipefail)" >&2
  exit 1
fi
echo "check-grep-pipes: no 'cmd | grep -q' pipeline in ${dirs[*]}"
