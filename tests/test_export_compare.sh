#!/usr/bin/env bash
# analysis/export_compare.py and the compare figure from committed data
# (issue #24), on a tiny dpbo compare (the blobs of tests/make_blobs.py,
# N = 32, T = 4, R = 12, two epsilons, seeded noise; seconds) at delta = 1e-6
# and, through compare.table, at 0.05:
#  - both files exported into one data file (small: < 150 kB, the table once),
#    whose cells give back every method's index, accuracies, evaluations
#    exactly and its released values to 6 significant digits;
#  - plot_compare.py draws the figure and writes the same tables from the
#    data file as from the HDF5 files;
#  - every cell of the tables against an independent numpy computation on
#    the HDF5 files: the guarantee (pure when delta_accounted = 0), mean ±
#    s.e., median, quartiles, and for the stopping methods the shares of
#    repetitions with K = 1 and K <= 3 with their 95% Clopper-Pearson
#    intervals (by bisection on the binomial tail here, not scipy's beta);
#    the landscape line (best validation accuracy, shares within one point);
#  - scripts/check-figures.py passes a manifest line drawing a figure and its
#    table from the data file, and fails once the data file is gone;
#  - a file that is not a compare file, or a missing one, exits 2.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start

compare_fixture_blobs cmp.ini privacy.delta=1e-6 compare.repetitions=12 output.name=main
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet --set compare.table="$work/out/main.h5" \
  --set privacy.delta=0.05 --set output.name=second

"$py" "$src/analysis/export_compare.py" out/main.h5 out/second.h5 -o data/cmp.json \
  --command "mpiexec -n 1 dpbo compare cmp.ini"
"$py" "$src/analysis/plot_compare.py" data/cmp.json -o json/fig.png --table > json.out
"$py" "$src/analysis/plot_compare.py" out/second.h5 out/main.h5 -o h5/fig.png --table > h5.out
cat json/fig.md
[[ -s json/fig.png && -s h5/fig.png ]] || { echo "FAIL: no figure"; exit 1; }
cmp json/fig.md h5/fig.md || { echo "FAIL: the tables from the data file and the HDF5 files differ"; exit 1; }

"$py" - data/cmp.json json/fig.md out/main.h5 out/second.h5 <<'PY'
import json
import math
import os
import re
import sys

import h5py
import numpy as np

data, md = sys.argv[1], open(sys.argv[2]).read()
size = os.path.getsize(data)
assert size < 150_000, size
doc = json.load(open(data))
assert len(doc["files"]) == 2 and doc["files"][1]["table"] == {"same_as_file": 0}
assert doc["files"][0]["provenance"]["command"] == "mpiexec -n 1 dpbo compare cmp.ini"


def binom_sf(k, n, p):  # P(X >= k), X ~ Binomial(n, p)
    return sum(math.comb(n, i) * p**i * (1 - p)**(n - i) for i in range(k, n + 1))


def cp(k, n, a=0.025):
    """Clopper-Pearson: lo solves P(X >= k | lo) = a, hi solves P(X <= k | hi) = a."""
    def solve(f):
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < a else (lo, mid)
        return (lo + hi) / 2
    low = 0.0 if k == 0 else solve(lambda p: binom_sf(k, n, p))
    high = 1.0 if k == n else 1 - solve(lambda q: binom_sf(n - k, n, q))
    return low, high


sections = md.split("### ")[1:]
assert len(sections) == 2 and sections[0].startswith("main.h5: delta = 1e-06"), [s[:30] for s in sections]
row = re.compile(r"^\| ([0-9.e+-]+) \| ([a-z_0-9]+) \| ([^|]+) \| ([0-9.]+) ± ([0-9.]+) \| ([0-9.]+) \| "
                 r"([0-9.]+) \| ([0-9.]+) \| ([^|]*) \| ([^|]*) \|$", re.M)
share = re.compile(r"(\d+)/(\d+) = ([0-9.]+) \[([0-9.]+), ([0-9.]+)\]")
for entry, section, path in zip(doc["files"], sections, sys.argv[3:]):
    with h5py.File(path, "r") as f:
        names = f["methods"].attrs["names"]
        names = (names.decode() if isinstance(names, bytes) else names).split(",")
        eps, test, val = f["methods/epsilon"][:], f["methods/test_accuracy"][:], f["methods/val_accuracy"][:]
        index, K, rel = f["methods/index"][:], f["methods/evaluations"][:], f["methods/released_value"][:]
        da, ea = f["accounting/delta_accounted"][:], f["accounting/epsilon_accounted"][:]
        tval, ttest = f["table/val_accuracy"][:], f["table/test_accuracy"][:]
    # the data file's cells are the file's
    for k, name in enumerate(names):
        rec = entry["methods"][name]
        if not rec.get("applicable", True):
            assert np.all(index[k] == -1)
            continue
        got = np.broadcast_to(np.array(rec["index"]), index[k].shape)
        assert np.array_equal(got, index[k]), name
        r = np.broadcast_to(np.array(rec["released_value"], dtype=float), rel[k].shape)
        assert np.allclose(r, rel[k], rtol=5e-6, atol=0, equal_nan=True), name
        ev = np.broadcast_to(np.array(rec["evaluations"], dtype=float), K[k].shape)
        assert np.array_equal(ev, K[k]), name
    checked = 0
    for e, name, guar, mean, se, med, q1, q3, k1, k3 in row.findall(section):
        k, j = names.index(name), list(eps).index(float(e))
        x = test[k][j]
        want = [x.mean(), x.std(ddof=1) / np.sqrt(len(x)), *np.percentile(x, [50, 25, 75])]
        got = [float(v) for v in (mean, se, med, q1, q3)]
        assert np.allclose(got, want, atol=5.1e-5, rtol=0), (path, e, name, got, want)
        g = ("non-private" if np.all(ea[k] == 0) else
             "pure (eps, 0)" if np.all(da[k] == 0) else "approximate (eps, delta)")
        assert guar.strip() == g, (name, guar, g)
        if name in ("liu_talwar", "papernot_steinke"):
            for text, hit in ((k1, K[k][j] == 1), (k3, K[k][j] <= 3)):
                c, n, p, lo, hi = share.match(text.strip()).groups()
                wlo, whi = cp(int(hit.sum()), len(hit))
                assert int(c) == hit.sum() and int(n) == len(hit), (name, text)
                assert abs(float(p) - hit.mean()) <= 0.0051, (name, text)
                assert abs(float(lo) - wlo) <= 0.0051 and abs(float(hi) - whi) <= 0.0051, (name, text, wlo, whi)
        else:
            assert not k1.strip() and not k3.strip(), (name, k1, k3)
        checked += 1
    assert checked == 2 * len([n for n in names if n != "dpbo_algorithm3"]), checked
    # the guided method (issue #26): a row at each epsilon, (eps, delta) approximate
    guided = [r for r in row.findall(section) if r[1] == "guided"]
    assert len(guided) == 2 and all(r[2].strip() == "approximate (eps, delta)" for r in guided), guided
    assert entry["methods"]["guided"]["guarantee"] == "approximate (eps, delta)"
    best = tval.max()
    line = (f"best validation accuracy {best:.4f} (test {ttest[np.argmax(tval)]:.4f} there), "
            f"best test accuracy {ttest.max():.4f}; within one point of the best: "
            f"{100 * np.mean(tval >= best - 0.01):.1f}% on validation, "
            f"{100 * np.mean(ttest >= ttest.max() - 0.01):.1f}% on test")
    assert line in section, (line, section)
print(f"test_export_compare: {size} bytes of data; every table cell matches the HDF5 files")
PY

# scripts/check-figures.py on a tree whose figure is drawn from the data file.
t=$work/tree
mkdir -p "$t/analysis/figures" "$t/analysis/data" "$t/scripts"
cp "$src/analysis/plot_compare.py" "$src/analysis/export_compare.py" "$src/analysis/git_tree.py" "$t/analysis/"
cp data/cmp.json "$t/analysis/data/cmp.json"
cp json/fig.png "$t/analysis/figures/cmp.png"
cp json/fig.md "$t/analysis/figures/cmp.md"
echo 'cmp.png | analysis/data/cmp.json | analysis/plot_compare.py analysis/data/cmp.json -o {out} --table' \
  > "$t/analysis/figures/MANIFEST"
printf '# Results\n\n![c](figures/cmp.png)\n' > "$t/analysis/RESULTS.md"
"$py" "$src/scripts/check-figures.py" "$t"
rm "$t/analysis/data/cmp.json"
set +e
"$py" "$src/scripts/check-figures.py" "$t" > check.out 2>&1
rc=$?
set -e
[[ $rc -eq 1 ]] && grep -q "data file analysis/data/cmp.json is not in the tree" check.out || {
  echo "FAIL: check-figures without the data file: exit $rc"; cat check.out; exit 1; }

# Refusals: not a compare file, a missing file.
"$py" -c "import h5py; h5py.File('plain.h5', 'w').create_dataset('x', data=[1])"
echo '{"format": "something else"}' > other.json
for bad in plain.h5 missing.h5; do
  compare_fixture_refused 2 bad.json -- "$py" "$src/analysis/export_compare.py" "$bad" -o bad.json
done
for bad in plain.h5 other.json missing.json; do
  compare_fixture_refused 2 bad.png -- "$py" "$src/analysis/plot_compare.py" "$bad" -o bad.png
done
echo "test_export_compare: ok"
