#!/usr/bin/env bash
# docs/dpbo.1 is the man page scripts/make-man.py makes from `dpbo --help`
# and cmake/dpbo.1.in: fails when the committed page differs (and says how to
# regenerate it), when a section is missing, or when groff warns about it.
set -uo pipefail
bin=${DPBO_BIN:?}
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
"$python" "$src/scripts/make-man.py" "$bin" "$src/cmake/dpbo.1.in" "$work/dpbo.1" \
  || { echo "FAIL: scripts/make-man.py exited $?"; exit 1; }
if ! diff -u "$src/docs/dpbo.1" "$work/dpbo.1"; then
  echo "FAIL: docs/dpbo.1 differs from the page made from dpbo --help (diff above: committed -> generated)."
  echo "      Regenerate it from the source tree after building:"
  echo "        python3 scripts/make-man.py build/dpbo cmake/dpbo.1.in docs/dpbo.1"
  fail=1
fi
for section in NAME SYNOPSIS DESCRIPTION COMMANDS FILES '"EXIT STATUS"' ENVIRONMENT EXAMPLES '"SEE ALSO"'; do
  grep -qx ".SH $section" "$work/dpbo.1" || { echo "FAIL: no section $section"; fail=1; }
done
# Every command of the help is in COMMANDS.
for cmd in run release utility compare audit k1sweep info config; do
  grep -q "^\\\\fBdpbo $cmd\\\\fR" "$work/dpbo.1" || { echo "FAIL: no entry for dpbo $cmd"; fail=1; }
done
# groff's warnings (all of them: -ww) on the page, rendered as man(1) would.
if command -v groff > /dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$work/dpbo.1" 2>&1)
  [[ -z $warnings ]] || { echo "FAIL: groff warns:"; echo "$warnings"; fail=1; }
  # No line of the rendered page longer than the 80 columns it is set for.
  long=$(MANWIDTH=80 groff -man -Tutf8 -rLL=80n "$work/dpbo.1" 2> /dev/null | sed 's/\x1b\[[0-9;]*m//g; s/.\x08//g' | awk 'length > 80' | head -3)
  [[ -z $long ]] || { echo "FAIL: rendered lines over 80 columns:"; echo "$long"; fail=1; }
else
  echo "(groff not installed: the page is not linted)"
fi
[[ $fail -eq 0 ]] && echo "docs/dpbo.1 matches dpbo --help; all sections present; groff -ww is silent"
exit $fail
