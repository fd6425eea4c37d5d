/* The discrete Gaussian sampler and the Gaussian mechanism (src/core/mechanism.c).
 *
 * Statistical checks run at fixed seeds with critical values at a false-alarm
 * probability of 1e-6 per check (tests/stat_check.h): chi-square against the
 * exact pmf P(z) = exp(-z²/(2σ²))/Σ_y exp(-y²/(2σ²)), the normalizer summed
 * in long double over |y| <= 40σ + 10 (the rest is below e^-800). The same
 * counts must FAIL against the pmf of 1.1 σ², which shows the check has the
 * power to see a wrong σ. Mean and variance are compared with the exact pmf
 * sums, with bounds from the normal approximation of the sample mean and
 * sample variance at the same 1e-6 (z = 4.89; n = 200,000 draws).
 * Deterministic checks: gcd reduction, the supported range, the grid, the
 * reported σ and sensitivity, refusal of invalid inputs, generator failure. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/mechanism_private.h"
#include "dpbo/mechanism.h"
#include "dpbo/noise.h"
#include "stat_check.h"

enum { DRAWS = 200000, MAX_L = 400 };

/* Two-sided normal quantile at 1e-6. */
static const double z_crit = 4.891638475698;

/* Exact pmf of N_Z(0, σ²) on |z| <= L, with the two tails P(z < -L) and
 * P(z > L) in p[0] and p[2L + 2]; returns the variance Σ z² P(z) and the
 * fourth moment in *m4. */
static double dgauss_pmf(double sigma2, int L, double *p, double *m4) {
  long double norm = 0.0L, var = 0.0L, four = 0.0L, tail = 0.0L;
  const int far = (int)(40.0 * sqrt(sigma2)) + 10 + L;
  for (int y = -far; y <= far; y++) {
    long double w = expl(-(long double)y * y / (2.0L * sigma2));
    norm += w;
    var += w * y * y;
    four += w * y * y * y * y;
    if (y > L) tail += w;
  }
  for (int z = -L; z <= L; z++)
    p[z + L + 1] = (double)(expl(-(long double)z * z / (2.0L * sigma2)) / norm);
  p[0] = p[2 * L + 2] = (double)(tail / norm);
  *m4 = (double)(four / norm);
  return (double)(var / norm);
}

/* Largest L with every cell's expected count >= 20 (tails included). */
static int dgauss_cells(double sigma2, double *p) {
  double m4;
  int L = 0;
  for (;;) {
    dgauss_pmf(sigma2, L + 1, p, &m4);
    if (L + 1 > MAX_L || p[0] * DRAWS < 20.0 || p[1] * DRAWS < 20.0) break;
    L++;
  }
  return L;
}

static void test_sampler_law(void) {
  static const struct {
    uint64_t num, den;
  } cases[] = {{1, 4}, {1, 3}, {2, 1}, {7, 2}, {25, 4}, {100, 1}, {10000, 7}};
  static int64_t z[DRAWS];
  static double p[2 * MAX_L + 3], q[2 * MAX_L + 3];
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2020u, 3u);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const double sigma2 = (double)cases[c].num / (double)cases[c].den;
    const int L = dgauss_cells(sigma2, p);
    const int cells = 2 * L + 3;
    double m4, var = dgauss_pmf(sigma2, L, p, &m4), m4w;
    (void)dgauss_pmf(1.1 * sigma2, L, q, &m4w);
    int64_t counts[2 * MAX_L + 3];
    memset(counts, 0, sizeof counts);
    double sum = 0.0, sum2 = 0.0;
    for (int i = 0; i < DRAWS; i++) {
      z[i] = dpbo_mech_discrete_gaussian(&noise, cases[c].num, cases[c].den);
      counts[z[i] < -L ? 0 : z[i] > L ? cells - 1 : (int)z[i] + L + 1]++;
      sum += (double)z[i];
      sum2 += (double)z[i] * (double)z[i];
    }
    double x2 = stat_chi2(counts, p, cells, DRAWS),
           crit = stat_chi2_critical(cells - 1, STAT_ALPHA);
    double x2w = stat_chi2(counts, q, cells, DRAWS);
    CHECK_MSG(x2 < crit, "N_Z(0, %llu/%llu): chi-square %.2f >= %.2f (df %d)",
              (unsigned long long)cases[c].num, (unsigned long long)cases[c].den, x2, crit,
              cells - 1);
    CHECK_MSG(x2w > crit, "N_Z(0, %llu/%llu) against the pmf of 1.1 σ²: chi-square %.2f <= %.2f",
              (unsigned long long)cases[c].num, (unsigned long long)cases[c].den, x2w, crit);
    /* Mean 0 (symmetric law), variance var: the sample mean has variance
     * var/n, the sample second moment (m4 - var²)/n. */
    double mean = sum / DRAWS, second = sum2 / DRAWS;
    double mean_bound = z_crit * sqrt(var / DRAWS);
    double var_bound = z_crit * sqrt((m4 - var * var) / DRAWS);
    CHECK_MSG(fabs(mean) < mean_bound, "N_Z(0, %g): mean %.5f, bound %.5f", sigma2, mean,
              mean_bound);
    CHECK_MSG(fabs(second - var) < var_bound, "N_Z(0, %g): E z² %.5f vs %.5f, bound %.5f", sigma2,
              second, var, var_bound);
    printf("N_Z(0, %llu/%llu): chi-square %.1f < %.1f (df %d; vs 1.1 σ²: %.1f), mean %.4f "
           "(|.| < %.4f), E z² %.4f vs exact %.4f (± %.4f)\n",
           (unsigned long long)cases[c].num, (unsigned long long)cases[c].den, x2, crit, cells - 1,
           x2w, mean, mean_bound, second, var, var_bound);
  }
}

static void test_sampler_domain(void) {
  dpbo_noise a, b;
  /* num/den is reduced first: 6/4 and 3/2 are the same law and, at one
   * seed, the same draws. */
  dpbo_noise_init_seeded(&a, 7u, 1u);
  dpbo_noise_init_seeded(&b, 7u, 1u);
  int same = 1;
  for (int i = 0; i < 1000; i++)
    same &= dpbo_mech_discrete_gaussian(&a, 6u, 4u) == dpbo_mech_discrete_gaussian(&b, 3u, 2u);
  CHECK_MSG(same, "6/4 and 3/2 must draw alike");
  /* σ = 0, den = 0 and the unsupported range give 0 without drawing. */
  dpbo_noise_init_seeded(&a, 7u, 1u);
  dpbo_noise_init_seeded(&b, 7u, 1u);
  CHECK(dpbo_mech_discrete_gaussian(&a, 0u, 1u) == 0);
  CHECK(dpbo_mech_discrete_gaussian(&a, 1u, 0u) == 0);
  CHECK(dpbo_mech_discrete_gaussian(&a, (uint64_t)1 << 62, 1u) == 0);
  CHECK(dpbo_mech_discrete_gaussian(&a, 3u, ((uint64_t)1 << 32) + 1u) == 0);
  CHECK_MSG(dpbo_noise_u64(&a) == dpbo_noise_u64(&b), "refused inputs must not draw");
  /* The largest supported σ² (just below 2^62, σ ≈ 2^31) and a tiny one run
   * and stay in range. */
  int64_t big = 0;
  for (int i = 0; i < 200; i++) {
    int64_t v = dpbo_mech_discrete_gaussian(&a, ((uint64_t)1 << 62) - 1u, 1u);
    if (llabs(v) > big) big = llabs(v);
    CHECK(llabs(v) < (int64_t)1 << 36);
    CHECK(llabs(dpbo_mech_discrete_gaussian(&a, 1u, ((uint64_t)1 << 32) - 1u)) <= 1);
  }
  CHECK_MSG(big > (int64_t)1 << 30, "σ ≈ 2^31: largest |z| of 200 draws %lld", (long long)big);
}

static int is_power_of_two(double g) {
  int e;
  return g > 0.0 && frexp(g, &e) == 0.5;
}

static void test_mechanism_grid(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 11u, 0u);
  static const struct {
    double delta, sigma;
  } cases[] = {{1.0 / 1797.0, 0.01}, {1.0, 3.0}, {0.25, 1e3}, {2.0, 0.5}, {1e-3, 1e3}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const double d = cases[c].delta, s = cases[c].sigma;
    const double g = dpbo_mech_gaussian_granularity(d, s);
    /* g is the power of two nearest (in log2) to max(min(Δ, σ) 2^-20, σ 2^-30). */
    const double r = fmax(fmin(d, s) * 0x1p-20, s * 0x1p-30);
    CHECK_MSG(is_power_of_two(g) && g / r >= M_SQRT1_2 * (1 - 1e-15) &&
                  g / r <= M_SQRT2 * (1 + 1e-15),
              "Δ %g σ %g: g %g, target %g", d, s, g, r);
    dpbo_gaussian_release rel;
    double sum = 0.0, sum2 = 0.0;
    const int n = 4000;
    const double x = 0.3;
    for (int i = 0; i < n; i++) {
      CHECK_OK(dpbo_mech_gaussian(&noise, x, d, s, &rel, &err));
      double steps = rel.value / g;
      CHECK(steps == floor(steps)); /* on the grid */
      sum += rel.value - x;
      sum2 += (rel.value - x) * (rel.value - x);
    }
    CHECK(rel.granularity == g && rel.sigma == s && rel.sensitivity == d);
    CHECK_MSG(rel.sigma_used >= s && rel.sigma_used <= s * (1.0 + 0x1p-19) &&
                  rel.sigma_used / g == floor(rel.sigma_used / g),
              "σ_used %.17g for σ %.17g (g %g)", rel.sigma_used, s, g);
    CHECK_MSG(rel.sensitivity_used >= d + g && rel.sensitivity_used <= (d + g) * (1 + 1e-15),
              "Δ_used %.17g vs Δ + g %.17g", rel.sensitivity_used, d + g);
    /* The noise around x (its grid point is within g/2): mean 0 and sd
     * σ_used, loosely (n = 4000; bounds at about 5 standard errors). */
    double mean = sum / n, sd = sqrt(sum2 / n);
    CHECK_MSG(fabs(mean) < 5.0 * s / sqrt(n) + g, "Δ %g σ %g: mean noise %g", d, s, mean);
    CHECK_MSG(fabs(sd / rel.sigma_used - 1.0) < 5.0 / sqrt(2.0 * n), "Δ %g σ %g: sd %g vs %g", d, s,
              sd, rel.sigma_used);
    printf("Gaussian mechanism Δ %g σ %g: g 2^%d, σ_used/σ - 1 = %.2e, Δ_used/Δ - 1 = %.2e, "
           "noise mean %.3g sd %.4g\n",
           d, s, (int)log2(g), rel.sigma_used / s - 1.0, rel.sensitivity_used / d - 1.0, mean, sd);
  }
  /* The broken audit variant halves σ_used; the release still reports σ. */
  dpbo_gaussian_release rel;
  CHECK_OK(dpbo__mech_gaussian_scaled(&noise, 0.0, 1.0, 3.0, 0.5, &rel, &err));
  CHECK(rel.sigma == 3.0 && rel.sigma_used >= 1.5 && rel.sigma_used < 1.5 * (1 + 0x1p-18));
}

static void test_mechanism_refusals(void) {
  dpbo_error err;
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 1u, 0u);
  dpbo_gaussian_release rel;
  static const struct {
    double x, delta, sigma;
    const char *what;
  } bad[] = {
      {0, 0, 1, "sensitivity"},     {0, -1, 1, "sensitivity"},
      {0, NAN, 1, "sensitivity"},   {0, INFINITY, 1, "sensitivity"},
      {0, 1, 0, "sigma"},           {0, 1, -2, "sigma"},
      {0, 1, NAN, "sigma"},         {0, 1, INFINITY, "sigma"},
      {NAN, 1, 1, "finite"},        {INFINITY, 1, 1, "finite"},
      {1e300, 1, 1, "too large"},   {0, 1e300, 1e-300, "range"},
      {0, 1e-305, 1e-305, "range"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dpbo_error_clear(&err);
    dpbo_status st = dpbo_mech_gaussian(&noise, bad[i].x, bad[i].delta, bad[i].sigma, &rel, &err);
    CHECK_MSG(st == DPBO_ERR_ARG && strstr(err.message, bad[i].what),
              "case %zu (x %g, Δ %g, σ %g): %s: %s", i, bad[i].x, bad[i].delta, bad[i].sigma,
              dpbo_status_name(st), err.message);
  }
  CHECK(dpbo_mech_gaussian_granularity(0.0, 1.0) == 0.0);
  CHECK(dpbo_mech_gaussian_granularity(1.0, NAN) == 0.0);
  /* A failed OS generator voids the release. */
  dpbo_noise broken;
  dpbo_noise_init_os(&broken);
  broken.failure = DPBO_ERR_LIBRARY;
  dpbo_error_clear(&err);
  CHECK(dpbo_mech_gaussian(&broken, 0.0, 1.0, 1.0, &rel, &err) == DPBO_ERR_LIBRARY);
  CHECK(strstr(err.message, "getrandom") != NULL);
  dpbo_noise os;
  dpbo_noise_init_os(&os);
  dpbo_error_clear(&err);
  CHECK_OK(dpbo_mech_gaussian(&os, 0.7, 1.0, 1.0, &rel, &err));
}

int main(void) {
  test_sampler_law();
  test_sampler_domain();
  test_mechanism_grid();
  test_mechanism_refusals();
  return dpbo_test_summary("test_dgauss");
}
