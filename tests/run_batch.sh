#!/usr/bin/env bash
# Asynchronous batches (issue #5): batch = 3 on 4 ranks (3 workers) with an
# objective whose time varies 10x. All T evaluations arrive, no candidate is
# chosen twice while the noise-free-ish function is explored, the summary
# reports worker utilization, a stop and --resume with a batch in flight
# completes T, and batch > 1 is refused with Algorithm 2.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/obj.sh" <<'SH'
#!/bin/sh
a=${1#a=}; b=${2#b=}
awk -v a="$a" 'BEGIN { s = 0.02 + 0.2 * a; system("sleep " s) }'
awk -v a="$a" -v b="$b" 'BEGIN { printf "%.17g\n", 0.9 - (a - 0.3)^2 - 0.5 * (b - 0.7)^2 }'
SH
chmod +x "$work/obj.sh"
cat > "$work/run.ini" <<INI
[run]
iterations = 18
seed = 4
batch = 3
[space]
kind = sobol
points = 4000
dim.a = linear 0 1
dim.b = linear 0 1
[gp]
kernel = matern52
lengthscale = 0.2
mean = 0.5
signal_std = 0.3
noise_std = 0.01
[objective]
kind = command
command = $work/obj.sh
value_range = 0 1
[output]
dir = $work
INI
"$mpiexec" -n 4 --oversubscribe "$bin" run "$work/run.ini" --set output.name=b > "$work/log.txt" 2>&1 \
  || { cat "$work/log.txt"; fail "batch run exited $?"; }
grep -q "batch 3" "$work/log.txt" || fail "the log does not state the batch size"
grep -q "utilization" "$work/log.txt" || fail "the summary does not report worker utilization"
"$mpiexec" -n 4 --oversubscribe "$bin" run "$work/run.ini" --quiet --set output.name=c --stop-after 7 2>/dev/null
code=$?
[[ $code -eq 4 ]] || fail "--stop-after with a batch in flight should exit 4, got $code"
"$mpiexec" -n 4 --oversubscribe "$bin" run "$work/run.ini" --quiet --set output.name=c --resume || fail "batch --resume exited $?"
"$py" - "$work/b.h5" "$work/c.h5" <<'PY' || exit 1
import sys, h5py, numpy as np
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        state = f["trace/state"][:]; index = f["trace/index"][:]; worker = f["trace/worker"][:]
        s = dict(f["summary"].attrs)
        assert int(f.attrs["complete"]) == 1 and len(state) == 18 and np.all(state == 0), (path, state)
        assert len(set(index.tolist())) == 18, f"{path}: a candidate was chosen twice while its value was pending or known"
        assert set(worker.tolist()) <= {1, 2, 3} and len(set(worker.tolist())) == 3, f"{path}: workers {set(worker.tolist())}"
        u = float(s["worker_utilization"])
        assert 0 < u <= 1.0 + 1e-9, u
        print(f"{path.split('/')[-1]}: 18 evaluations on workers {sorted(set(worker.tolist()))}, utilization {u:.2f}, resumed {int(s['resumed_steps'])}")
PY
[[ $? -eq 0 ]] || exit 1
printf '[privacy]\nalgorithm = 2\n' >> "$work/run.ini"
sed -i 's/^noise_std = 0.01/noise_std = 0/' "$work/run.ini"
"$bin" run "$work/run.ini" --quiet --set output.name=a2 2> "$work/a2.txt"
code=$?
[[ $code -eq 2 ]] && grep -q "run.batch" "$work/a2.txt" || { cat "$work/a2.txt"; fail "batch > 1 with algorithm 2 should be refused naming run.batch, got $code"; }
echo "batch OK"
