#!/usr/bin/env bash
# The release's warnings (issue #23, 1; rules in src/run/release_warn.h):
#  - Algorithm 1 at epsilon = 1 on a [0, 1] value range (seeded): lambda~ is
#    flagged close to a uniform draw, and its number (the probability of
#    picking the worse of two candidates a value range apart) is
#    1/(1 + exp(eps_lambda W / (2 Delta_lambda))) from the release's own
#    epsilon and sensitivity; v~ is flagged clamped exactly when it sits on
#    the range's edge; at epsilon = 20 lambda~ is not flagged; with
#    permute-and-flip the number is 1/(2 exp(...)) (flagged at 1, not at 10);
#  - random_search and liu_talwar on logistic regression: flagged at
#    epsilon = 0.01, not at 1; liu_talwar's number is P(Z1 - Z2 > W) for two
#    Lap(b), integrated numerically here;
#  - private_evaluations: flagged at epsilon = 0.05 (its number Phi(-W/(sigma
#    sqrt 2)) by Python's NormalDist), not at 2;
#  - every release JSON has "warnings" (a list, empty when none), the HDF5
#    release holds the same lines, and each line is logged once, by rank 0.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/digits_logreg.sh"
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
python=${DPBO_PYTHON:-}
[[ -n $python ]] || { [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3 || python=python3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/alg1.ini" <<INI
[run]
iterations = 8
seed = 3
[space]
kind = sobol
points = 256
dim.C = log 1e-2 1e4
dim.gamma = log 1e-5 1e1
[gp]
kernel = matern52
lengthscale = 0.2
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = synthetic
function = gp_prior
[privacy]
algorithm = 1
epsilon = 1
delta = 0.1
noise = seeded
noise_seed = 7
value_range = 0 1
[output]
dir = $work
name = alg1
INI

data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
cat > "$work/logreg.ini" <<INI
[run]
iterations = 5
seed = 2015
[space]
kind = grid
dim.lambda = log 0.0001 1 16
[gp]
kernel = matern52
lengthscale = 0.3
mean = -0.3
signal_std = 0.2
noise_std = 0.005
$(digits_logreg_objective)
[privacy]
algorithm = random_search
epsilon = 1
delta = 1e-6
noise = seeded
noise_seed = 11
[output]
dir = $work
name = logreg
INI

# run CONFIG NAME [--set ...]: 2 ranks; the log (stdout and stderr) in NAME.log
run() {
  local config=$1 name=$2
  shift 2
  "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/$config.ini" --set "output.name=$name" \
    --set "privacy.ledger=$work/$name.ledger" "$@" > "$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; fail "dpbo run $name exited with an error"; }
}

# check NAME KIND EXPECT LO HI: the warnings of NAME's release; KIND is the
# rule (selection, stopping, evaluations), EXPECT 1 when lambda~ must be
# flagged, [LO, HI] the value range.
check() {
  "$python" - "$work" "$@" <<'PY' || fail "$1: the warnings are wrong"
import h5py, json, math, re, sys
from statistics import NormalDist
import numpy as np
work, name, kind, expect = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
lo, hi = float(sys.argv[5]), float(sys.argv[6])
rel = json.load(open("%s/%s.release.json" % (work, name)))
log = open("%s/%s.log" % (work, name)).read()
warnings = rel.get("warnings")
assert isinstance(warnings, list), "no warnings list in the release JSON"
with h5py.File("%s/%s.release.h5" % (work, name), "r") as f:
    attr = f.attrs.get("warnings", b"")
    attr = attr.decode() if isinstance(attr, bytes) else str(attr)
assert attr == "\n".join(warnings), ("the HDF5 release's warnings differ", attr, warnings)
for w in warnings:
    assert log.count("dpbo[0] warning: " + w) == 1, ("not logged once by rank 0", w)
assert "dpbo[1] warning" not in log, "rank 1 logged a warning"
uniform = [w for w in warnings if "close to a uniform draw" in w]
assert len(uniform) == (1 if expect else 0), (name, warnings)
terms = rel.get("terms", {})
if kind in ("selection", "selection_pf"):
    W = hi - lo
    R = math.exp(rel["epsilon_lambda"] * W / (2.0 * rel["sensitivity_lambda"]))
    want = 1.0 / (2.0 * R) if kind == "selection_pf" else 1.0 / (1.0 + R)
elif kind == "stopping":
    W, b = hi - lo, terms["score_laplace_scale"]
    # P(Z1 - Z2 > W), Z1, Z2 ~ Lap(b): integrated on a grid, not the closed form.
    z = np.linspace(-60 * b, 60 * b, 400001)
    dens = np.exp(-np.abs(z) / b) / (2 * b)
    tail = np.where(z + W >= 0, 0.5 * np.exp(-(z + W) / b), 1 - 0.5 * np.exp((z + W) / b))
    want = float(np.sum(dens * tail) * (z[1] - z[0]))
else:
    W = hi - lo
    want = NormalDist().cdf(-W / (rel["sigma"] * math.sqrt(2.0)))
if expect:
    got = float(re.search(r"probability (?:>= )?([0-9.e+-]+)", uniform[0]).group(1))
    assert abs(got - want) <= 1e-3 * max(1.0, want) + 5e-4, (got, want, uniform[0])
    assert want >= 0.25
else:
    assert want < 0.25, want
value = rel["value"]
on_edge = value in (lo, hi)
clamped = [w for w in warnings if "was clamped" in w]
assert len(clamped) == (1 if on_edge else 0), (value, warnings)
if kind == "evaluations":
    assert (len(clamped) == 1) == bool(rel["value_clamped"]), (rel["value_clamped"], clamped)
print("%s: %d warning(s), rule value %.4g%s" % (name, len(warnings), want,
                                              ", clamped" if clamped else ""))
PY
}

run alg1 alg1 --quiet
check alg1 selection 1 0 1
run alg1 alg1-eps20 --quiet --set privacy.epsilon=20
check alg1-eps20 selection 0 0 1
run alg1 alg1-pf --quiet --set privacy.selection=permute_and_flip
check alg1-pf selection_pf 1 0 1
run alg1 alg1-pf-eps10 --quiet --set privacy.selection=permute_and_flip --set privacy.epsilon=10
check alg1-pf-eps10 selection_pf 0 0 1
grep -q "v~ = 0 was clamped" "$work/alg1.log" || fail "alg1 (seeded): v~ = 0 is not flagged clamped"

if [[ -r $data ]]; then
  run logreg rs-small --quiet --set privacy.epsilon=0.01
  check rs-small selection 1 -1 0
  run logreg rs --quiet
  check rs selection 0 -1 0
  run logreg lt-small --quiet --set privacy.algorithm=liu_talwar --set privacy.epsilon=0.01
  check lt-small stopping 1 -1 0
  run logreg lt --quiet --set privacy.algorithm=liu_talwar
  check lt stopping 0 -1 0
  run logreg pe-small --quiet --set privacy.algorithm=private_evaluations \
    --set privacy.epsilon=0.05
  check pe-small evaluations 1 -1 0
  run logreg pe --quiet --set privacy.algorithm=private_evaluations --set privacy.epsilon=2
  check pe evaluations 0 -1 0
else
  echo "note: $data is missing; the logistic-regression cases are skipped"
fi
echo "PASS: release_warnings"
