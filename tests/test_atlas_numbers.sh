#!/usr/bin/env bash
# analysis/atlas_numbers.py (issue #24: every number traceable): the atlas
# table of analysis/RESULTS.md is what the script prints from the committed
# analysis/data/atlas-local.json, row for row; a file that is not an atlas
# data file is refused (exit 2, one message naming it).
set -uo pipefail
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
data=$src/analysis/data/atlas-local.json
"$python" "$src/analysis/atlas_numbers.py" "$data" > "$work/out" 2> "$work/err" ||
  fail "atlas_numbers.py exited $?: $(cat "$work/err")"
# The table's rows: from its header to the first empty line.
sed -n '/^## the RESULTS table/,/^$/p' "$work/out" | grep '^| ' > "$work/rows"
rows=$(wc -l < "$work/rows")
[[ $rows -ge 3 ]] || fail "the script printed no table ($rows lines)"
missing=0
while IFS= read -r row; do
  grep -qxF -- "$row" "$src/analysis/RESULTS.md" || { echo "not in RESULTS.md: $row"; missing=$((missing + 1)); }
done < "$work/rows"
[[ $missing -eq 0 ]] || fail "$missing of $rows table lines of atlas_numbers.py are not in analysis/RESULTS.md"
echo "the $rows lines of the atlas table are in analysis/RESULTS.md as the script prints them"
# Every task of the data file has its row.
tasks=$("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tasks"]))' "$data")
[[ $((rows - 1)) -eq $tasks ]] || fail "$((rows - 1)) task rows (after the header) for $tasks tasks"
echo '{"format": "dpbo compare figure data, version 1"}' > "$work/other.json"
"$python" "$src/analysis/atlas_numbers.py" "$work/other.json" > "$work/out" 2> "$work/err"
rc=$?
[[ $rc -eq 2 ]] || fail "a compare data file: exit $rc, expected 2"
grep -q "other.json: not an atlas data file" "$work/err" || fail "message: $(cat "$work/err")"
echo "a compare data file refused: $(cat "$work/err")"
echo PASS
