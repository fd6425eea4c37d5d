/* Private-selection baselines for `dpbo compare` (issue #6): their privacy
 * accounting and their random stopping times, in one place.
 *
 * Setting (the paper's): the training set is public, the validation set V of
 * m records is private, neighbours swap one record. A model's validation
 * accuracy then has sensitivity 1/m for any fixed hyper-parameter λ.
 *
 *  - Private random search (Chaudhuri & Vinterbo 2013, "A stability-based
 *    validation procedure for differentially private machine learning"):
 *    T data-independent candidates, the best chosen with the exponential
 *    mechanism on accuracy (sensitivity 1/m, ε_sel) and its accuracy
 *    released with the Laplace mechanism (sensitivity 1/m, ε_val); basic
 *    composition gives (ε_sel + ε_val, 0)-DP. dpbo splits ε as for λ̃ and ṽ:
 *    ε_sel = split·ε, ε_val = (1 − split)·ε.
 *
 *  - Random stopping (Liu & Talwar 2019, "Private selection from private
 *    candidates", Theorem 3.4): Q is an ε0-DP algorithm that outputs a
 *    candidate and a score, here "λ uniform on Λ, score = accuracy +
 *    Lap(1/(m ε0))". Run Q, keep the best so far, and after every run stop
 *    with probability γ (K ~ Geometric(γ) on {1, 2, ...}, E[K] = 1/γ);
 *    output the best (λ, score). This is 3ε0-DP for every γ ∈ (0, 1], so
 *    ε0 = ε/3, δ = 0. dpbo takes γ = 1/T: T evaluations in expectation.
 *
 *  - Repeated search with Rényi accounting (Papernot & Steinke 2022,
 *    "Hyperparameter tuning with Renyi differential privacy", Theorem 2): the
 *    same Q run K ~ D_{η,γ} times (truncated negative binomial),
 *      P[K = k] = (1 − γ)^k / (γ^{−η} − 1) · Π_{ℓ=0}^{k−1} (ℓ + η)/(ℓ + 1)   (η > 0),
 *      P[K = k] = (1 − γ)^k / (k log(1/γ))                               (η = 0),
 *      E[K] = η(1 − γ)/(γ(1 − γ^η))  (η > 0),  (1/γ − 1)/log(1/γ)  (η = 0);
 *    η = 1 is the geometric law. If Q is (λ, ρ(λ))-RDP for all λ then the
 *    best of K runs is (λ, ε'(λ))-RDP for all λ > 1 and λ̂ ≥ 1 with
 *      ε'(λ) = ρ(λ) + (1 + η)(1 − 1/λ̂) ρ(λ̂) + (1 + η) log(1/γ)/λ̂ + log E[K]/(λ − 1).
 *    An ε0-DP Q is (λ, min(ε0, λ ε0²/2))-RDP (ε-DP implies ε²/2-zCDP, Bun &
 *    Steinke 2016, Proposition 3.3; and ε-DP bounds every Rényi divergence
 *    by ε). RDP converts to (ε, δ)-DP by (Canonne, Kamath & Steinke 2020,
 *    Proposition 12; Balle et al. 2020)
 *      ε = ε'(λ) + log((λ − 1)/λ) − (log δ + log λ)/(λ − 1).
 *    dpbo minimizes over grids of λ and λ̂ (any grid point is a valid
 *    bound), takes γ with E[K] = T, and the largest ε0 (bisection) whose ε
 *    stays within the budget. The whole δ goes to this conversion.
 *
 * The same repeated search (and the random stopping, which is D_{1,γ}) is
 * also accounted by its privacy profile (core/profile.h,
 * docs/privacy-proofs.md section 8); dpbo_baseline_ps_account keeps the
 * tighter of the two, and `dpbo compare` the profile for Liu–Talwar.
 *
 * Budget arithmetic rounds outward (docs/design.md section 3): the accounted ε is
 * rounded up, the base ε0 rounded down. */
#ifndef DPBO_BASELINE_H
#define DPBO_BASELINE_H

#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"

/* Liu–Talwar: the total ε of random stopping over an ε0-DP base (3 ε0,
 * rounded up only when the double is below it), and the base ε0 for a total
 * ε (ε/3, rounded down so that dpbo_baseline_lt_epsilon(ε0) <= ε). */
double dpbo_baseline_lt_epsilon(double epsilon0);
double dpbo_baseline_lt_base_epsilon(double epsilon);

/* Truncated negative binomial D_{η,γ} (η >= 0, γ ∈ (0, 1)). */
double dpbo_baseline_tnb_mean(double eta, double gamma);
double dpbo_baseline_tnb_pmf(double eta, double gamma, int64_t k);
/* The γ with E[K] = mean (mean > 1), by bisection (E[K] falls as γ grows). */
dpbo_status dpbo_baseline_tnb_gamma(double eta, double mean, double *gamma, dpbo_error *err);
/* One draw of K by inversion of the CDF with a 53-bit uniform from `noise`
 * (K is independent of the data, so a double's rounding reveals nothing
 * about it; the draw must stay secret, hence the release noise source). */
int64_t dpbo_baseline_tnb_sample(dpbo_noise *noise, double eta, double gamma);

/* ρ(λ) = min(ε0, λ ε0²/2): the Rényi divergence bound of an ε0-DP mechanism. */
double dpbo_baseline_pure_rdp(double epsilon0, double lambda);
/* Papernot–Steinke Theorem 2 for an ε0-DP base at orders λ > 1, λ̂ >= 1. */
double dpbo_baseline_ps_rdp(double epsilon0, double eta, double gamma, double lambda,
                            double lambda_hat);
/* RDP (λ, τ) to (ε, δ): τ + log((λ − 1)/λ) − (log δ + log λ)/(λ − 1). */
double dpbo_baseline_rdp_to_dp(double tau, double lambda, double delta);
/* The (ε, δ)-DP of the repeated search, minimized over the order grids
 * (λ from 1.01 to 10^4, λ̂ from 1 to 10^4, log-spaced), rounded up; the
 * orders reached are returned when the pointers are not NULL. */
double dpbo_baseline_ps_epsilon(double epsilon0, double eta, double gamma, double delta,
                                double *lambda, double *lambda_hat);
/* The largest base ε0 (to a relative 1e-9, rounded down) with
 * dpbo_baseline_ps_epsilon(ε0) <= epsilon. Fails when even a vanishing ε0
 * exceeds the budget (the log E[K] and log(1/γ) terms alone do). */
dpbo_status dpbo_baseline_ps_base_epsilon(double epsilon, double delta, double eta, double gamma,
                                          double *epsilon0, dpbo_error *err);

/* The repeated search's accounting at (ε, δ): the larger of the base ε0 of
 * the Rényi bound and of the privacy profile, the accounted ε (the smaller
 * of the two bounds at that ε0, <= ε), which bound gave the ε0 and which
 * the accounted ε. */
typedef struct dpbo_baseline_ps_accounting {
  double epsilon0, epsilon_accounted;
  double epsilon0_rdp, epsilon0_profile; /* 0 where a bound admits no positive ε0 */
  double lambda, lambda_hat;             /* the Rényi orders reached at epsilon0 */
  int by_profile;                        /* 1: the privacy profile gave epsilon0 */
  int accounted_by_profile;              /* 1: the profile gives epsilon_accounted */
} dpbo_baseline_ps_accounting;
dpbo_status dpbo_baseline_ps_account(double epsilon, double delta, double eta, double gamma,
                                     dpbo_baseline_ps_accounting *out, dpbo_error *err);

#endif
