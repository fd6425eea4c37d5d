/* The baselines' privacy accounting (baseline.h, compare.h) against values
 * computed by hand, and the stopping-time sampler against its law.
 *
 * Hand computations (every number below is the formula written out):
 *  - Liu–Talwar: total 3 ε0, so ε = 0.3 gives ε0 = 0.1.
 *  - E[K] of D_{η,γ}: η = 1, γ = 0.1: 1/γ = 10; η = 0, γ = 0.1:
 *    (1/γ − 1)/log(1/γ) = 9/log 10 = 3.908650337; η = 2, γ = 0.5:
 *    η(1 − γ)/(γ(1 − γ^η)) = 2·0.5/(0.5·0.75) = 2.666666667.
 *  - P[K = k]: η = 2, γ = 0.5: P[1] = 0.5/(0.5^−2 − 1)·2 = 1/3,
 *    P[2] = 0.25/3·(2·3)/(1·2) = 1/4; η = 0, γ = 0.1: P[1] = 0.9/log 10 =
 *    0.390865034, P[2] = 0.81/(2 log 10) = 0.175889265.
 *  - ρ(λ) = min(ε0, λ ε0²/2): ε0 = 0.2, λ = 4: min(0.2, 0.08) = 0.08;
 *    ε0 = 0.2, λ = 40: min(0.2, 0.8) = 0.2.
 *  - Papernot–Steinke Theorem 2, ε0 = 0.5, η = 1, γ = 1/30 (E[K] = 30),
 *    λ = 10, λ̂ = 5: ρ(10) = 0.5, ρ(5) = 0.5, so
 *    0.5 + 2·(1 − 1/5)·0.5 + 2·log(30)/5 + log(30)/9 = 3.038389773.
 *  - RDP to DP, τ = 1, λ = 10, δ = 1e-5:
 *    1 + log(0.9) − (log(1e-5) + log 10)/9 = 1.918010637.
 *  - compare accounting at ε = 1, δ = 0.05, split 0.5, T = 30: dpbo
 *    (0.5 + 0.5, 0.025 + 0.025), random search (0.5 + 0.5, 0),
 *    Liu–Talwar γ = 1/30 and (≤ 1, 0.05) by the privacy profile (ε0 = 1/3 and
 *    (1, 0) at T = 1), Papernot–Steinke (≤ 1, 0.05), Algorithm 3
 *    (1 on the value, 0).
 *
 * The sampler: 200,000 draws of K at a fixed seed for three laws, Pearson's
 * chi-square over the cells with expected count >= 20 (the rest pooled into
 * one tail cell), against the χ² critical value at 1e-6 (stat_check.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "core/baseline.h"
#include "experiments/compare.h"
#include "stat_check.h"

static void near(double got, double want, double tol, const char *what) {
  CHECK_MSG(fabs(got - want) <= tol, "%s: got %.12g, want %.12g (tolerance %g)", what, got, want,
            tol);
}

static void test_liu_talwar(void) {
  near(dpbo_baseline_lt_epsilon(0.1), 0.3, 1e-15, "3 eps0");
  CHECK(dpbo_baseline_lt_epsilon(0.1) >= 0.3);
  double e0 = dpbo_baseline_lt_base_epsilon(0.3);
  near(e0, 0.1, 1e-15, "eps/3");
  CHECK(3.0 * e0 <= 0.3);
}

static void test_tnb_law(void) {
  near(dpbo_baseline_tnb_mean(1.0, 0.1), 10.0, 1e-12, "E[K] eta=1");
  near(dpbo_baseline_tnb_mean(0.0, 0.1), 3.908650337129266, 1e-12, "E[K] eta=0");
  near(dpbo_baseline_tnb_mean(2.0, 0.5), 2.6666666666666665, 1e-12, "E[K] eta=2");
  near(dpbo_baseline_tnb_pmf(2.0, 0.5, 1), 1.0 / 3.0, 1e-14, "P[K=1] eta=2");
  near(dpbo_baseline_tnb_pmf(2.0, 0.5, 2), 0.25, 1e-14, "P[K=2] eta=2");
  near(dpbo_baseline_tnb_pmf(0.0, 0.1, 1), 0.39086503371292664, 1e-14, "P[K=1] eta=0");
  near(dpbo_baseline_tnb_pmf(0.0, 0.1, 2), 0.175889265170817, 1e-14, "P[K=2] eta=0");
  near(dpbo_baseline_tnb_pmf(1.0, 0.2, 3), 0.8 * 0.8 * 0.2, 1e-15, "geometric P[K=3]");
  /* The pmf sums to one and has the stated mean, for each law. */
  const double etas[] = {0.0, 0.5, 1.0, 2.0};
  for (int i = 0; i < 4; i++) {
    double gamma;
    CHECK(dpbo_baseline_tnb_gamma(etas[i], 30.0, &gamma, NULL) == DPBO_OK);
    near(dpbo_baseline_tnb_mean(etas[i], gamma), 30.0, 1e-9, "E[K] = 30 after solving for gamma");
    long double sum = 0.0L, mean = 0.0L;
    for (int64_t k = 1; k <= 20000; k++) {
      double p = dpbo_baseline_tnb_pmf(etas[i], gamma, k);
      sum += p;
      mean += (long double)p * (long double)k;
    }
    near((double)sum, 1.0, 1e-12, "sum of the pmf");
    near((double)mean, 30.0, 1e-8, "mean of the pmf");
  }
  double gamma;
  CHECK(dpbo_baseline_tnb_gamma(1.0, 30.0, &gamma, NULL) == DPBO_OK);
  near(gamma, 1.0 / 30.0, 1e-13, "geometric gamma for E[K] = 30");
  dpbo_error err;
  CHECK(dpbo_baseline_tnb_gamma(1.0, 1.0, &gamma, &err) == DPBO_ERR_ARG);
  CHECK(dpbo_baseline_tnb_gamma(-0.5, 10.0, &gamma, &err) == DPBO_ERR_ARG);
}

static void test_tnb_sampler(void) {
  const double etas[] = {0.0, 1.0, 2.0}, means[] = {6.0, 5.0, 4.0};
  enum { DRAWS = 200000, KMAX = 400 };
  int64_t *counts = calloc(KMAX + 1, sizeof *counts);
  for (int i = 0; i < 3; i++) {
    double gamma;
    CHECK(dpbo_baseline_tnb_gamma(etas[i], means[i], &gamma, NULL) == DPBO_OK);
    dpbo_noise noise;
    dpbo_noise_init_seeded(&noise, 20190601u + (uint64_t)i, 3u);
    for (int k = 0; k <= KMAX; k++)
      counts[k] = 0;
    for (int d = 0; d < DRAWS; d++) {
      int64_t k = dpbo_baseline_tnb_sample(&noise, etas[i], gamma);
      CHECK(k >= 1);
      counts[k < KMAX ? k : KMAX]++;
    }
    /* Cells k = 1..c with expected count >= 20, then one pooled tail. */
    int64_t cell[KMAX + 1];
    double p[KMAX + 1], head = 0.0;
    int cells = 0;
    int64_t seen = 0;
    for (int k = 1; k < KMAX; k++) {
      double pk = dpbo_baseline_tnb_pmf(etas[i], gamma, k);
      if (pk * DRAWS < 20.0 && k > 1 && pk < dpbo_baseline_tnb_pmf(etas[i], gamma, k - 1)) break;
      p[cells] = pk;
      cell[cells++] = counts[k];
      head += pk;
      seen += counts[k];
    }
    p[cells] = 1.0 - head;
    cell[cells++] = DRAWS - seen;
    double x = stat_chi2(cell, p, cells, DRAWS), crit = stat_chi2_critical(cells - 1, STAT_ALPHA);
    printf("eta %.1f, E[K] %.0f: chi-square %.2f over %d cells, critical value %.2f\n", etas[i],
           means[i], x, cells, crit);
    CHECK_MSG(x <= crit, "K's frequencies do not follow D_{eta,gamma} (eta = %g)", etas[i]);
  }
  free(counts);
}

static void test_renyi(void) {
  near(dpbo_baseline_pure_rdp(0.2, 4.0), 0.08, 1e-15, "rho(4)");
  near(dpbo_baseline_pure_rdp(0.2, 40.0), 0.2, 1e-15, "rho(40)");
  near(dpbo_baseline_ps_rdp(0.5, 1.0, 1.0 / 30.0, 10.0, 5.0), 3.0383897728495457, 1e-12,
       "PS Theorem 2");
  near(dpbo_baseline_rdp_to_dp(1.0, 10.0, 1e-5), 1.9180106367839718, 1e-12, "RDP to DP");
  /* The grid minimum is a valid bound: no larger than any one grid point's
   * value, e.g. λ = 1 + 10^-2 + 6·(399/399) ... take λ̂ = 1 and λ from the grid. */
  double gamma = 1.0 / 30.0, lambda, lambda_hat;
  double eps = dpbo_baseline_ps_epsilon(0.1, 1.0, gamma, 1e-5, &lambda, &lambda_hat);
  double one_point =
      dpbo_baseline_rdp_to_dp(dpbo_baseline_ps_rdp(0.1, 1.0, gamma, lambda, 1.0), lambda, 1e-5);
  CHECK_MSG(eps <= one_point * (1.0 + 1e-12), "grid minimum %g above a grid point %g", eps,
            one_point);
  near(dpbo_baseline_rdp_to_dp(dpbo_baseline_ps_rdp(0.1, 1.0, gamma, lambda, lambda_hat), lambda,
                               1e-5),
       eps, 1e-12 * eps, "the reported orders give the reported epsilon");
  /* The base ε0 inverts the accounting: within budget, and 1e-7 more is not. */
  const double targets[] = {0.1, 1.0, 10.0};
  for (int i = 0; i < 3; i++) {
    double e0;
    CHECK(dpbo_baseline_ps_base_epsilon(targets[i], 1e-5, 1.0, gamma, &e0, NULL) == DPBO_OK);
    CHECK(dpbo_baseline_ps_epsilon(e0, 1.0, gamma, 1e-5, NULL, NULL) <= targets[i]);
    CHECK(dpbo_baseline_ps_epsilon(e0 * (1.0 + 1e-7), 1.0, gamma, 1e-5, NULL, NULL) > targets[i]);
    printf("Papernot-Steinke, eta 1, E[K] 30, delta 1e-5: epsilon %g -> base epsilon %.6g "
           "(Liu-Talwar: %.6g)\n",
           targets[i], e0, targets[i] / 3.0);
  }
  double e0;
  dpbo_error err;
  CHECK(dpbo_baseline_ps_base_epsilon(1e-6, 1e-5, 1.0, gamma, &e0, &err) == DPBO_ERR_ARG);
}

static void test_compare_accounting(void) {
  dpbo_compare_accounting a;
  CHECK(dpbo_compare_account(DPBO_COMPARE_DPBO, &(dpbo_compare_budget){1.0, 0.05, 0.5, 30, 1.0}, &a,
                             NULL) == DPBO_OK);
  near(a.epsilon_select, 0.5, 0, "dpbo eps_lambda");
  near(a.epsilon_value, 0.5, 0, "dpbo eps_value");
  near(a.epsilon_accounted, 1.0, 1e-15, "dpbo eps");
  near(a.delta_accounted, 0.05, 1e-15, "dpbo delta");
  CHECK(a.epsilon_accounted <= 1.0 * (1 + 1e-15) && a.epsilon_accounted >= 1.0);
  CHECK(dpbo_compare_account(DPBO_COMPARE_RANDOM_SEARCH,
                             &(dpbo_compare_budget){1.0, 0.05, 0.5, 30, 1.0}, &a, NULL) == DPBO_OK);
  near(a.epsilon_select, 0.5, 0, "random search eps_select");
  near(a.epsilon_value, 0.5, 0, "random search eps_value");
  near(a.delta_accounted, 0.0, 0, "random search delta");
  CHECK(dpbo_compare_account(DPBO_COMPARE_LIU_TALWAR,
                             &(dpbo_compare_budget){1.0, 0.05, 0.5, 30, 1.0}, &a, NULL) == DPBO_OK);
  /* The privacy profile (test_profile.c) beats the pure ε/3 at δ > 0. */
  CHECK(a.by_profile == 1 && a.epsilon_base > 1.0 / 3.0);
  near(a.gamma, 1.0 / 30.0, 0, "Liu-Talwar gamma");
  near(a.delta_accounted, 0.05, 0, "Liu-Talwar delta");
  CHECK(a.epsilon_accounted <= 1.0 + 1e-15);
  CHECK(dpbo_compare_account(DPBO_COMPARE_LIU_TALWAR,
                             &(dpbo_compare_budget){1.0, 0.05, 0.5, 1, 1.0}, &a, NULL) == DPBO_OK);
  near(a.epsilon_base, 1.0 / 3.0, 1e-15, "Liu-Talwar eps0 at T = 1");
  near(a.delta_accounted, 0.0, 0, "Liu-Talwar delta at T = 1");
  CHECK(dpbo_compare_account(DPBO_COMPARE_PAPERNOT_STEINKE,
                             &(dpbo_compare_budget){1.0, 0.05, 0.5, 30, 1.0}, &a, NULL) == DPBO_OK);
  CHECK(a.epsilon_accounted <= 1.0);
  near(a.delta_accounted, 0.05, 0, "Papernot-Steinke delta");
  near(a.expected_runs, 30.0, 1e-9, "Papernot-Steinke E[K]");
  CHECK(a.epsilon_base > 0.0 && a.epsilon_base < 1.0);
  CHECK(dpbo_compare_account(DPBO_COMPARE_ALGORITHM3,
                             &(dpbo_compare_budget){1.0, 0.05, 0.5, 30, 1.0}, &a, NULL) == DPBO_OK);
  near(a.epsilon_value, 1.0, 0, "Algorithm 3: the whole epsilon on the value");
  near(a.delta_accounted, 0.0, 0, "Algorithm 3 delta");
  CHECK(dpbo_compare_account(DPBO_COMPARE_GP_UCB, &(dpbo_compare_budget){1.0, 0.05, 0.5, 30, 1.0},
                             &a, NULL) == DPBO_OK);
  near(a.epsilon_accounted, 0.0, 0, "non-private");
  dpbo_error err;
  CHECK(dpbo_compare_account(DPBO_COMPARE_DPBO, &(dpbo_compare_budget){0.0, 0.05, 0.5, 30, 1.0}, &a,
                             &err) == DPBO_ERR_ARG);
}

int main(void) {
  test_liu_talwar();
  test_tnb_law();
  test_tnb_sampler();
  test_renyi();
  test_compare_accounting();
  return dpbo_test_summary("test_baseline");
}
