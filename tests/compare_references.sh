#!/usr/bin/env bash
# dpbo compare's non-private GP-UCB references as a distribution over
# repetitions (issue #24). Before, gp_ucb and gp_ucb_mean were one
# deterministic run (dpbo's own, β_t at Algorithm 1's δ_v/3), the same cell R
# times, and moved with privacy.delta (digits, argmax μ_T: 0.9956 at 1e-6,
# 0.9756 at 0.05). Now each repetition runs noise-free GP-UCB from a public
# start (stream 3 of run.seed), the run the privatized evaluations make
# without their noise (β_t at δ = 0.05, as `dpbo run` gives them). On the
# blobs of tests/make_blobs.py (N = 32, T = 4, R = 10, seeded), checked:
#  - the references have R cells that vary over the repetitions (at least 3
#    distinct choices of 10 here; one before), the same at every ε, their
#    accuracies read from the table and gp_ucb's value released exactly;
#  - they are bit-identical at privacy.delta = 1e-6 and 0.05;
#  - at ε = 1e4 (σ below 5 % of an accuracy step) each privatized run is its
#    twin: per repetition, argmax μ_T and the best observation equally good
#    (ties broken by the noise), μ_T there within half an accuracy step;
#  - 1 and 2 ranks write the same cells.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start

compare_fixture_blobs cmp.ini privacy.delta=1e-6 compare.repetitions=10 "compare.epsilons=0.5 1e4" \
  output.name=a
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet
"$mpiexec" -n 1 "$bin" compare cmp.ini --quiet --set compare.table="$work/out/a.h5" \
  --set privacy.delta=0.05 --set output.name=b
"$mpiexec" -n 2 --oversubscribe "$bin" compare cmp.ini --quiet --set output.name=c

"$py" - out/a.h5 out/b.h5 out/c.h5 <<'PY'
import sys

import h5py
import numpy as np

a, b, c = (h5py.File(p, "r") for p in sys.argv[1:])
names = a["methods"].attrs["names"]
names = (names.decode() if isinstance(names, bytes) else names).split(",")
G, GM, PM, PB = (names.index(n) for n in
                 ("gp_ucb", "gp_ucb_mean", "private_evaluations_mean", "private_evaluations_best"))
val, test = a["table/val_accuracy"][:], a["table/test_accuracy"][:]
m = a["methods"]
idx, rel = m["index"][:], m["released_value"][:]
E, R = 2, 10
for k in (G, GM):
    assert idx[k].shape == (E, R), idx[k].shape
    assert np.all(idx[k] == idx[k][:1]), f"{names[k]}: differs between epsilons: {idx[k]}"
    assert np.array_equal(m["val_accuracy"][k], val[idx[k]])
    assert np.array_equal(m["test_accuracy"][k], test[idx[k]])
    assert np.all(m["evaluations"][k] == 4)
    distinct = len(set(idx[k][0]))
    assert distinct >= 3, f"{names[k]}: {distinct} distinct choices over R = {R}: {idx[k][0]}"
    print(f"{names[k]}: {distinct} distinct choices over {R} repetitions, test accuracy "
          f"{test[idx[k][0]].mean():.4f} ± {test[idx[k][0]].std(ddof=1) / np.sqrt(R):.4f}")
assert np.array_equal(rel[G], val[idx[G]]), "gp_ucb releases its best observation exactly"
for key in ("index", "val_accuracy", "test_accuracy", "gain", "released_value", "evaluations"):
    for k in (G, GM):
        assert np.array_equal(a["methods"][key][k], b["methods"][key][k]), \
            f"{names[k]} {key} moves with privacy.delta: {a['methods'][key][k][0]} vs {b['methods'][key][k][0]}"
    assert np.array_equal(a["methods"][key][:], c["methods"][key][:], equal_nan=True), \
        f"{key} differs between 1 and 2 ranks"
sigma = a["accounting/sigma"][PM]
assert sigma[1] < 0.05 / 80, sigma
# svm accuracies tie (multiples of 1/80): the noise may break a tie between
# two equally good candidates, so the choices' accuracies are compared, and
# mu_T at the choice within half an accuracy step
assert np.array_equal(m["gain"][PM][1], m["gain"][GM][1]), (idx[PM][1], idx[GM][1])
assert np.all(np.abs(rel[PM][1] - rel[GM][1]) < 0.5 / 80), rel[PM][1] - rel[GM][1]
assert np.array_equal(m["gain"][PB][1], m["gain"][G][1]), (m["gain"][PB][1], m["gain"][G][1])
print("compare_references: per-repetition references, independent of privacy.delta, "
      "equal to the privatized runs at sigma -> 0")
PY
