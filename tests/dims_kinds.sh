#!/usr/bin/env bash
# Integer, log-integer and categorical hyper-parameters end to end (issue #23
# item 4; a tester had to round n_estimators = 19.74 by hand):
#  - a command objective that records its arguments and environment receives
#    integers as integers (n=12, not 12.000000000000002) and categories by
#    name, on a grid of dim.n = integer, dim.depth = log_integer and
#    dim.crit = categorical, under privacy.algorithm = private_evaluations;
#  - the run file's /space records each dimension's kind and category names,
#    and /trace/lambda holds integers and category indices;
#  - the release (JSON and HDF5) and the log print the category's name and
#    the integers as integers;
#  - a private selection (random_search, svm) over a mixed space, C as
#    log_integer and gamma log, releases an integer C from the grid;
#  - dpbo compare over a log_integer lambda tabulates integers;
#  - Algorithm 2 refuses a categorical dimension (its regret bound);
#  - plot_run labels a categorical axis by its names and places a released
#    category at its index;
#  - bad dimensions are refused before anything runs: exit 2, one message
#    naming the config line and key, no run file.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$work/obj.py" <<'PY'
#!/usr/bin/env python3
import os, sys
kv = dict(a.split("=", 1) for a in sys.argv[1:])
with open(os.environ["SEEN"], "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\n")
n, depth, crit = int(kv["n"]), int(kv.get("depth", "1")), kv["crit"]  # int("12.0") fails
print(0.5 + 0.01 * n - 0.001 * depth + (0.2 if crit == "entropy" else 0.0))
PY
chmod +x "$work/obj.py"
export SEEN=$work/seen.txt

cat > "$work/mixed.ini" <<INI
[run]
iterations = 6
seed = 3
[space]
kind = grid
dim.n = integer 10 13
dim.depth = log_integer 1 100 3
dim.crit = categorical gini entropy log_loss
[gp]
lengthscale = 0.3
[objective]
kind = command
command = $work/obj.py
value_range = 0 1
[privacy]
algorithm = private_evaluations
evaluation_sensitivity = 0.01
epsilon = 1
delta = 1e-6
noise = seeded
noise_seed = 4
[output]
dir = $work/out
name = mixed
INI
"$mpiexec" -n 2 "$bin" run "$work/mixed.ini" > "$work/mixed.log" 2>&1 ||
  { code=$?; cat "$work/mixed.log"; fail "the mixed run exited $code"; }
cat "$work/seen.txt"
"$py" - "$work/seen.txt" <<'PY' || fail "the objective's arguments"
import sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
assert len(lines) == 6, lines
for line in lines:
    kv = dict(a.split("=", 1) for a in line.split())
    assert kv["n"] in {"10", "11", "12", "13"}, line
    assert kv["depth"] in {"1", "10", "100"}, line
    assert kv["crit"] in {"gini", "entropy", "log_loss"}, line
print("objective saw integers and category names:", len(lines), "evaluations")
PY
grep -E "crit=(gini|entropy|log_loss)" "$work/mixed.log" | head -2
grep -q "lambda~ = (n=1[0-3], depth=\(1\|10\|100\), crit=\(gini\|entropy\|log_loss\))" \
  "$work/mixed.log" || { cat "$work/mixed.log"; fail "the release log does not print names"; }
"$py" - "$work/out/mixed.h5" "$work/out/mixed.release.json" "$work/out/mixed.release.h5" <<'PY' ||
import h5py, json, sys
run, rjs, rh5 = sys.argv[1:]
with h5py.File(run, "r") as f:
    sp = f["space"].attrs
    s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
    assert s(sp["dim_kind"]) == "integer,log_integer,categorical", s(sp["dim_kind"])
    assert s(sp["categories"]).split("\n") == ["", "", "gini,entropy,log_loss"], s(sp["categories"])
    lam = f["trace/lambda"][:]
    assert lam.shape == (6, 3), lam.shape
    assert all(v in (10, 11, 12, 13) for v in lam[:, 0]), lam
    assert all(v in (1, 10, 100) for v in lam[:, 1]), lam
    assert all(v in (0, 1, 2) for v in lam[:, 2]), lam
r = json.load(open(rjs))
assert r["lambda"]["crit"] in ("gini", "entropy", "log_loss"), r["lambda"]
assert isinstance(r["lambda"]["n"], int) and 10 <= r["lambda"]["n"] <= 13, r["lambda"]
assert r["lambda"]["depth"] in (1, 10, 100), r["lambda"]
with h5py.File(rh5, "r") as f:
    text = f.attrs["lambda_text"]
    text = text.decode() if isinstance(text, bytes) else str(text)
    assert text == "%d,%d,%s" % (r["lambda"]["n"], r["lambda"]["depth"], r["lambda"]["crit"]), text
print("run file and release:", r["lambda"])
PY
  fail "the run file or the release"

# A private selection over a mixed space (C log_integer, gamma log).
data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
if [[ -r $data ]]; then
  cat > "$work/sel.ini" <<INI
[run]
iterations = 4
seed = 2015
[space]
kind = grid
dim.C = log_integer 1 1000 4
dim.gamma = log 0.0001 0.1 4
[gp]
lengthscale = 0.3
[objective]
kind = svm
data = $data
format = csv
train_rows = 200
validation_rows = 100
split_seed = 7
[privacy]
algorithm = random_search
epsilon = 1
delta = 0
noise = seeded
noise_seed = 5
ledger = $work/sel.ledger
[output]
dir = $work/out
name = sel
INI
  "$mpiexec" -n 2 "$bin" run "$work/sel.ini" > "$work/sel.log" 2>&1 ||
    { code=$?; cat "$work/sel.log"; fail "the selection run exited $code"; }
  grep "lambda~" "$work/sel.log"
  "$py" - "$work/out/sel.release.json" <<'PY' || fail "the selection release"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["lambda"]["C"] in (1, 10, 100, 1000) and isinstance(r["lambda"]["C"], int), r["lambda"]
print("random_search over a mixed space released", r["lambda"])
PY
  # The svm objective takes numbers only: a categorical C is refused.
  sed 's/^dim.C = .*/dim.C = categorical small large/' "$work/sel.ini" > "$work/selc.ini"
  "$bin" run "$work/selc.ini" > "$work/selc.log" 2>&1
  code=$?
  [[ $code == 2 ]] && grep -q "dim.C.*categorical" "$work/selc.log" ||
    { cat "$work/selc.log"; fail "svm with a categorical C: exit $code"; }
  head -1 "$work/selc.log"
fi

# dpbo compare over an integer lambda (logreg): its table holds the integers.
if [[ -r $data ]]; then
  sed "s|^dim.lambda = .*|dim.lambda = log_integer 1 100 5|; s|^dir = .*|dir = $work/cmp|;
       s/^repetitions = .*/repetitions = 2/; s/^epsilons = .*/epsilons = 1/;
       s/^iterations = .*/iterations = 4/; s/^train_rows = .*/train_rows = 200/;
       s/^validation_rows = .*/validation_rows = 100/; s/^test_rows = .*/test_rows = 100/" \
    "$src/configs/compare-digits-logreg.ini" > "$work/cmp.ini"
  "$mpiexec" -n 1 "$bin" compare "$work/cmp.ini" > "$work/cmp.log" 2>&1 ||
    { code=$?; cat "$work/cmp.log"; fail "compare over an integer lambda exited $code"; }
  "$py" - "$work"/cmp/*.h5 <<'PY' || fail "the comparison file"
import h5py, sys
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    t = f["table"]
    kind = t.attrs["dim_kind"]
    assert (kind.decode() if isinstance(kind, bytes) else kind) == "log_integer", kind
    assert sorted(set(t["lambda"][:].ravel())) == [1, 3, 10, 32, 100], t["lambda"][:]
    print("compare: the table's lambda values", sorted(set(t["lambda"][:].ravel())))
PY
fi

# Algorithm 2's regret bound does not cover a categorical dimension.
grep -v evaluation_sensitivity "$work/mixed.ini" > "$work/alg2.ini"
"$bin" run "$work/alg2.ini" --set privacy.algorithm=2 --set gp.noise_std=0 > "$work/alg2.log" 2>&1
code=$?
[[ $code == 2 ]] && grep -q "algorithm = 2 cannot take the categorical dimension dim.crit" \
  "$work/alg2.log" || { cat "$work/alg2.log"; fail "algorithm 2 with a categorical: exit $code"; }
head -1 "$work/alg2.log"

# plot_run: a categorical axis by its names, the released category at its index.
sed "/^dim.depth/d; s/^name = mixed/name = two/; s/^seed = 3/seed = 3\n/" "$work/mixed.ini" |
  sed "s/^\[output\]/[output]\nposterior = yes/" > "$work/two.ini"
"$mpiexec" -n 1 "$bin" run "$work/two.ini" --quiet > "$work/two.log" 2>&1 ||
  { code=$?; cat "$work/two.log"; fail "the 2-d run exited $code"; }
MPLBACKEND=Agg "$py" "$src/analysis/plot_run.py" "$work/out/two.h5" -o "$work/two.png" \
  > "$work/plot.log" 2>&1 || { cat "$work/plot.log"; fail "plot_run on a categorical run"; }
[[ -s $work/two.png ]] || fail "plot_run wrote no figure"
"$py" - "$src/analysis" "$work/out/two.h5" "$work/out/two.release.json" <<'PY' || fail "plot_run's reading"
import json, sys
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import plot_run
run = plot_run.RunFile(sys.argv[2])
assert run.categories == [[], ["gini", "entropy", "log_loss"]], run.categories
rel = plot_run.Release(sys.argv[3], run.names, run.categories)
name = json.load(open(sys.argv[3]))["lambda"]["crit"]
assert rel.lam[1] == ["gini", "entropy", "log_loss"].index(name), (rel.lam, name)
fig, ax = plt.subplots()
run.format_axis(ax, 1, "y")
assert [t.get_text() for t in ax.get_yticklabels()] == ["gini", "entropy", "log_loss"]
print("plot_run: criterion axis", [t.get_text() for t in ax.get_yticklabels()], "release at", rel.lam)
PY

# Bad dimensions: exit 2, the line and the key named, no run file.
check_bad() {
  local value=$1 want=$2
  sed "s/^dim.n = .*/dim.n = $value/" "$work/mixed.ini" |
    sed "s|^dir = .*|dir = $work/bad|" > "$work/bad.ini"
  "$bin" run "$work/bad.ini" > "$work/bad.log" 2>&1
  local code=$?
  [[ $code == 2 ]] || { cat "$work/bad.log"; fail "dim.n = $value: exit $code, not 2"; }
  grep -qF "bad.ini:6: space.dim.n = $value" "$work/bad.log" &&
    grep -qF "$want" "$work/bad.log" ||
    { cat "$work/bad.log"; fail "dim.n = $value: no message naming the key and '$want'"; }
  [[ ! -e $work/bad ]] || fail "dim.n = $value: output written"
  head -1 "$work/bad.log"
}
check_bad "integer 13 10" "reversed bounds"
check_bad "integer 10 13 8" "8 points requested, but [10, 13] holds only 4 integers"
check_bad "integer 1.5 4" "integer bounds"
check_bad "log_integer 1 100 50" "do not round to distinct integers"
check_bad "log_integer 1 100" "needs its number of points"
check_bad "categorical" "needs at least 2 category names"
check_bad "categorical a b a" "category 'a' is listed twice"
check_bad "categorical solo" "at least 2 category names"
echo "PASS"
