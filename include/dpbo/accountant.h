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

#endif
