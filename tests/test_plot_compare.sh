#!/usr/bin/env bash
# analysis/plot_compare.py end to end (issue #13): a tiny dpbo compare (the
# blobs of tests/make_blobs.py, N = 32, T = 4, R = 6, two epsilons, seeded
# noise) at delta = 1e-6 and at delta = 0.05, then
#  - both files as one figure (a real PNG, two rows of panels) and the
#    tables: the smaller delta first, and every "mean ± s.e., median, q1, q3"
#    cell equal to the statistics computed here from the files with numpy;
#  - one file alone, as before (today's compare files keep working);
#  - files of two different accuracy tables (another split) refused, exit 2;
#    a file that is not a compare file refused, exit 2.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start

compare_fixture_blobs cmp.ini privacy.delta=1e-6 output.name=main
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet --set privacy.delta=0.05 --set output.name=second
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet --set objective.split_seed=6 --set output.name=other

# Two deltas, given in the "wrong" order: the figure and the tables put 1e-6 first.
"$py" "$src/analysis/plot_compare.py" out/second.h5 out/main.h5 -o fig.png --table > table.md
cat table.md
"$py" - fig.png table.md out/main.h5 out/second.h5 <<'PY'
import re
import sys

import h5py
import matplotlib.image
import numpy as np

png, table = sys.argv[1], open(sys.argv[2]).read()
img = matplotlib.image.imread(png)
assert img.shape[0] > 800 and img.shape[1] > 1200, img.shape  # two rows of three panels
assert img[..., :3].std() > 0.05, "blank figure"
sections = table.split("### ")[1:]
assert len(sections) == 2, len(sections)
assert sections[0].startswith("main.h5: delta = 1e-06") and sections[1].startswith("second.h5: delta = 0.05"), \
    [s[:40] for s in sections]
checked = 0
for section, path in zip(sections, sys.argv[3:]):
    with h5py.File(path, "r") as f:
        names = f["methods"].attrs["names"]
        names = (names.decode() if isinstance(names, bytes) else names).split(",")
        eps, test = f["methods/epsilon"][:], f["methods/test_accuracy"][:]
    for e, name, mean, se, med, q1, q3 in re.findall(
            r"^\| ([0-9.e+-]+) \| ([a-z_0-9]+) \| [^|]+ \| ([0-9.]+) ± ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|"
            r"[^|]*\|[^|]*\|$",
            section, re.M):
        x = test[names.index(name)][list(eps).index(float(e))]
        want = [x.mean(), x.std(ddof=1) / np.sqrt(len(x)), *np.percentile(x, [50, 25, 75])]
        got = [float(v) for v in (mean, se, med, q1, q3)]
        assert np.allclose(got, want, atol=5.1e-5, rtol=0), (path, e, name, got, want)
        checked += 1
    # Every private method and both references, at both epsilons.
    expected = 2 * (len([n for n in names if n != "dpbo_algorithm3"]))
    assert checked == expected, (checked, expected)
    checked = 0
print("plot_compare tables: every cell matches the files")
PY

# One file, as before.
"$py" "$src/analysis/plot_compare.py" out/main.h5 -o one.png --table > one.md
grep -q "^### main.h5: delta = 1e-06" one.md
[[ -s one.png ]]

# Refusals.
compare_fixture_refused 2 bad.png "hold different accuracy tables" -- \
  "$py" "$src/analysis/plot_compare.py" out/main.h5 out/other.h5 -o bad.png
"$py" -c "import h5py; h5py.File('plain.h5', 'w').create_dataset('x', data=[1])"
compare_fixture_refused 2 "" "not a dpbo compare file" -- "$py" "$src/analysis/plot_compare.py" plain.h5
echo "test_plot_compare: ok"
