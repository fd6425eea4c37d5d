#!/usr/bin/env bash
# /posterior is written in chunks of 2^20 rows (src/run/output.c), never as a
# converted copy of a whole block. With N = 2^21 + 1 on 2 ranks, rank 0's
# block (2^20 + 1 rows) takes two writes and rank 1's (2^20 rows) one
# message and one write (rank 0 writes the file alone). The
# written μ_T and σ_T must equal the GP posterior recomputed here with numpy
# from the trace, at the block edges, the chunk edges and random rows.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
python=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/run.ini" <<INI
[run]
iterations = 4
seed = 3
[space]
kind = sobol
points = 2097153
dim.x1 = linear -5 10
dim.x2 = linear 0 15
[gp]
kernel = matern52
lengthscale = 0.2
mean = -50
signal_std = 50
noise_std = 0.5
[objective]
kind = synthetic
function = branin
[output]
dir = $work
name = run
posterior = yes
INI
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet \
  || { echo "FAIL: the run exited $?"; exit 1; }
"$python" - "$work/run.h5" <<'PY'
import sys
import h5py
import numpy as np
f = h5py.File(sys.argv[1], "r")
n = 2097153
unit, mean, std = (f["posterior"][k] for k in ("unit", "mean", "std"))
assert unit.shape == (n, 2) and mean.shape == (n,) and std.shape == (n,), (unit.shape, mean.shape)
X, v = f["trace/unit"][:], f["trace/gain"][:]
m0, s, sigma, ell = -50.0, 50.0, 0.5, 0.2
def matern52(a, b):
    r2 = (((a[:, None, :] - b[None, :, :]) / ell) ** 2).sum(-1)
    sr = np.sqrt(5.0 * r2)
    return (1.0 + sr + 5.0 / 3.0 * r2) * np.exp(-sr)
K = matern52(X, X) + (sigma / s) ** 2 * np.eye(len(X))
alpha = np.linalg.solve(K, (v - m0) / s)
half = (n + 1) // 2  # rank 0 holds [0, half)
edges = [0, 1, 2**20 - 1, 2**20, half - 1, half, half + 1, half + 2**20 - 1, n - 1]
rows = np.unique(np.concatenate([edges, np.random.default_rng(1).integers(0, n, 2000)]))
U = unit[rows, :]
Ks = matern52(U, X)
mu = m0 + s * Ks @ alpha
var = 1.0 - np.einsum("ij,ij->i", Ks, np.linalg.solve(K, Ks.T).T)
sd = s * np.sqrt(np.maximum(var, 0.0))
dm = np.max(np.abs(mean[rows] - mu) / np.maximum(np.abs(mu), 1.0))
ds = np.max(np.abs(std[rows] - sd) / np.maximum(sd, 1e-3))
print(f"{len(rows)} rows checked (block and chunk edges included): max relative error mean {dm:.2g}, std {ds:.2g}")
# Every row was written (HDF5 fills unwritten rows with 0; std is never 0 here).
zero = int(np.count_nonzero(std[:] == 0.0))
print(f"rows left unwritten: {zero}")
sys.exit(0 if dm < 1e-9 and ds < 1e-7 and zero == 0 else 1)
PY
status=$?
[[ $status -eq 0 ]] && echo "the chunked /posterior equals the GP posterior" || echo "FAIL: /posterior differs"
exit $status
