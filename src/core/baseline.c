/* Accounting and stopping times of the private-selection baselines
 * (baseline.h states every formula and its source). */
#include "core/baseline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile.h"
#include "dpbo/privacy.h"

double dpbo_baseline_lt_epsilon(double epsilon0) {
  /* 3 ε0 rounded up: fma gives the product's rounding error exactly, so
   * the double is raised only when it lies below the true product. */
  double product = 3.0 * epsilon0;
  return fma(3.0, epsilon0, -product) > 0.0 ? dpbo_privacy_round_up(product) : product;
}

double dpbo_baseline_lt_base_epsilon(double epsilon) {
  /* ε/3 rounded down, so that the accounted 3 ε0 (rounded up) <= ε exactly:
   * the release then reports at most the ε it was asked for. */
  double e0 = epsilon / 3.0;
  while (dpbo_baseline_lt_epsilon(e0) > epsilon)
    e0 = nextafter(e0, 0.0);
  return e0;
}

double dpbo_baseline_tnb_mean(double eta, double gamma) {
  if (eta == 0.0) return (1.0 / gamma - 1.0) / log(1.0 / gamma);
  /* η(1 − γ)/(γ(1 − γ^η)), with 1 − γ^η = −expm1(η log γ) for accuracy. */
  return eta * (1.0 - gamma) / (gamma * -expm1(eta * log(gamma)));
}

/* log P[K = k]: (1 − γ)^k Π_{ℓ<k}(ℓ + η)/(ℓ + 1) = (1 − γ)^k Γ(k + η)/(Γ(η) k!),
 * normalized by γ^{−η} − 1 = expm1(−η log γ). */
static double baseline_tnb_log_pmf(double eta, double gamma, int64_t k) {
  double kk = (double)k;
  if (eta == 0.0) return kk * log1p(-gamma) - log(kk) - log(log(1.0 / gamma));
  return kk * log1p(-gamma) + lgamma(kk + eta) - lgamma(eta) - lgamma(kk + 1.0) -
         log(expm1(-eta * log(gamma)));
}

double dpbo_baseline_tnb_pmf(double eta, double gamma, int64_t k) {
  if (k < 1) return 0.0;
  return exp(baseline_tnb_log_pmf(eta, gamma, k));
}

dpbo_status dpbo_baseline_tnb_gamma(double eta, double mean, double *gamma, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(eta >= 0.0 && isfinite(eta)))
    DPBO_RAISE(DPBO_ERR_ARG, "truncated negative binomial: eta must be >= 0, got %g", eta);
  if (!(mean > 1.0 && isfinite(mean)))
    DPBO_RAISE(DPBO_ERR_ARG, "truncated negative binomial: the mean must exceed 1, got %g", mean);
  /* E[K] → ∞ as γ → 0 and → 1 as γ → 1, decreasing in between. */
  double lo = 1e-300, hi = 1.0 - 1e-16;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (dpbo_baseline_tnb_mean(eta, mid) > mean)
      lo = mid;
    else
      hi = mid;
  }
  *gamma = hi;
done:
  return status;
}

int64_t dpbo_baseline_tnb_sample(dpbo_noise *noise, double eta, double gamma) {
  double u = (double)(dpbo_noise_u64(noise) >> 11) * 0x1p-53;
  /* Inversion: the smallest k with P[K <= k] > u. The pmf is computed from
   * its closed form (no running product, so no drift); the loop ends once
   * the remaining mass is below the uniform's resolution. */
  double cdf = 0.0, mean = dpbo_baseline_tnb_mean(eta, gamma);
  for (int64_t k = 1;; k++) {
    double p = dpbo_baseline_tnb_pmf(eta, gamma, k);
    cdf += p;
    if (cdf > u) return k;
    /* Past the mode (below 10 E[K] + 10) the tail decays geometrically at
     * rate (1 − γ)(k + η)/(k + 1); once a term is below 2^-80 the rest is
     * below the uniform's resolution 2^-53. */
    if ((double)k > 10.0 * mean + 10.0 && p < 0x1p-80) return k;
  }
}

double dpbo_baseline_pure_rdp(double epsilon0, double lambda) {
  return fmin(epsilon0, 0.5 * lambda * epsilon0 * epsilon0);
}

double dpbo_baseline_ps_rdp(double epsilon0, double eta, double gamma, double lambda,
                            double lambda_hat) {
  double mean = dpbo_baseline_tnb_mean(eta, gamma);
  return dpbo_baseline_pure_rdp(epsilon0, lambda) +
         (1.0 + eta) * (1.0 - 1.0 / lambda_hat) * dpbo_baseline_pure_rdp(epsilon0, lambda_hat) +
         (1.0 + eta) * log(1.0 / gamma) / lambda_hat + log(mean) / (lambda - 1.0);
}

double dpbo_baseline_rdp_to_dp(double tau, double lambda, double delta) {
  return tau + log((lambda - 1.0) / lambda) - (log(delta) + log(lambda)) / (lambda - 1.0);
}

enum { PS_ORDERS = 400 };

double dpbo_baseline_ps_epsilon(double epsilon0, double eta, double gamma, double delta,
                                double *lambda_out, double *lambda_hat_out) {
  /* ε'(λ) separates: the λ̂ terms do not depend on λ, so each order is
   * minimized on its own grid. */
  double best_hat = INFINITY, arg_hat = 1.0;
  for (int i = 0; i < PS_ORDERS; i++) {
    double lh = pow(10.0, 4.0 * i / (PS_ORDERS - 1)); /* 1 .. 1e4 */
    double term = (1.0 + eta) * (1.0 - 1.0 / lh) * dpbo_baseline_pure_rdp(epsilon0, lh) +
                  (1.0 + eta) * log(1.0 / gamma) / lh;
    if (term < best_hat) {
      best_hat = term;
      arg_hat = lh;
    }
  }
  const double log_mean = log(dpbo_baseline_tnb_mean(eta, gamma));
  double best = INFINITY, arg = 2.0;
  for (int i = 0; i < PS_ORDERS; i++) {
    double l = 1.0 + pow(10.0, -2.0 + 6.0 * i / (PS_ORDERS - 1)); /* 1.01 .. 1 + 1e4 */
    double tau = dpbo_baseline_pure_rdp(epsilon0, l) + best_hat + log_mean / (l - 1.0);
    double e = dpbo_baseline_rdp_to_dp(tau, l, delta);
    if (e < best) {
      best = e;
      arg = l;
    }
  }
  if (lambda_out) *lambda_out = arg;
  if (lambda_hat_out) *lambda_hat_out = arg_hat;
  /* A few roundings in the sums above: one part in 2^48 covers them. */
  return dpbo_privacy_round_up(best * (1.0 + 0x1p-48));
}

dpbo_status dpbo_baseline_ps_base_epsilon(double epsilon, double delta, double eta, double gamma,
                                          double *epsilon0, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *epsilon0 = 0.0;
  if (!(epsilon > 0.0 && isfinite(epsilon) && delta > 0.0 && delta < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "repeated search: needs epsilon > 0 and delta in (0, 1), got %g, %g",
               epsilon, delta);
  double lo = 0.0, hi = epsilon; /* ε0 = ε already exceeds the budget (ρ(λ) <= ε0 alone) */
  if (dpbo_baseline_ps_epsilon(1e-12 * epsilon, eta, gamma, delta, NULL, NULL) > epsilon)
    DPBO_RAISE(DPBO_ERR_ARG,
               "repeated search (Papernot-Steinke, eta = %g, E[K] = %g): epsilon = %g is below "
               "what the random number of runs alone costs at delta = %g",
               eta, dpbo_baseline_tnb_mean(eta, gamma), epsilon, delta);
  while (hi - lo > 1e-9 * hi) {
    double mid = 0.5 * (lo + hi);
    if (dpbo_baseline_ps_epsilon(mid, eta, gamma, delta, NULL, NULL) <= epsilon)
      lo = mid;
    else
      hi = mid;
  }
  if (!(lo > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "repeated search: no positive base epsilon fits epsilon = %g",
               epsilon);
  *epsilon0 = lo;
done:
  return status;
}

dpbo_status dpbo_baseline_ps_account(double epsilon, double delta, double eta, double gamma,
                                     dpbo_baseline_ps_accounting *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_error rdp_err, profile_err;
  memset(out, 0, sizeof *out);
  /* Either bound alone is valid, so one that cannot fit the budget is
   * skipped; the call fails only when neither can (with the Rényi message,
   * the one users saw before). */
  dpbo_status rdp =
      dpbo_baseline_ps_base_epsilon(epsilon, delta, eta, gamma, &out->epsilon0_rdp, &rdp_err);
  dpbo_status profile = dpbo_profile_tnb_base_epsilon(epsilon, delta, eta, gamma,
                                                      &out->epsilon0_profile, &profile_err);
  if (rdp != DPBO_OK && profile != DPBO_OK) {
    if (err) *err = rdp_err;
    status = rdp;
    goto done;
  }
  out->by_profile =
      profile == DPBO_OK && (rdp != DPBO_OK || out->epsilon0_profile > out->epsilon0_rdp);
  out->epsilon0 = out->by_profile ? out->epsilon0_profile : out->epsilon0_rdp;
  /* At the chosen ε0 both bounds hold: report the smaller ε. */
  double rdp_eps = INFINITY;
  if (rdp == DPBO_OK)
    rdp_eps =
        dpbo_baseline_ps_epsilon(out->epsilon0, eta, gamma, delta, &out->lambda, &out->lambda_hat);
  const double profile_eps = dpbo_profile_tnb_epsilon(out->epsilon0, eta, gamma, delta);
  out->accounted_by_profile = profile_eps <= rdp_eps;
  out->epsilon_accounted = fmin(rdp_eps, profile_eps);
done:
  return status;
}
