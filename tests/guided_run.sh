#!/usr/bin/env bash
# Issue #26: `dpbo run` makes the GP-guided private selection (privacy.algorithm
# = guided) on a real objective (logreg on digits, 32 candidates, T = 12, T1 =
# 4), through the driver on 2 ranks (before, it refused it):
#  - the release states epsilon_total and delta_total of basic composition of
#    the two stages (the run file's /guided: stage 1's PLD epsilon and stage
#    2's accounted pair, <= the configured (1, 1e-6)), and the guided
#    guarantee with T1 and the base;
#  - the ledger is charged that total exactly once (one charge line of
#    algorithm guided), and the release counts one draw;
#  - the run file records both stages: /guided (stage 1's T1 indices and
#    noisy values) and /trace with stage 2's K secret candidates;
#  - both release files list stage 1's privatized evaluations (DP outputs
#    covered by the release's total), exactly the run file's /guided, and
#    none of stage 2's secret gains;
#  - the same noise_seed gives the same run and release, on 2 ranks and on 1
#    (π gathered from the ranks' blocks is π of one block); another noise_seed
#    with the same run.seed other stage-2 candidates; with OS noise and
#    run.seed fixed, four runs' stage-2 candidates are not all equal (the
#    draws come from the secret noise source: liu_talwar, E[K] = 36, weight
#    0.9, so one pair coincides with probability at most
#    sum_k P(K=k)^2 max(pi)^k <= (1/36) * sum_k 0.128^k < 0.0041 and all
#    four with at most 0.0041^3 < 1e-7);
#  - a run stopped half way (--stop-after) writes nothing and its charge
#    stands; the next run charges again; --resume is refused and charges
#    nothing; --overwrite does not reset the budget (privacy.budget refuses
#    the run that would pass it, before anything is evaluated); `dpbo
#    release` refuses a redraw.
source "$(dirname "${BASH_SOURCE[0]}")/guided_fixture.sh"
guided_fixture_start papernot_steinke

ok g
"$py" - "$work/out/g.h5" "$work/out/g.release.json" <<'PY' || fail "the release, the run file or their accounting"
import h5py, json, math, sys
f = h5py.File(sys.argv[1], "r")
r = json.load(open(sys.argv[2]))
g = f["guided"].attrs
def up(a, b):  # dpbo_privacy_sum_up: the sum rounded up
    s = a + b
    return s if s - a >= b and s - b >= a else math.nextafter(s, math.inf)
eps = up(float(g["stage1_epsilon_accounted"]), float(g["stage2_epsilon_accounted"]))
delta = up(float(g["stage1_delta"]), float(g["stage2_delta_accounted"]))
print("release: algorithm %s, epsilon_total %r, delta_total %r; stages: %r + %r, %r + %r"
      % (r["algorithm"], r["epsilon_total"], r["delta_total"], float(g["stage1_epsilon_accounted"]),
         float(g["stage2_epsilon_accounted"]), float(g["stage1_delta"]),
         float(g["stage2_delta_accounted"])))
assert r["algorithm"] == "guided", r["algorithm"]
assert r["epsilon_total"] == float(g["epsilon_total"]) == eps, (r["epsilon_total"], eps)
assert r["delta_total"] == float(g["delta_total"]) == delta, (r["delta_total"], delta)
assert 0.99 < r["epsilon_total"] <= 1.0 and 0.99e-6 < r["delta_total"] <= 1e-6
assert "basic composition of the two stages" in r["guarantee"], r["guarantee"]
assert r["guarantee"].startswith("Stage 1: 4 GP-UCB evaluations"), r["guarantee"]
assert "(%.6g, %.6g)-DP" % (r["epsilon_total"], r["delta_total"]) in r["guarantee"]
assert "papernot_steinke" in r["guarantee"]
# The release states both stages (its terms: stage 2's accounting, stage 1's).
t = r["terms"]
assert up(t["stage1_epsilon_accounted"], t["epsilon_accounted"]) == r["epsilon_total"], t
assert up(t["stage1_delta"], t["delta_accounted"]) == r["delta_total"], t
assert t["stage1_evaluations"] == 4 and t["stage1_sigma"] == float(g["stage1_sigma"]) > 0, t
assert 0.3 / 32 * (1 - 1e-12) <= t["pi_min"] <= t["pi_max"] < 1, t
assert r["T"] == 12 and r["ledger"]["draws"] == 1, (r["T"], r["ledger"])
assert r["ledger"]["epsilon_basic"] >= r["epsilon_total"] - 1e-15
# Both stages in the run file: stage 1's T1 privatized values, stage 2's K.
assert len(f["guided/stage1_index"]) == 4 and len(f["guided/stage1_value"]) == 4
assert int(g["stage1_evaluations"]) == 4 and int(g["stage2_expected_runs"]) == 8
K = len(f["trace/candidates"])
assert K >= 1 and list(f["trace/candidates"][()]) == list(f["trace/index"][()])
sensitive = f.attrs["sensitive"]
assert (sensitive.decode() if isinstance(sensitive, bytes) else sensitive).startswith("yes")
print("run file: stage 1 at", list(f["guided/stage1_index"][()]), "; stage 2: K =", K)
PY
# Both release files list stage 1's privatized evaluations, exactly the run
# file's /guided (index, lambda of the grid, noisy value), labelled; nothing
# of stage 2's secret /trace (candidates, raw gains) appears in them.
"$py" - "$work/out/g.h5" "$work/out/g.release.h5" "$work/out/g.release.json" <<'PY' || fail "the release files do not hold exactly stage 1's privatized evaluations"
import h5py, json, math, sys
import numpy as np
f, rh = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
rj = json.load(open(sys.argv[3]))
index = [int(i) for i in f["guided/stage1_index"][()]]
value = [float(v) for v in f["guided/stage1_value"][()]]
grid = np.logspace(-4, 0, 32)  # dim.lambda = log 0.0001 1 32
s1 = rj.get("stage1_privatized_evaluations")
assert s1 is not None, "the JSON release has no stage1_privatized_evaluations: " + ", ".join(rj)
assert "stage 1's privatized evaluations" in s1["note"], s1["note"]
ev = s1["evaluations"]
print("release json: stage 1", [(e["index"], e["value"]) for e in ev], "; run file:", list(zip(index, value)))
assert [e["step"] for e in ev] == [1, 2, 3, 4], ev
assert [e["index"] for e in ev] == index and [e["value"] for e in ev] == value, (ev, index, value)
for e in ev:
    assert list(e["lambda"]) == ["lambda"] and math.isclose(e["lambda"]["lambda"], grid[e["index"]], rel_tol=1e-12), e
g = rh["stage1_privatized_evaluations"]
note = g.attrs["note"]
assert "stage 1's privatized evaluations" in (note.decode() if isinstance(note, bytes) else note)
assert list(rh.keys()) == ["stage1_privatized_evaluations"], list(rh.keys())
assert [int(i) for i in g["index"][()]] == index and [float(v) for v in g["value"][()]] == value
assert g["lambda"].shape == (4, 1) and [float(x) for x in g["lambda"][:, 0]] == [e["lambda"]["lambda"] for e in ev]
# Stage 2 is secret: none of its raw gains is a number of either release file
# (its candidates may coincide with stage 1's, which are public).
numbers = [float(v) for v in np.concatenate([np.ravel(x) for x in rh.attrs.values() if np.issubdtype(np.asarray(x).dtype, np.number)] + [np.ravel(g[d][()]).astype(float) for d in g])]
def walk(x):
    if isinstance(x, dict): [walk(v) for v in x.values()]
    elif isinstance(x, list): [walk(v) for v in x]
    elif isinstance(x, (int, float)) and not isinstance(x, bool): numbers.append(float(x))
walk(rj)
secret = set(float(v) for v in f["trace/gain"][()]) - set(value)
assert not secret & set(numbers), sorted(secret & set(numbers))
print("release h5: /stage1_privatized_evaluations", [int(i) for i in g["index"][()]], "; no stage-2 gain of", len(secret), "in either file")
PY
[[ $(charges "$work/out/g.h5" | wc -l) == 1 ]] || fail "the ledger holds $(charges "$work/out/g.h5" | wc -l) charges of g.h5, not 1"
read -r alg leps ldelta <<<"$(charges "$work/out/g.h5")"
[[ $alg == guided ]] || fail "the ledger's charge names $alg"
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (float(sys.argv[2]) == r["epsilon_total"] and float(sys.argv[3]) == r["delta_total"]))' \
  "$work/out/g.release.json" "$leps" "$ldelta" || fail "the ledger charged ($leps, $ldelta), not the release's total"
echo "ledger: one charge, $alg ($leps, $ldelta)"

# Seeded: reproducible, and the candidates follow noise_seed, not run.seed.
ok g-again
[[ $(ds "$work/out/g-again.h5" trace/candidates) == $(ds "$work/out/g.h5" trace/candidates) ]] ||
  fail "the same noise_seed drew other stage-2 candidates"
# On one rank (Λ in one block, π built from it alone) the same run: the law
# gathered from the ranks' blocks is the same law.
np=1 ok g-np1
"$py" - "$work/out/g.h5" "$work/out/g-np1.h5" "$work/out/g.release.json" "$work/out/g-np1.release.json" <<'PY' ||
import h5py, json, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
ra, rb = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
for d in ("trace/candidates", "guided/stage1_index", "guided/stage1_value"):
    assert list(a[d][()]) == list(b[d][()]), d
assert ra["terms"] == rb["terms"] and ra["value"] == rb["value"] and ra["lambda"] == rb["lambda"]
PY
  fail "1 and 2 ranks made different guided runs with the same noise_seed"
ok g-12 --set privacy.noise_seed=12
a=$(ds "$work/out/g.h5" trace/candidates) b=$(ds "$work/out/g-12.h5" trace/candidates)
echo "run.seed 2015: noise_seed 11 -> $a; noise_seed 12 -> $b"
[[ $a != "$b" ]] || fail "noise_seed 11 and 12 drew the same stage-2 candidates"

# OS noise, run.seed fixed: the stage-2 candidates differ.
os=(--set privacy.noise=os --set run.iterations=40 --set privacy.guided_weight=0.9
    --set privacy.guided_base=liu_talwar)
for i in 1 2 3 4; do ok "os-$i" "${os[@]}"; done
c1=$(ds "$work/out/os-1.h5" trace/candidates)
same=1
for i in 2 3 4; do
  [[ $(ds "$work/out/os-$i.h5" trace/candidates) == "$c1" ]] || same=0
done
echo "noise = os, run.seed 2015: stage-2 candidates of run 1: $c1"
[[ $same == 0 ]] || fail "four runs with OS noise drew the same stage-2 candidates"

# Stopped half way (in stage 2): nothing written, the charge stands.
run half --stop-after 6
code=$?
[[ $code == 4 ]] || { cat "$work/half.log"; fail "--stop-after 6 exited $code, not 4"; }
[[ ! -e $work/out/half.h5 && ! -e $work/out/half.release.json ]] || fail "a stopped guided run wrote files"
[[ $(charges "$work/out/half.h5" | wc -l) == 1 ]] || fail "the stopped run is not charged once"
ok half
[[ $(charges "$work/out/half.h5" | wc -l) == 2 ]] || fail "the run after the stop was not charged again"
# --resume: refused, nothing charged.
run half --resume
code=$?
[[ $code == 2 ]] || { cat "$work/half.log"; fail "--resume exited $code, not 2"; }
grep -q "privacy.algorithm = guided cannot be resumed" "$work/half.log" || { cat "$work/half.log"; fail "--resume does not say why"; }
[[ $(charges "$work/out/half.h5" | wc -l) == 2 ]] || fail "--resume charged"
# --overwrite keeps the budget: in a fresh folder (its own ledger) with
# privacy.budget = 2.5, a run and its --overwrite spend 2 of it, and a third
# (--overwrite again) is refused before anything is evaluated or removed.
budget=(--set "output.dir=$work/b" --set "privacy.budget=2.5 1e-5")
ok b1 "${budget[@]}"
ok b1 "${budget[@]}" --overwrite
run b1 "${budget[@]}" --overwrite
code=$?
[[ $code == 2 ]] || { cat "$work/b1.log"; fail "a third run past privacy.budget exited $code, not 2"; }
grep -q "privacy.budget" "$work/b1.log" || { cat "$work/b1.log"; fail "the refusal does not name privacy.budget"; }
! grep -q '^\[[0-9]*/[0-9]*\]' "$work/b1.log" || fail "the refused run evaluated something"
[[ -e $work/b/b1.release.json ]] || fail "the refusal removed the second run's release"
n=$(awk -F'\t' '$4 == "charge"' "$work/b/dpbo-ledger" | wc -l)
[[ $n == 2 ]] || fail "the budget ledger holds $n charges, not 2"
# A second run onto g.h5 (no flag): refused, and pointed at --overwrite,
# never at --resume (refused for guided).
run g
code=$?
[[ $code == 2 ]] && grep -q "never resumed" "$work/g.log" && grep -q -- "--overwrite" "$work/g.log" &&
  ! grep -q -- "--resume" "$work/g.log" || { cat "$work/g.log"; fail "a run onto a guided run file exited $code or did not point at --overwrite"; }
echo "existing run file: $(grep -o 'privacy.algorithm = guided is never resumed[^(]*' "$work/g.log")"
# dpbo utility: not defined for guided yet, said so (not "did not complete",
# whose count would be stage 2's secret K).
"$mpiexec" -n 1 "$bin" utility "$work/out/g.h5" > "$work/utility.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q "utility (dpbo utility) is not defined yet" "$work/utility.log" &&
  ! grep -q "did not complete" "$work/utility.log" || { cat "$work/utility.log"; fail "dpbo utility on a guided run exited $code without its own message"; }
cat "$work/utility.log"
# dpbo release: a redraw needs a fresh stage 2.
"$mpiexec" -n 1 "$bin" release "$work/out/g.h5" > "$work/release.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q "cannot be redrawn" "$work/release.log" ||
  { cat "$work/release.log"; fail "dpbo release on a guided run exited $code"; }
echo "PASS"
