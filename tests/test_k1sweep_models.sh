#!/usr/bin/env bash
# dpbo k1sweep's models and neighbours of issue #14 item 1, on the two-blob
# data of tests/make_blobs.py (240 rows; no shared data needed):
#  1. model = logreg with neighbour = adversarial on 2 ranks: every model's
#     pool bits give its pool accuracy and F_V; each V_i' is the record that
#     a brute-force search written here picks (remove every record of V_i in
#     turn, recompute every model's accuracy on what is left, take the
#     largest max_j - min_j of the change, ties to the smallest pool row,
#     exact fractions), and F_V' is the accuracy on V_i without it;
#  2. model = svm with neighbour = adversarial on 1 rank: the same check, and
#     its V_i equal those of an add_remove run (the neighbour rule does not
#     move V);
#  3. bad keys exit 2 with a message naming them (model = foo, adversarial in
#     synthetic mode or with one model, [space] or cache_mb with logreg,
#     lambda_max <= lambda_min, an IDX file without labels);
#  4. configs/k1sweep-fashion.ini at a tiny size (skipped without the data):
#     the IDX file with k1sweep.labels runs, for svm and logreg.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" && "$python" "$src/tests/make_blobs.py" || fail "make_blobs.py"
cat > "$work/base.ini" <<EOF
[k1sweep]
seed = 5
data = $work/blobs.csv
train_rows = 100
pool_rows = 140
models = 8
sizes = 20 40
sets = 10
neighbour = adversarial

[likelihood]
bootstrap = 5
pipeline_iterations = 5

[output]
dir = $work
EOF
{ cat "$work/base.ini"; printf '[space]\ndim.C = log 1 1000\ndim.gamma = log 0.01 10\n'; } > "$work/svm.ini"
sed 's/^\[k1sweep\]$/[k1sweep]\nmodel = logreg\nlambda_min = 0.001\nlambda_max = 1/' "$work/base.ini" > "$work/logreg.ini"

check() { # FILE MODEL: the adversarial neighbours by brute force
  "$python" - "$1" "$2" <<'PY'
import sys
from fractions import Fraction
import h5py, numpy as np
path, model = sys.argv[1], sys.argv[2]
with h5py.File(path, "r") as f:
    mode = f.attrs["mode"]
    assert (mode.decode() if isinstance(mode, bytes) else mode) == model, mode
    pool, n = int(f.attrs["pool_rows"]), int(f.attrs["models"])
    bits = np.unpackbits(f["models/correct_bits"][...], axis=1, bitorder="little")[:, :pool]
    assert np.allclose(bits.mean(axis=1), f["models/pool_accuracy"][...], rtol=0, atol=1e-12)
    if model == "logreg":
        lam = f["models/lambda"][...]
        assert lam.shape == (n, 1) and lam.min() >= 0.001 and lam.max() <= 1, lam
    for m in (20, 40):
        g = f[f"m{m}"]
        rows, FV, FVp = g["valid_rows"][...], g["F_V"][...], g["F_Vp"][...]
        op, slot, row = g["neighbour_op"][...], g["neighbour_slot"][...], g["neighbour_row"][...]
        assert np.all(op == -1) and np.all(g["neighbour_size"][...] == m - 1)
        assert np.array_equal(FV, bits[:, rows].mean(axis=2).T)
        for i in range(rows.shape[0]):
            V = list(rows[i])
            fv = [Fraction(int(bits[j, V].sum()), m) for j in range(n)]
            best, best_k = None, None
            for k in range(m):
                rest = V[:k] + V[k + 1:]
                change = [Fraction(int(bits[j, rest].sum()), m - 1) - fv[j] for j in range(n)]
                spread = max(change) - min(change)
                if best is None or spread > best:  # ties: the earlier slot, the smaller row
                    best, best_k = spread, k
            assert slot[i] == best_k and row[i] == V[best_k], (m, i, slot[i], best_k)
            rest = V[:best_k] + V[best_k + 1:]
            assert np.array_equal(FVp[i], bits[:, rest].mean(axis=1)), (m, i)
print(f"{path}: adversarial neighbours equal the brute force")
PY
}

# 1. logreg, adversarial, 2 ranks.
"$mpiexec" -n 2 --oversubscribe "$bin" k1sweep "$work/logreg.ini" --set output.name=lr > "$work/lr.log" 2>&1
rc=$?; cat "$work/lr.log"
[[ $rc -eq 0 ]] || fail "logreg run exited $rc"
[[ $(grep -c "trained model .*(lambda=" "$work/lr.log") -eq 8 ]] || fail "expected 8 logreg models"
check "$work/lr.h5" logreg || fail "logreg adversarial neighbours"

# 2. svm, adversarial (1 rank) against add_remove: the same V.
"$mpiexec" -n 1 "$bin" k1sweep "$work/svm.ini" --set output.name=sa > "$work/sa.log" 2>&1
rc=$?; cat "$work/sa.log"
[[ $rc -eq 0 ]] || fail "svm adversarial run exited $rc"
check "$work/sa.h5" svm || fail "svm adversarial neighbours"
"$mpiexec" -n 1 "$bin" k1sweep "$work/svm.ini" --set output.name=sr --set k1sweep.neighbour=add_remove > "$work/sr.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] || { cat "$work/sr.log"; fail "svm add_remove run exited $rc"; }
"$python" - "$work/sa.h5" "$work/sr.h5" <<'PY' || fail "V moved with the neighbour rule"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    for k in ("m20/valid_rows", "m40/valid_rows", "m20/F_V", "m40/F_V", "models/correct_bits"):
        assert np.array_equal(a[k][...], b[k][...]), k
print("same V and models under adversarial and add_remove")
PY

# 3. Bad keys.
expect2() { # PATTERN CONFIG ARGS...
  local pattern=$1 config=$2; shift 2
  "$bin" k1sweep "$config" "$@" > "$work/bad.log" 2>&1
  local rc=$?
  cat "$work/bad.log"
  [[ $rc -eq 2 ]] || fail "$* exited $rc, expected 2"
  grep -q -- "$pattern" "$work/bad.log" || fail "$*: no '$pattern' in the message"
}
expect2 "k1sweep.model" "$work/svm.ini" --set k1sweep.model=foo
expect2 "needs k1sweep.models >= 2" "$work/svm.ini" --set k1sweep.models=1
expect2 "needs k1sweep.models >= 2" "$work/svm.ini" --set k1sweep.synthetic_models=50
expect2 "with k1sweep.model = logreg the range" "$work/logreg.ini" --set space.dim.C="log 1 10"
expect2 "k1sweep.cache_mb is read only when k1sweep.model = svm" "$work/logreg.ini" --set k1sweep.cache_mb=10
expect2 "k1sweep.lambda_max must exceed" "$work/logreg.ini" --set k1sweep.lambda_max=0.0001
expect2 "k1sweep.labels is required" "$work/svm.ini" --set k1sweep.format=idx
expect2 "k1sweep.labels applies to IDX" "$work/svm.ini" --set k1sweep.format=csv --set k1sweep.labels=x

# 4. Fashion-MNIST (IDX) at a tiny size, both models.
fashion=/usr/share/datasets/fashion-mnist
if [[ -r $fashion/train-images-idx3-ubyte.gz ]]; then
  tiny=(--set k1sweep.train_rows=300 --set k1sweep.pool_rows=400 --set k1sweep.models=3
        --set k1sweep.sizes=50 --set k1sweep.sets=4 --set likelihood.bootstrap=0
        --set likelihood.pipeline_iterations=0 --set output.dir="$work")
  "$bin" k1sweep "$src/configs/k1sweep-fashion.ini" "${tiny[@]}" --set output.name=fs > "$work/fs.log" 2>&1
  rc=$?; cat "$work/fs.log"
  [[ $rc -eq 0 && -f $work/fs.h5 ]] || fail "Fashion-MNIST svm sweep exited $rc"
  grep -v '^\[space\]\|^dim\.' "$src/configs/k1sweep-fashion.ini" |
    sed 's/^\[k1sweep\]$/[k1sweep]\nmodel = logreg\npositive_label = 0\nlambda_min = 0.0001/; /^cache_mb/d' > "$work/fl.ini"
  "$bin" k1sweep "$work/fl.ini" "${tiny[@]}" --set output.name=fl > "$work/fl.log" 2>&1
  rc=$?; cat "$work/fl.log"
  [[ $rc -eq 0 && -f $work/fl.h5 ]] || fail "Fashion-MNIST logreg sweep exited $rc"
else
  echo "note: $fashion not found; the Fashion-MNIST part is skipped"
fi
echo PASS
