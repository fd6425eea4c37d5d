#!/usr/bin/env bash
# dpbo utility on random search speaks random search's language (issue #23,
# 3): no Theorem 2, mu_T or corrected/paper bounds (it has no GP), but the
# selection's tail bound over the T evaluated candidates,
# 2 Delta/eps_select (log T + log(1/tail)), and the score's Laplace bound
# log(1/tail) Delta/eps_value, equal to these closed forms computed here from
# the release JSON's epsilons and gain sensitivity (tail 0.05 and 0.2).
set -uo pipefail
bin=${DPBO_BIN:?}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
[[ -r $data ]] || { echo "skipping: $data is missing"; exit 77; }
cat > "$work/rs.ini" <<INI
[run]
iterations = 6
seed = 2015
[space]
kind = grid
dim.lambda = log 0.0001 1 16
[objective]
kind = logreg
data = $data
format = csv
train_rows = 300
validation_rows = 100
split_seed = 7
positive_label = 0
[privacy]
algorithm = random_search
epsilon = 1
delta = 1e-6
noise = seeded
noise_seed = 11
[output]
dir = $work
name = rs
INI
"$bin" run "$work/rs.ini" > "$work/run.log" 2>&1 || { cat "$work/run.log"; fail "dpbo run exited $?"; }
for tail in 0.05 0.2; do
  "$bin" utility "$work/rs.h5" --tail "$tail" > "$work/util.log" 2>&1 ||
    { cat "$work/util.log"; fail "dpbo utility --tail $tail exited $?"; }
  ! grep -Eq "Theorem|mu_T|corrected|paper" "$work/util.log" ||
    { cat "$work/util.log"; fail "random search's utility talks of the GP algorithms' bounds"; }
  "$py" - "$work/rs.release.json" "$work/util.log" "$tail" <<'PY' || { cat "$work/util.log"; fail "tail $tail: printed bounds differ"; }
import json, math, re, sys
rel = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
tail = float(sys.argv[3])
T, d = 6, 1 / 100  # g* / m: the ramp and sigmoid losses lie in [0, 1], m = 100
assert abs(rel["terms"]["gain_sensitivity"] - d) <= 1e-12, rel["terms"]["gain_sensitivity"]
a = math.log(1 / tail)
sel = 2 * d / rel["epsilon_lambda"] * (math.log(T) + a)
val = a * d / rel["epsilon_value"]
m = re.search(r"T = 6 evaluated candidates, epsilon (\S+), sensitivity (\S+)\): its gain >= the "
              r"best evaluated gain - (\S+)  w\.p\. >= (\S+)", log)
n = re.search(r"score~: \|score~ - gain\(lambda~\)\| <= (\S+)  w\.p\. >= (\S+)", log)
assert m and n, "lines missing"
got = [float(x) for x in m.groups()] + [float(x) for x in n.groups()]
want = [rel["epsilon_lambda"], d, sel, 1 - tail, val, 1 - tail]
for g, w in zip(got, want):  # printed with %.4g
    assert abs(g - w) <= 5e-4 * abs(w), (got, want)
print("tail %g: selection bound %.4g (closed form %.6g), score bound %.4g (closed form %.6g)"
      % (tail, got[2], sel, got[4], val))
PY
done
echo "utility random search: ok"
