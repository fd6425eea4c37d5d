/* Gaussian DP, zCDP and privacy-loss-distribution accounting of Gaussian
 * releases (include/dpbo/accountant.h; the argument is in
 * docs/privacy-proofs.md section 10).
 *
 * Everything here is double arithmetic on public parameters only, so it does
 * not need the exactness of the samplers: it needs the right direction of
 * rounding. The formulas are evaluated to a few ulps, the bisections run to
 * the last bit, and the result is then pushed outward by a relative 2^-40
 * (ε, δ, ρ and σ up, μ down), far more than the evaluation error. */
#include "dpbo/accountant.h"

#include <float.h>
#include <math.h>

#include "dpbo/mechanism.h"

/* Relative outward margin applied to every returned budget number. */
static const double outward = 0x1p-40;

/* Below this x, Φ(x) is computed from the Mills ratio's continued fraction
 * (erfc's relative accuracy is fine above, and the fraction converges
 * quickly below). */
static const double mills_cut = -5.0;

/* log φ(x) of the standard normal density. */
static double accountant_log_phi(double x) {
  return -0.5 * x * x - 0.91893853320467274178; /* ½ log(2π) */
}

/* M(x) = Φ(x)/φ(x) for x <= mills_cut, by the continued fraction
 * Φ(-u)/φ(u) = 1/(u + 1/(u + 2/(u + 3/(u + ...)))) (u = -x >= 5), evaluated
 * from the bottom; 400 levels are far beyond convergence for u >= 5. */
static double accountant_mills_tail(double x) {
  double u = -x, tail = u;
  for (int j = 400; j >= 1; j--)
    tail = u + j / tail;
  return 1.0 / tail;
}

/* log M(x), M(x) = Φ(x)/φ(x), for any x below about 37 (φ > 0). */
static double accountant_log_mills(double x) {
  if (x <= mills_cut) return log(accountant_mills_tail(x));
  return log(0.5 * erfc(-x / M_SQRT2)) - accountant_log_phi(x);
}

/* log Φ(x). */
static double accountant_log_cdf(double x) {
  if (x <= mills_cut) return accountant_log_phi(x) + log(accountant_mills_tail(x));
  return log(0.5 * erfc(-x / M_SQRT2));
}

double dpbo_accountant_gdp_delta(double mu, double epsilon) {
  if (!(isfinite(mu) && mu > 0.0 && epsilon >= 0.0)) return NAN;
  if (isinf(epsilon)) return 0.0;
  double a = -epsilon / mu + 0.5 * mu, b = -epsilon / mu - 0.5 * mu;
  double delta;
  if (a > mills_cut) {
    /* Φ(a) >= 2.8e-7: the subtraction loses at most a factor Φ(a)/δ of
     * accuracy, which stays small wherever δ is of any interest. */
    delta = 0.5 * erfc(-a / M_SQRT2) - exp(epsilon + accountant_log_cdf(b));
  } else {
    /* Both terms tiny: e^ε φ(b) = φ(a) exactly (a² - b² = -2ε), so
     * e^ε Φ(b)/Φ(a) = M(b)/M(a) and δ = Φ(a)(1 - M(b)/M(a)), with no
     * overflow of e^ε and no cancellation of two tiny numbers. */
    double r = accountant_log_mills(b) - accountant_log_mills(a);
    delta = exp(accountant_log_cdf(a)) * -expm1(r);
  }
  return fmin(fmax(delta, 0.0), 1.0);
}

static dpbo_status accountant_check_delta(double delta, const char *who, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(delta > 0.0 && delta < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: delta must be in (0, 1), got %g", who, delta);
done:
  return status;
}

static dpbo_status accountant_check_positive(double v, const char *who, const char *what,
                                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(isfinite(v) && v > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: %s must be positive and finite, got %g", who, what, v);
done:
  return status;
}

static dpbo_status accountant_check_epsilon(double epsilon, const char *who, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(isfinite(epsilon) && epsilon >= 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: epsilon must be finite and >= 0, got %g", who, epsilon);
done:
  return status;
}

/* Bisection to the last bit: lo fails, hi passes, pass(hi) is kept true. */
#define ACCOUNTANT_BISECT(lo, hi, passes)                                                          \
  for (int bisect_i = 0; bisect_i < 2000; bisect_i++) {                                            \
    double mid = 0.5 * ((lo) + (hi));                                                              \
    if (!(mid > (lo) && mid < (hi))) break;                                                        \
    if (passes(mid))                                                                               \
      (hi) = mid;                                                                                  \
    else                                                                                           \
      (lo) = mid;                                                                                  \
  }

dpbo_status dpbo_accountant_gdp_epsilon(double mu, double delta, double *epsilon, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "GDP epsilon";
  *epsilon = NAN;
  DPBO_TRY(accountant_check_positive(mu, who, "mu", err));
  DPBO_TRY(accountant_check_delta(delta, who, err));
  if (dpbo_accountant_gdp_delta(mu, 0.0) <= delta) {
    *epsilon = 0.0;
    goto done;
  }
  double lo = 0.0, hi = 1.0;
  while (dpbo_accountant_gdp_delta(mu, hi) > delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > 0x1p40) DPBO_RAISE(DPBO_ERR_NUMERIC, "%s: no epsilon reaches delta %g", who, delta);
  }
#define GDP_EPS_PASSES(e) (dpbo_accountant_gdp_delta(mu, (e)) <= delta)
  ACCOUNTANT_BISECT(lo, hi, GDP_EPS_PASSES)
#undef GDP_EPS_PASSES
  *epsilon = hi * (1.0 + outward);
done:
  return status;
}

dpbo_status dpbo_accountant_gdp_mu(double epsilon, double delta, double *mu, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "GDP mu";
  *mu = NAN;
  DPBO_TRY(accountant_check_epsilon(epsilon, who, err));
  DPBO_TRY(accountant_check_delta(delta, who, err));
  /* δ(μ) increases with μ: the largest μ with δ(μ) <= δ. Here "passes" means
   * "too large", so the roles of the ends are swapped. */
  double lo = 0.0, hi = 1.0;
  while (dpbo_accountant_gdp_delta(hi, epsilon) <= delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > 0x1p40) DPBO_RAISE(DPBO_ERR_NUMERIC, "%s: no mu exceeds delta %g", who, delta);
  }
#define GDP_MU_TOO_LARGE(m) (dpbo_accountant_gdp_delta((m), epsilon) > delta)
  ACCOUNTANT_BISECT(lo, hi, GDP_MU_TOO_LARGE)
#undef GDP_MU_TOO_LARGE
  if (!(lo > 0.0)) DPBO_RAISE(DPBO_ERR_NUMERIC, "%s: no positive mu meets delta %g", who, delta);
  *mu = lo * (1.0 - outward);
done:
  return status;
}

/* ------------------------------------------------------------------------ */
/* zCDP of the discrete Gaussian and its conversion                         */

/* log δ_α(ε) = (α - 1)(αρ - ε) + α log(1 - 1/α) - log(α - 1): the
 * conversion of CKS section 2.3 at one order α > 1. */
static double accountant_zcdp_log_delta_at(double rho, double epsilon, double alpha) {
  return (alpha - 1.0) * (alpha * rho - epsilon) + alpha * log1p(-1.0 / alpha) - log(alpha - 1.0);
}

/* ε_α(δ) = αρ + (log(1/δ) + (α - 1) log(1 - 1/α) - log α)/(α - 1): the same
 * bound solved for ε. */
static double accountant_zcdp_epsilon_at(double rho, double delta, double alpha) {
  return alpha * rho +
         (-log(delta) + (alpha - 1.0) * log1p(-1.0 / alpha) - log(alpha)) / (alpha - 1.0);
}

/* Smallest α considered: the bounds are valid at every α > 1, so limiting
 * the range costs at most tightness, and only when ε is below about ρ. */
static const double alpha_min = 1.0 + 0x1p-30;

/* δ for ρ-zCDP at ε (ρ > 0, ε >= 0). log δ_α is convex in α with derivative
 * (2α - 1)ρ - ε + log(1 - 1/α), increasing: bisection on its sign. */
static double accountant_zcdp_delta(double rho, double epsilon) {
  double lo = alpha_min, hi = (epsilon + 1.0) / (2.0 * rho) + 2.0;
#define ZCDP_SLOPE_POSITIVE(a) ((2.0 * (a)-1.0) * rho - epsilon + log1p(-1.0 / (a)) >= 0.0)
  if (ZCDP_SLOPE_POSITIVE(lo)) {
    hi = lo;
  } else {
    ACCOUNTANT_BISECT(lo, hi, ZCDP_SLOPE_POSITIVE)
  }
#undef ZCDP_SLOPE_POSITIVE
  double delta = exp(accountant_zcdp_log_delta_at(rho, epsilon, hi)) * (1.0 + outward);
  return fmin(delta, 1.0);
}

/* ε for ρ-zCDP at δ: golden-section search of ε_α over log(α - 1), from
 * 2^-30 to well past the optimum α ≈ 1 + √(log(1/δ)/ρ). */
static double accountant_zcdp_epsilon(double rho, double delta) {
  const double phi = 0.61803398874989484820;
  double lo = log(alpha_min - 1.0), hi = log(4.0 * sqrt(-log(delta) / rho) + 16.0);
  double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
  double f1 = accountant_zcdp_epsilon_at(rho, delta, 1.0 + exp(x1));
  double f2 = accountant_zcdp_epsilon_at(rho, delta, 1.0 + exp(x2));
  for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - phi * (hi - lo);
      f1 = accountant_zcdp_epsilon_at(rho, delta, 1.0 + exp(x1));
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + phi * (hi - lo);
      f2 = accountant_zcdp_epsilon_at(rho, delta, 1.0 + exp(x2));
    }
  }
  double eps = fmin(f1, f2);
  return fmax(eps, 0.0) * (1.0 + outward);
}

dpbo_status dpbo_accountant_zcdp_epsilon(double rho, double delta, double *epsilon,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *epsilon = NAN;
  DPBO_TRY(accountant_check_positive(rho, "zCDP conversion", "rho", err));
  DPBO_TRY(accountant_check_delta(delta, "zCDP conversion", err));
  *epsilon = accountant_zcdp_epsilon(rho, delta);
done:
  return status;
}

static dpbo_status accountant_check_release(int64_t k, double sensitivity, double sigma,
                                            const char *who, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (k < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "%s: the number of releases must be >= 1, got %lld", who,
               (long long)k);
  DPBO_TRY(accountant_check_positive(sensitivity, who, "sensitivity", err));
  DPBO_TRY(accountant_check_positive(sigma, who, "sigma", err));
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_mu(int64_t k, double sensitivity, double sigma, double *mu,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *mu = NAN;
  DPBO_TRY(accountant_check_release(k, sensitivity, sigma, "Gaussian mu", err));
  *mu = sqrt((double)k) * sensitivity / sigma;
  if (!(isfinite(*mu) && *mu > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "Gaussian mu: sensitivity/sigma = %g/%g is out of range", sensitivity,
               sigma);
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_rho(int64_t k, double sensitivity, double sigma, double *rho,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "Gaussian accountant";
  *rho = NAN;
  DPBO_TRY(accountant_check_release(k, sensitivity, sigma, who, err));
  double g = dpbo_mech_gaussian_granularity(sensitivity, sigma);
  if (!(g > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: sensitivity %g and sigma %g are outside the mechanism's range",
               who, sensitivity, sigma);
  double ratio = (sensitivity + g) / sigma;
  *rho = (double)k * ratio * ratio * 0.5 * (1.0 + outward);
  if (!(isfinite(*rho) && *rho > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: k %lld, sensitivity %g, sigma %g give no finite rho", who,
               (long long)k, sensitivity, sigma);
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_delta(int64_t k, double sensitivity, double sigma,
                                           double epsilon, double *delta, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double rho;
  *delta = NAN;
  DPBO_TRY(accountant_check_epsilon(epsilon, "Gaussian accountant", err));
  DPBO_TRY(dpbo_accountant_gaussian_rho(k, sensitivity, sigma, &rho, err));
  *delta = accountant_zcdp_delta(rho, epsilon);
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_epsilon(int64_t k, double sensitivity, double sigma,
                                             double delta, double *epsilon, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double rho;
  *epsilon = NAN;
  DPBO_TRY(accountant_check_delta(delta, "Gaussian accountant", err));
  DPBO_TRY(dpbo_accountant_gaussian_rho(k, sensitivity, sigma, &rho, err));
  *epsilon = accountant_zcdp_epsilon(rho, delta);
done:
  return status;
}

/* Whether σ makes k releases (ε, δ)-DP by the discrete bound; an input the
 * accountant refuses (σ far outside the grid's range) counts as "no". */
static int accountant_sigma_passes(int64_t k, double sensitivity, double sigma, double epsilon,
                                   double delta) {
  double e;
  dpbo_error local;
  return dpbo_accountant_gaussian_epsilon(k, sensitivity, sigma, delta, &e, &local) == DPBO_OK &&
         e <= epsilon;
}

/* Whether σ reaches (ε, δ) for K releases of sensitivity Δ, by one bound. */
typedef int (*accountant_sigma_test)(int64_t k, double sensitivity, double sigma, double epsilon,
                                     double delta);

/* What a σ is calibrated for: K releases of sensitivity Δ at (ε, δ). */
typedef struct accountant_target {
  int64_t k;
  double sensitivity, epsilon, delta;
} accountant_target;

/* The smallest σ that `passes` (to the last bit), for both calibrations:
 * brackets in powers of two times Δ (lo fails, hi passes), then bisection.
 * The caller checks the answer once more with its own error record. */
static dpbo_status accountant_sigma_search(accountant_sigma_test passes,
                                           const accountant_target *target, const char *who,
                                           double *sigma, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t k = target->k;
  const double sensitivity = target->sensitivity, epsilon = target->epsilon, delta = target->delta;
  double lo = sensitivity, hi = sensitivity;
#define SIGMA_PASSES(s) passes(k, sensitivity, (s), epsilon, delta)
  if (SIGMA_PASSES(hi)) {
    while (SIGMA_PASSES(lo)) {
      hi = lo;
      lo *= 0.5;
      if (!(lo > sensitivity * 0x1p-20))
        DPBO_RAISE(DPBO_ERR_ARG,
                   "%s: epsilon %g at delta %g allows sigma below 2^-20 of the sensitivity %g; "
                   "such a release protects nothing",
                   who, epsilon, delta, sensitivity);
    }
  } else {
    while (!SIGMA_PASSES(hi)) {
      lo = hi;
      hi *= 2.0;
      if (!(hi < sensitivity * 0x1p60))
        DPBO_RAISE(DPBO_ERR_ARG, "%s: no sigma below %g reaches epsilon %g at delta %g", who, hi,
                   epsilon, delta);
    }
  }
  ACCOUNTANT_BISECT(lo, hi, SIGMA_PASSES)
#undef SIGMA_PASSES
  *sigma = hi;
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_sigma(int64_t k, double sensitivity, double epsilon,
                                           double delta, double *sigma, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "Gaussian calibration";
  *sigma = NAN;
  DPBO_TRY(accountant_check_release(k, sensitivity, 1.0, who, err));
  DPBO_TRY(accountant_check_positive(epsilon, who, "epsilon", err));
  DPBO_TRY(accountant_check_delta(delta, who, err));
  /* NAN until the search sets it: a failed search jumps to done first. */
  double hi = NAN, e = NAN;
  const accountant_target target = {k, sensitivity, epsilon, delta};
  DPBO_TRY(accountant_sigma_search(accountant_sigma_passes, &target, who, &hi, err));
  /* hi passed when it was set; check the answer itself once more, with the
   * caller's error record. */
  DPBO_TRY(dpbo_accountant_gaussian_epsilon(k, sensitivity, hi, delta, &e, err));
  if (!(e <= epsilon))
    DPBO_RAISE(DPBO_ERR_NUMERIC, "%s: sigma %g gives epsilon %.17g > %.17g", who, hi, e, epsilon);
  *sigma = hi;
done:
  return status;
}

/* ------------------------------------------------------------------------ */
/* The discrete Gaussian's privacy-loss distribution                        */

/* η = 2e^{-2π²s²}/(1 - e^{-2π²s²}) >= θ - 1, θ = Σ_j e^{-2π²s²j²} the
 * relative excess of the discrete Gaussian's normaliser Σ_z e^{-z²/(2s²)}
 * over s√(2π) (Poisson summation; j² >= j bounds the series by a
 * geometric one). Exactly 0 in double once s >= 7 (e^{-967} underflows):
 * the lattices of dpbo_mech_gaussian have s >= 2^19. */
static double accountant_dgauss_eta(double s) {
  double q = exp(-2.0 * M_PI * M_PI * s * s);
  return 2.0 * q / (1.0 - q) * (1.0 + outward);
}

static dpbo_status accountant_check_lattice(int64_t k, double d, double s, const char *who,
                                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (k < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "%s: the number of releases must be >= 1, got %lld", who,
               (long long)k);
  if (!(d >= 1.0 && d <= 0x1p53 && d == floor(d)))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: the shift must be an integer >= 1, got %g", who, d);
  if (!(s >= 1.0 && s <= 0x1p53))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: s must be in [1, 2^53], got %g", who, s);
done:
  return status;
}

/* μ = √k d/s and the shift k d/s² of the dominating Gaussian loss, both
 * rounded up (δ grows with each): a relative 2^-50 covers the three
 * roundings of each product. */
static void accountant_dgauss_pld_params(int64_t k, double d, double s, double *mu, double *shift) {
  const double up = 1.0 + 0x1p-50;
  *mu = sqrt((double)k) * (d / s) * up;
  *shift = (double)k * (d / s) / s * up;
}

dpbo_status dpbo_accountant_dgauss_pld_delta(int64_t k, double d, double s, double epsilon,
                                             double *delta, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "discrete Gaussian PLD";
  double mu, shift;
  *delta = NAN;
  DPBO_TRY(accountant_check_lattice(k, d, s, who, err));
  DPBO_TRY(accountant_check_epsilon(epsilon, who, err));
  accountant_dgauss_pld_params(k, d, s, &mu, &shift);
  /* The loss sum is dominated by N(μ²/2, μ²) + shift, up to probability kη
   * (docs/privacy-proofs.md): δ(ε) <= δ_GDP(μ, ε - shift) + kη. An ε below
   * the shift is left unbounded (δ = 1), which only costs tightness there
   * (the shift k d/s² is about k·2^-20 (Δ/σ)² on dpbo's lattices). */
  double e = epsilon - shift;
  if (!(e >= 0.0)) {
    *delta = 1.0;
    goto done;
  }
  double v =
      dpbo_accountant_gdp_delta(mu, e) * (1.0 + outward) + (double)k * accountant_dgauss_eta(s);
  *delta = fmin(v, 1.0);
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_lattice(double sensitivity, double sigma, double *d, double *s,
                                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "Gaussian PLD accountant";
  *d = *s = NAN;
  DPBO_TRY(accountant_check_positive(sensitivity, who, "sensitivity", err));
  DPBO_TRY(accountant_check_positive(sigma, who, "sigma", err));
  double g = dpbo_mech_gaussian_granularity(sensitivity, sigma);
  if (!(g > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: sensitivity %g and sigma %g are outside the mechanism's range",
               who, sensitivity, sigma);
  /* Δ/g and σ/g are exact (g is a power of two); k = round(q/g) moves two
   * values at most Δ apart by at most floor(Δ/g) + 1 steps, and the sampler
   * draws N_Z(0, s²) with s = ceil(σ/g) (dpbo_mech_gaussian). */
  *d = floor(sensitivity / g) + 1.0;
  *s = ceil(sigma / g);
  if (!(*d <= 0x1p53 && *s >= 1.0 && *s < 0x1p31))
    DPBO_RAISE(DPBO_ERR_ARG, "%s: sensitivity %g and sigma %g are outside the mechanism's range",
               who, sensitivity, sigma);
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_pld_delta(int64_t k, double sensitivity, double sigma,
                                               double epsilon, double *delta, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double d, s;
  *delta = NAN;
  DPBO_TRY(accountant_check_release(k, sensitivity, sigma, "Gaussian PLD accountant", err));
  DPBO_TRY(dpbo_accountant_gaussian_lattice(sensitivity, sigma, &d, &s, err));
  DPBO_TRY(dpbo_accountant_dgauss_pld_delta(k, d, s, epsilon, delta, err));
done:
  return status;
}

dpbo_status dpbo_accountant_gaussian_pld_epsilon(int64_t k, double sensitivity, double sigma,
                                                 double delta, double *epsilon, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "Gaussian PLD accountant";
  double d, s, mu, shift, e;
  *epsilon = NAN;
  DPBO_TRY(accountant_check_delta(delta, who, err));
  DPBO_TRY(accountant_check_release(k, sensitivity, sigma, who, err));
  DPBO_TRY(dpbo_accountant_gaussian_lattice(sensitivity, sigma, &d, &s, err));
  accountant_dgauss_pld_params(k, d, s, &mu, &shift);
  /* The inverse of the δ bound: the GDP ε at what δ leaves after kη (and
   * the outward factor), plus the shift. */
  double rest = delta / (1.0 + outward) - (double)k * accountant_dgauss_eta(s);
  if (!(rest > 0.0)) DPBO_RAISE(DPBO_ERR_NUMERIC, "%s: delta %g is below k eta", who, delta);
  DPBO_TRY(dpbo_accountant_gdp_epsilon(mu, rest, &e, err));
  *epsilon = (e + shift) * (1.0 + outward);
done:
  return status;
}

/* Whether σ makes k releases (ε, δ)-DP by the PLD bound; an input the
 * accountant refuses counts as "no". */
static int accountant_pld_sigma_passes(int64_t k, double sensitivity, double sigma, double epsilon,
                                       double delta) {
  double v;
  dpbo_error local;
  return dpbo_accountant_gaussian_pld_delta(k, sensitivity, sigma, epsilon, &v, &local) ==
             DPBO_OK &&
         v <= delta;
}

dpbo_status dpbo_accountant_gaussian_pld_sigma(int64_t k, double sensitivity, double epsilon,
                                               double delta, double *sigma, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *who = "Gaussian PLD calibration";
  double v;
  *sigma = NAN;
  DPBO_TRY(accountant_check_release(k, sensitivity, 1.0, who, err));
  DPBO_TRY(accountant_check_positive(epsilon, who, "epsilon", err));
  DPBO_TRY(accountant_check_delta(delta, who, err));
  double hi = NAN; /* NAN until the search sets it: a failed search jumps to done first */
  const accountant_target target = {k, sensitivity, epsilon, delta};
  DPBO_TRY(accountant_sigma_search(accountant_pld_sigma_passes, &target, who, &hi, err));
  /* The grid g moves with σ, so the bound is only nearly monotone in σ:
   * check the answer itself, with the caller's error record. */
  DPBO_TRY(dpbo_accountant_gaussian_pld_delta(k, sensitivity, hi, epsilon, &v, err));
  if (!(v <= delta))
    DPBO_RAISE(DPBO_ERR_NUMERIC, "%s: sigma %g gives delta %.17g > %.17g", who, hi, v, delta);
  *sigma = hi;
done:
  return status;
}
