/* Privacy accounting of Gaussian releases (docs/privacy-proofs.md, section
 * "Discrete Gaussian releases and their composition").
 *
 * Two families of numbers, never to be confused:
 *  - dpbo_accountant_gdp_*: μ-Gaussian DP (Dong, Roth & Su 2019/2022). A
 *    CONTINUOUS Gaussian mechanism of sensitivity Δ and noise σ is exactly
 *    μ-GDP with μ = Δ/σ, k adaptive ones compose exactly into μ = √k Δ/σ
 *    (their Corollary 3.3), and μ-GDP is (ε, δ(ε))-DP for every ε >= 0 with
 *    δ(ε) = Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2) (Corollary 2.13). dpbo never
 *    releases continuous Gaussian noise: these numbers are for reporting
 *    ("a continuous Gaussian would give") and for tests.
 *  - dpbo_accountant_gaussian_*: the PROVEN guarantee of k adaptive
 *    dpbo_mech_gaussian releases (discrete Gaussian noise on a grid g). Each
 *    release adds N_Z(0, s²) to an integer whose neighbouring values differ
 *    by at most (Δ + g)/g, so it is ρ-zCDP with ρ = (Δ + g)²/(2σ²) (Canonne,
 *    Kamath & Steinke 2020, "CKS"; the short proof is on the proof page;
 *    σ_used >= σ only helps); k adaptive releases are kρ-zCDP (Bun & Steinke
 *    2016, composition), converted to (ε, δ) as in CKS section 2.3:
 *      δ = inf_{α > 1} exp((α - 1)(αkρ - ε)) / (α - 1) · (1 - 1/α)^α.
 *    Any α gives a valid bound, so the numerical search over α affects only
 *    tightness, never validity. This is looser than the GDP number of the
 *    same (k, Δ, σ) (about 7 % more σ at k = 30, ε = 1, δ = 1e-6; the proof
 *    page gives the numbers).
 *  - dpbo_accountant_gaussian_pld_*: the same releases accounted by the
 *    discrete Gaussian's privacy-loss distribution (below): as tight as the
 *    GDP number up to the lattice (a relative 1e-6 in σ), and what
 *    privacy.algorithm = private_evaluations calibrates with since issue 22;
 *    the zCDP bound stays as a cross-check and fallback.
 * Outward rounding, as in the rest of dpbo: ε and δ are returned rounded up
 * (a relative 2^-40 on top of the double evaluation, which is accurate to a
 * few ulps), μ rounded down, σ rounded up. */
#ifndef DPBO_ACCOUNTANT_H
#define DPBO_ACCOUNTANT_H

#include <stdint.h>

#include "dpbo/error.h"

/* δ(ε) of μ-GDP: Φ(-ε/μ + μ/2) - e^ε Φ(-ε/μ - μ/2), computed stably (erfc,
 * and Mills ratios in log space where the two terms would cancel or
 * underflow), relative accuracy about 1e-13. μ > 0 and ε >= 0, both finite
 * (ε = +inf gives 0); anything else gives NaN. */
double dpbo_accountant_gdp_delta(double mu, double epsilon);

/* The smallest ε with δ(ε) <= δ for μ-GDP (0 when already δ(0) <= δ), by
 * bisection, rounded up. μ > 0 finite, δ in (0, 1). */
dpbo_status dpbo_accountant_gdp_epsilon(double mu, double delta, double *epsilon, dpbo_error *err);

/* The largest μ for which μ-GDP is (ε, δ)-DP, by bisection, rounded down.
 * ε >= 0 finite, δ in (0, 1). */
dpbo_status dpbo_accountant_gdp_mu(double epsilon, double delta, double *mu, dpbo_error *err);

/* μ = √k Δ/σ of k CONTINUOUS Gaussian mechanisms with sensitivity Δ and
 * noise σ (no grid): what a continuous Gaussian would give, for reports.
 * k >= 1, Δ, σ > 0 finite. */
dpbo_status dpbo_accountant_gaussian_mu(int64_t k, double sensitivity, double sigma, double *mu,
                                        dpbo_error *err);

/* ρ = k (Δ + g)²/(2σ²) of k dpbo_mech_gaussian releases, g =
 * dpbo_mech_gaussian_granularity(Δ, σ), rounded up. */
dpbo_status dpbo_accountant_gaussian_rho(int64_t k, double sensitivity, double sigma, double *rho,
                                         dpbo_error *err);

/* ε at δ in (0, 1) of ρ-zCDP (ρ > 0 finite), by CKS section 2.3 as above,
 * rounded up: the conversion of any sum of zCDP charges (run/ledger.h). */
dpbo_status dpbo_accountant_zcdp_epsilon(double rho, double delta, double *epsilon,
                                         dpbo_error *err);

/* k adaptive dpbo_mech_gaussian releases, each of sensitivity Δ (raw, as
 * passed to the mechanism; the grid is included here) with σ: the δ at a
 * given ε >= 0, and the ε at a given δ in (0, 1). */
dpbo_status dpbo_accountant_gaussian_delta(int64_t k, double sensitivity, double sigma,
                                           double epsilon, double *delta, dpbo_error *err);
dpbo_status dpbo_accountant_gaussian_epsilon(int64_t k, double sensitivity, double sigma,
                                             double delta, double *epsilon, dpbo_error *err);

/* The smallest σ (bisection, rounded up) for which k releases are (ε, δ)-DP
 * by dpbo_accountant_gaussian_epsilon; ε > 0, δ in (0, 1). The σ returned
 * is checked to satisfy the bound (the grid g depends on σ, so the bound is
 * only nearly monotone in σ; the check makes the answer valid regardless). */
dpbo_status dpbo_accountant_gaussian_sigma(int64_t k, double sensitivity, double epsilon,
                                           double delta, double *sigma, dpbo_error *err);

/* ------------------------------------------------------------------------
 * The privacy-loss distribution (PLD) of the discrete Gaussian: the tight
 * accountant of dpbo_mech_gaussian (docs/privacy-proofs.md section 10,
 * "The privacy-loss distribution bound").
 *
 * On the lattice: k adaptive releases, each adding N_Z(0, s²) to an integer
 * whose neighbouring values differ by at most d. The worst pair of one
 * release is N_Z(0, s²) against N_Z(d, s²) (monotone likelihood ratio), its
 * loss L(z) = (d² - 2zd)/(2s²) at z ~ N_Z(0, s²) is linear in z, and the
 * discrete Gaussian's CDF is at most Φ((n + 1)/s) + η (η = 2e^{-2π²s²}/(1 -
 * e^{-2π²s²}), Poisson summation). So L is stochastically dominated, up to
 * η, by the continuous Gaussian's loss N(μ₁²/2, μ₁²), μ₁ = d/s, shifted up by
 * d/s²; k of them compose EXACTLY (a sum of independent normals) into
 *   δ(ε) <= δ_GDP(√k d/s, ε - k d/s²) + k η,
 * with δ_GDP = dpbo_accountant_gdp_delta. No discretisation of the loss is
 * needed, so there is no grid error: the bound exceeds the exact δ of the
 * discrete mechanism only through the shift (a relative 1/s in the loss
 * scale; dpbo's lattices have s >= 2^19). The exact δ is at least
 * δ_GDP(√k d/s, ε + k d/s²) - kη by the same argument (the CDF is at least
 * Φ(n/s)(1 - η)), so the bound is tight to the shift. An ε below the shift
 * gives δ = 1. */

/* δ at ε >= 0 of k releases on the lattice: integer shift d >= 1, s >= 1
 * (s² the discrete Gaussian's variance parameter), k >= 1. Rounded up. */
dpbo_status dpbo_accountant_dgauss_pld_delta(int64_t k, double d, double s, double epsilon,
                                             double *delta, dpbo_error *err);

/* The lattice of dpbo_mech_gaussian(Δ, σ): g = dpbo_mech_gaussian_granularity
 * (Δ, σ), the shift d = floor(Δ/g) + 1 (rounding to the grid moves two
 * values Δ apart by at most that many steps) and s = ceil(σ/g), the
 * sampler's σ in grid steps. */
dpbo_status dpbo_accountant_gaussian_lattice(double sensitivity, double sigma, double *d, double *s,
                                             dpbo_error *err);

/* k adaptive dpbo_mech_gaussian releases of sensitivity Δ with σ, by the
 * PLD bound: δ at ε >= 0, and ε at δ in (0, 1) (rounded up). */
dpbo_status dpbo_accountant_gaussian_pld_delta(int64_t k, double sensitivity, double sigma,
                                               double epsilon, double *delta, dpbo_error *err);
dpbo_status dpbo_accountant_gaussian_pld_epsilon(int64_t k, double sensitivity, double sigma,
                                                 double delta, double *epsilon, dpbo_error *err);

/* The smallest σ (bisection, rounded up, checked) for which k releases are
 * (ε, δ)-DP by dpbo_accountant_gaussian_pld_delta; ε > 0, δ in (0, 1). It is
 * never above dpbo_accountant_gaussian_sigma's (the zCDP bound bounds the
 * same δ from above) and within a relative 1e-5 of the exact optimum of the
 * discrete mechanism. */
dpbo_status dpbo_accountant_gaussian_pld_sigma(int64_t k, double sensitivity, double epsilon,
                                               double delta, double *sigma, dpbo_error *err);

#endif
