#!/usr/bin/env bash
# docs/config.md is the output of `dpbo config --list --markdown` (the key
# table, src/run/config_keys.c): fails when the committed file differs and
# says how to regenerate it.
set -uo pipefail
bin=${DPBO_BIN:?}
doc=${DPBO_SOURCE_DIR:?}/docs/config.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" config --list --markdown > "$work/config.md" || { echo "FAIL: dpbo config --list --markdown exited $?"; exit 1; }
if ! diff -u "$doc" "$work/config.md"; then
  echo "FAIL: docs/config.md differs from the key table (diff above: committed -> generated)."
  echo "      Regenerate it from the source tree after building:"
  echo "        build/dpbo config --list --markdown > docs/config.md"
  exit 1
fi
echo "docs/config.md matches dpbo config --list --markdown"
