/* Every sensitivity formula of privacy.c against numbers computed by hand
 * (Python 3 `math`, expressions in the comments), the greedy information
 * gain against a dense brute-force greedy (log det by Cholesky) and against
 * the exhaustive optimum on a tiny set, and the composition bounds. Runs on
 * 1, 2 and 4 ranks: the distributed greedy must not depend on the split. */
#include <lapacke.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run/config.h"
#include "dpbo/privacy.h"
#include "run/release.h"
#include "dpbo/space.h"

/* ½ log det(I + σ⁻² K_A) for the points idx[0..k) of the unit coordinates u. */
static double info_gain(const dpbo_kernel *kernel, const double *u, int d, const int *idx, int k,
                        double sigma_n) {
  double a[64 * 64];
  for (int i = 0; i < k; i++)
    for (int j = 0; j < k; j++)
      a[i * k + j] =
          (i == j) + dpbo_kernel_eval(kernel, u + idx[i] * d, u + idx[j] * d) / (sigma_n * sigma_n);
  if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', k, a, k) != 0) return NAN;
  double half_logdet = 0;
  for (int i = 0; i < k; i++)
    half_logdet += log(a[i * k + i]);
  return half_logdet;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dpbo_error err;
  dpbo_error_clear(&err);

  /* N = 4096, δ = 0.025, T = 30, k1 = 0.95, σ_n = 0.04:
   *   β_T  = 2*log(4096*30**2*pi**2/(3*0.025))             = 39.999775734376563
   *   β_31 = 2*log(4096*31**2*pi**2/(3*0.025))             = 40.130935025668528
   *   c    = 2*sqrt(0.05*log(3*4096/0.025))                = 1.6189662077697238
   *   c(2N)= 2*sqrt(0.05*log(2*4096/0.025))                = 1.5937247442010327
   *   q    = 0.04*sqrt(4*log(3/0.025))                     = 0.17504270094409846
   *   C1   = 8/log(1 + 0.04**-2)                           = 1.2423613468687962 */
  CHECK_CLOSE(dpbo_privacy_beta(4096, 30, 0.025), 39.999775734376563, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_beta(4096, 31, 0.025), 40.130935025668528, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_c(0.95, 4096, 0.025, 3.0), 1.6189662077697238, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_c(0.95, 4096, 0.025, 2.0), 1.5937247442010327, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_q(DPBO_BOUNDS_PAPER, 0.04, 30, 0.025), 0.17504270094409846, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_C1(0.04), 1.2423613468687962, 1e-14, 0);
  CHECK(dpbo_privacy_c(1.0, 4096, 0.025, 3.0) == 0.0); /* k1 = 1: identical functions */
  /* Algorithm 2: 2*exp(-2*0.5/log(2)**(2/4)) = 0.60171267706763887 (A = 2, τ = 0.5, d = 2) */
  CHECK_CLOSE(dpbo_privacy_alg2_regret(DPBO_BOUNDS_PAPER, 2.0, 0.5, 2), 0.60171267706763887, 1e-14,
              0);
  /* Algorithm 3, m = 797, L = 1/4, g* = 1:
   *   λ ∈ [1e-4, 10]: min(1/797, 0.25/(797*1e-4)) + (10-1e-4)*0.25/(10*1e-4) = 2499.9762547051441
   *   λ ∈ [10, 20]:   min(1/797, 0.25/(797*10)) + (20-10)*0.25/(20*10)       = 0.012531367628607277
   */
  CHECK_CLOSE(dpbo_privacy_alg3_sensitivity(DPBO_BOUNDS_PAPER, 797, 1e-4, 10, 0.25, 1, 1e-6),
              2499.9762547051441, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_alg3_sensitivity(DPBO_BOUNDS_PAPER, 797, 10, 20, 0.25, 1, 1e-6),
              0.012531367628607277, 1e-14, 0);
  /* Its two parts. The gain's sensitivity g* / m: an accuracy (g* = 1) on
   * m = 797 rows 1/797 = 0.0012547051442910915; a loss with g* = 0.5 on
   * m = 200 rows 0.5/200 = 0.0025. The λ-range term (λ_max − λ_min) L/(λ_max λ_min):
   *   (10-1e-4)*0.25/(10*1e-4) = 2499.975, (20-10)*0.5/(20*10) = 0.025, 0 at λ_min = λ_max. */
  CHECK_CLOSE(dpbo_privacy_gain_sensitivity(797, 1.0), 0.0012547051442910915, 1e-15, 0);
  CHECK_CLOSE(dpbo_privacy_gain_sensitivity(200, 0.5), 0.0025, 1e-15, 0);
  CHECK_CLOSE(dpbo_privacy_alg3_lambda_term(1e-4, 10, 0.25), 2499.975, 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_alg3_lambda_term(10, 20, 0.5), 0.025, 1e-15, 0);
  CHECK(dpbo_privacy_alg3_lambda_term(3, 3, 0.25) == 0.0);
  /* Δ_f3 (paper) is exactly the smaller record term plus the λ-range term. */
  CHECK(dpbo_privacy_alg3_sensitivity(DPBO_BOUNDS_PAPER, 797, 1e-4, 10, 0.25, 1, 0) ==
        fmin(dpbo_privacy_gain_sensitivity(797, 1.0), 0.25 / (797 * 1e-4)) +
            dpbo_privacy_alg3_lambda_term(1e-4, 10, 0.25));

  /* Corrected bounds (docs/privacy-proofs.md), each against its closed form
   * evaluated here:
   *   q = 2 σ √(2 log(6T/δ)): 2*0.04*sqrt(2*log(6*30/0.025)) = 0.3371757771608943
   * (the paper's 0.175 above treats |α| + |α'| as one N(0, 2σ²) variable). */
  CHECK_CLOSE(dpbo_privacy_q(DPBO_BOUNDS_CORRECTED, 0.04, 30, 0.025),
              2.0 * 0.04 * sqrt(2.0 * log(6.0 * 30 / 0.025)), 1e-14, 0);
  CHECK_CLOSE(dpbo_privacy_q(DPBO_BOUNDS_CORRECTED, 0.04, 30, 0.025), 0.3371757771608943, 1e-14, 0);
  /* Algorithm 2: the maximum over t ≥ 2 of A e^{−τt/(log t)^{d/4}} against a
   * brute-force scan of t = 2..10^5 (the exponent grows without bound after
   * its minimum at t ≈ e^{d/4}, so the scan covers it for d ≤ 40). At d = 4
   * it is t = 3: exp(-3/log(3)) = 0.06517249988816158, above the paper's
   * exp(-2/log(2)) = 0.0558. */
  for (int d = 1; d <= 40; d++) {
    const double A = 1.5, tau = 0.7;
    double scan = 0.0;
    int scan_t = 0;
    for (int t = 2; t <= 100000; t++) {
      double v = A * exp(-tau * t / pow(log((double)t), d / 4.0));
      if (v > scan) {
        scan = v;
        scan_t = t;
      }
    }
    CHECK_MSG(dpbo_privacy_alg2_worst_t(d) == scan_t, "d = %d: worst t %d, scan %d", d,
              dpbo_privacy_alg2_worst_t(d), scan_t);
    CHECK_CLOSE(dpbo_privacy_alg2_regret(DPBO_BOUNDS_CORRECTED, A, tau, d), scan, 1e-14, 0);
    if (d <= 3) /* t = 2 is the worst case there: both agree */
      CHECK_CLOSE(dpbo_privacy_alg2_regret(DPBO_BOUNDS_CORRECTED, A, tau, d),
                  dpbo_privacy_alg2_regret(DPBO_BOUNDS_PAPER, A, tau, d), 1e-15, 0);
  }
  CHECK_CLOSE(dpbo_privacy_alg2_regret(DPBO_BOUNDS_CORRECTED, 1.0, 1.0, 4), 0.06517249988816158,
              1e-14, 0);
  /* Algorithm 3 with the solver tolerance, r = tol/(4 λ_min):
   *   2499.9762547051441 + 2*0.25*(1e-6/(4*1e-4))*(1+1/797) = 2499.9775062735257 */
  CHECK_CLOSE(dpbo_privacy_alg3_sensitivity(DPBO_BOUNDS_CORRECTED, 797, 1e-4, 10, 0.25, 1, 1e-6),
              2499.9775062735257, 1e-14, 0);

  /* The budget: ε and δ of each release, and the δ shares of Theorem 3's
   * union bound (both runs' regret events at δ_β/2 each, c, q), which add up
   * to the value's δ under corrected bounds and to 5δ_v/3 (Algorithm 1),
   * 3δ_v/2 (Algorithm 2) under the paper's. */
  {
    dpbo_privacy_budget b;
    const double eps = 1.0, delta = 0.05, split = 0.5, dv = 0.025;
    CHECK_OK(dpbo_privacy_budget_split(DPBO_ALGORITHM_1, DPBO_BOUNDS_CORRECTED, eps, delta, split,
                                       &b, &err));
    CHECK(b.epsilon_lambda == 0.5 && b.epsilon_value == 0.5);
    CHECK(b.delta_lambda == 0.025 && b.delta_value == dv);
    CHECK_CLOSE(b.delta_beta, dv / 3, 1e-15, 0);
    CHECK_CLOSE(2 * b.delta_regret_run + b.delta_c_value + b.delta_q, dv, 1e-15, 0);
    CHECK_CLOSE(b.delta_value_union, dv, 1e-15, 0);
    CHECK_CLOSE(b.delta_lambda + b.delta_value, delta, 1e-15, 0);
    /* β_T of the corrected run: 2*log(4096*30**2*pi**2/(3*(0.025/3))) = 42.197000311712785 */
    CHECK_CLOSE(dpbo_privacy_beta(4096, 30, b.delta_beta), 42.197000311712785, 1e-14, 0);
    CHECK_OK(dpbo_privacy_budget_split(DPBO_ALGORITHM_2, DPBO_BOUNDS_CORRECTED, eps, delta, split,
                                       &b, &err));
    CHECK_CLOSE(2 * b.delta_regret_run + b.delta_c_value + b.delta_q, dv, 1e-15, 0);
    CHECK(b.delta_q == 0.0);
    CHECK_OK(dpbo_privacy_budget_split(DPBO_ALGORITHM_1, DPBO_BOUNDS_PAPER, eps, delta, split, &b,
                                       &err));
    CHECK(b.delta_beta == 0.05 * (1.0 - 0.5)); /* the paper's β: the same bits as before */
    CHECK_CLOSE(b.delta_value_union, 5.0 * dv / 3.0, 1e-15, 0);
    CHECK_OK(dpbo_privacy_budget_split(DPBO_ALGORITHM_2, DPBO_BOUNDS_PAPER, eps, delta, split, &b,
                                       &err));
    CHECK_CLOSE(b.delta_value_union, 1.5 * dv, 1e-15, 0);
    CHECK_OK(dpbo_privacy_budget_split(DPBO_ALGORITHM_3, DPBO_BOUNDS_CORRECTED, eps, delta, 0.0, &b,
                                       &err));
    CHECK(b.epsilon_value == eps && b.delta_value == 0.0 && b.delta_lambda == 0.0);
    /* Without a GP release β rests on nothing: δ_β is ucb.delta's default 0.05. */
    CHECK(DPBO_PRIVACY_DELTA_BETA_DEFAULT == 0.05 && b.delta_beta == 0.05);
    CHECK_OK(dpbo_privacy_budget_split(DPBO_ALGORITHM_NONE, DPBO_BOUNDS_CORRECTED, eps, delta,
                                       split, &b, &err));
    CHECK(b.delta_beta == 0.05 && b.epsilon_lambda == 0.5 && b.delta_value == dv);
    CHECK(dpbo_privacy_budget_split(DPBO_ALGORITHM_1, DPBO_BOUNDS_CORRECTED, eps, delta, 1.0, &b,
                                    &err) == DPBO_ERR_ARG);
  }

  /* Composition of 10 releases of (0.1, 1e-5) with δ' = 1e-6:
   *   advanced ε = sqrt(2*10*log(1e6))*0.1 + 10*0.1*expm1(0.1) = 1.7674290543447579 */
  dpbo_privacy_cost basic, advanced;
  dpbo_privacy_compose(10, (dpbo_privacy_cost){0.1, 1e-5}, 1e-6, &basic, &advanced);
  double eb = basic.epsilon, db = basic.delta, ea = advanced.epsilon, da = advanced.delta;
  CHECK(eb >= 1.0 && eb <= 1.0 * (1 + 1e-15));
  CHECK(db >= 1e-4 && db <= 1e-4 * (1 + 1e-15));
  CHECK(ea >= 1.7674290543447579 && ea <= 1.7674290543447579 * (1 + 1e-14));
  CHECK(da >= 1e-4 + 1e-6);
  /* Outward rounding: never below the exact sum. */
  CHECK(dpbo_privacy_round_up(0.3) > 0.3);
  /* A sum of shares is raised only when the double lies below the exact sum
   * (issue #22): 0.025 + 0.025 is 0.05 exactly, 1 + 2^-60 is above 1. The
   * x86 long double holds these sums exactly (exponents within 11 bits). */
  CHECK(dpbo_privacy_sum_up(0.5, 0.5) == 1.0 && dpbo_privacy_sum_up(0.025, 0.025) == 0.05);
  CHECK(dpbo_privacy_sum_up(1.0, 0x1p-60) > 1.0 && dpbo_privacy_sum_up(0.0, 0.0) == 0.0);
  for (int i = 1; i < 1000; i++) {
    double a = 0.001 * i, b = 1.0 / (i + 7);
    CHECK((long double)dpbo_privacy_sum_up(a, b) >= (long double)a + (long double)b);
    CHECK(dpbo_privacy_sum_up(a, b) <= dpbo_privacy_round_up(a + b));
  }

  /* The ledger (Kairouz, Oh & Viswanath, Theorem 3.5): 10 draws of 0.1 give
   * Σ ε tanh(ε/2) + sqrt(2 Σ ε² log(1/δ')) = 1.7122165112269903 with δ' = 1e-6,
   * below Dwork-Rothblum-Vadhan's 1.767 above; unequal ε = 1, 0.5, 0.25 with
   * δ' = 0.01 give 4.092527079898255. The budget is checked on the sums. */
  dpbo_privacy_ledger ledger = {0};
  for (int i = 0; i < 10; i++)
    dpbo_privacy_ledger_add(&ledger, 0.1, 1e-5);
  dpbo_privacy_ledger_advanced(&ledger, 1e-6, &ea, &da);
  CHECK(ledger.draws == 10 && ledger.epsilon_sum >= 1.0 && ledger.delta_sum >= 1e-4);
  CHECK(ea >= 1.7122165112269903 && ea <= 1.7122165112269903 * (1 + 1e-14));
  CHECK(da >= 1e-4 + 1e-6 && da <= (1e-4 + 1e-6) * (1 + 1e-14));
  CHECK(dpbo_privacy_ledger_within(&ledger, 1.0, 1e-4));   /* 10 x 0.1 fits 1.0 */
  CHECK(!dpbo_privacy_ledger_within(&ledger, 0.99, 1e-4)); /* not 0.99 */
  dpbo_privacy_ledger mixed = {0};
  dpbo_privacy_ledger_add(&mixed, 1.0, 0);
  dpbo_privacy_ledger_add(&mixed, 0.5, 0);
  dpbo_privacy_ledger_add(&mixed, 0.25, 0);
  dpbo_privacy_ledger_advanced(&mixed, 0.01, &ea, &da);
  CHECK(ea >= 4.092527079898255 && ea <= 4.092527079898255 * (1 + 1e-14));

  /* Greedy information gain: a 2-D Sobol set of 60 points, T = 8. */
  dpbo_dim dims[2] = {{"a", 0, 1, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""},
                      {"b", 0, 1, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""}};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_sobol(2, dims, 60, &space, &err));
  const double ls[2] = {0.3, 0.3};
  dpbo_kernel kernel;
  CHECK_OK(dpbo_kernel_init(&kernel, DPBO_KERNEL_MATERN52, 2, ls, &err));
  const double sigma_n = 0.1;
  const int T = 8;
  int64_t begin, count;
  dpbo_space_block(60, size, rank, &begin, &count);
  double gamma = 0;
  CHECK_OK(dpbo_privacy_gamma_greedy(
      MPI_COMM_WORLD, &(dpbo_privacy_inputs){.T = T, .signal_std = 1.0, .noise_std = sigma_n},
      &(dpbo_space_range){space, begin, count}, &kernel, &gamma, &err));

  double u[60 * 2];
  for (int i = 0; i < 60; i++)
    CHECK_OK(dpbo_space_unit(space, i, u + 2 * i, &err));
  /* Dense greedy: at each step the point whose addition maximizes the log det. */
  int chosen[64];
  double dense = 0;
  for (int t = 0; t < T; t++) {
    double best = -INFINITY;
    int best_i = -1;
    for (int i = 0; i < 60; i++) {
      chosen[t] = i;
      double g = info_gain(&kernel, u, 2, chosen, t + 1, sigma_n);
      if (g > best + 1e-12) {
        best = g;
        best_i = i;
      }
    }
    chosen[t] = best_i;
    dense = best;
  }
  CHECK_CLOSE(gamma, dense, 1e-9, 0);

  /* Exhaustive optimum over all 3-subsets of the first 12 points: greedy is
   * within (1 - 1/e) of it and never above it. */
  dpbo_space *tiny = NULL;
  CHECK_OK(dpbo_space_create_sobol(2, dims, 12, &tiny, &err));
  dpbo_space_block(12, size, rank, &begin, &count);
  double g3 = 0, opt = 0;
  CHECK_OK(dpbo_privacy_gamma_greedy(
      MPI_COMM_WORLD, &(dpbo_privacy_inputs){.T = 3, .signal_std = 1.0, .noise_std = sigma_n},
      &(dpbo_space_range){tiny, begin, count}, &kernel, &g3, &err));
  for (int a = 0; a < 12; a++)
    for (int b = a + 1; b < 12; b++)
      for (int c = b + 1; c < 12; c++) {
        int idx[3] = {a, b, c};
        opt = fmax(opt, info_gain(&kernel, u, 2, idx, 3, sigma_n));
      }
  CHECK_MSG(g3 <= opt + 1e-12 && g3 >= (1 - exp(-1)) * opt, "greedy %g vs optimum %g", g3, opt);
  CHECK(dpbo_privacy_gamma_greedy(
            MPI_COMM_WORLD, &(dpbo_privacy_inputs){.T = 3, .signal_std = 1.0, .noise_std = 0.0},
            &(dpbo_space_range){tiny, begin, count}, &kernel, &g3, &err) == DPBO_ERR_ARG);

  /* Algorithm 3's record term L/(m λ_min) is shown only for the margin
   * losses on the logistic training loss (docs/privacy-proofs.md): any
   * other validation loss is refused; a shipped one gets the corrected Δ_f3. */
  {
    dpbo_config *cfg = calloc(1, sizeof *cfg);
    dpbo_space *line = NULL;
    dpbo_dim lam = {"lambda", 0.5, 10, DPBO_SCALE_LOG, 16, DPBO_DIM_REAL, 0, ""};
    CHECK(cfg != NULL);
    CHECK_OK(dpbo_space_create_grid(1, &lam, &line, &err));
    if (cfg && line) {
      cfg->algorithm = DPBO_ALGORITHM_3;
      cfg->bounds = DPBO_BOUNDS_CORRECTED;
      cfg->objective = DPBO_OBJECTIVE_LOGREG;
      cfg->iterations = 5;
      cfg->privacy_epsilon = 1.0;
      cfg->privacy_delta = 0.05;
      cfg->logreg.validation_rows = 797;
      cfg->logreg.tolerance = 1e-6;
      dpbo_privacy_inputs in;
      cfg->logreg.loss = DPBO_LOGREG_LOSS_SIGMOID;
      CHECK_OK(dpbo_release_inputs(cfg, line, &in, &err));
      CHECK(in.solver_tolerance == 1e-6 && in.lipschitz == 0.25 && in.gstar == 1.0);
      cfg->logreg.loss = (dpbo_logreg_loss)7; /* a loss the proof does not cover */
      CHECK(dpbo_release_inputs(cfg, line, &in, &err) == DPBO_ERR_CONFIG);
      CHECK(strstr(err.message, "margin losses") != NULL);
    }
    dpbo_space_destroy(line);
    free(cfg);
  }

  dpbo_space_destroy(space);
  dpbo_space_destroy(tiny);
  int failed = dpbo_test_summary("test_privacy"), any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
