#!/usr/bin/env bash
# dpbo compare's method guided with privacy.guided_base = random_search
# (issue #26, the third stage-2 base; refused as a config value before), on
# the tiny svm fixture (compare_fixture.sh: N = 32, T = 4, R = 6, epsilon 0.5
# and 5, delta 0.05, seeded noise): the key is honoured by compare, so
#  - every guided cell spends exactly T evaluations, T1 = round(T/10) -> 1
#    privatized step and T2 = T - T1 = 3 candidates (a stopping base's count
#    is random);
#  - its accounting is stage 2's random search at (epsilon - epsilon1, 0):
#    delta_accounted = stage 1's share 0.025 alone, epsilon_select and
#    epsilon_value privacy.split's shares of stage 2, the total <= epsilon;
#  - the released lambda's accuracies are the table's, the same on 1 and 2
#    ranks; the log names stage 2's T2 candidates.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start

compare_fixture_blobs cmp.ini privacy.guided_base=random_search privacy.split=0.4
"$mpiexec" -n 1 "$bin" compare cmp.ini --set output.name=cmp1 --quiet
"$mpiexec" -n 2 --oversubscribe "$bin" compare cmp.ini > compare.log
grep "guided at eps" compare.log
grep -q "stage 2 random_search, T2 = 3 candidates" compare.log ||
  { echo "FAIL: the log does not name stage 2's random search over T2 = 3 candidates"; exit 1; }
"$py" - "$work/out/cmp.h5" "$work/out/cmp1.h5" <<'PY'
import math, sys
import h5py
import numpy as np
f, g = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = f["methods"].attrs["names"]
names = (names.decode() if isinstance(names, bytes) else names).split(",")
k = names.index("guided")
T, eps = 4, f["methods/epsilon"][:]
ev = f["methods/evaluations"][k]
print("guided evaluations per cell:", ev.ravel())
assert np.all(ev == T), ev
for key in ["val_accuracy", "test_accuracy", "released_value", "index"]:
    assert np.array_equal(f["methods"][key][k], g["methods"][key][k], equal_nan=True), key
gi = f["methods/index"][k]
assert np.array_equal(f["methods/val_accuracy"][k], f["table/val_accuracy"][:][gi])
assert np.array_equal(f["methods/test_accuracy"][k], f["table/test_accuracy"][:][gi])
acc = f["accounting"]
ea, da = acc["epsilon_accounted"][k], acc["delta_accounted"][k]
es, evl = acc["epsilon_select"][k], acc["epsilon_value"][k]
print("guided accounting: eps", ea, "delta", da, "stage 2 eps_select", es, "eps_value", evl)
assert np.all(da == 0.05 * 0.5), da  # stage 1's delta share alone: stage 2 is pure
assert np.all(ea <= eps) and np.all(ea >= eps * 0.999), ea
# stage 2 at the rest of epsilon (the default share 0.2 to stage 1), split 0.4 / 0.6
assert np.allclose(es, 0.4 * 0.8 * eps, rtol=1e-12) and np.allclose(evl, 0.6 * 0.8 * eps, rtol=1e-12)
assert np.all(acc["sigma"][k] > 0)
print("compare guided random_search checks passed")
PY
