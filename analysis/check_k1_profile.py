#!/usr/bin/python3
"""Brute-force check of a `dpbo k1sweep` profile likelihood (issue #24).

    analysis/check_k1_profile.py RESULTS.h5 [--sizes 1000 5000] [--steps 3]
        [--near 1] [--point M:ONE_MINUS_K1 ...] [--stride 5] [--tol 0.01]

For each chosen (m, k1) it recomputes the profile maximum of the multi-task
GP log marginal likelihood (paper, Results; src/experiments/k1lik.h) from
the file's F_V, F_V' and unit-cube settings with its own dense numpy code,
and compares it with the curve the sweep stored:

    y_i = [F_i; F_i'] ~ N(m0 1, s^2 (K1 (x) K2) + sigma_n^2 I),  i = 1..R,
    K1 = [[1, k1], [k1, 1]],  K2 = SE (or Matern-5/2) over the settings with
    one shared length-scale ell, joint log-likelihood summed over the pairs.

Independent of the C code's Kronecker algebra: the 2n x 2n matrix
K1 (x) K2 is built and eigendecomposed densely (numpy.linalg.eigh) at every
ell; with rho = sigma_n^2 / s^2, m0 (GLS) and s^2 have closed forms, rho is
maximised numerically (a scan of 8 points per decade of sigma_n/s, then a
bounded scalar search around every scan peak) inside the same box as the
sweep (config [likelihood] ratio_min, ratio_max), and ell by BRUTE FORCE on
the sweep's own lattice in log ell (ell_min e^(k h), k = 0..K, as k1lik.c
defines it): every --stride-th lattice point over the whole range, then
every lattice point within 2 strides of every local maximum of that scan.
The reported value is then re-evaluated by a dense Cholesky factorisation
of the full 2n x 2n covariance at the chosen parameters.

Points checked, per m: the --steps largest steps of the stored curve (the
grid intervals whose slope d loglik / d log(1 - k1) departs most from the
mean of its two neighbours' slopes: kinks and jumps), both ends of each;
the MLE and --near grid points on each side of it; and any --point.

Tolerance: the brute maximum is taken over the same ell lattice as the
sweep's, so a correct sweep is never below it by more than rounding and
the two rho searches (both to 1e-8 in log rho); --tol (default 0.01
log-likelihood units, plus 1e-9 |loglik|) allows for that. Exit 1 if any
stored value is below the brute maximum by more than the tolerance (the
sweep's search missed a better mode) or above it by more (the two
likelihoods disagree, or the brute scan is too coarse: rerun with
--stride 1). Exit 2 on bad input.
"""

import argparse
import math
import os
import sys

# Many small eigendecompositions: one BLAS thread each is faster, and keeps
# the check from contending with a sweep on a shared machine.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402
from scipy.optimize import minimize_scalar  # noqa: E402

LOG2PI = math.log(2.0 * math.pi)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def setting(f, section, key, default):
    """A key of the run's configuration as the file records it (config.* or default.*)."""
    for prefix in ("config", "default"):
        name = f"{prefix}.{section}.{key}"
        if name in f.attrs:
            return text(f.attrs[name])
    return default


class Profile:
    """The data of one size m and the brute-force profile at any 1 - k1."""

    def __init__(self, f, m, opt):
        g = f[f"m{m}"]
        F = np.asarray(g["F_V"][...], dtype=float)
        Fp = np.asarray(g["F_Vp"][...], dtype=float)
        u = np.asarray(f["models/unit"][...], dtype=float)
        self.R, self.n = F.shape
        self.Y = np.hstack([F, Fp])  # R x 2n, y_i = [F_i; F_i']
        # Centre on the grand mean (a shift of m0, exact) so the quadratic
        # forms below do not cancel against the accuracies' common level.
        self.ybar = float(self.Y.mean())
        self.Yc = self.Y - self.ybar
        diff = u[:, None, :] - u[None, :, :]
        self.D2 = np.einsum("ijk,ijk->ij", diff, diff)  # squared distances, unit cube
        self.kernel = opt["kernel"]
        self.lo = 2.0 * math.log(opt["ratio_min"])  # log rho range
        self.hi = 2.0 * math.log(opt["ratio_max"])
        self.ell_min, self.ell_max = opt["ell_min"], opt["ell_max"]
        self.K = int(math.ceil(math.log(self.ell_max / self.ell_min) / opt["ell_step"] - 1e-9))
        self.h = math.log(self.ell_max / self.ell_min) / self.K if self.K > 0 else 0.0

    def ell(self, k):
        return math.exp(math.log(self.ell_min) + self.h * k)

    def k2(self, ell):
        r2 = self.D2 / (ell * ell)
        if self.kernel == "matern52":
            r = np.sqrt(5.0 * r2)
            return (1.0 + r + r * r / 3.0) * np.exp(-r)
        return np.exp(-0.5 * r2)

    def cov(self, k1, ell):
        K2 = self.k2(ell)
        return np.kron(np.array([[1.0, k1], [k1, 1.0]]), K2)

    def at_ell(self, k1, ell):
        """Best log-likelihood over m0, s, rho at this k1 and ell: (loglik, rho, m0c, s2)."""
        C = self.cov(k1, ell)
        try:
            w, Q = np.linalg.eigh(C)
        except np.linalg.LinAlgError:  # LAPACK's divide and conquer; QR iteration instead
            w, Q = scipy.linalg.eigh(C, driver="ev")
        w = np.clip(w, 0.0, None)  # positive semi-definite; rounding only
        Z = self.Yc @ Q  # R x 2n projections
        one = Q.sum(axis=0)  # Q' 1
        zs = Z.sum(axis=0)
        N = 2.0 * self.n * self.R

        def value(x):
            a = 1.0 / (w + math.exp(x))
            m0 = float(np.dot(a, one * zs) / (self.R * np.dot(a, one * one)))
            r = Z - m0 * one
            quad = float(np.einsum("ij,ij,j->", r, r, a))
            s2 = quad / N
            if not s2 > 0.0:
                return -math.inf, m0, s2
            ll = -0.5 * N * (LOG2PI + math.log(s2) + 1.0) + 0.5 * self.R * float(np.sum(np.log(a)))
            return ll, m0, s2

        # The scan, vectorised over rho (the refinement below uses value()).
        xs = np.linspace(self.lo, self.hi, int(round((self.hi - self.lo) / math.log(10.0) * 4)) + 1)
        A = 1.0 / (w[None, :] + np.exp(xs)[:, None])
        sz2 = np.einsum("ij,ij->j", Z, Z)
        m0s = (A @ (one * zs)) / (self.R * (A @ (one * one)))
        quads = A @ sz2 - 2.0 * m0s * (A @ (one * zs)) + self.R * m0s * m0s * (A @ (one * one))
        with np.errstate(divide="ignore", invalid="ignore"):
            vals = np.where(quads > 0.0, -0.5 * N * (LOG2PI + np.log(quads / N) + 1.0)
                            + 0.5 * self.R * np.sum(np.log(A), axis=1), -np.inf)
        vals = [float(v) for v in vals]
        best = max(range(len(xs)), key=lambda j: vals[j])
        cand = [(vals[best], xs[best])]
        for j in range(len(xs)):
            if (j == 0 or vals[j] >= vals[j - 1]) and (j == len(xs) - 1 or vals[j] > vals[j + 1]):
                a, b = xs[max(j - 1, 0)], xs[min(j + 1, len(xs) - 1)]
                res = minimize_scalar(lambda x: -value(x)[0], bounds=(a, b), method="bounded",
                                      options={"xatol": 1e-8})
                cand.append((-res.fun, float(res.x)))
        ll, x = max(cand)
        _, m0, s2 = value(x)
        return ll, math.exp(x), m0, s2

    def brute(self, t, stride):
        """Profile at 1 - k1 = t: brute force over the ell lattice, then a dense check."""
        k1 = 1.0 - t
        cache = {}

        def at(k):
            if k not in cache:
                cache[k] = self.at_ell(k1, self.ell(k))
            return cache[k][0]

        coarse = sorted(set(list(range(0, self.K + 1, stride)) + [self.K]))
        vals = [at(k) for k in coarse]
        for j, k in enumerate(coarse):
            if (j == 0 or vals[j] >= vals[j - 1]) and (j == len(coarse) - 1 or vals[j] > vals[j + 1]):
                for kk in range(max(0, k - 2 * stride), min(self.K, k + 2 * stride) + 1):
                    at(kk)
        kbest = max(cache, key=lambda k: cache[k][0])
        ll, rho, m0c, s2 = cache[kbest]
        ell = self.ell(kbest)
        s = math.sqrt(s2)
        sigma_n = s * math.sqrt(rho)
        dense = self.dense_loglik(k1, self.ybar + m0c, s, sigma_n, ell)
        return {"loglik": dense if dense is not None else ll, "loglik_eig": ll,
                "dense": dense is not None, "ell": ell, "m0": self.ybar + m0c, "s": s,
                "sigma_n": sigma_n, "evaluated": len(cache)}

    def dense_loglik(self, k1, m0, s, sigma_n, ell):
        """sum_i log N(y_i; m0 1, s^2 K1 (x) K2 + sigma_n^2 I) by Cholesky; None if not PD."""
        C = s * s * self.cov(k1, ell) + sigma_n * sigma_n * np.eye(2 * self.n)
        try:
            L = np.linalg.cholesky(C)
        except np.linalg.LinAlgError:
            return None
        r = (self.Y - m0).T  # 2n x R
        v = np.linalg.solve(L, r)  # triangular, dense solve suffices here
        logdet = 2.0 * float(np.sum(np.log(np.diag(L))))
        return float(-0.5 * self.R * (2 * self.n * LOG2PI + logdet) - 0.5 * np.sum(v * v))


def pick_points(lik, steps, near):
    """Indices of grid points at the curve's largest steps and next to its MLE, plus the MLE."""
    t = lik["one_minus_k1"][...]
    y = lik["loglik"][...]
    x = np.log(t)
    slope = np.diff(y) / np.diff(x)  # interval g: points g, g + 1
    score = np.zeros_like(slope)
    for g in range(len(slope)):
        nb = [slope[h] for h in (g - 1, g + 1) if 0 <= h < len(slope)]
        score[g] = abs(slope[g] - np.mean(nb)) if nb else abs(slope[g])
    picked = {}
    for g in np.argsort(-score)[:steps]:
        for p in (g, g + 1):
            picked.setdefault(int(p), f"step, grid {int(g) + 1}-{int(g) + 2}")
    tm = float(lik.attrs["one_minus_k1_mle"])
    # grid t descends: points with t > tm lie before the MLE
    after = int(np.searchsorted(-t, -tm, side="right"))
    for p in list(range(after - near, after)) + list(range(after, after + near)):
        if 0 <= p < len(t) and not math.isclose(t[p], tm, rel_tol=1e-12):
            picked.setdefault(p, "next to MLE")
    return picked


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="HDF5 file written by dpbo k1sweep")
    ap.add_argument("--sizes", type=int, nargs="*", help="the sizes m to check (default: all)")
    ap.add_argument("--steps", type=int, default=3, help="largest steps checked per curve [3]")
    ap.add_argument("--near", type=int, default=1, help="grid points each side of the MLE [1]")
    ap.add_argument("--no-mle", action="store_true", help="do not check the MLE itself")
    ap.add_argument("--point", action="append", default=[],
                    help="M:ONE_MINUS_K1 (a stored grid value) to check as well; repeatable")
    ap.add_argument("--stride", type=int, default=5,
                    help="scan every STRIDE-th ell lattice point, then all near each peak [5]")
    ap.add_argument("--tol", type=float, default=0.01,
                    help="allowed difference, log-likelihood units (plus 1e-9 |loglik|) [0.01]")
    args = ap.parse_args()
    if args.stride < 1:
        sys.exit("check_k1_profile: --stride must be >= 1")
    try:
        f = h5py.File(args.file, "r")
    except OSError as e:
        print(f"check_k1_profile: {args.file}: {e}", file=sys.stderr)
        return 2
    with f:
        if text(f.attrs.get("command", "")) != "k1sweep":
            print(f"check_k1_profile: {args.file}: not a dpbo k1sweep file", file=sys.stderr)
            return 2
        opt = {"kernel": setting(f, "likelihood", "kernel", "se"),
               "ell_min": float(setting(f, "likelihood", "ell_min", "0.01")),
               "ell_max": float(setting(f, "likelihood", "ell_max", "10")),
               "ell_step": float(setting(f, "likelihood", "ell_step", "0.002")),
               "ratio_min": float(setting(f, "likelihood", "ratio_min", "1e-6")),
               "ratio_max": float(setting(f, "likelihood", "ratio_max", "100"))}
        sizes = [int(m) for m in f.attrs["sizes"]]
        if args.sizes:
            bad = [m for m in args.sizes if m not in sizes]
            if bad:
                print(f"check_k1_profile: {args.file} has no size {bad[0]} (sizes {sizes})",
                      file=sys.stderr)
                return 2
            sizes = args.sizes
        extra = {}
        for p in args.point:
            try:
                m, t = p.split(":")
                extra.setdefault(int(m), []).append(float(t))
            except ValueError:
                print(f"check_k1_profile: --point {p!r}: expected M:ONE_MINUS_K1", file=sys.stderr)
                return 2
        print(f"# {args.file}: kernel {opt['kernel']}, ell lattice [{opt['ell_min']:g}, "
              f"{opt['ell_max']:g}] step {opt['ell_step']:g} (brute stride {args.stride}), "
              f"sigma_n/s in [{opt['ratio_min']:g}, {opt['ratio_max']:g}]; tolerance "
              f"{args.tol:g} + 1e-9 |loglik|")
        print("| m | 1 - k1 | why | stored loglik | brute loglik | stored - brute | stored ell"
              " | brute ell | stored sigma_n | brute sigma_n |")
        print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        failures = []
        for m in sizes:
            if f"m{m}" not in f:
                print(f"check_k1_profile: {args.file}: no group /m{m}", file=sys.stderr)
                return 2
            lik = f[f"m{m}/likelihood"]
            prof = Profile(f, m, opt)
            t = lik["one_minus_k1"][...]
            stored = []
            for p, why in sorted(pick_points(lik, args.steps, args.near).items()):
                stored.append((float(t[p]), why, float(lik["loglik"][p]),
                               float(lik["lengthscale"][p]), float(lik["sigma_n"][p])))
            if not args.no_mle:
                a = lik.attrs
                stored.append((float(a["one_minus_k1_mle"]), "MLE", float(a["loglik_mle"]),
                               float(a["lengthscale_mle"]), float(a["sigma_n_mle"])))
            for tx in extra.get(m, []):
                hit = np.flatnonzero(np.isclose(t, tx, rtol=1e-6, atol=0.0))
                if len(hit) == 0:
                    print(f"check_k1_profile: --point {m}:{tx:g}: not a grid value of m = {m}",
                          file=sys.stderr)
                    return 2
                p = int(hit[0])
                stored.append((float(t[p]), "asked", float(lik["loglik"][p]),
                               float(lik["lengthscale"][p]), float(lik["sigma_n"][p])))
            for tp, why, ll, ell, sn in sorted(stored, key=lambda r: -r[0]):
                b = prof.brute(tp, args.stride)
                d = ll - b["loglik"]
                tol = args.tol + 1e-9 * abs(b["loglik"])
                flag = ""
                if d < -tol:
                    flag = " **BELOW**"
                    failures.append(f"m = {m}, 1 - k1 = {tp:.6g}: stored {ll:.4f} is {-d:.4g} "
                                    f"below the brute maximum {b['loglik']:.4f} (ell {b['ell']:.4g}"
                                    f" against the stored {ell:.4g}): the sweep's search missed it")
                elif d > tol:
                    flag = " **ABOVE**"
                    failures.append(f"m = {m}, 1 - k1 = {tp:.6g}: stored {ll:.4f} is {d:.4g} above "
                                    f"the brute maximum {b['loglik']:.4f}: the likelihoods disagree "
                                    "or the brute scan is too coarse (try --stride 1)")
                dense = "" if b["dense"] else " (eig)"
                print(f"| {m} | {tp:.6g} | {why} | {ll:.4f} | {b['loglik']:.4f}{dense} | "
                      f"{d:+.3g}{flag} | {ell:.4g} | {b['ell']:.4g} | {sn:.3g} | {b['sigma_n']:.3g} |",
                      flush=True)
        if failures:
            print(f"\nFAIL: {len(failures)} point(s) off by more than the tolerance:")
            for line in failures:
                print("  " + line)
            return 1
        print("\nOK: every checked point is within the tolerance of the brute-force maximum")
        return 0


if __name__ == "__main__":
    sys.exit(main())
