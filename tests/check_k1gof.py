#!/usr/bin/env python3
# Independent recomputation of the goodness-of-fit statistics of a `dpbo
# k1sweep` file (src/experiments/k1gof.h): numpy and scipy only, no code
# shared with dpbo. Argument: the .h5 file. Checks every /m<m>:
#   residuals  the Schur complement of the joint covariance formed directly
#              (fine away from k1 = 1; k1gof.c uses the eigenbasis);
#   KS         scipy.stats.kstest(method="asymp"), D and p;
#   exceedance max |F - F'| per pair, s c per delta, the rates;
#   pipeline   GP-UCB rewritten here (Matern-5/2, the demo's prior, beta_t of
#              Algorithm 1 with delta_beta = 0.05 * 0.5 / 3), every pair;
#   bootstrap  the percentile intervals from the stored replicates.
import sys, h5py, numpy as np
from scipy import stats

def kernel(kind, X, ell):
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) / ell
    if kind == "se":
        return np.exp(-0.5 * d * d)
    r5 = np.sqrt(5.0) * d
    return (1 + r5 + r5 * r5 / 3) * np.exp(-r5)

def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)

with h5py.File(sys.argv[1], "r") as f:
    U = f["models/unit"][...]
    N = U.shape[0]
    kind = text(f.attrs.get("config.likelihood.kernel", "se"))
    seed = int(f.attrs["seed"])
    for m in f.attrs["sizes"]:
        g = f[f"m{int(m)}"]
        FV, FVp = g["F_V"][...], g["F_Vp"][...]
        R = FV.shape[0]
        a = g["likelihood"].attrs
        k1, t, m0, s, sn, ell = (a["k1_mle"], a["one_minus_k1_mle"], a["m0_mle"], a["s_mle"],
                                 a["sigma_n_mle"], a["lengthscale_mle"])
        # 1. Residuals: the Schur complement of the joint covariance, formed directly.
        K = kernel(kind, U, ell)
        A = s * s * K + sn * sn * np.eye(N)
        Bm = s * s * k1 * K
        mean = m0 + (Bm @ np.linalg.solve(A, (FV - m0).T)).T
        S = A - Bm @ np.linalg.solve(A, Bm)
        L = np.linalg.cholesky(0.5 * (S + S.T))
        z = np.linalg.solve(L, (FVp - mean).T).T
        zc = g["residuals/z"][...]
        err = np.abs(z - zc).max()
        print(f"m = {int(m)}: residuals agree to {err:.2e} (max |z| {np.abs(z).max():.3f})")
        assert err < 1e-5 * max(1.0, np.abs(z).max()), err
        # 2. KS statistic and asymptotic p-value against scipy.
        r = g["residuals"].attrs
        ks = stats.kstest(zc.ravel(), "norm", method="asymp")
        print(f"  KS D {r['ks_statistic']:.6g} (scipy {ks.statistic:.6g}), p {r['ks_pvalue']:.6g} "
              f"(scipy asymp {ks.pvalue:.6g}, exact {stats.kstest(zc.ravel(), 'norm').pvalue:.6g})")
        assert abs(r["ks_statistic"] - ks.statistic) < 1e-12
        assert abs(r["ks_pvalue"] - ks.pvalue) < 1e-9 * max(ks.pvalue, 1e-300) + 1e-14
        assert r["max_abs_z"] == np.abs(zc).max() and int(r["count"]) == zc.size
        # 3. Exceedance: max |F - F'| against s c at each delta.
        e = g["exceedance"]
        md = np.abs(FV - FVp).max(axis=1)
        assert np.array_equal(md, e["max_diff"][...])
        for d_, b_, r_ in zip(e["delta"][...], e["bound"][...], e["rate"][...]):
            bound = s * 2 * np.sqrt(t * np.log(3 * N / d_))
            assert abs(b_ - bound) < 1e-12 * bound and r_ == np.mean(md > bound), (d_, b_, bound, r_)
        bound = s * 2 * np.sqrt(t * np.log(3 * N / a["delta"]))
        assert abs(e.attrs["bound_at_delta"] - bound) < 1e-12 * bound
        assert e.attrs["rate_at_delta"] == np.mean(md > bound)
        print(f"  exceedance rate {e.attrs['rate_at_delta']} at delta {a['delta']} (s c = {bound:.4g})")
        # 4. The pipeline: GP-UCB (the demo's prior, Algorithm 1's beta_t) on F_V and F_V'.
        if "pipeline" in g:
            p = g["pipeline"]
            T = int(p.attrs["iterations"])
            pm0, ps, psig = 0.5, 0.25, 0.01
            dbeta = 0.05 * 0.5 / 3  # the value's delta share (split 0.5), a third for beta
            Kp = kernel("matern52", U, 0.2)
            def mu_T(v):
                idx, y = [], []
                for step in range(1, T + 1):
                    beta = 2 * np.log(N * step * step * np.pi ** 2 / (3 * dbeta))
                    if idx:
                        Ks = Kp[np.ix_(idx, idx)] + (psig / ps) ** 2 * np.eye(len(idx))
                        kx = Kp[:, idx]
                        mu = kx @ np.linalg.solve(Ks, (np.array(y) - pm0) / ps)
                        var = 1 - np.einsum("ij,ji->i", kx, np.linalg.solve(Ks, kx.T))
                    else:
                        mu, var = np.zeros(N), np.ones(N)
                    score = mu + np.sqrt(beta) * np.sqrt(np.maximum(var, 0))
                    j = int(np.argmax(score))
                    idx.append(j)
                    y.append(v[j])
                Ks = Kp[np.ix_(idx, idx)] + (psig / ps) ** 2 * np.eye(len(idx))
                return pm0 + ps * Kp[:, idx] @ np.linalg.solve(Ks, (np.array(y) - pm0) / ps)
            got = p["max_mean_diff"][...]
            for i in range(R):
                want = np.abs(mu_T(FV[i]) - mu_T(FVp[i])).max()
                assert abs(got[i] - want) < 1e-9 + 1e-6 * want, (i, got[i], want)
            assert p.attrs["max"] == got.max()
            assert p.attrs["violations"] == np.sum(got > p.attrs["lambda_sensitivity"])
            print(f"  pipeline: max |mu_T - mu'_T| {got.max():.4g} recomputed for all {R} pairs; "
                  f"Delta_lambda {p.attrs['lambda_sensitivity']:.4g}, slack {p.attrs['slack']:.4g}")
        # 5. Bootstrap: the intervals are the replicates' quantiles; the resamples are proper.
        b = g["bootstrap"]
        assert abs(b.attrs["s2_one_minus_k1_mle"] - s * s * t) <= 1e-15 * s * s * t
        B = int(b.attrs["B"])
        if B > 0:
            idx = b["index"][...]
            assert idx.shape == (B, R) and idx.min() >= 0 and idx.max() < R
            assert len({tuple(row) for row in idx}) == B  # distinct resamples
            kb, s2b = b["k1"][...], b["s2_one_minus_k1"][...]
            assert np.allclose(1 - b["one_minus_k1"][...], kb, rtol=0, atol=1e-15)
            for name, x in (("k1", kb), ("s2_one_minus_k1", s2b)):
                lo, hi = np.percentile(x, [2.5, 97.5])
                assert abs(b.attrs[name + "_lo"] - lo) <= 1e-14 * abs(lo) and abs(b.attrs[name + "_hi"] - hi) <= 1e-14 * abs(hi)
            print(f"  bootstrap B = {B}: k1 [{b.attrs['k1_lo']:.6g}, {b.attrs['k1_hi']:.6g}] "
                  f"(LR interval [{a['k1_lo']:.6g}, {a['k1_hi']:.6g}])")
print("goodness-of-fit statistics: recomputed independently, OK")
