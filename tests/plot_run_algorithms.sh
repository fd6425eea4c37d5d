#!/usr/bin/env bash
# analysis/plot_run.py on a small run of every method (issue #23, 3): no
# privacy algorithm, Algorithms 1 and 2 (synthetic), and, on logistic
# regression over Debian's digits, Algorithm 3, random_search, liu_talwar,
# papernot_steinke and private_evaluations; and a d = 3 run (Algorithm 1).
# For each figure:
#  - the title names the method (never "GP-UCB" for the selection methods),
#    the release's epsilon and delta as its JSON states them, and what may be
#    published ("NOT differentially private" for the trace of every method
#    but private_evaluations, whose whole figure is post-processing);
#  - lambda~ is marked at the released lambda on a hyper-parameter panel
#    (not for Algorithm 3, which releases none), the value on the
#    convergence panel;
#  - "nan" appears in no text of the figure;
#  - the title is wrapped inside the figure;
#  - the d = 3 run has a parallel-coordinates panel and one slice per pair.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/digits_logreg.sh"
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-}
[[ -n $python ]] || { [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3 || python=python3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/synthetic.ini" <<INI
[run]
iterations = 6
seed = 3
[space]
kind = sobol
points = 128
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
name = synthetic
posterior = yes
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

# run CONFIG NAME [--set ...]: one rank (the figure does not depend on it)
run() {
  local config=$1 name=$2
  shift 2
  "$mpiexec" -n 1 "$bin" run "$work/$config.ini" --quiet --set "output.name=$name" \
    --set "privacy.ledger=$work/$name.ledger" "$@" > "$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; fail "dpbo run $name exited with an error"; }
}

# check NAME ALGORITHM: the figure of NAME.h5 and its release
check() {
  "$python" - "$src/analysis/plot_run.py" "$work" "$1" "$2" <<'PY' || fail "$1: the figure is wrong"
import importlib.util, json, os, sys
import matplotlib
matplotlib.use("Agg")
spec = importlib.util.spec_from_file_location("plot_run", sys.argv[1])
pr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pr)
work, name, alg = sys.argv[2], sys.argv[3], sys.argv[4]
path = os.path.join(work, name + ".h5")
run = pr.RunFile(path)
release = None
rel_json = os.path.join(work, name + ".release.json")
if alg != "none":
    release = pr.Release(rel_json, run.names)
    data = json.load(open(rel_json))
fig = pr.make_figure(run, path, 20000, release)
fig.canvas.draw()
title = fig._suptitle.get_text()
flat = " ".join(title.split())
# The method, by name.
names = {"none": "no privacy algorithm", "1": "Algorithm 1 of Kusner", "2": "Algorithm 2 of Kusner",
         "3": "Algorithm 3 of Kusner", "random_search": "private random search",
         "liu_talwar": "Liu-Talwar random stopping",
         "papernot_steinke": "Papernot-Steinke repeated search",
         "private_evaluations": "GP-UCB on privatized evaluations"}
assert names[alg] in flat, (alg, flat)
if alg in ("random_search", "liu_talwar", "papernot_steinke"):
    assert "GP-UCB" not in flat, flat
# What may be published, and the release's (epsilon, delta).
if alg == "private_evaluations":
    assert "NOT differentially private" not in flat and "may be published" in flat, flat
    assert "seeded: NOT for publication" in flat, flat
else:
    assert "NOT differentially private" in flat, flat
if release is not None:
    want = "($\\varepsilon$ = %s, $\\delta$ = %s)-DP" % (pr.num(data["epsilon_total"]),
                                                          pr.num(data["delta_total"]))
    assert want in flat, (want, flat)
    if data.get("warnings"):
        assert "Release warnings:" in flat, flat
# No nan anywhere: every text artist of the drawn figure.
texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
assert texts and not [t for t in texts if "nan" in t.lower()], [t for t in texts if "nan" in t.lower()]
# The title inside the figure, wrapped.
box = fig._suptitle.get_window_extent(fig.canvas.get_renderer())
W, H = fig.canvas.get_width_height()
assert box.x0 >= 0 and box.x1 <= W and box.y1 <= H, (box, W, H)
assert len(title.split("\n")) >= 2, title
conv = fig.axes[0]
if release is not None:
    labels = [t.get_text() for t in conv.get_legend().get_texts()]
    assert any("private release" in l for l in labels), labels
lam_marks = []
for ax in fig.axes[1:]:
    for line in ax.get_lines():
        if "tilde{\\lambda}" in line.get_label():
            lam_marks.append((ax, line))
if release is not None and release.lam is not None:
    assert lam_marks, "lambda~ is not marked"
    for ax, line in lam_marks:
        x = float(line.get_xdata()[0])
        ok = any(abs(x - v) <= 1e-9 * max(1.0, abs(v)) for v in release.lam) or \
            any(abs(x - v) <= 1e-9 for v in run.to_unit(release.lam)[0]) or x == 0
        assert ok, ("lambda~ marked away from the release", x, release.lam)
else:
    assert not lam_marks, "a lambda~ is marked though none was released"
titles = [ax.get_title() for ax in fig.axes]
if run.d >= 3:
    assert any(t.startswith("Parallel coordinates") for t in titles), titles
    pairs = run.d * (run.d - 1) // 2
    assert sum(t.startswith("Slice:") for t in titles) == pairs, titles
    assert len(lam_marks) == 1 + pairs, len(lam_marks)
print("%s: %d panels; title: %s" % (name, len(fig.axes), flat[:110]))
PY
  "$python" "$src/analysis/plot_run.py" "$work/$1.h5" -o "$work/$1.png" > /dev/null ||
    fail "plot_run.py failed on $1.h5"
  [[ -s $work/$1.png ]] || fail "no PNG for $1"
}

run synthetic none --set privacy.algorithm=none
check none none
run synthetic alg1
check alg1 1
run synthetic alg2 --set privacy.algorithm=2 --set gp.noise_std=0
check alg2 2
run synthetic d3 --set "space.dim.x=linear 0 1"
check d3 1
if [[ -r $data ]]; then
  run logreg alg3 --set privacy.algorithm=3
  check alg3 3
  for alg in random_search liu_talwar papernot_steinke private_evaluations; do
    run logreg "$alg" --set "privacy.algorithm=$alg"
    check "$alg" "$alg"
  done
else
  echo "note: $data is missing; the logistic-regression methods are skipped"
fi
echo "PASS: plot_run_algorithms"
