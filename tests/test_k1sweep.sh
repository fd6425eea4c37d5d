#!/usr/bin/env bash
# dpbo k1sweep end to end on the small config (12 SVMs on 2,000 Covertype
# rows, 20 sets of 200 and 400 rows):
#  1. an uninterrupted run on 2 ranks: the HDF5 layout, accuracies in [0, 1],
#     F_V and F_V' equal to what the stored correctness bits and index sets
#     give (recomputed here in numpy), a finite likelihood sweep with its MLE
#     inside the grid's range, c > 0, no checkpoint or temporary file left;
#  2. resume: a run on 1 rank stopped by --stop-after 4 (exit 4, checkpoint
#     with 4 models), a rerun with a changed setting refused (exit 2, naming
#     the key), then the same command on 2 ranks continues: it trains exactly
#     the 8 missing models and its F matrices, bits and likelihood equal those
#     of the uninterrupted run (so they depend neither on the interruption nor
#     on the number of ranks);
#  3. analysis/plot_k1_sweep.py: a PNG and the Markdown table of MLEs, and
#     the goodness-of-fit figure and table (bootstrap intervals, B stated).
# And the statistics that test the assumption (k1gof.h), recomputed
# independently by tests/check_k1gof.py from full.h5's F matrices and MLE:
# the residuals (dense Schur complement in numpy), the KS statistic and
# p-value (scipy.stats.kstest), max |F - F'| and the exceedance rates, the
# pipeline's max |mu_T - mu'_T| (GP-UCB rewritten in numpy, every pair) and
# the bootstrap's percentile intervals; they too must survive the resume.
# Skipped (77) when the shared Covertype file is missing.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
data=${DPBO_SHARED_DIR:?}/data/covtype-206k.data.gz
python=${DPBO_PYTHON:-/usr/bin/python3}
[[ -r $data ]] || { echo "SKIP: $data not found"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(k1sweep "$src/configs/k1sweep-small.ini" --set "k1sweep.data=$data" --set "output.dir=$work")
fail() { echo "FAIL: $*"; exit 1; }

# 0. Bad input: an unknown key, sets larger than the pool and a negative
# bootstrap count (exit 2, named).
"$bin" "${common[@]}" --set k1sweep.bogus=1 > "$work/bad1.log" 2>&1
rc=$?
cat "$work/bad1.log"
[[ $rc -eq 2 ]] && grep -q "unknown key 'bogus' in \[k1sweep\]" "$work/bad1.log" || fail "unknown key: exit $rc"
"$bin" "${common[@]}" --set k1sweep.sizes=200,3000 > "$work/bad2.log" 2>&1
rc=$?
cat "$work/bad2.log"
[[ $rc -eq 2 ]] && grep -q "k1sweep.sizes" "$work/bad2.log" || fail "sizes >= pool: exit $rc"
"$bin" "${common[@]}" --set likelihood.bootstrap=-1 > "$work/bad3.log" 2>&1
rc=$?
cat "$work/bad3.log"
[[ $rc -eq 2 ]] && grep -q "likelihood.bootstrap = -1 is outside" "$work/bad3.log" || fail "bootstrap < 0: exit $rc"

# 1. Uninterrupted.
# With the kernel cache sized from memory (k1sweep.cache_mb = auto; the
# resumed run below uses the config's 200 MiB and must give the same bits).
"$mpiexec" -n 2 --oversubscribe "$bin" "${common[@]}" --set output.name=full \
  --set k1sweep.cache_mb=auto > "$work/full.log" 2>&1
rc=$?
cat "$work/full.log"
[[ $rc -eq 0 ]] || fail "uninterrupted run exited $rc"
[[ -f $work/full.h5 ]] || fail "no output file"
[[ ! -e $work/full.partial.h5 ]] || fail "checkpoint left behind after completion"
[[ -z $(ls "$work" | grep tmp) ]] || fail "temporary file left behind"
[[ $(grep -c "trained model" "$work/full.log") -eq 12 ]] || fail "expected 12 trainings"
# The cache (2,000 rows: Q is 16 MiB, under the 100 MiB floor) and each
# stage's line in the end-of-run summary.
grep -q "LIBSVM kernel cache (cache_mb = auto): 100 MiB per training rank; the whole Q of 2000 rows needs 16 MiB" \
  "$work/full.log" || fail "no line stating the automatic cache size"
for stage in "training " "pool prediction" "scoring " "likelihood m = 200" "likelihood m = 400"; do
  grep -q "k1sweep: stage $stage" "$work/full.log" || fail "no summary line for stage $stage"
done

"$python" - "$work/full.h5" <<'PY' || fail "layout or values of full.h5"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    assert f.attrs["command"] == b"k1sweep" or f.attrs["command"] == "k1sweep"
    assert int(f.attrs["models"]) == 12 and int(f.attrs["sets"]) == 20
    assert list(f.attrs["sizes"]) == [200, 400]
    pool = int(f.attrs["pool_rows"])
    assert pool == 3000, pool
    lam = f["models/lambda"][...]
    assert lam.shape == (12, 2)
    assert np.all((lam[:, 0] >= 1) & (lam[:, 0] <= 1000) & (lam[:, 1] >= 0.01) & (lam[:, 1] <= 10))
    acc = f["models/pool_accuracy"][...]
    assert np.all((acc > 0.4) & (acc < 1)), acc
    assert np.all(f["models/support_vectors"][...] > 0)
    assert np.all(f["models/train_seconds"][...] > 0)
    assert np.all(f["models/worker"][...] == 1)  # rank 0 schedules, rank 1 trains
    bits = np.unpackbits(f["models/correct_bits"][...], axis=1, bitorder="little")[:, :pool]
    assert np.allclose(bits.mean(axis=1), acc, rtol=0, atol=1e-12)
    for m in (200, 400):
        g = f[f"m{m}"]
        FV, FVp = g["F_V"][...], g["F_Vp"][...]
        assert FV.shape == (20, 12) and FVp.shape == (20, 12)
        assert np.all((FV >= 0) & (FV <= 1) & (FVp >= 0) & (FVp <= 1))
        rows = g["valid_rows"][...]
        assert rows.shape == (20, m)
        assert np.all(np.diff(rows, axis=1) > 0) and rows.min() >= 0 and rows.max() < pool
        assert np.array_equal(FV, bits[:, rows].mean(axis=2).T)
        op, slot, row = g["neighbour_op"][...], g["neighbour_slot"][...], g["neighbour_row"][...]
        assert set(op) <= {-1, 1}, op  # add_remove
        size = g["neighbour_size"][...]
        for i in range(20):
            r = list(rows[i])
            if op[i] == 1:
                assert row[i] not in r
                r.append(row[i])
            else:
                assert r[slot[i]] == row[i]
                del r[slot[i]]
            assert len(r) == size[i] == m + op[i]
            assert np.array_equal(FVp[i], bits[:, r].mean(axis=1)), i
        lik = g["likelihood"]
        ll, k1 = lik["loglik"][...], lik["k1"][...]
        assert np.all(np.isfinite(ll)) and np.all(np.diff(k1) > 0)
        assert np.isclose(k1[0], 0.05) and np.isclose(k1[18], 0.95)
        a = lik.attrs
        assert 0.05 <= a["k1_mle"] < 1 and a["k1_lo"] <= a["k1_mle"] <= a["k1_hi"], dict(a)
        assert a["loglik_mle"] >= ll.max() - 1e-6
        assert a["c_mle"] > 0 and a["c_upper"] >= a["c_mle"] and a["N"] == 12
        for key in ("m0", "s", "sigma_n", "lengthscale"):
            assert np.all(np.isfinite(lik[key][...])) and np.all(lik[key][...][1:] > 0 if key != "m0" else True)
    # Each stage's time (issue #24 item 3): per model, and in /performance
    # the totals, medians and maxima of this invocation's models.
    perf = f["performance"].attrs
    for stage, column, total in (("train", "train_seconds", "libsvm_train_seconds"),
                                 ("predict", "predict_seconds", "libsvm_predict_seconds"),
                                 ("score", "score_seconds", "scoring_seconds")):
        v = f["models/" + column][...]
        assert v.shape == (12,) and np.all(v >= 0), (column, v)
        assert np.isclose(perf[stage + "_median_seconds"], np.median(v), rtol=0, atol=1e-12)
        assert perf[stage + "_max_seconds"] == v.max(), stage
        assert np.isclose(perf[total], v.sum(), rtol=1e-12, atol=0), stage
    assert perf["libsvm_cache_auto"] == 1 and list(perf["libsvm_cache_mb"]) == [100, 100]
    assert perf["libsvm_cache_full_mb"] == 16
    for m in (200, 400):
        assert f[f"m{m}"].attrs["likelihood_seconds"] > 0 and f[f"m{m}"].attrs["gof_seconds"] > 0
print("full.h5: layout and values OK")
PY
"$python" "$src/tests/check_k1gof.py" "$work/full.h5" || fail "goodness-of-fit statistics of full.h5"

# 2. Resume: stop after 4 trainings on 1 rank.
"$mpiexec" -n 1 "$bin" "${common[@]}" --set output.name=resume --stop-after 4 > "$work/r1.log" 2>&1
rc=$?
cat "$work/r1.log"
[[ $rc -eq 4 ]] || fail "--stop-after run exited $rc, expected 4"
[[ -f $work/resume.partial.h5 && ! -e $work/resume.h5 ]] || fail "expected only the checkpoint"
[[ $(grep -c "trained model" "$work/r1.log") -eq 4 ]] || fail "expected 4 trainings before the stop"

# A changed setting is refused, naming the key; the checkpoint survives.
"$mpiexec" -n 1 "$bin" "${common[@]}" --set output.name=resume --set k1sweep.sets=21 > "$work/r2.log" 2>&1
rc=$?
cat "$work/r2.log"
[[ $rc -eq 2 ]] || fail "changed config exited $rc, expected 2"
grep -q "k1sweep.sets" "$work/r2.log" || fail "refusal does not name k1sweep.sets"
[[ -f $work/resume.partial.h5 ]] || fail "checkpoint lost by the refused run"

# The same command on 2 ranks continues (likelihood settings may change).
"$mpiexec" -n 2 --oversubscribe "$bin" "${common[@]}" --set output.name=resume > "$work/r3.log" 2>&1
rc=$?
cat "$work/r3.log"
[[ $rc -eq 0 ]] || fail "resumed run exited $rc"
grep -q "resuming from .*: 4 of 12 models" "$work/r3.log" || fail "no resume message"
[[ $(grep -c "trained model" "$work/r3.log") -eq 8 ]] || fail "resumed run retrained finished models"
[[ ! -e $work/resume.partial.h5 ]] || fail "checkpoint left behind"

"$python" - "$work/full.h5" "$work/resume.h5" <<'PY' || fail "resumed results differ"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    for name in ("models/correct_bits", "models/pool_accuracy", "models/support_vectors",
                 "models/lambda"):
        assert np.array_equal(a[name][...], b[name][...]), name
    for m in (200, 400):
        for name in ("F_V", "F_Vp", "valid_rows", "neighbour_row", "likelihood/loglik",
                     "residuals/z", "exceedance/rate", "pipeline/max_mean_diff", "bootstrap/k1",
                     "bootstrap/index"):
            key = f"m{m}/{name}"
            assert np.array_equal(a[key][...], b[key][...]), key
        assert a[f"m{m}/likelihood"].attrs["k1_mle"] == b[f"m{m}/likelihood"].attrs["k1_mle"]
print("resumed run: identical F matrices, bits and likelihood")
PY

# 3. The figure and the table.
"$python" "$src/analysis/plot_k1_sweep.py" "$work/full.h5" -o "$work/fig.png" > "$work/plot.log" 2>&1 \
  || { cat "$work/plot.log"; fail "plot_k1_sweep.py failed"; }
cat "$work/plot.log"
[[ -s $work/fig.png && -s $work/fig.md ]] || fail "no figure or table"
[[ -s $work/fig.gof.png ]] || fail "no goodness-of-fit figure"
grep -q "^## Does the assumption hold? (bootstrap intervals)" "$work/fig.md" || fail "no goodness-of-fit table"
grep -q "(B = 20)" "$work/fig.md" || fail "the table does not state B"
grep -q "^| 200 |" "$work/fig.md" && grep -q "^| 400 |" "$work/fig.md" || fail "table lacks a row per m"
"$python" -c "import matplotlib.image as i, sys; a = i.imread(sys.argv[1]); assert a.shape[1] > 800 and a.std() > 0.01" \
  "$work/fig.png" || fail "figure unreadable or blank"
echo "PASS"
