#!/usr/bin/env bash
# The privacy ledger and its budget (issue #10): every release file, HDF5 and
# JSON alike, states the run file's cumulative spend after it (draws, ε and δ
# by basic and by advanced composition) and the two agree; [privacy] budget
# caps the basic totals: a redraw past it is refused (exit 2, the message
# names privacy.budget) and leaves no release file and an unchanged run
# file; the budget cannot be changed by `dpbo release --set`; a budget
# smaller than one release is refused when the run starts.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/run.ini" <<INI
[run]
iterations = 8
seed = 9
[space]
kind = sobol
points = 200
dim.a = linear 0 1
dim.b = log 0.01 100
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0
signal_std = 1
noise_std = 0.1
[objective]
kind = synthetic
function = gp_prior
noise_std = 0.1
[privacy]
algorithm = 1
epsilon = 1
delta = 0.01
budget = 2.5 0.05
noise = seeded
[output]
dir = $work
name = r
INI
release() { "$mpiexec" -n 2 --oversubscribe "$bin" release "$work/r.h5" "$@"; }

"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --set "privacy.budget=0.5 0.05" > "$work/small.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "privacy.budget" "$work/small.log" ||
  { cat "$work/small.log"; fail "a budget below one release should be refused at the start (exit 2), got $code"; }
[[ ! -e $work/r.h5 ]] || fail "a refused budget still left a run file"

"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet > "$work/run.log" 2>&1 || { code=$?; cat "$work/run.log"; fail "run exited $code"; }
release > "$work/r2.log" 2>&1 || { code=$?; cat "$work/r2.log"; fail "the second release exited $code"; }
grep -q "spent epsilon = 2.*basic composition" "$work/r2.log" || { cat "$work/r2.log"; fail "the log does not state the cumulative spend"; }

# The budget is fixed at run time.
release --set "privacy.budget=100 0.5" > "$work/raise.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "privacy.budget is fixed" "$work/raise.log" ||
  { cat "$work/raise.log"; fail "--set privacy.budget in dpbo release should be refused (exit 2), got $code"; }

# A third draw at ε = 1 would spend 3 > 2.5: refused, nothing written.
cp "$work/r.h5" "$work/before.h5"
release > "$work/over.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "privacy.budget = 2.5 0.05" "$work/over.log" ||
  { cat "$work/over.log"; fail "a draw past the budget should be refused (exit 2) naming privacy.budget, got $code"; }
[[ ! -e $work/r.release-3.h5 && ! -e $work/r.release-3.json ]] || fail "a refused draw wrote a release file"
cmp -s "$work/r.h5" "$work/before.h5" || fail "a refused draw changed the run file"
[[ -z $(find "$work" -mindepth 1 -name '*.tmp.*') ]] || fail "a refused draw left a temporary file"

# At ε = 0.4 the draw fits (2.4 <= 2.5); the ledger composes unequal ε.
release --set privacy.epsilon=0.4 > "$work/r3.log" 2>&1 || { code=$?; cat "$work/r3.log"; fail "a draw within the budget exited $code"; }
release --set privacy.epsilon=0.4 > "$work/over2.log" 2>&1
[[ $? -eq 2 ]] || fail "a draw to 2.8 > 2.5 should be refused"

"$py" - "$work" <<'PY' || exit 1
import json, math, sys, h5py
w = sys.argv[1]
names = ["r.release", "r.release-2", "r.release-3"]
eps, dels = [], []
for k, name in enumerate(names, start=1):
    j = json.load(open(f"{w}/{name}.json"))
    eps.append(j["epsilon_total"])
    dels.append(j["delta_total"])
    led = j["ledger"]
    with h5py.File(f"{w}/{name}.h5", "r") as h:
        for key, value in led.items():
            if key == "note":
                continue
            stored = float(h.attrs["ledger_" + key])
            assert stored == value, (name, key, stored, value)
    assert led["draws"] == k, (name, led["draws"])
    # Its releases have no zCDP bound (pure and (eps, delta) mechanisms): the
    # ledger's zCDP total is absent, in both files (issue #22).
    for key in ("zcdp_rho", "zcdp_epsilon", "zcdp_delta"):
        assert key not in led, (name, key)
    with h5py.File(f"{w}/{name}.h5", "r") as h:
        assert not any(a.startswith("ledger_zcdp") for a in h.attrs), (name, list(h.attrs))
    assert (led["budget_epsilon"], led["budget_delta"]) == (2.5, 0.05), led
    # Basic composition: the sums, rounded outward by at most a few ulps.
    sb, sd = sum(eps), sum(dels)
    assert sb <= led["epsilon_basic"] <= sb * (1 + 1e-12), (name, sb, led["epsilon_basic"])
    assert sd <= led["delta_basic"] <= sd * (1 + 1e-12), (name, sd, led["delta_basic"])
    # Advanced composition, heterogeneous (Kairouz, Oh & Viswanath 2017, Thm 3.5).
    slack = led["advanced_delta_slack"]
    adv = sum(e * math.tanh(e / 2) for e in eps) + math.sqrt(2 * sum(e * e for e in eps) * math.log(1 / slack))
    assert adv <= led["epsilon_advanced"] <= adv * (1 + 1e-12), (name, adv, led["epsilon_advanced"])
    assert sd + slack <= led["delta_advanced"] <= (sd + slack) * (1 + 1e-12), (name, led["delta_advanced"])
with h5py.File(f"{w}/r.h5", "r") as run:
    assert int(run.attrs["releases_drawn"]) == 3, run.attrs["releases_drawn"]
    assert run.attrs["release_epsilon_spent"] == led["epsilon_basic"]
print("ledger after 3 draws: basic", led["epsilon_basic"], led["delta_basic"],
      "advanced", led["epsilon_advanced"], led["delta_advanced"])
PY
echo "release budget OK"
