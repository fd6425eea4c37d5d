/* Privacy profile of private selection with a truncated negative binomial
 * number of runs (profile.h states the bound; docs/privacy-proofs.md
 * section 8 proves it). */
#include "core/profile.h"

#include <math.h>

#include "dpbo/privacy.h"

double dpbo_profile_pure_delta(double epsilon0, double epsilon) {
  return epsilon >= epsilon0 ? 0.0 : dpbo_privacy_round_up(-expm1(epsilon - epsilon0));
}

/* The law D_{η,γ} seen from the top: with T the probability that one run
 * scores at least as high, φ(1 − T) and φ′(1 − T), where
 *   φ(x) = ((1 − (1 − γ)x)^{−η} − 1)/(γ^{−η} − 1)     (η > 0),
 *   φ(x) = log(1 − (1 − γ)x)/log γ                    (η = 0).
 * Both depend on T through log a(T), a(T) = γ + (1 − γ)T = 1 − (1 − γ)(1 − T),
 * computed by log1p so that γ near 1 (K near 1) keeps its precision. */
typedef struct profile_law {
  double eta, gamma, q; /* q = 1 − γ */
  double log_gamma;     /* log a(0) */
} profile_law;

static profile_law profile_law_make(double eta, double gamma) {
  profile_law law = {.eta = eta, .gamma = gamma, .q = 1.0 - gamma};
  law.log_gamma = log1p(-law.q);
  return law;
}

static double profile_log_a(const profile_law *law, double tail) {
  return log1p(-law->q * (1.0 - tail));
}

static double profile_phi_tail(const profile_law *law, double tail) {
  double la = profile_log_a(law, tail);
  if (law->eta == 0.0) return la / law->log_gamma;
  return expm1(-law->eta * la) / expm1(-law->eta * law->log_gamma);
}

static double profile_dphi_tail(const profile_law *law, double tail) {
  double la = profile_log_a(law, tail);
  if (law->eta == 0.0) return law->q * exp(-la) / -law->log_gamma;
  return law->eta * law->q * exp(-(law->eta + 1.0) * la) / expm1(-law->eta * law->log_gamma);
}

double dpbo_profile_tnb_delta(double epsilon0, double eta, double gamma, double epsilon) {
  if (epsilon >= (2.0 + eta) * epsilon0) return 0.0;
  const profile_law law = profile_law_make(eta, gamma);
  /* The integrand f(T) = φ′(1 − T) − e^{ε−ε0} φ′(1 − min(1, e^{ε0} T)) is
   * positive exactly on (T_lo, T_hi): below e^{−ε0} the ratio of the two φ′
   * is (a(e^{ε0} T)/a(T))^{η+1}, increasing in T; above, φ′(1 − T) falls
   * while φ′(0) stays. With c = e^{(ε − ε0)/(η + 1)}:
   *   a(e^{ε0} T_lo) = c a(T_lo), a(T_hi) = 1/c,
   * and the interval is empty when c a(e^{−ε0}) >= 1 (the largest loss,
   * at T = e^{−ε0}, is then below ε). */
  const double s = (epsilon - epsilon0) / (eta + 1.0); /* log c */
  const double e_minus = exp(-epsilon0);
  if (s + profile_log_a(&law, e_minus) >= 0.0) return 0.0;
  const double c = exp(s);
  double t_lo = 0.0, t_hi = 1.0;
  if (s > 0.0) {
    t_lo = fmin(gamma * expm1(s) / (law.q * (exp(epsilon0) - c)), e_minus);
    t_hi = fmax((1.0 / c - gamma) / law.q, e_minus);
  }
  /* ∫ φ′(1 − T) dT = −φ(1 − T) and ∫ φ′(1 − e^{ε0} T) dT = −e^{−ε0} φ(1 − e^{ε0} T);
   * φ(0) = 0 (K >= 1). */
  const double i_top = profile_phi_tail(&law, t_lo) - profile_phi_tail(&law, t_hi);
  const double i_rest =
      exp(epsilon - epsilon0) * (e_minus * profile_phi_tail(&law, fmin(t_lo / e_minus, 1.0)) +
                                 (t_hi - e_minus) * profile_dphi_tail(&law, 1.0));
  /* The two terms are O(1) and carry a few ulps each (log1p, expm1, the
   * divisions): 2^-40 of their size bounds the rounding of the difference. */
  double delta = i_top - i_rest + 0x1p-40 * (fabs(i_top) + fabs(i_rest));
  return delta <= 0.0 ? 0.0 : fmin(1.0, dpbo_privacy_round_up(delta));
}

double dpbo_profile_tnb_epsilon(double epsilon0, double eta, double gamma, double delta) {
  if (dpbo_profile_tnb_delta(epsilon0, eta, gamma, 0.0) <= delta) return 0.0;
  /* δ_A(ε) does not grow with ε and is 0 from (2 + η) ε0 on. */
  double lo = 0.0, hi = (2.0 + eta) * epsilon0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    double mid = 0.5 * (lo + hi);
    if (dpbo_profile_tnb_delta(epsilon0, eta, gamma, mid) > delta)
      lo = mid;
    else
      hi = mid;
  }
  return dpbo_privacy_round_up(hi);
}

dpbo_status dpbo_profile_tnb_base_epsilon(double epsilon, double delta, double eta, double gamma,
                                          double *epsilon0, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *epsilon0 = 0.0;
  if (!(epsilon > 0.0 && isfinite(epsilon) && delta > 0.0 && delta < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "privacy profile: needs epsilon > 0 and delta in (0, 1), got %g, %g",
               epsilon, delta);
  if (!(eta >= 0.0 && isfinite(eta) && gamma > 0.0 && gamma < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "privacy profile: needs eta >= 0 and gamma in (0, 1), got %g, %g", eta,
               gamma);
  /* With δ > 0 the base may spend more than ε (K ≡ 1: ε0 = ε − log(1 − δ)),
   * so the bracket grows until it fails; ε0 → ∞ drives δ_A(ε) to 1. */
  double lo = 0.0, hi = epsilon;
  for (int i = 0; i < 60 && dpbo_profile_tnb_epsilon(hi, eta, gamma, delta) <= epsilon; i++) {
    lo = hi;
    hi *= 2.0;
  }
  while (hi - lo > 1e-12 * hi) {
    double mid = 0.5 * (lo + hi);
    if (dpbo_profile_tnb_epsilon(mid, eta, gamma, delta) <= epsilon)
      lo = mid;
    else
      hi = mid;
  }
  if (!(lo > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "privacy profile: no positive base epsilon fits epsilon = %g",
               epsilon);
  *epsilon0 = lo;
done:
  return status;
}
