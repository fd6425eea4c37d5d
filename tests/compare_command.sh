#!/usr/bin/env bash
# dpbo compare on objective.kind = command (issue #26, item 2): a tiny model
# program that knows the validation and test accuracy ("VAL TEST") of each of
# the 6 candidates of a 3 x 2 grid by heart.
#  - persistent mode, 3 ranks (2 programs) and 1 rank, and per-evaluation
#    mode: /table holds exactly those numbers (gain = val), every method's
#    accuracies are the table's at its index, and the baselines' sensitivity
#    is 1/m for m = objective.validation_size;
#  - compare.table: the command table reused gives the same /table and
#    /methods; another objective.compare_command is refused naming the key;
#  - a malformed reply (one number) fails with exit 3, naming the program,
#    the request and the line, and not saying that the program starts again
#    (the table ends there); no output file;
#  - no objective.validation_size (or no objective.compare_command): refused
#    with exit 2 naming the key, before any program starts; no output file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start
fail() { echo "FAIL: $*"; exit 1; }

# The model: "serve" answers request lines, "once" its NAME=VALUE arguments;
# "--bad" replies with one number for a=0.5 b=1. It records every start.
cat > model.py <<'PY'
#!/usr/bin/env python3
import os, sys
TABLE = {("0", "0"): "0.61 0.58", ("0.5", "0"): "0.73 0.7", ("1", "0"): "0.52 0.55",
         ("0", "1"): "0.64 0.625", ("0.5", "1"): "0.81 0.79", ("1", "1"): "0.5 0.47"}
bad = "--bad" in sys.argv
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "starts"), "a") as f:
    f.write("%d\n" % os.getpid())
def reply(words):
    kv = dict(w.split("=", 1) for w in words)
    key = (kv["a"], kv["b"])
    return "0.81" if bad and key == ("0.5", "1") else TABLE[key]
if sys.argv[1] == "serve":
    for line in sys.stdin:
        if line.strip():
            print(reply(line.split()), flush=True)
else:
    print("training...")
    print(reply([w for w in sys.argv[2:] if "=" in w]))
PY
chmod +x model.py

cat > cmp.ini <<INI
[run]
iterations = 3
seed = 4
[space]
kind = grid
dim.a = linear 0 1 3
dim.b = linear 0 1 2
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = command
command = $work/model.py serve
compare_command = $work/model.py serve
mode = persistent
validation_size = 200
value_range = 0 1
timeout_s = 60
[privacy]
algorithm = 1
delta = 1e-6
noise = seeded
noise_seed = 9
[compare]
repetitions = 4
epsilons = 1 3
[output]
dir = $work/out
INI

compare() { "$mpiexec" -n "$1" --oversubscribe "$bin" compare cmp.ini --quiet "${@:2}"; }

compare 3 --set output.name=p3
compare 1 --set output.name=p1
compare 1 --set output.name=once --set objective.mode=per_evaluation \
  --set "objective.compare_command=$work/model.py once"
compare 3 --set output.name=reused --set "compare.table=$work/out/p3.h5"

"$py" - "$work/out" <<'PY'
import sys
import h5py
import numpy as np
out = sys.argv[1]
known = {(0.0, 0.0): (0.61, 0.58), (0.5, 0.0): (0.73, 0.7), (1.0, 0.0): (0.52, 0.55),
         (0.0, 1.0): (0.64, 0.625), (0.5, 1.0): (0.81, 0.79), (1.0, 1.0): (0.5, 0.47)}
tables = {}
for name in ("p3", "p1", "once", "reused"):
    with h5py.File(f"{out}/{name}.h5", "r") as f:
        lam = f["table/lambda"][()]
        val, test, gain = (f["table/" + k][()] for k in ("val_accuracy", "test_accuracy", "gain"))
        assert lam.shape == (6, 2), (name, lam.shape)
        want = np.array([known[(a, b)] for a, b in lam])
        assert np.array_equal(val, want[:, 0]), (name, val, want[:, 0])
        assert np.array_equal(test, want[:, 1]), (name, test, want[:, 1])
        assert np.array_equal(gain, val), (name, gain, val)
        assert f.attrs["sensitivity_baselines"] == 1 / 200, f.attrs["sensitivity_baselines"]
        assert f.attrs["validation_rows"] == 200, f.attrs["validation_rows"]
        g = f["methods"]
        idx, v, t = g["index"][()], g["val_accuracy"][()], g["test_accuracy"][()]
        ok = ~np.isnan(v)  # dpbo_algorithm3 releases no hyper-parameter (logreg only)
        assert ok.sum() > 0, name
        assert np.array_equal(v[ok], val[idx[ok]]), name
        assert np.array_equal(t[ok], test[idx[ok]]), name
        tables[name] = {k: g[k][()] for k in g if k != "names"}
for k in tables["p3"]:
    assert np.array_equal(tables["p3"][k], tables["reused"][k], equal_nan=True), k
print("tables exact:", ", ".join(tables))
PY

# Reuse across another compare_command is refused naming the key.
compare_fixture_refused 2 out/foreign.h5 "objective.compare_command is" -- \
  compare 1 --set output.name=foreign --set "compare.table=$work/out/p3.h5" \
  --set "objective.compare_command=$work/model.py serve --x"

# A malformed reply: exit 3, the program, the request and the line named.
compare_fixture_refused 3 out/bad.h5 "model.py serve --bad" "a=0.5, b=1" "'0.81'" \
  "not two numbers 'VAL TEST'" -- \
  compare 3 --set output.name=bad --set "objective.compare_command=$work/model.py serve --bad"
# The table fails at the first bad reply: nothing starts the program again.
! grep -q "started again" err.txt || fail "malformed reply: the message says the program starts again"

# No m, or no compare_command: refused naming the key, no program started.
for key in validation_size compare_command; do
  grep -v "^$key = " cmp.ini > no_$key.ini
  rm -f starts
  compare_fixture_refused 2 "out/no_$key.h5" "needs objective.$key" -- \
    "$mpiexec" -n 1 "$bin" compare "no_$key.ini" --quiet --set "output.name=no_$key"
  [[ ! -e starts ]] || fail "no $key: a program started"
done
echo "compare_command: ok"
