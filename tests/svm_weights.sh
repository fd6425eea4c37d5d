#!/usr/bin/env bash
# The svm objective's feature weights (dim.weight.K, issue #13 item 4)
# against computations that do not weigh anything:
#  1. `dpbo run`'s path (svm_weights_case: the objective in process) with
#     weight W on feature K gets exactly as many validation rows right as
#     LIBSVM's svm-train/svm-predict on the same scaled splits with column K
#     multiplied by W (W = 0: the column dropped), for W in 0, 0.37, 1, 3;
#  2. dpbo compare on a 4-dimensional list space (C, gamma, weight.1,
#     weight.2) runs, writes /table/lambda with 4 columns, and its rows with
#     weight.1 = 1 and weight.2 = 0 have the validation and test accuracies
#     of dpbo compare on the data file without column 2 (written here);
#  3. dpbo run on that config evaluates through the same code: each gain of
#     its trace equals the compare table's validation accuracy there.
#   svm_weights.sh PATH/TO/svm_weights_case
set -euo pipefail
weights_case=$1
bin=${DPBO_BIN:?}
py=${DPBO_PYTHON:-/usr/bin/python3}
mpiexec=${MPIEXEC:-mpiexec}
for tool in svm-train svm-predict; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (Debian package libsvm-tools)"
    exit 77
  fi
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dpbo_svm_weights.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# 300 rows, 3 features: the label follows features 1 and 3 (a ring), feature
# 2 is noise on a larger scale; no.csv is the same without column 2.
"$py" - <<'PY'
import random
rng = random.Random(5)
with open("data.csv", "w") as f, open("no2.csv", "w") as g:
    for _ in range(300):
        a, b, c = rng.uniform(-1, 1), rng.uniform(-10, 10), rng.uniform(-1, 1)
        y = 1 if a * a + c * c < 0.5 else 2
        f.write(f"{a:.6f},{b:.6f},{c:.6f},{y}\n")
        g.write(f"{a:.6f},{c:.6f},{y}\n")
PY

# --- 1. the objective against LIBSVM's tools on pre-weighted files --------
"$weights_case" "$work/data.csv" "$work" 2 0 0.37 1 3 > cases.txt
cat cases.txt
cases=0
failures=0
while read -r tag C G K W dpbo_correct total; do
  [ "$tag" = case ] || continue
  cases=$((cases + 1))
  for split in train valid; do
    # Feature K times W in double precision, printed to round-trip; a
    # product of 0 is left out as dpbo leaves out zeros.
    awk -v k="$K" -v w="$W" '{
      printf "%s", $1
      for (i = 2; i <= NF; i++) {
        split($i, p, ":")
        v = p[2] + 0
        if (p[1] + 0 == k) v = v * w
        if (v != 0) printf " %s:%.17g", p[1], v
      }
      printf "\n"
    }' "$split.libsvm" > "$split.w.libsvm"
  done
  svm-train -q -c "$C" -g "$G" train.w.libsvm model >/dev/null
  line=$(svm-predict valid.w.libsvm model predictions)
  tools_correct=$(sed -n 's|.*(\([0-9]*\)/\([0-9]*\)).*|\1|p' <<<"$line")
  if [ "$tools_correct" = "$dpbo_correct" ]; then
    echo "ok   C=$C gamma=$G weight.$K=$W: dpbo $dpbo_correct/$total, LIBSVM tools $tools_correct"
  else
    echo "FAIL C=$C gamma=$G weight.$K=$W: dpbo $dpbo_correct/$total, LIBSVM tools '$line'"
    failures=$((failures + 1))
  fi
done < cases.txt
if [ "$cases" -ne 8 ]; then
  echo "FAIL: svm_weights_case printed $cases cases, expected 8"
  exit 1
fi
# The weight matters: the noisy feature at full weight costs accuracy.
"$py" - <<'PY'
rows = [l.split() for l in open("cases.txt") if l.startswith("case")]
acc = {(float(r[1]), float(r[4])): int(r[5]) for r in rows}
assert acc[(30.0, 0.0)] > acc[(30.0, 3.0)], acc
PY
[ "$failures" -eq 0 ]

# --- 2. dpbo compare on C, gamma and two weights ---------------------------
# Candidates: (C, gamma) pairs with weights (1, 0), then with (0.5, 2).
"$py" - <<'PY'
pairs = [(1, 0.5), (30, 8), (3, 2), (100, 20)]
with open("points4.txt", "w") as f, open("points2.txt", "w") as g:
    for w1, w2 in [(1, 0), (0.5, 2)]:
        for c, gamma in pairs:
            f.write(f"{c} {gamma} {w1} {w2}\n")
    for c, gamma in pairs:
        g.write(f"{c} {gamma}\n")
PY
write_config() { # NAME DATA POINTS [weight lines]
  cat > "$1.ini" <<INI
[run]
iterations = 4
seed = 2
[space]
kind = list
file = $work/$3
dim.C = log 0.1 1000
dim.gamma = log 0.01 100
$4
[gp]
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $work/$2
train_rows = 150
validation_rows = 75
test_rows = 75
split_seed = 4
[privacy]
algorithm = 1
delta = 0.05
noise = seeded
noise_seed = 3
[compare]
repetitions = 2
epsilons = 1
[output]
dir = $work/out
name = $1
INI
}
write_config w4 data.csv points4.txt $'dim.weight.1 = linear 0 4\ndim.weight.2 = linear 0 4'
write_config w2 no2.csv points2.txt ""
"$mpiexec" -n 1 "$bin" compare w4.ini --quiet
"$mpiexec" -n 1 "$bin" compare w2.ini --quiet

# --- 3. dpbo run on the same config ----------------------------------------
"$mpiexec" -n 2 --oversubscribe "$bin" run w4.ini --set output.name=w4run --quiet

"$py" - "$work/out" <<'PY'
import sys
import h5py
import numpy as np
out = sys.argv[1]
w4, w2 = h5py.File(f"{out}/w4.h5", "r"), h5py.File(f"{out}/w2.h5", "r")
lam = w4["table/lambda"][...]
assert lam.shape == (8, 4), lam.shape
names = w4["table"].attrs["names"]
names = names.decode() if isinstance(names, bytes) else names
assert names == "C,gamma,weight.1,weight.2", names
assert np.all(lam[:4, 2] == 1) and np.all(lam[:4, 3] == 0), lam
for key in ("val_accuracy", "test_accuracy"):
    a, b = w4["table"][key][:4], w2["table"][key][...]
    assert np.array_equal(a, b), (key, a, b)
print("weight.2 = 0 equals the data without column 2:", w2["table/val_accuracy"][...])
# The other weights give other accuracies somewhere (the weights are used).
assert not np.array_equal(w4["table/val_accuracy"][4:], w4["table/val_accuracy"][:4])
run = h5py.File(f"{out}/w4run.h5", "r")
trace = run["trace"]
index, gain = trace["index"][...], trace["gain"][...]
val = w4["table/val_accuracy"][...]
assert len(index) == 4, index
for i, g in zip(index, gain):
    assert g == val[i], (i, g, val[i])
print("dpbo run's gains equal the compare table's:", list(zip(index.tolist(), gain.tolist())))
PY
echo "svm_weights: ok"
