#!/usr/bin/env bash
# Every stated (epsilon, delta) must hold (issue #10): the beta_t a GP-UCB run
# used is the one its release accounts for, a redraw changes only epsilon and
# the noise source, a run without [privacy] is never released (its privacy
# settings were not fixed before the data: issue #22, 4), and the release
# files say which bounds they follow.
#
# Each check runs on its own and the script reports every failure, so it can
# be pointed at an older binary (DPBO_BIN=...) to show which checks fail there.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# A small synthetic problem (12 steps over 500 candidates: seconds). $1: the
# [privacy] section, or nothing for a run without a private release.
write_ini() {
  cat > "$work/$2.ini" <<INI
[run]
iterations = 12
seed = 5
[space]
kind = sobol
points = 500
dim.x = linear 0 1
dim.y = log 0.01 100
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
$1
[output]
dir = $work
name = $2
INI
}
run() { "$mpiexec" -n 2 --oversubscribe "$bin" "$@"; }
# expect_refused NAME EXPECTED_TEXT... -- COMMAND: exit 2 and every text in the output.
expect_refused() {
  local name=$1 texts=() out="$work/out.txt" code
  shift
  while [[ $1 != -- ]]; do texts+=("$1"); shift; done
  shift
  "$@" > "$out" 2>&1
  code=$?
  if [[ $code -ne 2 ]]; then cat "$out"; fail "$name: expected exit 2 (refused), got $code"; return; fi
  for t in "${texts[@]}"; do
    grep -q -- "$t" "$out" || { cat "$out"; fail "$name: the refusal does not say '$t'"; return; }
  done
  pass "$name"
}
expect_accepted() {
  local name=$1 out="$work/out.txt"
  shift
  "$@" > "$out" 2>&1
  local code=$?
  [[ $code -eq 0 ]] || { cat "$out"; fail "$name: expected success, got exit $code"; return; }
  pass "$name"
}

privacy='[privacy]
algorithm = 1
epsilon = 2
delta = 0.1
k1 = 0.9
noise = seeded
noise_seed = 77'
write_ini "$privacy" p
write_ini "" np

# 1. dpbo run: a ucb.delta other than the delta beta_t needs is refused, also
#    when privacy.delta x (1 - split) happens to be 0.05 (the old guard's hole).
expect_refused "run with ucb.delta = 0.9 and privacy.delta = 0.1" "ucb.delta" "0.9" "0.01666" -- \
  run run "$work/p.ini" --quiet --set output.name=bad1 --set privacy.delta=0.1 --set ucb.delta=0.9
[[ ! -e $work/bad1.h5 ]] || fail "the refused run wrote a run file"

run run "$work/p.ini" --quiet > "$work/run_p.txt" 2>&1 || { cat "$work/run_p.txt"; fail "the private run failed"; }
run run "$work/np.ini" --quiet > "$work/run_np.txt" 2>&1 || { cat "$work/run_np.txt"; fail "the run without [privacy] failed"; }
run run "$work/p.ini" --quiet --set output.name=paper --set privacy.bounds=paper > "$work/run_paper.txt" 2>&1 ||
  { cat "$work/run_paper.txt"; fail "the private run with bounds = paper failed"; }

# 2. A redraw may not change what fixed the run's beta_t (delta, split) nor
#    an assumption fixed before the data is seen (k1, the GP prior, the kernel).
expect_refused "release --set privacy.delta=0.5" "beta_t" "0.01666" "privacy.delta" -- \
  run release "$work/p.h5" --set privacy.delta=0.5 --out "$work/x"
expect_refused "release --set privacy.split=0.9" "beta_t" "privacy.split" -- \
  run release "$work/p.h5" --set privacy.split=0.9 --out "$work/x"
expect_refused "release --set privacy.k1=0.5" "assumption" "before the validation data is seen" -- \
  run release "$work/p.h5" --set privacy.k1=0.5 --out "$work/x"
expect_refused "release --set gp.signal_std=2 (prior)" "assumption" "before the validation data is seen" -- \
  run release "$work/p.h5" --set gp.signal_std=2 --out "$work/x"
expect_refused "release --set gp.kernel=rbf (kernel)" "assumption" "before the validation data is seen" -- \
  run release "$work/p.h5" --set gp.kernel=rbf --out "$work/x"
expect_refused "release --set privacy.selection" "privacy.epsilon and the noise source" -- \
  run release "$work/p.h5" --set privacy.selection=permute_and_flip --out "$work/x"
[[ ! -e $work/x.json ]] || fail "a refused redraw wrote a release"
# ...while epsilon and the noise source may change.
expect_accepted "release --set privacy.epsilon=0.5" run release "$work/p.h5" --set privacy.epsilon=0.5 --out "$work/eps"
expect_accepted "release --set privacy.noise_seed=3" run release "$work/p.h5" --set privacy.noise_seed=3 --out "$work/seed"
expect_accepted "release --set privacy.noise=os" run release "$work/p.h5" --set privacy.noise=os --out "$work/os"

# 3. A run without [privacy] fixed no privacy setting before it saw the data
#    (issue #22, 4): no release is drawn from it, whatever the overrides
#    choose now (main accepted algorithm 1 with bounds = paper and delta =
#    0.1, whose beta_t matched the run's). Nothing is written or charged.
np_refusal="run without a privacy algorithm"
expect_refused "release of a run without [privacy] as algorithm 1" "$np_refusal" "np.h5" "not fixed before" -- \
  run release "$work/np.h5" --set privacy.algorithm=1 --out "$work/x"
expect_refused "... with bounds = paper at delta = 0.05" "$np_refusal" -- \
  run release "$work/np.h5" --set privacy.algorithm=1 --set privacy.bounds=paper --out "$work/x"
expect_refused "... with bounds = paper at delta = 0.1 (beta's delta 0.05 matches)" "$np_refusal" -- \
  run release "$work/np.h5" --set privacy.algorithm=1 --set privacy.bounds=paper --set privacy.delta=0.1 \
  --set privacy.noise=seeded --out "$work/x"
expect_refused "... as algorithm 1 with delta = 0.3 (the issue's example)" "$np_refusal" -- \
  run release "$work/np.h5" --set privacy.algorithm=1 --set privacy.delta=0.3 --out "$work/x"
expect_refused "... as private_evaluations (its trace was never privatized)" "$np_refusal" -- \
  run release "$work/np.h5" --set privacy.algorithm=private_evaluations --out "$work/x"
expect_refused "... without overrides" "$np_refusal" -- run release "$work/np.h5" --out "$work/x"
[[ ! -e $work/x.json && ! -e $work/x.h5 ]] || fail "a refused release of the run without [privacy] wrote a release"
"$py" - "$work/np.h5" <<'PY' || fail "a refused release of the run without [privacy] was charged"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert int(f.attrs.get("releases_drawn", 0)) == 0, dict(f.attrs)
PY
# A paper run keeps its bounds in its settings, and may name them (only the
# matching bounds pass the beta check).
expect_accepted "release of a paper run as it was run" run release "$work/paper.h5" --out "$work/paper1"
expect_accepted "release of a paper run with --set privacy.bounds=paper" \
  run release "$work/paper.h5" --set privacy.bounds=paper --out "$work/paper2"
expect_refused "release of a paper run under corrected bounds" "0.05" "0.01666" "privacy.bounds=paper" -- \
  run release "$work/paper.h5" --set privacy.bounds=corrected --out "$work/x"

# 4. The release files say which bounds they follow; the paper run's say paper.
"$py" - "$work" <<'PY' || fail "the release files do not carry their bounds"
import json, sys, h5py
w = sys.argv[1]
for name, want in (("p.release", "corrected"), ("paper.release", "paper")):
    j = json.load(open(f"{w}/{name}.json"))
    assert j.get("bounds") == want, (name, j.get("bounds"))
    assert f"bounds = {want}" in j["guarantee"], j["guarantee"]
    with h5py.File(f"{w}/{name}.h5", "r") as f:
        b = f.attrs["bounds"]
        b = b.decode() if isinstance(b, bytes) else str(b)
        assert b == want, (name, b)
# The corrected release's beta_T comes from delta_v/3 and its q is
# 2 sigma_n sqrt(2 log(6T/delta_v)); the paper's from delta_v and
# sigma_n sqrt(4 log(3/delta_v)) (N = 500, T = 12, delta_v = 0.05, sigma_n = 0.1).
from math import log, pi, sqrt
c = json.load(open(f"{w}/p.release.json"))["terms"]
p = json.load(open(f"{w}/paper.release.json"))["terms"]
assert abs(c["beta_T"] - 2 * log(500 * 144 * pi**2 / (3 * 0.05 / 3))) < 1e-12, c["beta_T"]
assert abs(p["beta_T"] - 2 * log(500 * 144 * pi**2 / (3 * 0.05))) < 1e-12, p["beta_T"]
assert abs(c["q"] - 2 * 0.1 * sqrt(2 * log(6 * 12 / 0.05))) < 1e-12, c["q"]
assert abs(p["q"] - 0.1 * sqrt(4 * log(3 / 0.05))) < 1e-12, p["q"]
with h5py.File(f"{w}/p.h5", "r") as f:
    assert abs(f["trace"].attrs["delta"] - 0.05 / 3) < 1e-17, f["trace"].attrs["delta"]
    assert int(f["trace"].attrs["N"]) == 500
PY

# 5. dpbo utility shows both bounds side by side.
run utility "$work/p.h5" --epsilon 1 > "$work/util.txt" 2>&1 || { cat "$work/util.txt"; fail "dpbo utility failed"; }
if grep -q "bounds = corrected" "$work/util.txt" && grep -q "bounds = paper" "$work/util.txt"; then
  pass "dpbo utility prints both bounds"
else
  cat "$work/util.txt"
  fail "dpbo utility does not print both bounds"
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "release integrity OK"
