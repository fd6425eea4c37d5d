#!/usr/bin/env bash
# The embedded demo end to end on 2 ranks, shortened to 6 steps: the run file
# must exist (and no temporary file), hold 6 trace rows of privatized gains
# (privacy.algorithm = private_evaluations: accuracies plus discrete Gaussian
# noise, so not bounded by [0, 1]), name the best step consistently with the
# trace, and the release must be the assumption-free one: lambda~ = argmax
# mu_T with its value clamped to [0, 1], (1, 1e-6) in all, no step field
# (argmax mu_T need not be an evaluated step).
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mpiexec" -n 2 --oversubscribe "$bin" run "$src/configs/demo.ini" \
  --set run.iterations=6 --set output.dir="$work" > "$work/log.txt" 2>&1 \
  || { cat "$work/log.txt"; echo "FAIL: demo exited $?"; exit 1; }
cat "$work/log.txt"
[[ -f $work/demo.h5 ]] || { echo "FAIL: no run file"; exit 1; }
[[ -z $(ls "$work" | grep tmp) ]] || { echo "FAIL: temporary file left behind"; exit 1; }
grep -q "best noisy observation" "$work/log.txt" || { echo "FAIL: no summary line"; exit 1; }
[[ $(grep -c '^\[' "$work/log.txt") -eq 6 ]] || { echo "FAIL: expected 6 progress lines"; exit 1; }
"${DPBO_PYTHON:-python3}" - "$work/demo.h5" <<'PY' || exit 1
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    gain = f["trace/gain"][:]
    assert gain.shape == (6,), gain.shape
    assert np.all(np.isfinite(gain)), gain
    best = int(f["summary"].attrs["best_step"])
    assert gain[best - 1] == gain.max(), (best, gain)
    assert f.attrs["complete"] == 1
    assert f["posterior/mean"].shape == (4096,)
    lam = f["trace/lambda"][:]
    assert np.all((lam[:, 0] >= 1e-2) & (lam[:, 0] <= 1e4)), lam
    print("trace gains:", gain, "best step", best)
PY
"${DPBO_PYTHON:-python3}" - "$work/demo.release.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["algorithm"] == "private_evaluations", r["algorithm"]
assert r["final_choice"] == "posterior_mean", r["final_choice"]
assert r["epsilon_total"] == 1 and r["delta_total"] == 1e-6, (r["epsilon_total"], r["delta_total"])
assert 0 <= r["value"] <= 1, r["value"]
assert "step" not in r, "a step field for argmax mu_T"
assert 1e-2 <= r["lambda"]["C"] <= 1e4 and 1e-5 <= r["lambda"]["gamma"] <= 1e1, r["lambda"]
print("release:", r["lambda"], r["value"], "clamped" if r["value_clamped"] else "")
PY
