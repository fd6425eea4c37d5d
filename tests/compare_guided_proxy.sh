#!/usr/bin/env bash
# dpbo compare's method guided with stage 1 on the proxy task
# (privacy.guided_proxy_rows = K, issue #26), on the tiny svm fixture
# (compare_fixture.sh: N = 32, T = 4, R = 6, 80 training, validation and test
# rows, epsilon 0.5 and 5, delta 0.05, seeded noise), K = 20:
#  - the proxy column (table/proxy_accuracy) is the table a config whose split
#    is (train_rows - K, K) gives as its validation accuracy: the proxy task
#    scores the last K training rows (not a validation row) with a model
#    trained on the other 60; checked against a second, plain compare run of
#    that split;
#  - stage 1 spends nothing: the guided accounting is stage 2's random search
#    at the whole (epsilon, 0), delta_accounted 0, sigma 0, and every cell
#    makes T1 = T = 4 proxy steps (the proxy default) and T2 = T = 4
#    candidates;
#  - compare.table reuses the column of the same K (no proxy training, the
#    same guided cells), and trains it again for another K;
#  - analysis/export_compare.py exports the column and its ranking statistics;
#  - K >= train_rows - 1, and the proxy task on the logreg comparison
#    objective (it has no proxy column), are refused before any output.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start

compare_fixture_blobs cmp.ini privacy.guided_base=random_search privacy.guided_proxy_rows=20
"$mpiexec" -n 2 --oversubscribe "$bin" compare cmp.ini > compare.log
grep "guided at eps\|proxy task" compare.log
grep -q "proxy task (privacy.guided_proxy_rows = 20): every candidate trained on 60" compare.log ||
  { echo "FAIL: the log does not say the proxy column was trained on 60 rows"; exit 1; }
grep -q "stage 1 4 GP-UCB steps on the proxy task" compare.log ||
  { echo "FAIL: the log does not name stage 1's 4 proxy steps"; exit 1; }
# The proxy task's split as a plain config: 60 training rows, the next 20 scored.
compare_fixture_blobs split.ini objective.train_rows=60 objective.validation_rows=20 \
  objective.test_rows=1 output.name=split
"$mpiexec" -n 2 --oversubscribe "$bin" compare split.ini --quiet
# The same K through compare.table: read, not trained; another K: trained.
"$mpiexec" -n 2 --oversubscribe "$bin" compare cmp.ini --set compare.table="$work/out/cmp.h5" \
  --set output.name=again > again.log
if grep -q "proxy task (privacy" again.log; then
  echo "FAIL: the proxy column of the same K was trained again"
  exit 1
fi
"$mpiexec" -n 2 --oversubscribe "$bin" compare cmp.ini --set compare.table="$work/out/cmp.h5" \
  --set privacy.guided_proxy_rows=30 --set output.name=other > other.log
grep -q "proxy task (privacy.guided_proxy_rows = 30): every candidate trained on 50" other.log ||
  { echo "FAIL: the proxy column of another K was not trained"; exit 1; }
"$py" - "$work/out" <<'PY'
import sys
import h5py
import numpy as np
out = sys.argv[1]
f = h5py.File(f"{out}/cmp.h5", "r")
split = h5py.File(f"{out}/split.h5", "r")
again = h5py.File(f"{out}/again.h5", "r")
other = h5py.File(f"{out}/other.h5", "r")
proxy = f["table/proxy_accuracy"][:]
assert f["table/proxy_rows"][0] == 20
assert np.array_equal(f["table/lambda"][:], split["table/lambda"][:])
assert np.array_equal(proxy, split["table/val_accuracy"][:]), (proxy, split["table/val_accuracy"][:])
assert not np.array_equal(proxy, f["table/val_accuracy"][:])  # not the validation rows
print("proxy column = the (60, 20) split's validation accuracy:", proxy[:6], "...")
names = f["methods"].attrs["names"]
names = (names.decode() if isinstance(names, bytes) else names).split(",")
k = names.index("guided")
eps = f["methods/epsilon"][:]
ev = f["methods/evaluations"][k]
assert np.all(ev == 4 + 4), ev  # T1 proxy steps + T candidates
acc = f["accounting"]
ea, da = acc["epsilon_accounted"][k], acc["delta_accounted"][k]
es, evl = acc["epsilon_select"][k], acc["epsilon_value"][k]
print("guided accounting: eps", ea, "delta", da, "eps_select", es, "eps_value", evl)
assert np.all(da == 0.0), da
assert np.all(acc["sigma"][k] == 0.0)
assert np.all(ea <= eps) and np.all(ea >= eps * (1 - 1e-12)), ea
assert np.allclose(es, 0.5 * eps, rtol=1e-12) and np.allclose(evl, 0.5 * eps, rtol=1e-12)
gi = f["methods/index"][k]
assert np.array_equal(f["methods/val_accuracy"][k], f["table/val_accuracy"][:][gi])
for key in ["val_accuracy", "test_accuracy", "released_value", "index"]:
    assert np.array_equal(f["methods"][key][k], again["methods"][key][k], equal_nan=True), key
assert again["table/proxy_rows"][0] == 20 and np.array_equal(again["table/proxy_accuracy"][:], proxy)
assert other["table/proxy_rows"][0] == 30
# Every other method is untouched by the proxy task: bit for bit the same cells.
for m, name in enumerate(names):
    if name != "guided":
        for key in ["val_accuracy", "released_value", "index"]:
            assert np.array_equal(f["methods"][key][m], other["methods"][key][m], equal_nan=True), (name, key)
print("compare guided proxy checks passed")
PY
# The exporter keeps the proxy column and how it ranks Lambda (RESULTS quotes
# it through compare_numbers.py): checked against the file and against
# scipy's Spearman correlation, an independent implementation.
"$py" "$src/analysis/export_compare.py" "$work/out/cmp.h5" -o "$work/cmp.json" > /dev/null
"$py" - "$work/out/cmp.h5" "$work/cmp.json" <<'PY'
import json
import sys
import h5py
import numpy as np
from scipy.stats import spearmanr
f = h5py.File(sys.argv[1], "r")
t = json.load(open(sys.argv[2]))["files"][0]["table"]
proxy, val, test = (f["table"][k][:] for k in ("proxy_accuracy", "val_accuracy", "test_accuracy"))
enc = t["proxy_accuracy"]
assert enc["rows"] == 20 and np.array_equal(np.array(enc["correct"]) / 20.0, proxy), enc
st = t["proxy_statistics"]
rho = spearmanr(proxy, val)[0]
assert abs(st["spearman_proxy_val"] - rho) < 1e-12, (st["spearman_proxy_val"], rho)
bp, bv = int(np.argmax(proxy)), int(np.argmax(val))
assert st["at_best_proxy"] == {"proxy": proxy[bp], "val": val[bp], "test": test[bp]}, st
assert st["at_best_val"] == {"proxy": proxy[bv], "val": val[bv], "test": test[bv]}, st
print("exported proxy column and statistics: ok, Spearman", rho)
PY
# Refused before any output: K leaves fewer than two training rows.
compare_fixture_refused 2 "$work/out/bad.h5" "privacy.guided_proxy_rows = 79 must lie between 1 and objective.train_rows - 2 = 78" -- \
  "$mpiexec" -n 1 "$bin" compare cmp.ini --set privacy.guided_proxy_rows=79 --set output.name=bad
# The logreg comparison objective has no proxy column: refused, no output.
digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
if [[ -r $digits ]]; then
  compare_fixture_refused 2 "$work/out/lr.h5" "dpbo compare's proxy column needs objective.kind = svm" -- \
    "$mpiexec" -n 1 "$bin" compare "$src/configs/compare-digits-logreg.ini" \
    --set privacy.guided_proxy_rows=100 --set output.dir="$work/out" --set output.name=lr
fi
echo "compare guided proxy: ok"
