#!/usr/bin/env bash
# dpbo k1sweep in synthetic mode: accuracies drawn from a known multi-task GP
# (k1 = 0.9), the likelihood's eigendecompositions forced onto ScaLAPACK
# (eigen_threshold below the number of settings). The 95% likelihood-ratio
# interval must contain the true k1 (fixed seed: deterministic), the log must
# report ScaLAPACK eigendecompositions, and the file must say mode =
# synthetic and hold no SVM data. The data ARE the model, so the residuals
# of F_V' given F_V (k1gof.h) must look N(0, 1): the KS p-value, uniform
# under the model (conservative with fitted parameters), must exceed alpha =
# 0.01 (fixed seed: deterministic); tests/check_k1gof.py recomputes every
# statistic independently (test_k1gof shows small p-values when the
# assumption is violated).
#   test_k1sweep_synthetic.sh            300 settings, one size (CTest, mpi)
#   test_k1sweep_synthetic.sh full       configs/k1sweep-synthetic.ini (2,000; slow)
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args=(k1sweep "$src/configs/k1sweep-synthetic.ini" --set "output.dir=$work" --set output.name=syn)
if [[ ${1:-} != full ]]; then
  args+=(--set k1sweep.synthetic_models=300 --set likelihood.eigen_threshold=100
         --set k1sweep.sizes=500 --set likelihood.bootstrap=8)
fi
"$mpiexec" -n 2 --oversubscribe "$bin" "${args[@]}" > "$work/log" 2>&1
rc=$?
cat "$work/log"
[[ $rc -eq 0 ]] || { echo "FAIL: exited $rc"; exit 1; }
grep -Eq "eigendecompositions \([1-9][0-9]* ScaLAPACK\)" "$work/log" || { echo "FAIL: ScaLAPACK not used"; exit 1; }
"$python" - "$work/syn.h5" <<'PY' || { echo "FAIL: synthetic results"; exit 1; }
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    mode = f.attrs["mode"]
    assert (mode.decode() if isinstance(mode, bytes) else mode) == "synthetic"
    truth = f.attrs["synthetic_truth"]
    assert "models/correct_bits" not in f
    for m in f.attrs["sizes"]:
        g = f[f"m{int(m)}"]
        assert "valid_rows" not in g
        a = g["likelihood"].attrs
        print(f"m = {int(m)}: k1 MLE {a['k1_mle']:.4f} in [{a['k1_lo']:.4f}, {a['k1_hi']:.4f}], truth {truth[0]}")
        assert a["k1_lo"] <= truth[0] <= a["k1_hi"]
        assert a["boundary"] == 0
        # sigma_n: the sampling noise of an accuracy on m records
        sigma = np.sqrt(truth[1] * (1 - truth[1]) / m)
        assert 0.7 * sigma < a["sigma_n_mle"] < 1.3 * sigma, (a["sigma_n_mle"], sigma)
        r = g["residuals"].attrs
        print(f"  residuals: KS D {r['ks_statistic']:.4g}, p {r['ks_pvalue']:.3g}, max |z| {r['max_abs_z']:.3g}")
        assert r["ks_pvalue"] > 0.01, r["ks_pvalue"]
PY
"$python" "$src/tests/check_k1gof.py" "$work/syn.h5" || { echo "FAIL: goodness-of-fit statistics"; exit 1; }
echo PASS
