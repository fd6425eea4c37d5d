/* The exact samplers and the Laplace mechanism (src/core/noise.c, src/core/mechanism.c).
 *
 * Statistical checks run at fixed seeds with critical values at a false-alarm
 * probability of 1e-6 per check, derived in tests/stat_check.h (chi-square,
 * DKW) or exact (Clopper-Pearson intervals for Bernoulli frequencies, from
 * the audit module): never flaky, and a wrong law is caught.
 * Deterministic checks: grid, granularity, ε accounting, clamping, refusal
 * of invalid inputs, the sticky generator failure. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "experiments/audit.h"
#include "dpbo/mechanism.h"
#include "dpbo/noise.h"
#include "stat_check.h"

/* dpbo_mech_laplace with its input spelled out (the calls below predate
 * dpbo_laplace_input). */
static dpbo_status mech_laplace(dpbo_noise *noise, double x, double sensitivity, double epsilon,
                                double lo, double hi, dpbo_laplace_release *out, dpbo_error *err) {
  const dpbo_laplace_input in = {x, sensitivity, epsilon, lo, hi};
  return dpbo_mech_laplace(noise, &in, out, err);
}

enum { DRAWS = 200000 };

/* --- noise sources ------------------------------------------------------ */
static void test_noise(void) {
  dpbo_noise a, b;
  dpbo_noise_init_seeded(&a, 42u, 3u);
  dpbo_noise_init_seeded(&b, 42u, 3u);
  int same = 1;
  for (int i = 0; i < 100; i++)
    same &= dpbo_noise_u64(&a) == dpbo_noise_u64(&b);
  CHECK_MSG(same, "two seeded sources with the same seed and stream differ");
  char text[160];
  dpbo_noise_describe(&a, text, sizeof text);
  CHECK_MSG(strstr(text, "not for publication") && strstr(text, "seed 42") &&
                strstr(text, "stream 3"),
            "seeded description: %s", text);

  dpbo_noise os;
  dpbo_noise_init_os(&os);
  uint64_t first = dpbo_noise_u64(&os), distinct = 0, ones = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t v = dpbo_noise_u64(&os);
    distinct += v != first;
    ones += (uint64_t)__builtin_popcountll(v);
  }
  CHECK_MSG(distinct == 1000, "OS generator repeated its first value");
  /* 64000 fair bits: mean 32000, sd 126.5; ±5.3 sd. */
  CHECK_MSG(ones > 31330 && ones < 32670, "OS generator: %llu one bits of 64000",
            (unsigned long long)ones);
  dpbo_error err;
  dpbo_error_clear(&err);
  CHECK(dpbo_noise_check(&os, &err) == DPBO_OK);
  dpbo_noise_describe(&os, text, sizeof text);
  CHECK_MSG(strstr(text, "getrandom") != NULL, "OS description: %s", text);

  /* dpbo_noise_below: uniform over 7 cells (chi-square, df 6), bound 1, and
   * a bound just above 2^63 (rejection of almost half of the draws). */
  int64_t counts[7] = {0};
  double p[7];
  for (int i = 0; i < 7; i++)
    p[i] = 1.0 / 7.0;
  for (int i = 0; i < 140000; i++)
    counts[dpbo_noise_below(&a, 7u)]++;
  double x2 = stat_chi2(counts, p, 7, 140000), crit = stat_chi2_critical(6, STAT_ALPHA);
  CHECK_MSG(x2 < crit, "noise_below(7): chi-square %.2f >= %.2f", x2, crit);
  CHECK(dpbo_noise_below(&a, 1u) == 0u && dpbo_noise_below(&a, 0u) == 0u);
  const uint64_t big = (1ULL << 63) + 3u;
  int64_t high = 0, ok = 1;
  for (int i = 0; i < 20000; i++) {
    uint64_t v = dpbo_noise_below(&a, big);
    ok &= v < big;
    high += v >= (1ULL << 62);
  }
  CHECK_MSG(ok, "noise_below(2^63 + 3) out of range");
  /* P(v >= 2^62) = 1/2 + tiny; 20000 draws: sd 70.7, ±5.3 sd. */
  CHECK_MSG(high > 9625 && high < 10375, "noise_below(2^63+3): %lld of 20000 above 2^62",
            (long long)high);

  /* The chi-square critical-value routine against scipy.stats.chi2.isf. */
  CHECK_CLOSE(stat_chi2_critical(19, 1e-6), 63.677052285677995, 1e-6, 0);
}

/* --- Bernoulli(exp(-γ)) and Bernoulli(p) -------------------------------- */
static void check_frequency(const char *what, int64_t hits, int64_t n, long double p) {
  /* Exact two-sided Clopper-Pearson interval at 1 - 1e-6. */
  double lo = dpbo_audit_cp_lower(hits, n, STAT_ALPHA / 2),
         hi = dpbo_audit_cp_upper(hits, n, STAT_ALPHA / 2);
  CHECK_MSG(p >= lo && p <= hi, "%s: %lld of %lld, expected p = %.9Lf outside [%.6f, %.6f]", what,
            (long long)hits, (long long)n, p, lo, hi);
}

static void test_bernoulli(void) {
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2020u, 1u);
  static const struct {
    uint64_t num, den;
  } gammas[] = {
      {0, 1},
      {1, 3},
      {1, 1},
      {7, 5},
      {5, 2},
      {10, 3},
      {37, 4},
      {UINT64_MAX, UINT64_MAX / 2},       /* γ ≈ 2: 128-bit products den·K */
      {1, UINT64_MAX},                    /* γ ≈ 5e-20 */
      {(1ULL << 40) + 12345, 1ULL << 40}, /* the scale of the Laplace sampler */
  };
  for (size_t g = 0; g < sizeof gammas / sizeof gammas[0]; g++) {
    int64_t hits = 0;
    for (int i = 0; i < DRAWS; i++)
      hits += dpbo_mech_bernoulli_exp(&noise, gammas[g].num, gammas[g].den);
    char what[96];
    snprintf(what, sizeof what, "Bernoulli(exp(-%llu/%llu))", (unsigned long long)gammas[g].num,
             (unsigned long long)gammas[g].den);
    check_frequency(what, hits, DRAWS,
                    expl(-(long double)gammas[g].num / (long double)gammas[g].den));
  }
  /* γ = 0 must be certain, not just frequent; γ huge must be almost never. */
  int all = 1;
  for (int i = 0; i < 1000; i++)
    all &= dpbo_mech_bernoulli_exp(&noise, 0, 7);
  CHECK(all);
  int any = 0;
  for (int i = 0; i < 1000; i++)
    any |= dpbo_mech_bernoulli_exp(&noise, 1000, 1);
  CHECK(!any);

  static const struct {
    uint64_t num, den;
  } fracs[] = {{3, 10}, {1, 2}, {UINT64_MAX - 1, UINT64_MAX}, {1, 3}};
  for (size_t f = 0; f < sizeof fracs / sizeof fracs[0]; f++) {
    int64_t hits = 0;
    for (int i = 0; i < DRAWS; i++)
      hits += dpbo_mech_bernoulli(&noise, fracs[f].num, fracs[f].den);
    char what[96];
    snprintf(what, sizeof what, "Bernoulli(%llu/%llu)", (unsigned long long)fracs[f].num,
             (unsigned long long)fracs[f].den);
    check_frequency(what, hits, DRAWS, (long double)fracs[f].num / (long double)fracs[f].den);
  }
  CHECK(dpbo_mech_bernoulli(&noise, 5, 5) == 1 && dpbo_mech_bernoulli(&noise, 0, 5) == 0);
}

/* --- discrete Laplace ---------------------------------------------------- */
/* P(Z = z) = (1 - q)/(1 + q) q^|z|, q = exp(-den/num). */
static void test_discrete_laplace(void) {
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2021u, 2u);
  static const struct { uint64_t num, den; } scales[] = {{1, 1}, {3, 1}, {5, 2}, {1, 4}, {40, 3}};
  static int64_t z[DRAWS];
  for (size_t s = 0; s < sizeof scales / sizeof scales[0]; s++) {
    const double q = exp(-(double)scales[s].den / (double)scales[s].num);
    const double c = (1.0 - q) / (1.0 + q);
    /* Cells: each z with |z| <= L, and the two tails |z| > L, L the largest
     * with expected count >= 20 in every cell. */
    int L = 0;
    while (DRAWS * c * pow(q, L + 1) >= 20.0 && DRAWS * pow(q, L + 2) / (1.0 + q) >= 20.0)
      L++;
    const int cells = 2 * L + 3;
    int64_t counts[2 * 200 + 3];
    double p[2 * 200 + 3];
    CHECK(L <= 200);
    memset(counts, 0, sizeof counts);
    for (int i = -L; i <= L; i++)
      p[i + L + 1] = c * pow(q, abs(i));
    p[0] = p[cells - 1] = pow(q, L + 1) / (1.0 + q);
    double sum = 0.0;
    for (int i = 0; i < DRAWS; i++) {
      z[i] = dpbo_mech_discrete_laplace(&noise, scales[s].num, scales[s].den);
      int cell = z[i] < -L ? 0 : z[i] > L ? cells - 1 : (int)z[i] + L + 1;
      counts[cell]++;
      sum += (double)z[i];
    }
    double x2 = stat_chi2(counts, p, cells, DRAWS),
           crit = stat_chi2_critical(cells - 1, STAT_ALPHA);
    CHECK_MSG(x2 < crit, "discrete Laplace scale %llu/%llu: chi-square %.2f >= %.2f (df %d)",
              (unsigned long long)scales[s].num, (unsigned long long)scales[s].den, x2, crit,
              cells - 1);
    /* CDF, DKW: F(z) = 1 - q^(z+1)/(1+q) for z >= 0, q^(-z)/(1+q) below. */
    double worst = 0.0;
    for (int v = -3 * L - 5; v <= 3 * L + 5; v++) {
      int64_t below = 0;
      for (int i = 0; i < DRAWS; i++)
        below += z[i] <= v;
      double F = v >= 0 ? 1.0 - pow(q, v + 1) / (1.0 + q) : pow(q, -v) / (1.0 + q);
      worst = fmax(worst, fabs((double)below / DRAWS - F));
    }
    double d = stat_dkw_bound(DRAWS, STAT_ALPHA);
    CHECK_MSG(worst < d, "discrete Laplace scale %llu/%llu: sup |F_N - F| = %.5f >= %.5f",
              (unsigned long long)scales[s].num, (unsigned long long)scales[s].den, worst, d);
    printf(
        "discrete Laplace %llu/%llu: chi-square %.1f < %.1f (df %d), KS %.4f < %.4f, mean %.4f\n",
        (unsigned long long)scales[s].num, (unsigned long long)scales[s].den, x2, crit, cells - 1,
        worst, d, sum / DRAWS);
  }
}

/* --- Laplace mechanism ---------------------------------------------------- */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int is_power_of_two(double g) {
  int e;
  return g > 0.0 && frexp(g, &e) == 0.5;
}

static void test_laplace_law(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2022u, 0u);
  const double x = 0.3, delta = 1.0, eps = 0.5;
  static double v[DRAWS];
  dpbo_laplace_release rel;
  double sum = 0.0;
  int on_grid = 1, same_meta = 1;
  double g = 0.0, scale = 0.0;
  for (int i = 0; i < DRAWS; i++) {
    CHECK_OK(mech_laplace(&noise, x, delta, eps, 0.0, 0.0, &rel, &err));
    if (i == 0) g = rel.granularity, scale = rel.scale;
    same_meta &= rel.granularity == g && rel.scale == scale && !rel.clamped;
    on_grid &= rel.value / g == round(rel.value / g);
    v[i] = rel.value;
    sum += rel.value;
  }
  CHECK(same_meta);
  CHECK_MSG(on_grid, "a release is not a multiple of the granularity %g", g);
  CHECK_MSG(is_power_of_two(g), "granularity %g is not a power of two", g);
  double target = delta / eps * 0x1p-40;
  CHECK_MSG(g >= target * 0.7071 && g <= target * 1.4143, "granularity %g vs (Δ/ε)2^-40 = %g", g,
            target);
  CHECK_CLOSE(scale, delta / eps, 1e-9, 0);
  CHECK_MSG(rel.epsilon_spent <= eps && rel.epsilon_spent >= eps * (1 - 1e-9),
            "epsilon_spent %.17g vs %.17g", rel.epsilon_spent, eps);
  CHECK(rel.epsilon == eps && rel.sensitivity == delta);
  /* Mean: sd of one draw sqrt(2)·b; 4.89 sd of the mean is two-sided 1e-6
   * (the mean of 2e5 Laplace draws is normal to high accuracy). */
  double mean = sum / DRAWS, tol = 4.89 * sqrt(2.0) * scale / sqrt((double)DRAWS);
  CHECK_MSG(fabs(mean - x) < tol, "mean release %.5f vs x = %.5f (tolerance %.5f)", mean, x, tol);
  /* KS against the continuous Laplace CDF centred at x with scale t·g: the
   * released law is its discretization to steps of g = scale·2^-40, within
   * ~2^-40 of it in CDF, far below the DKW bound. */
  qsort(v, DRAWS, sizeof v[0], cmp_double);
  double worst = 0.0;
  double centre = g * round(x / g);
  for (int i = 0; i < DRAWS; i++) {
    double y = (v[i] - centre) / scale;
    double F = y < 0 ? 0.5 * exp(y) : 1.0 - 0.5 * exp(-y);
    worst = fmax(worst, fmax(fabs((double)(i + 1) / DRAWS - F), fabs((double)i / DRAWS - F)));
  }
  double d = stat_dkw_bound(DRAWS, STAT_ALPHA);
  CHECK_MSG(worst < d, "Laplace mechanism: KS %.5f >= %.5f", worst, d);
  printf("Laplace mechanism: g = 2^%d, scale %.12g, eps spent %.12g, mean %.5f, KS %.4f < %.4f\n",
         (int)log2(g), scale, rel.epsilon_spent, mean, worst, d);
}

static void test_laplace_accounting(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2023u, 0u);
  static const double deltas[] = {1e-9, 3.7e-3, 0.37, 1.0, 3.0, 29.5, 3e4, 1e12};
  static const double epss[] = {1e-6, 1e-4, 0.013, 0.1, 0.5, 1.0, 2.0 / 3.0, 3.0, 50.0, 1e4};
  int n = 0;
  for (size_t a = 0; a < sizeof deltas / sizeof deltas[0]; a++) {
    for (size_t b = 0; b < sizeof epss / sizeof epss[0]; b++) {
      dpbo_laplace_release rel;
      const double delta = deltas[a], eps = epss[b], x = 0.25 * delta;
      CHECK_OK(mech_laplace(&noise, x, delta, eps, 0.0, 0.0, &rel, &err));
      CHECK_MSG(rel.epsilon_spent <= eps && rel.epsilon_spent >= eps * (1 - 1e-9),
                "Δ %g ε %g: epsilon_spent %.17g", delta, eps, rel.epsilon_spent);
      /* The exact cost of a draw is (Δ + g)/(t g) with t = scale/g. */
      long double t = (long double)rel.scale / rel.granularity;
      long double cost = ((long double)delta + rel.granularity) / (t * rel.granularity);
      CHECK_MSG(cost <= (long double)eps, "Δ %g ε %g: exact cost %.20Lg > ε", delta, eps, cost);
      CHECK_MSG(t == floorl(t) && is_power_of_two(rel.granularity) && isfinite(rel.value),
                "Δ %g ε %g: t = %.3Lf, g = %g", delta, eps, t, rel.granularity);
      n++;
    }
  }
  printf("Laplace accounting: %d (Δ, ε) pairs spend within [ε(1 - 1e-9), ε]\n", n);
}

static void test_laplace_clamp(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2024u, 0u);
  int inside = 1, flag_ok = 1, clamped = 0, outside_unclamped = 0;
  for (int i = 0; i < 20000; i++) {
    dpbo_laplace_release rel;
    CHECK_OK(mech_laplace(&noise, 0.5, 1.0, 1.0, 0.0, 1.0, &rel, &err));
    inside &= rel.value >= 0.0 && rel.value <= 1.0;
    flag_ok &= rel.clamped == (rel.value == 0.0 || rel.value == 1.0);
    clamped += rel.clamped;
    CHECK_OK(mech_laplace(&noise, 0.5, 1.0, 1.0, 0.0, 0.0, &rel, &err));
    outside_unclamped += rel.value < 0.0 || rel.value > 1.0;
  }
  CHECK_MSG(inside && flag_ok, "clamped releases leave [0, 1] or misreport clamping");
  /* P(|noise| > 1/2) = e^-1/2 = 0.61: thousands either way. */
  CHECK_MSG(clamped > 10000 && clamped < 14000, "%d of 20000 clamped", clamped);
  CHECK_MSG(outside_unclamped > 10000, "lo == hi must not clamp (%d outside)", outside_unclamped);
}

static void test_laplace_refusals(void) {
  dpbo_error err;
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 1u, 0u);
  dpbo_laplace_release rel;
  static const struct {
    double x, delta, eps, lo, hi;
    const char *what;
  } bad[] = {
      {0, 0, 1, 0, 0, "sensitivity"},   {0, -1, 1, 0, 0, "sensitivity"},
      {0, NAN, 1, 0, 0, "sensitivity"}, {0, INFINITY, 1, 0, 0, "sensitivity"},
      {0, 1, 0, 0, 0, "epsilon"},       {0, 1, -2, 0, 0, "epsilon"},
      {0, 1, NAN, 0, 0, "epsilon"},     {0, 1, INFINITY, 0, 0, "epsilon"},
      {NAN, 1, 1, 0, 0, "finite"},      {INFINITY, 1, 1, 0, 0, "finite"},
      {0, 1, 1, 2, 1, "clamp"},         {0, 1, 1, NAN, 1, "clamp"},
      {1e300, 1, 1, 0, 0, "too large"}, {0, 1e300, 1e-300, 0, 0, "range"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dpbo_error_clear(&err);
    dpbo_status st =
        mech_laplace(&noise, bad[i].x, bad[i].delta, bad[i].eps, bad[i].lo, bad[i].hi, &rel, &err);
    CHECK_MSG(st == DPBO_ERR_ARG && strstr(err.message, bad[i].what),
              "case %zu (x %g, Δ %g, ε %g, [%g, %g]): %s: %s", i, bad[i].x, bad[i].delta,
              bad[i].eps, bad[i].lo, bad[i].hi, dpbo_status_name(st), err.message);
  }
  /* A failed OS generator voids the release. */
  dpbo_noise broken;
  dpbo_noise_init_os(&broken);
  broken.failure = DPBO_ERR_LIBRARY;
  dpbo_error_clear(&err);
  CHECK(mech_laplace(&broken, 0.0, 1.0, 1.0, 0.0, 0.0, &rel, &err) == DPBO_ERR_LIBRARY);
  CHECK(strstr(err.message, "getrandom") != NULL);
  /* The OS source releases normally. */
  dpbo_noise os;
  dpbo_noise_init_os(&os);
  dpbo_error_clear(&err);
  CHECK_OK(mech_laplace(&os, 0.7, 1.0, 1.0, 0.0, 1.0, &rel, &err));
}

int main(void) {
  test_noise();
  test_bernoulli();
  test_discrete_laplace();
  test_laplace_law();
  test_laplace_accounting();
  test_laplace_clamp();
  test_laplace_refusals();
  return dpbo_test_summary("test_mechanism");
}
