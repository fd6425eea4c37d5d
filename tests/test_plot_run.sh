#!/usr/bin/env bash
# analysis/plot_run.py end to end: a tiny synthetic run on 2 ranks (Branin,
# 256 Sobol points, 8 iterations, /posterior written), then the figure; and a
# second run on log-scale dimensions without /posterior (convergence panel
# only). Each PNG must be a real PNG that matplotlib reads back, of a
# plausible size and not blank.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
# Debian's interpreter has python3-h5py and python3-matplotlib.
python=${DPBO_PYTHON:-}
[[ -n $python ]] || { [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3 || python=python3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write_config() { # NAME DIM1 DIM2 FUNCTION MEAN STD POSTERIOR
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
INI
}
write_config branin "dim.x1 = linear -5 10" "dim.x2 = linear 0 15" branin -50 50 yes
write_config logdims "dim.C = log 1e-2 1e4" "dim.gamma = log 1e-5 1e1" gp_prior 0.5 0.25 no

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

for name in branin logdims; do
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

# Not a run file: exit status 2 and one message.
echo "not hdf5" > "$work/bogus.h5"
"$python" "$src/analysis/plot_run.py" "$work/bogus.h5" -o "$work/bogus.png" 2> "$work/err.txt"
code=$?
[[ $code -eq 2 ]] || { echo "FAIL: bogus file gave exit $code, expected 2"; exit 1; }
grep -q "error" "$work/err.txt" || { echo "FAIL: no error message for a bogus file"; exit 1; }
[[ ! -e $work/bogus.png ]] || { echo "FAIL: a PNG was written for a bogus file"; exit 1; }
echo "PASS: plot_run"
