#!/usr/bin/env bash
# dpbo utility on the stopping methods (issue #13 item 2): a `dpbo run` of
# configs/audit-liu-talwar-small.ini and configs/audit-papernot-steinke-small.ini
# (2 ranks, seeded noise), then `dpbo utility`:
#  - it succeeds (it used to refuse, exit 2) and labels the law: an estimate
#    over the run's evaluated candidates as a sample of Lambda, or exact when
#    they cover Lambda (a 2-point grid and T = 12);
#  - its data-holder figures (P(argmax), the expected regret, the median of
#    the released score's error) equal an independent recomputation in numpy
#    from the trace's gains and the release file's accounting (gamma, eta,
#    epsilon0, the gain's sensitivity): P(out = i) = w_i ∫ p_i Q'(G) ds on a
#    fine grid (trapezoid, error below 1e-8), Q the pgf of K;
#  - the public figures give no theorem bound (NaN) but epsilon0 and the
#    Laplace scale, and the release file is untouched.
set -euo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
src=${DPBO_SOURCE_DIR:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
[[ -r $data ]] || { echo "skipping: $data is missing"; exit 77; }

cat > "$work/check.py" <<'PY'
import json, sys
import h5py
import numpy as np

run, release, mode = sys.argv[1:4]
f = h5py.File(run, "r")
gains = f["trace/gain"][()]
index = f["trace/index"][()]
rel = json.load(open(release))
terms = rel["terms"]
eps0, gamma, eta = terms["epsilon_base"], terms["gamma"], terms["eta"]
b = terms["gain_sensitivity"] / eps0
h = f["utility/data_holder"]
law = h.attrs["lambda_law"].decode()
if mode == "exact":
    assert law.startswith("exact over Lambda"), law
    _, inverse, repeats = np.unique(index, return_inverse=True, return_counts=True)
    w = 1.0 / (rel["N"] * repeats[inverse])
else:
    want = "estimate over the run's %d evaluated candidates as a sample of Lambda" % len(gains)
    assert law == want, (law, want)
    w = np.full(len(gains), 1.0 / len(gains))

def slope(x):  # Q'(x)
    u = 1.0 - (1.0 - gamma) * x
    if eta == 0:
        return (1.0 - gamma) / (u * np.log(1.0 / gamma))
    return eta * (1.0 - gamma) * gamma**eta * u ** (-eta - 1.0) / (1.0 - gamma**eta)

def pgf(x):  # Q(x)
    u = 1.0 - (1.0 - gamma) * x
    if eta == 0:
        return np.log(u) / np.log(gamma)
    return (gamma**eta * u ** (-eta) - gamma**eta) / (1.0 - gamma**eta)

s = np.linspace(gains.min() - 60 * b, gains.max() + 60 * b, 2_000_001)
G = np.zeros_like(s)
for g, wi in zip(gains, w):
    z = (s - g) / b
    G += wi * np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))
q = slope(G)
P = np.array([wi * np.trapz(np.exp(-np.abs(s - g) / b) / (2 * b) * q, s) for g, wi in zip(gains, w)])
assert abs(P.sum() - 1) < 1e-7, P.sum()
best = gains.max()
p_argmax = P[gains == best].sum()
regret = best - (P * gains).sum()
median = np.interp(0.5, pgf(G), s)
err_median = min(max(median, -1.0), 0.0) - best  # logreg: clamped to [-1, 0]
got = (h["probability_argmax"][0], h["expected_regret_mean"][0], h["value_error_quantiles"][0, 2])
want = (p_argmax, regret, err_median)
print("dpbo utility:", got, "numpy:", want)
assert all(abs(x - y) <= 1e-6 for x, y in zip(got, want)), (got, want)
pub = f["utility/public"]
assert np.isnan(pub["lambda_bound"][0]) and np.isnan(pub["value_bound"][0])
assert abs(pub["epsilon_base"][0] - eps0) <= 1e-12 * eps0, (pub["epsilon_base"][0], eps0)
assert abs(pub["laplace_scale"][0] - b) <= 1e-12 * b
PY

run_utility() { # alg name mode [--set ...]
  local alg=$1 name=$2 mode=$3
  shift 3
  "$mpiexec" -n 2 "$bin" run "$src/configs/audit-${alg//_/-}-small.ini" --quiet \
    --set output.dir="$work" --set output.name="$name" --set privacy.noise=seeded \
    --set privacy.noise_seed=5 "$@" > "$work/$name-run.log" 2>&1 ||
    { cat "$work/$name-run.log"; fail "$name: dpbo run failed"; }
  cp "$work/$name.release.json" "$work/$name.before.json"
  "$mpiexec" -n 2 "$bin" utility "$work/$name.h5" > "$work/$name-util.log" 2>&1 ||
    { code=$?; cat "$work/$name-util.log"; fail "$name: dpbo utility exited $code"; }
  grep -q "the best of K noisy runs: $([[ $mode == exact ]] && echo exact || echo estimate)" \
    "$work/$name-util.log" || { cat "$work/$name-util.log"; fail "$name: the law is not labelled"; }
  grep -q "no public utility bound" "$work/$name-util.log" ||
    { cat "$work/$name-util.log"; fail "$name: the public block does not say it has no bound"; }
  "$py" "$work/check.py" "$work/$name.h5" "$work/$name.release.json" "$mode" ||
    fail "$name: the figures differ from the recomputation"
  cmp -s "$work/$name.release.json" "$work/$name.before.json" ||
    fail "$name: dpbo utility changed the release file"
  # Several budgets: one row each.
  "$mpiexec" -n 2 "$bin" utility "$work/$name.h5" --epsilon 0.5,4 > "$work/$name-util2.log" 2>&1 ||
    { cat "$work/$name-util2.log"; fail "$name: dpbo utility --epsilon 0.5,4 failed"; }
  "$py" -c 'import h5py,sys; p=h5py.File(sys.argv[1],"r")["utility/data_holder/probability_argmax"][()]; sys.exit(not (len(p)==2 and 0<p[0]<p[1]<=1))' \
    "$work/$name.h5" || fail "$name: P(argmax) is not in (0, 1] and larger at epsilon 4"
  echo "ok: $name"
}

run_utility liu_talwar lt estimate
run_utility papernot_steinke ps estimate
run_utility liu_talwar lt-exact exact --set "space.dim.lambda=log 0.001 0.1 2" --set run.iterations=12
run_utility papernot_steinke ps-eta0 estimate --set privacy.ps_eta=0
echo "PASS"
