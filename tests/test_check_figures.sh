#!/usr/bin/env bash
# scripts/check-figures.py (ctest analysis_figures) on small trees built here:
# each rule of analysis/figures/MANIFEST fails when broken and passes when
# kept (issue #24: every figure traced to committed data, or flagged).
set -uo pipefail
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
t=$work/tree
mkdir -p "$t/analysis/figures/sub" "$t/analysis/data"
printf 'PNG' > "$t/analysis/figures/a.png"
printf '| table |\n' > "$t/analysis/figures/a.md"
# A redraw script: copies the data file into {out} and writes the table next to it.
cat > "$t/analysis/redraw.py" <<'PY'
import os, shutil, sys
data, out = sys.argv[1], sys.argv[3]
shutil.copy(data, out)
if "--no-table" not in sys.argv:
    open(os.path.splitext(out)[0] + ".md", "w").write("| table |\n")
PY
manifest=$t/analysis/figures/MANIFEST
echo 'a.png | analysis/data/a.json | analysis/redraw.py analysis/data/a.json -o {out}' > "$manifest"
printf '# Results\n\n![a](figures/a.png)\n' > "$t/analysis/RESULTS.md"

# expect RC PATTERN: run the check on the tree, exit RC, output matching PATTERN
expect() {
  "$python" "$src/scripts/check-figures.py" "$t" > "$work/out" 2>&1
  local rc=$?
  cat "$work/out"
  [[ $rc -eq $1 ]] || fail "exit $rc, expected $1"
  [[ -z ${2:-} ]] || grep -q -- "$2" "$work/out" || fail "output lacks: $2"
}
echo "== a listed data file is missing"
expect 1 "data file analysis/data/a.json is not in the tree"
echo "== data file present, redraw writes figure and table"
printf '{}' > "$t/analysis/data/a.json"
expect 0 "1 redrawn from committed data"
echo "== the redraw writes no table although the figure has one"
sed -i 's/{out}$/{out} --no-table/' "$manifest"
expect 1 "the redraw wrote no table"
sed -i 's/ --no-table$//' "$manifest"
echo "== the redraw fails"
mv "$t/analysis/redraw.py" "$t/analysis/redraw.off"
expect 1 "a.png: redraw exited"
mv "$t/analysis/redraw.off" "$t/analysis/redraw.py"
echo "== a PNG without a manifest line (in a subfolder)"
printf 'PNG' > "$t/analysis/figures/sub/b.png"
expect 1 "analysis/figures/sub/b.png: no line in analysis/figures/MANIFEST"
echo "== listed untraced, shown in RESULTS without the marker"
echo 'sub/*.png | untraced: never committed | analysis/redraw.py x -o {out}' >> "$manifest"
printf '\n## B\n\n![b](figures/sub/b.png)\n' >> "$t/analysis/RESULTS.md"
expect 1 "the section that shows figures/sub/b.png (untraced) does not say"
echo "== the marker in another section does not count"
printf '\n## C\n\n(data not committed: elsewhere)\n' >> "$t/analysis/RESULTS.md"
expect 1 "figures/sub/b.png (untraced) does not say"
sed -i '/^(data not committed: elsewhere)$/d' "$t/analysis/RESULTS.md"
echo "== the marker in the section that shows it: a NOTICE, and a pass"
sed -i 's|^!\[b\](figures/sub/b.png)$|&\n\n*(data not committed: the run file)*|' "$t/analysis/RESULTS.md"
expect 0 "NOTICE: 1 figure(s) without committed data"
echo "== a marker left where every figure shown is traced"
printf '\n## D\n\n![a](figures/a.png)\n\n(data not committed: stale)\n' >> "$t/analysis/RESULTS.md"
expect 1 "in a section that shows no untraced figure"
sed -i '/^(data not committed: stale)$/d' "$t/analysis/RESULTS.md"
expect 0
echo "== {dir}: a command that draws several figures"
printf 'PNG' > "$t/analysis/figures/a2.png"
echo 'a2.png | analysis/data/a.json | analysis/redraw.py analysis/data/a.json -o {dir}/a2.png --no-table' >> "$manifest"
expect 0 "2 redrawn from committed data"
sed -i 's|{dir}/a2.png|{dir}/other.png|' "$manifest"
expect 1 "a2.png: the redraw wrote no PNG"
sed -i '/^a2.png/d' "$manifest"
rm "$t/analysis/figures/a2.png"
echo "== {dir}: lines with the same command share one run, figures at their paths"
# drawall.py writes every figure of its data into DIR (sub/ included) and
# counts its runs: two lines, one run.
cat > "$t/analysis/drawall.py" <<'PY'
import os, sys
d = sys.argv[2]
os.makedirs(os.path.join(d, "sub"), exist_ok=True)
for name in ("a3.png", "sub/a4.png"):
    open(os.path.join(d, name), "w").write("PNG")
open(os.environ["DRAWALL_RUNS"], "a").write("run\n")
PY
export DRAWALL_RUNS=$work/drawall.runs
printf 'PNG' > "$t/analysis/figures/a3.png"
printf 'PNG' > "$t/analysis/figures/sub/a4.png"
cp "$manifest" "$work/manifest.keep"
echo 'a3.png | analysis/data/a.json | analysis/drawall.py analysis/data/a.json {dir}' >> "$manifest"
echo 'sub/a4.png | analysis/data/a.json | analysis/drawall.py analysis/data/a.json {dir}' >> "$manifest"
sed -i 's|^sub/\*.png|sub/b.png|' "$manifest"
expect 0 "3 redrawn from committed data"
[[ $(wc -l < "$DRAWALL_RUNS") -eq 1 ]] || fail "the shared {dir} command ran $(wc -l < "$DRAWALL_RUNS") times, expected once"
echo "== {dir}: a figure the shared run does not write at its path"
mv "$t/analysis/figures/sub/a4.png" "$t/analysis/figures/a4.png"
sed -i 's|^sub/a4.png|a4.png|' "$manifest"
expect 1 "a4.png: the redraw wrote no PNG"
cp "$work/manifest.keep" "$manifest"
rm "$t/analysis/figures/a3.png" "$t/analysis/figures/a4.png" "$t/analysis/drawall.py"
echo "== a manifest line whose figure does not exist"
echo 'c.png | untraced: gone | analysis/redraw.py x -o {out}' >> "$manifest"
expect 1 "c.png: no such figure"
sed -i '/^c.png/d' "$manifest"
echo "== a malformed line, a glob on a traced line"
echo 'd.png | analysis/data/a.json' >> "$manifest"
expect 2 "expected 'FIGURE | DATA | REDRAW'"
sed -i '/^d.png/d' "$manifest"
echo 'sub/*.png | analysis/data/a.json | analysis/redraw.py analysis/data/a.json -o {out}' >> "$manifest"
expect 2 "a glob (sub/\*.png) is allowed on untraced lines only"
echo PASS
