#!/usr/bin/env bash
# Issue #26, the third stage-2 base: `dpbo run` of privacy.algorithm = guided
# with privacy.guided_base = random_search (refused as a config value
# before) on logreg on digits (32 candidates, T = 12, T1 = 4, so T2 = 8),
# through the driver on 2 ranks:
#  - stage 2 evaluates exactly T2 = T - T1 = 8 candidates (/trace), drawn
#    from pi by the secret noise: another noise_seed with the same run.seed
#    draws others, and with OS noise (run.seed fixed, guided_weight = 0.9,
#    so max pi <= 0.9/32 + 0.1 < 0.13) two runs draw the same 8 with
#    probability at most 0.13^8 < 1e-7;
#  - the release states (epsilon_total, delta_total) = (stage 1's PLD epsilon
#    + stage 2's pure epsilon, stage 1's delta) by basic composition, stage 2
#    accounted at (epsilon - epsilon1, 0) with privacy.split's shares
#    (epsilon_lambda, epsilon_value), and a guarantee naming random_search;
#    the run file's /guided says the same;
#  - the ledger is charged that total exactly once, mechanism
#    discrete_gaussian+random_search with the split;
#  - neither release file holds a stage-2 gain;
#  - a stopped run writes nothing and its charge stands; --resume is refused
#    and charges nothing; `dpbo release` refuses a redraw.
source "$(dirname "${BASH_SOURCE[0]}")/guided_fixture.sh"
guided_fixture_start random_search "split = 0.3"

ok g
"$py" - "$work/out/g.h5" "$work/out/g.release.json" "$work/out/g.release.h5" <<'PY' || fail "the release, the run file or their accounting"
import h5py, json, math, sys
import numpy as np
f, rh = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[3], "r")
r = json.load(open(sys.argv[2]))
g = f["guided"].attrs
def up(a, b):  # dpbo_privacy_sum_up: the sum rounded up
    s = a + b
    return s if s - a >= b and s - b >= a else math.nextafter(s, math.inf)
base = g["stage2_base"]
base = base.decode() if isinstance(base, bytes) else base
e1, e2 = float(g["stage1_epsilon_accounted"]), float(g["stage2_epsilon_accounted"])
d1 = float(g["stage1_delta"])
print("release: epsilon_total %r = %r + %r, delta_total %r = stage 1's %r; stage 2 %s at (%r, %r), "
      "eps_select %r, eps_value %r" % (r["epsilon_total"], e1, e2, r["delta_total"], d1, base,
      float(g["stage2_epsilon"]), float(g["stage2_delta"]), float(g["stage2_epsilon_select"]),
      float(g["stage2_epsilon_value"])))
assert r["algorithm"] == "guided" and base == "random_search", (r["algorithm"], base)
# Stage 2 pure: accounted at delta 0, the total's delta stage 1's share alone.
assert float(g["stage2_delta"]) == 0.0 and float(g["stage2_delta_accounted"]) == 0.0
assert r["delta_total"] == float(g["delta_total"]) == d1 == 0.5e-6, (r["delta_total"], d1)
assert r["epsilon_total"] == float(g["epsilon_total"]) == up(e1, e2), (r["epsilon_total"], e1, e2)
assert 0.99 < r["epsilon_total"] <= 1.0
# Stage 2's epsilon: the rest of epsilon, split 0.3 / 0.7 between the
# selection and the value, their sum its accounted epsilon.
es, ev = float(g["stage2_epsilon_select"]), float(g["stage2_epsilon_value"])
assert math.isclose(es, 0.3 * float(g["stage2_epsilon"]), rel_tol=1e-15), es
assert up(es, ev) == e2 <= float(g["stage2_epsilon"]) and float(g["stage1_epsilon"]) + float(g["stage2_epsilon"]) <= 1.0
assert r["epsilon_lambda"] == es and r["epsilon_value"] == ev, (r["epsilon_lambda"], r["epsilon_value"])
t = r["terms"]
assert t["epsilon_accounted"] == e2 and t["delta_accounted"] == 0.0 and t["stage1_evaluations"] == 4, t
assert "random_search" in r["guarantee"] and "T2 = 8 candidates" in r["guarantee"], r["guarantee"]
assert "(%.6g, %.6g)-DP" % (r["epsilon_total"], r["delta_total"]) in r["guarantee"], r["guarantee"]
assert "random-search epsilon" in r["calibration"], r["calibration"]
assert r["T"] == 12 and r["ledger"]["draws"] == 1, (r["T"], r["ledger"])
# Exactly T2 = 8 candidates evaluated in stage 2, T1 = 4 in stage 1.
assert int(g["stage2_expected_runs"]) == 8 and len(f["guided/stage1_index"]) == 4
cand = list(f["trace/candidates"][()])
assert len(cand) == 8 and list(f["trace/index"][()]) == cand, cand
assert len(f["trace/gain"]) == 8
# None of stage 2's raw gains is a number of either release file.
numbers = []
def walk(x):
    if isinstance(x, dict): [walk(v) for v in x.values()]
    elif isinstance(x, list): [walk(v) for v in x]
    elif isinstance(x, (int, float)) and not isinstance(x, bool): numbers.append(float(x))
walk(r)
for v in rh.attrs.values():
    if np.issubdtype(np.asarray(v).dtype, np.number): numbers += [float(x) for x in np.ravel(v)]
s1 = rh["stage1_privatized_evaluations"]
numbers += [float(x) for d in s1 for x in np.ravel(s1[d][()])]
secret = set(float(v) for v in f["trace/gain"][()]) - set(float(v) for v in f["guided/stage1_value"][()])
assert not secret & set(numbers), sorted(secret & set(numbers))
print("run file: stage 2's 8 candidates", cand, "; no stage-2 gain in either release file")
PY
[[ $(charges "$work/out/g.h5" | wc -l) == 1 ]] || fail "the ledger holds $(charges "$work/out/g.h5" | wc -l) charges of g.h5, not 1"
read -r alg leps ldelta <<<"$(charges "$work/out/g.h5")"
[[ $alg == guided ]] || fail "the ledger's charge names $alg"
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (float(sys.argv[2]) == r["epsilon_total"] and float(sys.argv[3]) == r["delta_total"]))' \
  "$work/out/g.release.json" "$leps" "$ldelta" || fail "the ledger charged ($leps, $ldelta), not the release's total"
line=$(awk -F'\t' -v f="$work/out/g.h5" '$4 == "charge" && $14 == f' "$work/out/dpbo-ledger")
grep -q "discrete_gaussian+random_search" <<<"$line" && grep -q "split=0.2999" <<<"$line" ||
  fail "the ledger's charge does not name stage 2's random search and split: $line"
echo "ledger: one charge, $alg ($leps, $ldelta)"

# The candidates follow noise_seed (run.seed fixed), then OS noise.
ok g-12 --set privacy.noise_seed=12
a=$(ds "$work/out/g.h5" trace/candidates) b=$(ds "$work/out/g-12.h5" trace/candidates)
echo "run.seed 2015: noise_seed 11 -> $a; noise_seed 12 -> $b"
[[ $a != "$b" ]] || fail "noise_seed 11 and 12 drew the same stage-2 candidates"
os=(--set privacy.noise=os --set privacy.guided_weight=0.9)
np=1 ok os-1 "${os[@]}"
np=1 ok os-2 "${os[@]}"
a=$(ds "$work/out/os-1.h5" trace/candidates) b=$(ds "$work/out/os-2.h5" trace/candidates)
echo "noise = os, run.seed 2015: $a; $b"
[[ $a != "$b" ]] || fail "two runs with OS noise drew the same stage-2 candidates"

# Stopped in stage 2: nothing written, the charge stands; --resume refused
# and not charged; dpbo release refuses a redraw.
run half --stop-after 6
code=$?
[[ $code == 4 ]] || { cat "$work/half.log"; fail "--stop-after 6 exited $code, not 4"; }
[[ ! -e $work/out/half.h5 && ! -e $work/out/half.release.json ]] || fail "a stopped guided run wrote files"
[[ $(charges "$work/out/half.h5" | wc -l) == 1 ]] || fail "the stopped run is not charged once"
ok half
run half --resume
code=$?
[[ $code == 2 ]] && grep -q "privacy.algorithm = guided cannot be resumed" "$work/half.log" ||
  { cat "$work/half.log"; fail "--resume exited $code or did not say why"; }
[[ $(charges "$work/out/half.h5" | wc -l) == 2 ]] || fail "--resume charged"
"$mpiexec" -n 1 "$bin" release "$work/out/g.h5" > "$work/release.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q "cannot be redrawn" "$work/release.log" ||
  { cat "$work/release.log"; fail "dpbo release on a guided run exited $code"; }
echo "PASS"
