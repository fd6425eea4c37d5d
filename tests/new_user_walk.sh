#!/usr/bin/env bash
# A new user's first private tuning, end to end (issue #23, "Done when"):
#  - their own table: a CSV with a header row and the label in the FIRST
#    column (the wine layout that once turned 121 proline values into
#    classes), read by their own Python model, not by dpbo;
#  - their own model in the persistent command mode: one process per worker
#    rank answers "k=5 metric=manhattan scale=0.3" lines with an accuracy;
#  - three hyper-parameters as users have them: an integer (k of k-NN), a
#    categorical (the distance) and a log-scaled number (a feature's weight);
#  - private_evaluations with the sensitivity they state (1/m), on 2 ranks;
#  - the plot and the utility report.
# What must hold: the run exits 0; the model only ever saw integers for k
# and names for the metric; the release JSON states ε, δ, the stated Δ and a
# λ̃ whose k is an integer of the range and whose metric is one of the
# names, and a value within the accuracy's range; the plot is a PNG whose
# title names the method and never prints nan; `dpbo utility` speaks of
# privatized evaluations and exits 0.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-}
[[ -n $python ]] || { [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3 || python=python3; }
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
[[ -n ${KEEP:-} ]] && echo "work: $work"

# The user's table: 3 features, label first, a header row; 600 rows, seeded.
"$python" - <<'PY' || fail "could not write the table"
import random
rng = random.Random(2026)
with open("table.csv", "w") as f:
    f.write("label,alcohol,ash,proline\n")
    for i in range(600):
        y = rng.randrange(3)
        x = [y + rng.gauss(0, 0.9), rng.gauss(0, 1) * 5, y * 0.5 + rng.gauss(0, 1)]
        f.write(f"{y}," + ",".join(f"{v:.5f}" for v in x) + "\n")
PY

# The user's model: k-NN in plain Python, trained on the first 400 rows
# (public to the model), scored by accuracy on the last 200 (the private
# validation set V, m = 200, so one record moves the accuracy by 1/200).
cat > model.py <<'PY'
#!/usr/bin/env python3
import csv, math, os, sys
rows = list(csv.reader(open(os.environ["TABLE"])))
header, rows = rows[0], [[float(v) for v in r] for r in rows[1:]]
assert header[0] == "label"
train, valid = rows[:400], rows[400:]
dist = {"euclidean": lambda a, b: math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b))),
        "manhattan": lambda a, b: sum(abs(x - y) for x, y in zip(a, b)),
        "chebyshev": lambda a, b: max(abs(x - y) for x, y in zip(a, b))}
seen = open(os.environ["SEEN"], "a")
for line in sys.stdin:
    kv = dict(w.split("=", 1) for w in line.split())
    seen.write(line)
    seen.flush()
    k, metric, scale = int(kv["k"]), kv["metric"], float(kv["scale"])  # int("5.0") fails
    d = dist[metric]
    w = lambda r: [r[1], r[2] * scale, r[3]]
    right = 0
    for v in valid:
        near = sorted(train, key=lambda t: d(w(t), w(v)))[:k]
        votes = [sum(1 for t in near if t[0] == c) for c in range(3)]
        right += votes.index(max(votes)) == v[0]
    print(right / len(valid), flush=True)
PY
chmod +x model.py
export TABLE=$work/table.csv SEEN=$work/seen.txt

cat > knn.ini <<INI
[run]
iterations = 8
seed = 4
[space]
kind = grid
dim.k = integer 1 15
dim.metric = categorical euclidean manhattan chebyshev
dim.scale = log 0.01 1 3
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = command
command = $work/model.py   # the user's program, started once per worker rank
mode = persistent
timeout_s = 120
value_range = 0 1
[privacy]
algorithm = private_evaluations
epsilon = 1
delta = 1e-6
evaluation_sensitivity = 0.005   # 1/m, m = 200 validation records
dataset_id = knn-table-validation
ledger = $work/ledger
[output]
dir = $work/out
INI

$mpiexec -n 2 --oversubscribe "$bin" run knn.ini > run.log 2>&1
rc=$?
[[ $rc -eq 0 ]] || { cat run.log; fail "dpbo run exited $rc"; }
[[ -s out/knn.release.json ]] || fail "no release JSON"

# The model saw integers and names only.
[[ $(wc -l < seen.txt) -ge 8 ]] || fail "the model answered $(wc -l < seen.txt) requests, expected >= 8"
grep -Evq '^k=([1-9]|1[0-5]) metric=(euclidean|manhattan|chebyshev) scale=[0-9.e+-]+$' seen.txt &&
  fail "a request the model should not see: $(grep -Ev '^k=([1-9]|1[0-5]) metric=(euclidean|manhattan|chebyshev) scale=' seen.txt | head -1)"

"$python" - out/knn.release.json <<'PY' || fail "the release JSON is wrong"
import json, math, sys
r = json.load(open(sys.argv[1]))
flat = json.dumps(r)
assert "NaN" not in flat and "nan" not in flat.lower().replace("nanosec", ""), flat
assert r["algorithm"] == "private_evaluations", r["algorithm"]
assert r["epsilon_total"] == 1 and r["delta_total"] == 1e-6, (r["epsilon_total"], r["delta_total"])
assert r["sensitivity"] == 0.005 and r["sensitivity_source"] == "stated by the user", r["sensitivity"]
assert r["evaluations_charged"] == 8 and r["failures"] == 0, r
lam = r["lambda"]
assert isinstance(lam["k"], int) and 1 <= lam["k"] <= 15, lam
assert lam["metric"] in ("euclidean", "manhattan", "chebyshev"), lam
assert 0.01 * (1 - 1e-12) <= lam["scale"] <= 1 + 1e-12, lam
v = r["value"]
assert 0 <= v <= 1, v
print("release:", lam, "v~ =", v)
PY

# The plot: plot_run.py writes a PNG; its figure, built by the same
# functions, is titled by the method and may be published, and no text of
# it prints nan.
"$python" "$src/analysis/plot_run.py" out/knn.h5 -o knn.png > plot.log 2>&1 || { cat plot.log; fail "plot_run.py failed"; }
[[ $(head -c 8 knn.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "knn.png is not a PNG"
"$python" - "$src/analysis/plot_run.py" out/knn.h5 out/knn.release.json <<'PY' || fail "the figure is wrong"
import importlib.util, sys
import matplotlib
matplotlib.use("Agg")
spec = importlib.util.spec_from_file_location("plot_run", sys.argv[1])
pr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pr)
run = pr.RunFile(sys.argv[2])
fig = pr.make_figure(run, sys.argv[2], 20000, pr.Release(sys.argv[3], run.names, run.categories))
fig.canvas.draw()
title = " ".join(fig._suptitle.get_text().split())
assert "GP-UCB on privatized evaluations" in title and "may be published" in title, title
texts = " ".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))
assert "nan" not in texts.lower(), texts
# The categorical dimension is labelled by its names wherever it is drawn:
# under its parallel axis and on every slice that has it.
names = ["euclidean", "manhattan", "chebyshev"]
for ax in fig.axes:
    title = ax.get_title()
    if title.startswith("Parallel"):
        assert "metric\n" + "\n".join(names) in [t.get_text() for t in ax.get_xticklabels()], title
    for which, dim in (("x", title.split(" against ")[-1]), ("y", title[7:].split(" against ")[0])):
        if title.startswith("Slice: ") and dim == "metric":
            labels = [t.get_text() for t in getattr(ax, "get_%sticklabels" % which)()]
            assert labels == names, (title, which, labels)
PY

# The utility report speaks of privatized evaluations.
"$bin" utility out/knn.h5 > utility.txt 2>&1
rc=$?
[[ $rc -eq 0 ]] || { cat utility.txt; fail "dpbo utility exited $rc"; }
grep -qi "privatized evaluation\|private_evaluations" utility.txt || { cat utility.txt; fail "utility does not speak of privatized evaluations"; }
grep -qi "nan" utility.txt && { cat utility.txt; fail "utility printed nan"; }
# Its numbers from closed forms: σ at the run's ε is the release's; the
# discrete Gaussian is σ-sub-Gaussian (Canonne, Kamath and Steinke 2020), so
# |noise| < σ √(2 log(2/tail)) w.p. ≥ 1 − tail and two gains 2σ √(log(1/tail))
# apart are misordered w.p. ≤ tail (tail = 0.05, the default).
"$python" - utility.txt out/knn.release.json <<'PY' || { cat utility.txt; fail "utility's numbers are wrong"; }
import json, math, re, sys
text = open(sys.argv[1]).read()
sigma = json.load(open(sys.argv[2]))["sigma"]
m = re.search(r"epsilon = 1: each evaluation's noise sigma = ([0-9.e+-]+)", text)
assert m and abs(float(m.group(1)) / sigma - 1) < 5e-4, (m and m.group(1), sigma)
within = float(re.search(r"within ([0-9.e+-]+) of its gain", text).group(1))
assert abs(within / (sigma * math.sqrt(2 * math.log(2 / 0.05))) - 1) < 5e-4, within
gap = float(re.search(r"two gains ([0-9.e+-]+) apart", text).group(1))
assert abs(gap / (2 * sigma * math.sqrt(math.log(1 / 0.05))) - 1) < 5e-4, gap
PY
echo "PASS"
