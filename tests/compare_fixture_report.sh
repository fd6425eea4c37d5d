#!/usr/bin/env bash
# tests/compare_fixture.sh's failure report, on small scripts that source it
# (no dpbo run): a passing script leaves no scratch folder; a command that
# stops a script under set -e is named (file, line, the function it ran in
# and its caller, exit status, a signal by name), a `set +e` section's own
# failure is not, and the folder is kept and named with its files.
set -uo pipefail
src=${DPBO_SOURCE_DIR:?}
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# run NAME BODY: a script NAME.sh sourcing the fixture, then BODY; its output
# in $base/NAME.out, its exit status in rc, its scratch folders in $base/tmp.
run() {
  mkdir -p "$base/tmp"
  printf 'set -euo pipefail\nsource "%s/tests/compare_fixture.sh"\ncompare_fixture_start\n%s\n' \
    "$src" "$2" > "$base/$1.sh"
  TMPDIR=$base/tmp DPBO_BIN=/bin/true DPBO_SOURCE_DIR=$src bash "$base/$1.sh" > "$base/$1.out" 2>&1
  rc=$?
  cat "$base/$1.out"
}
has() { grep -qF -- "$2" "$base/$1.out" || fail "$1: the output does not say '$2'"; }

run pass 'echo data > a.txt
set +e
false
set -e'
[[ $rc -eq 0 ]] || fail "pass: exit $rc"
[[ -z $(ls -A "$base/tmp") ]] || fail "pass: the scratch folder was left: $(ls -A "$base/tmp")"
! grep -q FAIL "$base/pass.out" || fail "pass: a set +e failure was reported"

run killed 'echo data > a.txt
sh -c "kill -9 \$\$"'
[[ $rc -eq 137 ]] || fail "killed: exit $rc, expected 137"
has killed "FAIL: killed.sh:5: 'sh -c "
has killed "' exited 137 (signal KILL)"
folder=$(sed -n 's/.*its files are kept in \(.*\):$/\1/p' "$base/killed.out")
[[ $folder == "$base"/tmp/dpbo-killed.* && -s $folder/a.txt ]] || fail "killed: folder '$folder' not kept"
has killed "  a.txt (5 bytes)"
has killed "FAIL: killed.sh exit 137 after "

run nested 'step() { cmp <(echo 1) <(echo 2); }
step'
[[ $rc -eq 1 ]] || fail "nested: exit $rc, expected 1"
has nested "FAIL: nested.sh:4 (in step, called from nested.sh:5): 'cmp <(echo 1) <(echo 2)' exited 1"
echo "compare_fixture_report: ok"
