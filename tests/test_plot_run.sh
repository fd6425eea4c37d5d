#!/usr/bin/env bash
# analysis/plot_run.py end to end: a tiny synthetic run on 2 ranks (Branin,
# 256 Sobol points, 8 iterations, /posterior written), then the figure; and a
# second run on log-scale dimensions without /posterior (the evaluated
# lambda_t in place of the posterior); a third with a private release ([privacy] algorithm = 1, seeded
# noise), whose lambda~ and v~ must be marked. Each PNG must be a real PNG
# that matplotlib reads back, of a plausible size and not blank.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
# Debian's interpreter has python3-h5py and python3-matplotlib.
python=${DPBO_PYTHON:-}
[[ -n $python ]] || { [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3 || python=python3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write_config() { # NAME DIM1 DIM2 FUNCTION MEAN STD POSTERIOR [EXTRA SECTION]
  cat > "$work/$1.ini" <<INI
[run]
iterations = 8
seed = 3
[space]
kind = sobol
points = 256
$2
$3
[gp]
kernel = matern52
lengthscale = 0.2
mean = $5
signal_std = $6
noise_std = 0.01
[objective]
kind = synthetic
function = $4
[output]
dir = $work
name = $1
posterior = $7
${8:-}
INI
}
write_config branin "dim.x1 = linear -5 10" "dim.x2 = linear 0 15" branin -50 50 yes
write_config logdims "dim.C = log 1e-2 1e4" "dim.gamma = log 1e-5 1e1" gp_prior 0.5 0.25 no
write_config private "dim.C = log 1e-2 1e4" "dim.gamma = log 1e-5 1e1" gp_prior 0.5 0.25 yes \
  "$(printf '[privacy]\nalgorithm = 1\nepsilon = 20\ndelta = 0.1\nnoise = seeded\nnoise_seed = 7')"

check_png() { # PNG MIN_WIDTH
  "$python" - "$1" "$2" <<'PY'
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.image as mpimg
path, min_width = sys.argv[1], int(sys.argv[2])
with open(path, "rb") as f:
    assert f.read(8) == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
img = mpimg.imread(path)
assert img.ndim == 3 and img.shape[2] in (3, 4), img.shape
h, w = img.shape[:2]
assert 300 <= h <= 4000 and min_width <= w <= 6000, (h, w)
assert float(img[..., :3].std()) > 0.05, "the figure is (nearly) blank"
print("%s: %d x %d pixels" % (path, w, h))
PY
}

for name in branin logdims private; do
  "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/$name.ini" --quiet > "$work/$name.log" 2>&1 \
    || { cat "$work/$name.log"; echo "FAIL: dpbo run $name exited with an error"; exit 1; }
  [[ -f $work/$name.h5 ]] || { echo "FAIL: no run file $name.h5"; exit 1; }
  "$python" "$src/analysis/plot_run.py" "$work/$name.h5" -o "$work/$name.png" \
    || { echo "FAIL: plot_run.py failed on $name.h5"; exit 1; }
  [[ -s $work/$name.png ]] || { echo "FAIL: no PNG for $name"; exit 1; }
  (( $(stat -c %s "$work/$name.png") > 10000 )) || { echo "FAIL: $name.png is too small"; exit 1; }
  [[ -z $(ls "$work" | grep '\.tmp') ]] || { echo "FAIL: temporary file left behind"; exit 1; }
done
# Two panels (convergence + posterior) are about twice as wide as one.
check_png "$work/branin.png" 1200 || { echo "FAIL: branin.png"; exit 1; }
check_png "$work/logdims.png" 500 || { echo "FAIL: logdims.png"; exit 1; }
check_png "$work/private.png" 1200 || { echo "FAIL: private.png"; exit 1; }

# The release found next to the run file is marked: lambda~ on the posterior
# panel and the released value on the convergence panel, both labelled.
[[ -f $work/private.release.json ]] || { echo "FAIL: no private.release.json"; exit 1; }
"$python" - "$src/analysis/plot_run.py" "$work/private.h5" "$work/private.release.json" <<'PY' \
  || { echo "FAIL: the private release is not marked"; exit 1; }
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("plot_run", sys.argv[1])
pr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pr)
run = pr.RunFile(sys.argv[2])
rel = pr.Release(sys.argv[3], run.names)
fig = pr.make_figure(run, sys.argv[2], 20000, rel)
conv, post = fig.axes[0], fig.axes[1]
labels = [t.get_text() for t in conv.get_legend().get_texts()]
assert any("private release" in l and "tilde{v}" in l for l in labels), labels
labels = [t.get_text() for t in post.get_legend().get_texts()]
assert any("private release" in l and "tilde{\\lambda}" in l for l in labels), labels
lam = json.load(open(sys.argv[3]))["lambda"]
assert any(len(l.get_xdata()) == 1 and l.get_xdata()[0] == lam["C"] and l.get_ydata()[0] == lam["gamma"]
           for l in post.get_lines()), "no marker at lambda~"
print("release marked: lambda~ = %s" % lam)
PY
# A release given explicitly that cannot be read: exit status 2, no PNG.
"$python" "$src/analysis/plot_run.py" "$work/private.h5" --release "$work/bogus.json" \
  -o "$work/norelease.png" 2> /dev/null
[[ $? -eq 2 && ! -e $work/norelease.png ]] || { echo "FAIL: unreadable --release not refused"; exit 1; }

# Not a run file: exit status 2 and one message.
echo "not hdf5" > "$work/bogus.h5"
"$python" "$src/analysis/plot_run.py" "$work/bogus.h5" -o "$work/bogus.png" 2> "$work/err.txt"
code=$?
[[ $code -eq 2 ]] || { echo "FAIL: bogus file gave exit $code, expected 2"; exit 1; }
grep -q "error" "$work/err.txt" || { echo "FAIL: no error message for a bogus file"; exit 1; }
[[ ! -e $work/bogus.png ]] || { echo "FAIL: a PNG was written for a bogus file"; exit 1; }
echo "PASS: plot_run"
