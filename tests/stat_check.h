/* Critical values for the statistical tests of the mechanisms (label stat).
 *
 * Every check runs at a fixed seed, so it is deterministic; the critical
 * values are set at a false-alarm probability of 1e-6 per check, derived from
 * the statistic's distribution (not tuned to the seed), so that a correct
 * sampler passes at essentially any seed and a wrong law is caught:
 *  - Pearson's chi-square over k cells with expected counts >= 20 is close to
 *    χ²(k - 1) (Cochran's rule asks for >= 5); its 1 - 1e-6 quantile is
 *    found by bisection on the regularized upper incomplete gamma function,
 *    Q(df/2, x/2) = 1e-6 (checked against scipy.stats.chi2.isf: 63.677 for
 *    df = 19).
 *  - For a CDF, the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's
 *    constant, P(sup |F_N - F| > d) <= 2 exp(-2 N d²), holds for any
 *    distribution, discrete ones included; d = sqrt(ln(2/α)/(2N)). */
#ifndef DPBO_TEST_STAT_CHECK_H
#define DPBO_TEST_STAT_CHECK_H

#include <math.h>
#include <stdint.h>

#define STAT_ALPHA 1e-6

/* Q(a, x) = Γ(a, x)/Γ(a): series for P = 1 - Q below a + 1, Lentz continued
 * fraction above (DLMF 8.11.4 and 8.9.2). */
static inline double stat_gamma_q(double a, double x) {
  if (x <= 0.0) return 1.0;
  double log_front = a * log(x) - x - lgamma(a);
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 100000 && fabs(term) > fabs(sum) * 1e-17; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return 1.0 - sum * exp(log_front);
  }
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; i++) {
    double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    double step = d * c;
    h *= step;
    if (fabs(step - 1.0) < 1e-16) break;
  }
  return exp(log_front) * h;
}

/* The x with P(χ²(df) > x) = alpha. */
static inline double stat_chi2_critical(int df, double alpha) {
  double lo = 0.0, hi = 10.0 * df + 200.0;
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (stat_gamma_q(0.5 * df, 0.5 * mid) > alpha)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* Pearson's statistic of counts[0..k) against probabilities p[0..k) (sum 1). */
static inline double stat_chi2(const int64_t *counts, const double *p, int k, int64_t n) {
  double x = 0.0;
  for (int i = 0; i < k; i++) {
    double e = p[i] * (double)n, d = (double)counts[i] - e;
    x += d * d / e;
  }
  return x;
}

/* DKW bound on sup |F_N - F| at false-alarm probability alpha. */
static inline double stat_dkw_bound(int64_t n, double alpha) {
  return sqrt(log(2.0 / alpha) / (2.0 * (double)n));
}

#endif
