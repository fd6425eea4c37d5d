/* The accountant of Gaussian releases (src/core/accountant.c), against values
 * computed another way here:
 *  - GDP δ(ε) at μ = 1, ε = 0 in closed form, 2Φ(1/2) - 1 = erf(1/(2√2));
 *  - GDP δ(ε) elsewhere by numerical integration of the privacy-loss
 *    distribution: for μ-GDP the loss is L ~ N(μ²/2, μ²) and
 *    δ(ε) = E[(1 - e^(ε - L))+] = ∫_ε^∞ (1 - e^(ε - l)) φ((l - μ²/2)/μ)/μ dl,
 *    composite Simpson in long double with 10^6 panels (an independent
 *    formula: no Φ, no erfc);
 *  - the zCDP conversion by brute-force minimization over α on nested grids;
 *  - the exact δ of k discrete Gaussians N_Z(0, σ²) against N_Z(1, σ²) (the
 *    non-adaptive pair, by convolving the pmf), which the discrete bound must
 *    never be below.
 * Then round trips (σ -> ε -> σ, ε -> μ -> ε) to 1e-9, monotonicity, the
 * discrete bound >= the continuous GDP δ (the Gaussian is itself ρ-zCDP, so
 * the conversion bounds its exact δ from above), and refusals.
 * The privacy-loss distribution (PLD) bound, the calibration of
 * private_evaluations (issue 22): against the exact δ of k discrete
 * Gaussians with shift d (never below it, never below the matching lower
 * bound), and its σ against tests/pld_reference.h, σ computed independently
 * by Google's dp_accounting PLD (FFT composition, pessimistic and optimistic
 * discretisation; tools/pld_reference.py gives the command and the
 * version): never below the optimum, within 0.5 % of it (in fact 1e-5),
 * never above the zCDP σ, δ met at σ and missed 0.5 % below. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dpbo/accountant.h"
#include "dpbo/mechanism.h"
#include "pld_reference.h"

/* δ(ε) of μ-GDP by Simpson's rule over the privacy loss density. */
static double pld_delta(double mu, double eps) {
  const long double m = 0.5L * mu * mu, s = mu;
  const long double lo = eps, hi = (eps > m ? eps : m) + 40.0L * s;
  const int n = 1000000; /* even */
  const long double h = (hi - lo) / n;
  long double sum = 0.0L;
  for (int i = 0; i <= n; i++) {
    long double l = lo + h * i, z = (l - m) / s;
    long double f = -expm1l(eps - l) * expl(-0.5L * z * z) /
                    (s * sqrtl(2.0L * 3.14159265358979323846264338327950288L));
    sum += f * (i == 0 || i == n ? 1 : (i & 1) ? 4 : 2);
  }
  return (double)(sum * h / 3.0L);
}

static void test_gdp_closed_forms(void) {
  CHECK_CLOSE(dpbo_accountant_gdp_delta(1.0, 0.0), erf(0.5 / M_SQRT2), 1e-12, 0);
  static const struct {
    double mu, eps;
  } pts[] = {{0.5, 0.0},    {0.5, 0.5}, {1.0, 1.0}, {2.0, 3.0},  {0.25, 1.0},
             {0.2367, 1.0}, {1.0, 8.0}, {0.1, 1.0}, {5.0, 10.0}, {0.05, 0.3}};
  printf("   mu      eps   delta (accountant)        delta (PLD integral)\n");
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double a = dpbo_accountant_gdp_delta(pts[i].mu, pts[i].eps);
    double b = pld_delta(pts[i].mu, pts[i].eps);
    printf("%6.4f %6.2f   %.15e   %.15e\n", pts[i].mu, pts[i].eps, a, b);
    CHECK_CLOSE(a, b, 1e-9, 0);
  }
  /* Far tails: no underflow to a wrong 0 while the value is representable,
   * and no NaN. */
  double tiny = dpbo_accountant_gdp_delta(0.05, 1.5); /* Φ(-30) = 4.9e-198 */
  CHECK_MSG(tiny > 0.0 && tiny < 1e-150, "δ(μ 0.05, ε 1.5) = %g", tiny);
  CHECK(dpbo_accountant_gdp_delta(0.01, 50.0) == 0.0);
  CHECK(dpbo_accountant_gdp_delta(40.0, 1.0) == 1.0);
  CHECK(isnan(dpbo_accountant_gdp_delta(0.0, 1.0)) && isnan(dpbo_accountant_gdp_delta(1.0, -1.0)));
}

static void test_gdp_round_trips(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  static const double eps[] = {0.1, 0.3, 1.0, 3.0, 10.0};
  static const double deltas[] = {1e-6, 1e-3, 0.05};
  for (size_t i = 0; i < sizeof eps / sizeof eps[0]; i++)
    for (size_t j = 0; j < sizeof deltas / sizeof deltas[0]; j++) {
      double mu, back;
      CHECK_OK(dpbo_accountant_gdp_mu(eps[i], deltas[j], &mu, &err));
      CHECK_OK(dpbo_accountant_gdp_epsilon(mu, deltas[j], &back, &err));
      CHECK_CLOSE(back, eps[i], 1e-9, 0);
      /* Outward: μ down means δ(μ, ε) <= δ; ε from μ is then <= the ε given. */
      CHECK(dpbo_accountant_gdp_delta(mu, eps[i]) <= deltas[j]);
      CHECK_CLOSE(dpbo_accountant_gdp_delta(mu, eps[i]), deltas[j], 1e-9, 0);
    }
  /* δ(0) <= δ: ε = 0. */
  double e;
  CHECK_OK(dpbo_accountant_gdp_epsilon(0.01, 0.5, &e, &err));
  CHECK(e == 0.0);
}

/* δ of ρ-zCDP at ε by brute force: log δ_α on a grid of log(α - 1), refined
 * three times around the best point. */
static double brute_zcdp_delta(double rho, double eps) {
  double lo = -25.0, hi = 12.0, best = INFINITY, arg = 0.0;
  for (int round = 0; round < 4; round++) {
    for (int i = 0; i <= 20000; i++) {
      double a = 1.0 + exp(lo + (hi - lo) * i / 20000.0);
      double v = (a - 1.0) * (a * rho - eps) + a * log1p(-1.0 / a) - log(a - 1.0);
      if (v < best) {
        best = v;
        arg = lo + (hi - lo) * i / 20000.0;
      }
    }
    double w = (hi - lo) / 200.0;
    lo = arg - w;
    hi = arg + w;
  }
  return fmin(exp(best), 1.0);
}

/* Exact δ(ε) of k draws from N_Z(0, σ²) against N_Z(d, σ²) (integer σ² = v):
 * the loss is (k d² - 2dS)/(2σ²), S the sum of the k draws, whose pmf is the
 * k-fold convolution of the discrete Gaussian's. */
static double exact_dgauss_delta(int k, double v, int d, double eps) {
  const int R = (int)(30.0 * sqrt(v)) + 5, W = 2 * k * R + 1;
  double *p = calloc((size_t)(2 * R + 1), sizeof *p), *s = calloc((size_t)W, sizeof *s),
         *t = calloc((size_t)W, sizeof *t);
  double norm = 0.0;
  for (int y = -R; y <= R; y++)
    norm += p[y + R] = exp(-(double)y * y / (2.0 * v));
  for (int y = 0; y <= 2 * R; y++)
    p[y] /= norm;
  /* s[j] = P(S = j - kR) */
  memcpy(s + (k - 1) * R, p, (size_t)(2 * R + 1) * sizeof *p);
  for (int step = 1; step < k; step++) {
    memset(t, 0, (size_t)W * sizeof *t);
    for (int j = 0; j < W; j++)
      if (s[j] != 0.0)
        for (int y = -R; y <= R; y++)
          if (j + y >= 0 && j + y < W) t[j + y] += s[j] * p[y + R];
    memcpy(s, t, (size_t)W * sizeof *s);
  }
  double delta = 0.0;
  for (int j = 0; j < W; j++) {
    double S = j - k * R, L = ((double)k * d * d - 2.0 * d * S) / (2.0 * v);
    if (L > eps) delta += s[j] * -expm1(eps - L);
  }
  free(p);
  free(s);
  free(t);
  return delta;
}

static void test_discrete_bound(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  /* The conversion against the brute-force minimum, through the public API:
   * ρ from gaussian_rho, δ from gaussian_delta. */
  static const struct {
    int64_t k;
    double delta, sigma, eps;
  } pts[] = {{1, 1.0, 3.0, 1.0},     {30, 1.0, 24.8, 1.0}, {30, 1.0 / 1797, 0.01, 0.5},
             {1000, 0.5, 40.0, 3.0}, {5, 1.0, 1.0, 10.0},  {1, 1.0, 0.5, 0.2}};
  printf("     k  Δ/σ        ε    δ discrete (zCDP)   δ brute force        δ GDP (continuous)\n");
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double rho, d, mu;
    CHECK_OK(dpbo_accountant_gaussian_rho(pts[i].k, pts[i].delta, pts[i].sigma, &rho, &err));
    CHECK_OK(
        dpbo_accountant_gaussian_delta(pts[i].k, pts[i].delta, pts[i].sigma, pts[i].eps, &d, &err));
    CHECK_OK(dpbo_accountant_gaussian_mu(pts[i].k, pts[i].delta, pts[i].sigma, &mu, &err));
    double g = dpbo_mech_gaussian_granularity(pts[i].delta, pts[i].sigma);
    double want_rho = pts[i].k * pow((pts[i].delta + g) / pts[i].sigma, 2) / 2.0;
    CHECK(rho >= want_rho && rho <= want_rho * (1.0 + 1e-11));
    double brute = brute_zcdp_delta(rho, pts[i].eps),
           gdp = dpbo_accountant_gdp_delta(mu, pts[i].eps);
    printf("%6lld  %-9.4g %4.1f   %.12e  %.12e  %.12e\n", (long long)pts[i].k,
           pts[i].delta / pts[i].sigma, pts[i].eps, d, brute, gdp);
    CHECK(d >= brute * (1.0 - 1e-12)); /* never below the best α (up to rounding) */
    CHECK_CLOSE(d, brute, 1e-9, 1e-300);
    CHECK_MSG(d >= gdp, "discrete bound %g below the continuous GDP δ %g", d, gdp);
  }
  /* The bound holds for the discrete Gaussian itself: exact δ of k draws
   * N_Z(0, σ²) vs N_Z(1, σ²) at small σ, where discreteness matters most.
   * (The accountant charges (Δ + g)/σ; with Δ = 1 it is only larger.) */
  printf("   k   σ²   ε    exact discrete δ     zCDP bound          GDP δ (μ = √k/σ)\n");
  static const struct {
    int k;
    double v, eps;
  } ex[] = {{1, 1.0, 0.5}, {1, 4.0, 0.5}, {3, 4.0, 1.0}, {10, 25.0, 1.0}, {30, 100.0, 1.0}};
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    double exact = exact_dgauss_delta(ex[i].k, ex[i].v, 1, ex[i].eps), d;
    CHECK_OK(dpbo_accountant_gaussian_delta(ex[i].k, 1.0, sqrt(ex[i].v), ex[i].eps, &d, &err));
    double gdp = dpbo_accountant_gdp_delta(sqrt(ex[i].k / ex[i].v), ex[i].eps);
    printf("%4d %5.0f %4.1f   %.12e  %.12e  %.12e\n", ex[i].k, ex[i].v, ex[i].eps, exact, d, gdp);
    CHECK_MSG(exact <= d, "k %d σ² %g: exact %g above the bound %g", ex[i].k, ex[i].v, exact, d);
  }
}

static void test_gaussian_round_trips(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  static const int64_t ks[] = {1, 30, 1000};
  static const double sens[] = {1.0 / 1797.0, 1.0};
  static const double deltas[] = {1e-6, 0.05};
  static const double ratios[] = {0.5, 4.0, 40.0}; /* σ/(√k Δ) */
  for (size_t a = 0; a < 3; a++)
    for (size_t b = 0; b < 2; b++)
      for (size_t c = 0; c < 2; c++)
        for (size_t r = 0; r < 3; r++) {
          double sigma = ratios[r] * sqrt((double)ks[a]) * sens[b], eps, back, d;
          CHECK_OK(dpbo_accountant_gaussian_epsilon(ks[a], sens[b], sigma, deltas[c], &eps, &err));
          if (eps == 0.0) { /* δ(0) <= δ already: nothing to invert */
            CHECK_OK(dpbo_accountant_gaussian_delta(ks[a], sens[b], sigma, 0.0, &d, &err));
            CHECK(d <= deltas[c]);
            continue;
          }
          CHECK_OK(dpbo_accountant_gaussian_sigma(ks[a], sens[b], eps, deltas[c], &back, &err));
          CHECK_CLOSE(back, sigma, 1e-9, 0);
          CHECK(back <= sigma * (1.0 + 1e-15));
          /* δ at that ε is δ again (never above). */
          CHECK_OK(dpbo_accountant_gaussian_delta(ks[a], sens[b], sigma, eps, &d, &err));
          CHECK_MSG(d <= deltas[c] * (1.0 + 1e-11) && d >= deltas[c] * (1.0 - 1e-9),
                    "k %lld Δ %g σ %g: δ(ε(δ)) = %.17g vs %g", (long long)ks[a], sens[b], sigma, d,
                    deltas[c]);
        }
}

static void test_monotone(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double prev = 2.0, d;
  for (double e = 0.0; e <= 12.0; e += 0.25) {
    CHECK_OK(dpbo_accountant_gaussian_delta(30, 1.0, 20.0, e, &d, &err));
    CHECK_MSG(d <= prev, "δ must fall with ε: %g at ε %g after %g", d, e, prev);
    prev = d;
  }
  prev = 0.0;
  for (int64_t k = 1; k <= 4096; k *= 2) {
    double e;
    CHECK_OK(dpbo_accountant_gaussian_epsilon(k, 1.0, 20.0, 1e-6, &e, &err));
    CHECK_MSG(e > prev, "ε must grow with k: %g at k %lld after %g", e, (long long)k, prev);
    prev = e;
  }
  prev = INFINITY;
  for (double s = 0.5; s < 1e4; s *= 1.7) {
    double e;
    CHECK_OK(dpbo_accountant_gaussian_epsilon(30, 1.0, s, 1e-6, &e, &err));
    CHECK_MSG(e < prev, "ε must fall with σ: %g at σ %g after %g", e, s, prev);
    prev = e;
  }
  prev = 0.0;
  for (double mu = 0.01; mu < 30.0; mu *= 1.3) {
    double v = dpbo_accountant_gdp_delta(mu, 1.0);
    CHECK(v >= prev);
    prev = v;
  }
}

static void test_refusals(void) {
  dpbo_error err;
  double v;
  dpbo_error_clear(&err);
  CHECK(dpbo_accountant_gdp_epsilon(0.0, 1e-6, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gdp_epsilon(1.0, 0.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gdp_epsilon(1.0, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gdp_mu(-1.0, 1e-6, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gdp_mu(NAN, 1e-6, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_delta(0, 1.0, 1.0, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(strstr(err.message, "number of releases") != NULL);
  CHECK(dpbo_accountant_gaussian_delta(1, 0.0, 1.0, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_delta(1, 1.0, INFINITY, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_delta(1, 1.0, 1.0, -1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_epsilon(1, 1.0, 1.0, 2.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_sigma(1, 1.0, 0.0, 1e-6, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_sigma(1, 1.0, 1.0, 0.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_mu(1, 1.0, 0.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(isnan(v));
}

/* The numbers the proof page quotes: σ for (ε, δ) = (1, 1e-6) at k = 30,
 * Δ = 1, by the discrete bound and by GDP. */
static void test_report_numbers(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double sd, mu, e_d, e_c, mu_at;
  CHECK_OK(dpbo_accountant_gaussian_sigma(30, 1.0, 1.0, 1e-6, &sd, &err));
  CHECK_OK(dpbo_accountant_gdp_mu(1.0, 1e-6, &mu, &err));
  double sc = sqrt(30.0) / mu;
  CHECK_OK(dpbo_accountant_gaussian_epsilon(30, 1.0, sc, 1e-6, &e_d, &err));
  CHECK_OK(dpbo_accountant_gaussian_mu(30, 1.0, sd, &mu_at, &err));
  CHECK_OK(dpbo_accountant_gdp_epsilon(mu_at, 1e-6, &e_c, &err));
  printf("k 30, Δ 1, (ε, δ) = (1, 1e-6): σ discrete %.6f, σ GDP %.6f (ratio %.4f); at the GDP σ "
         "the discrete bound gives ε %.4f; at the discrete σ GDP gives ε %.4f\n",
         sd, sc, sd / sc, e_d, e_c);
  CHECK(sd > sc && sd < 1.15 * sc);
}

/* The PLD bound on the lattice (dpbo_accountant_dgauss_pld_delta) against
 * the exact δ of k draws N_Z(0, s²) vs N_Z(d, s²) at small s, where the
 * lattice matters most: never below it, and above the lower bound
 * δ_GDP(√k d/s, ε + k d/s²) - kη that the same argument gives (so the
 * bound's only slack is the shift k d/s²). */
static void test_pld_exact(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  static const struct {
    int k;
    double v;
    int d;
    double eps;
  } ex[] = {{1, 1.0, 1, 0.5},    {1, 4.0, 1, 0.5},  {3, 4.0, 1, 1.0}, {10, 25.0, 1, 1.0},
            {30, 100.0, 1, 1.0}, {5, 16.0, 2, 1.0}, {4, 9.0, 3, 2.0}, {30, 400.0, 1, 0.3}};
  printf("   k   s²  d   ε    GDP lower bound      exact discrete δ     PLD bound\n");
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    double s = sqrt(ex[i].v), bound;
    double exact = exact_dgauss_delta(ex[i].k, ex[i].v, ex[i].d, ex[i].eps);
    CHECK_OK(dpbo_accountant_dgauss_pld_delta(ex[i].k, ex[i].d, s, ex[i].eps, &bound, &err));
    double mu = sqrt((double)ex[i].k) * ex[i].d / s, shift = ex[i].k * ex[i].d / ex[i].v;
    double q = exp(-2.0 * M_PI * M_PI * ex[i].v), eta = 2.0 * q / (1.0 - q);
    double lower = dpbo_accountant_gdp_delta(mu, ex[i].eps + shift) - ex[i].k * eta;
    printf("%4d %4.0f %2d %4.1f   %.12e  %.12e  %.12e\n", ex[i].k, ex[i].v, ex[i].d, ex[i].eps,
           lower, exact, bound);
    CHECK_MSG(exact <= bound, "k %d s² %g d %d: exact %g above the PLD bound %g", ex[i].k, ex[i].v,
              ex[i].d, exact, bound);
    CHECK_MSG(exact >= lower * (1.0 - 1e-9), "k %d s² %g d %d: exact %g below the lower bound %g",
              ex[i].k, ex[i].v, ex[i].d, exact, lower);
  }
  /* On dpbo's own lattice (s >= 2^19) the shift vanishes: the bound is the
   * GDP δ of μ = √k d/s to a relative 1e-4. */
  double d, s, v, mu;
  CHECK_OK(dpbo_accountant_gaussian_lattice(1.0, 23.0, &d, &s, &err));
  CHECK(d == 0x1p20 + 1.0 && s == ceil(23.0 * 0x1p20));
  CHECK_OK(dpbo_accountant_gaussian_pld_delta(30, 1.0, 23.0, 1.0, &v, &err));
  CHECK_OK(dpbo_accountant_gaussian_mu(30, d / 0x1p20, 23.0, &mu, &err));
  CHECK_CLOSE(v, dpbo_accountant_gdp_delta(mu, 1.0), 1e-4, 0);
}

/* σ of private_evaluations by the PLD bound against tests/pld_reference.h:
 * σ by dp_accounting's PLD of the Gaussian mechanism (FFT composition,
 * pessimistic and optimistic discretisation, loss step h and h/2; see
 * tools/pld_reference.py for the command and the version). The exact
 * optimum lies between dp_accounting's optimistic and pessimistic σ (the
 * discrete mechanism's optimum is above the continuous one by the lattice's
 * (Δ + g)/Δ, 1 + 2^-20 here). Checked: σ_PLD is never below dp_accounting's
 * optimistic σ, agrees with its pessimistic σ to 1e-5 (the target was
 * 0.5 %), is never above the zCDP σ; its own bound holds at σ_PLD and fails
 * 0.5 % below it. Prints the before (zCDP) / after (PLD) table. */
static void test_pld_reference(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  printf("   K    ε      δ   σ zCDP (before)  σ PLD (after)  dp_accounting pessimistic  "
         "optimistic    zCDP/PLD\n");
  for (size_t i = 0; i < sizeof pld_reference / sizeof pld_reference[0]; i++) {
    const struct pld_reference *r = &pld_reference[i];
    double sz, sp, at, below;
    CHECK_OK(dpbo_accountant_gaussian_sigma(r->k, 1.0, r->epsilon, r->delta, &sz, &err));
    CHECK_OK(dpbo_accountant_gaussian_pld_sigma(r->k, 1.0, r->epsilon, r->delta, &sp, &err));
    CHECK_OK(dpbo_accountant_gaussian_pld_delta(r->k, 1.0, sp, r->epsilon, &at, &err));
    CHECK_OK(dpbo_accountant_gaussian_pld_delta(r->k, 1.0, sp * 0.995, r->epsilon, &below, &err));
    printf("%4d %4.1f %6.0e   %12.7f  %12.7f    %12.7f           %12.7f   %.4f\n", r->k, r->epsilon,
           r->delta, sz, sp, r->pessimistic_half, r->optimistic_half, sz / sp);
    /* The reference converged: halving h moved the pessimistic σ by < 1e-5
     * (at most 2.5e-6 in the table) and the optimistic one towards it. */
    CHECK_CLOSE(r->pessimistic, r->pessimistic_half, 1e-5, 0);
    CHECK(r->optimistic <= r->optimistic_half && r->optimistic_half <= r->pessimistic_half);
    CHECK_MSG(sp >= r->optimistic_half, "K %d: σ_PLD %.9g below the optimum (>= %.9g)", r->k, sp,
              r->optimistic_half);
    CHECK_MSG(sp <= r->pessimistic_half * 1.005, "K %d: σ_PLD %.9g more than 0.5 %% above %.9g",
              r->k, sp, r->pessimistic_half);
    CHECK_CLOSE(sp, r->pessimistic_half, 1e-5, 0);
    CHECK(sp <= sz);
    CHECK_MSG(at <= r->delta, "K %d: δ(σ_PLD) %g > %g", r->k, at, r->delta);
    CHECK_MSG(below > r->delta, "K %d: δ(0.995 σ_PLD) %g <= %g: σ is not tight", r->k, below,
              r->delta);
  }
}

/* ε(δ) and δ(ε) of the PLD bound invert each other; the bound is monotone
 * and below the zCDP bound at the same σ; refusals. */
static void test_pld_round_trips(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  static const int64_t ks[] = {1, 30, 1000};
  static const double sens[] = {1.0 / 1797.0, 1.0};
  static const double deltas[] = {1e-6, 0.05};
  static const double ratios[] = {0.5, 4.0, 40.0}; /* σ/(√k Δ) */
  for (size_t a = 0; a < 3; a++)
    for (size_t b = 0; b < 2; b++)
      for (size_t c = 0; c < 2; c++)
        for (size_t r = 0; r < 3; r++) {
          double sigma = ratios[r] * sqrt((double)ks[a]) * sens[b], eps, d, dz, back;
          CHECK_OK(
              dpbo_accountant_gaussian_pld_epsilon(ks[a], sens[b], sigma, deltas[c], &eps, &err));
          CHECK_OK(dpbo_accountant_gaussian_pld_delta(ks[a], sens[b], sigma, eps, &d, &err));
          CHECK_MSG(d <= deltas[c], "k %lld Δ %g σ %g: δ(ε(δ)) = %.17g > %g", (long long)ks[a],
                    sens[b], sigma, d, deltas[c]);
          CHECK_OK(dpbo_accountant_gaussian_delta(ks[a], sens[b], sigma, eps, &dz, &err));
          CHECK_MSG(d <= dz, "PLD δ %g above the zCDP δ %g", d, dz);
          /* Where δ(0) <= δ already, ε is just the shift k d/s² (< 1e-3 here)
           * and there is nothing to invert. */
          if (eps < 1e-3) continue;
          CHECK_MSG(d >= deltas[c] * (1.0 - 1e-9), "k %lld Δ %g σ %g: δ(ε(δ)) = %.17g vs %g",
                    (long long)ks[a], sens[b], sigma, d, deltas[c]);
          /* σ back: the bound moves with s = ceil(σ/g) in steps of g, a
           * relative 2^-20 Δ/σ at most, so σ comes back to within one step,
           * never above (σ itself passes). */
          CHECK_OK(dpbo_accountant_gaussian_pld_sigma(ks[a], sens[b], eps, deltas[c], &back, &err));
          CHECK_CLOSE(back, sigma, 1e-6, 0);
          CHECK(back <= sigma * (1.0 + 1e-15));
        }
  double prev = 2.0, v;
  for (double e = 0.0; e <= 12.0; e += 0.25) {
    CHECK_OK(dpbo_accountant_gaussian_pld_delta(30, 1.0, 20.0, e, &v, &err));
    CHECK_MSG(v <= prev, "δ must fall with ε: %g at ε %g after %g", v, e, prev);
    prev = v;
  }
  prev = INFINITY;
  for (double s = 0.5; s < 1e4; s *= 1.7) {
    CHECK_OK(dpbo_accountant_gaussian_pld_epsilon(30, 1.0, s, 1e-6, &v, &err));
    CHECK_MSG(v < prev, "ε must fall with σ: %g at σ %g after %g", v, s, prev);
    prev = v;
  }
  CHECK(dpbo_accountant_dgauss_pld_delta(0, 1.0, 1.0, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_dgauss_pld_delta(1, 1.5, 1.0, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_dgauss_pld_delta(1, 1.0, 0.5, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_dgauss_pld_delta(1, 1.0, 1.0, -1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_pld_epsilon(1, 1.0, 1.0, 1.0, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_pld_sigma(1, 1.0, 0.0, 1e-6, &v, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_accountant_gaussian_pld_sigma(1, 0.0, 1.0, 1e-6, &v, &err) == DPBO_ERR_ARG);
  CHECK(isnan(v));
  /* Below the shift k d/s² nothing is claimed. */
  CHECK_OK(dpbo_accountant_dgauss_pld_delta(100, 1.0, 2.0, 1.0, &v, &err));
  CHECK(v == 1.0);
}

int main(void) {
  test_gdp_closed_forms();
  test_gdp_round_trips();
  test_discrete_bound();
  test_gaussian_round_trips();
  test_monotone();
  test_refusals();
  test_report_numbers();
  test_pld_exact();
  test_pld_reference();
  test_pld_round_trips();
  return dpbo_test_summary("test_accountant");
}
