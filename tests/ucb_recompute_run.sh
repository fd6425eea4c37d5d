#!/usr/bin/env bash
# `dpbo run` on 2 ranks with the UCB state in incremental mode (no limit) and
# in recompute mode (ucb.memory_limit_mb below the incremental state, above
# the recompute state) must give the same trace (every λ_t and v_t), the same
# posterior μ_T and σ_T to 1e-9, and the same seeded private release
# (Algorithm 1: γ_T's greedy state obeys the limit too), also when `dpbo
# release` redraws it with either limit and when a run stopped in one mode
# resumes in the other; the log and the run file's /summary
# say which mode ran and how much memory the state held.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
python=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 3,000 candidates on 2 ranks, T = 30: the incremental rows of a block take
# 30 x 1,500 doubles in one 2 MiB huge page, the recompute state about
# 0.35 MiB, so a limit of 1 MiB forces recompute mode.
cat > "$work/run.ini" <<INI
[run]
iterations = 30
seed = 5
[space]
kind = sobol
points = 3000
dim.a = linear 0 1
dim.b = log 0.001 1000
dim.c = linear -1 1
[gp]
kernel = matern52
lengthscale = 0.2
mean = 1
signal_std = 2
noise_std = 0.05
[objective]
kind = synthetic
function = gp_prior
features = 512
noise_std = 0.05
[privacy]
algorithm = 1
noise = seeded
noise_seed = 9
value_range = -10 10
[output]
dir = $work
posterior = yes
INI
status=0
for mode in incremental recompute; do
  limit=off
  [[ $mode == recompute ]] && limit=1
  # A ledger each: the releases must be equal, the ledger's totals in them too.
  "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --set output.name=$mode \
    --set ucb.memory_limit_mb=$limit --set "privacy.ledger=$work/$mode.ledger" > "$work/$mode.log" 2>&1 \
    || { echo "FAIL: the $mode run exited $?"; cat "$work/$mode.log"; exit 1; }
  "$bin" info "$work/$mode.h5" --trace | sed -n '/^\/trace/,$p' > "$work/$mode.trace"
done
grep -q "UCB state (recompute)" "$work/recompute.log" && grep -q "recompute mode: the incremental UCB state" "$work/recompute.log" \
  || { echo "FAIL: the recompute run's log does not say recompute mode"; cat "$work/recompute.log"; status=1; }
grep -q "UCB state (incremental)" "$work/incremental.log" && ! grep -q "recompute mode" "$work/incremental.log" \
  || { echo "FAIL: the incremental run's log does not say incremental"; cat "$work/incremental.log"; status=1; }
if ! cmp -s "$work/incremental.trace" "$work/recompute.trace"; then
  echo "FAIL: the traces differ:"; diff "$work/incremental.trace" "$work/recompute.trace" | head; status=1
fi
if ! cmp -s "$work/incremental.release.json" "$work/recompute.release.json"; then
  echo "FAIL: the seeded releases differ:"; cat "$work/incremental.release.json" "$work/recompute.release.json"; status=1
fi
# A run stopped in incremental mode may resume in recompute mode (another
# machine, less memory): ucb.memory_limit_mb may differ on --resume, and the
# trace is the same.
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet --set output.name=resumed \
  --set ucb.memory_limit_mb=off --stop-after 12 > "$work/stopped.log" 2>&1
code=$?
[[ $code -eq 4 ]] || { echo "FAIL: --stop-after 12 exited $code, expected 4"; cat "$work/stopped.log"; status=1; }
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --set output.name=resumed \
  --set ucb.memory_limit_mb=1 --resume > "$work/resumed.log" 2>&1 \
  || { echo "FAIL: --resume with another ucb.memory_limit_mb exited $?"; cat "$work/resumed.log"; status=1; }
grep -q "UCB state (recompute)" "$work/resumed.log" || { echo "FAIL: the resumed run is not in recompute mode"; status=1; }
"$bin" info "$work/resumed.h5" --trace | sed -n '/^\/trace/,$p' > "$work/resumed.trace"
cmp -s "$work/incremental.trace" "$work/resumed.trace" \
  || { echo "FAIL: the resumed trace differs:"; diff "$work/incremental.trace" "$work/resumed.trace" | head; status=1; }

# `dpbo release` rebuilds the posterior from the trace; ucb.memory_limit_mb
# may change there (it changes how, not what): the same seeded release.
for mode in incremental recompute; do
  limit=off
  [[ $mode == recompute ]] && limit=1
  "$mpiexec" -n 2 --oversubscribe "$bin" release "$work/incremental.h5" --out "$work/redraw-$mode" \
    --set ucb.memory_limit_mb=$limit > "$work/redraw-$mode.log" 2>&1 \
    || { echo "FAIL: dpbo release with ucb.memory_limit_mb=$limit exited $?"; cat "$work/redraw-$mode.log"; status=1; }
done
# The two draws differ only in the run's ledger after each (2 and 3 draws).
same_release() {
  "$python" -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("ledger"); b.pop("ledger")
sys.exit(a != b)' "$1" "$2"
}
if ! same_release "$work/redraw-incremental.json" "$work/redraw-recompute.json"; then
  echo "FAIL: the redrawn releases differ:"; cat "$work/redraw-incremental.json" "$work/redraw-recompute.json"; status=1
fi
"$python" - "$work" <<'PY' || status=1
import sys
import h5py
import numpy as np
work = sys.argv[1]
inc, rec = (h5py.File(f"{work}/{m}.h5", "r") for m in ("incremental", "recompute"))
fail = False
for name in ("mean", "std"):
    a, b = inc["posterior"][name][:], rec["posterior"][name][:]
    diff = float(np.max(np.abs(a - b)))
    print(f"posterior {name}: {a.size} values, max |difference| {diff:.3g}")
    if not (a.size == 3000 and diff <= 1e-9):
        print(f"FAIL: posterior {name} differs by {diff}"); fail = True
s_inc, s_rec = inc["summary"].attrs, rec["summary"].attrs
def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)
print("incremental:", {k: text(v) for k, v in s_inc.items() if k.startswith(("ucb_", "peak_"))})
print("recompute:  ", {k: text(v) for k, v in s_rec.items() if k.startswith(("ucb_", "peak_"))})
checks = [
    (text(s_inc["ucb_mode"]) == "incremental", "incremental run's ucb_mode"),
    (text(s_rec["ucb_mode"]) == "recompute", "recompute run's ucb_mode"),
    (int(s_inc["ucb_recompute_ranks"]) == 0 and int(s_rec["ucb_recompute_ranks"]) == 2, "recompute ranks"),
    (int(s_inc["ucb_memory_limit_bytes"]) == 0 and int(s_rec["ucb_memory_limit_bytes"]) == 1 << 20, "limits"),
    # The incremental state holds its rows; the recompute state fits the limit.
    (int(s_inc["ucb_state_bytes_max_rank"]) >= 30 * 1500 * 8, "incremental state size"),
    (int(s_rec["ucb_state_bytes_max_rank"]) <= 1 << 20, "recompute state within the limit"),
    (int(s_rec["ucb_incremental_bytes_max_rank"]) == int(s_inc["ucb_state_bytes_max_rank"]), "incremental size reported"),
    (int(s_inc["ucb_state_bytes_max_rank"]) <= int(s_inc["ucb_state_bytes_total"]) <= 2 * int(s_inc["ucb_state_bytes_max_rank"]), "total over 2 ranks"),
    (int(s_inc["peak_rss_bytes_max_rank"]) >= int(s_inc["ucb_state_bytes_max_rank"]) // 2, "peak RSS"),
]
for ok, what in checks:
    if not ok:
        print(f"FAIL: {what}"); fail = True
sys.exit(1 if fail else 0)
PY
grep "UCB state" "$work/recompute.log"
[[ $status -eq 0 ]] && echo "same trace, posterior and release in incremental and recompute mode"
exit $status
