/* dpbo utility's figures (utility.h) on a small finished run.
 *
 *  - λ̃'s exact distribution p over Λ (dpbo_mech_select_probabilities, the
 *    sampler's own rounding and rate) sums to one, and the release's
 *    sampler (dpbo_mech_select over the ranks' blocks of μ_T, the call
 *    dpbo_release_draw makes, with the Δ_λ and ε_λ of a real release)
 *    draws λ̃ with those frequencies: Pearson's chi-square over DRAWS draws
 *    at a fixed seed, cells of expected count >= 20 kept and the rest pooled,
 *    against the χ² critical value at 1e-6 (stat_check.h). For the
 *    exponential mechanism and permute-and-flip, at two privacy levels
 *    (nearly uniform and sharply peaked).
 *  - The holder's figures follow from p: E[regret] = Σ p_i (max μ − μ_i),
 *    P(argmax), the regret curve rising to 1.
 *  - The public figures are Theorem 2's and Theorem 4's formulas, written
 *    out here from the inputs (β_T = 2 log(N T² π²/(3δ)), q = σ_n √(4 log(3/δ)),
 *    in units of v) and from the release's own Δ_λ, Δ_v.
 *  - The Laplace error quantiles without clamping are the Laplace
 *    quantiles b log(2p), −b log(2(1 − p)).
 * Runs on 1, 2 and 4 ranks: the figures must not depend on the split of Λ. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run/config.h"
#include "run/driver.h"
#include "base/log.h"
#include "run/release.h"
#include "dpbo/ucb.h"
#include "experiments/utility.h"
#include "stat_check.h"

/* dpbo_mech_select with its input spelled out (the calls below predate
 * dpbo_select_input). */
static dpbo_status mech_select(MPI_Comm comm, int root, dpbo_noise *noise, dpbo_select_kind kind,
                               const double *scores, int64_t begin, int64_t count, int64_t n,
                               double sensitivity, double epsilon, dpbo_select_release *out,
                               dpbo_error *err) {
  const dpbo_select_input in = {kind, scores, begin, count, n, sensitivity, epsilon};
  return dpbo_mech_select(comm, root, noise, &in, out, err);
}

#define DRAWS 20000

static const double pi = 3.14159265358979323846;

typedef struct cell {
  double p;
  int64_t count;
} cell;

static int by_p_desc(const void *a, const void *b) {
  double x = ((const cell *)a)->p, y = ((const cell *)b)->p;
  return (x < y) - (x > y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dpbo_log_setup(rank, 0, DPBO_LOG_QUIET);
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_config *config = calloc(1, sizeof *config);
  double *mean = NULL, *p = NULL, *scores = NULL;
  int64_t *counts = NULL;
  cell *cells = NULL;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  CHECK(config != NULL);
  if (!config) goto finish;
  const char *const settings[] = {"run.iterations=8",
                                  "run.seed=77",
                                  "space.kind=sobol",
                                  "space.points=64",
                                  "space.dim.x=linear 0 1",
                                  "space.dim.y=linear 0 1",
                                  "gp.kernel=matern52",
                                  "gp.lengthscale=0.3",
                                  "gp.mean=0.7",
                                  "gp.signal_std=0.1",
                                  "gp.noise_std=0.01",
                                  "objective.kind=synthetic",
                                  "objective.function=gp_prior",
                                  "objective.noise_std=0.01",
                                  "objective.seed=5",
                                  "privacy.algorithm=1",
                                  "privacy.epsilon=2",
                                  "privacy.delta=0.1",
                                  "privacy.split=0.5",
                                  "privacy.k1=0.9",
                                  "privacy.noise=seeded",
                                  "privacy.noise_seed=11",
                                  "output.dir=.",
                                  "output.name=test_utility_report"};
  dpbo_status st =
      dpbo_config_load_assignments("test_utility_report", (int)(sizeof settings / sizeof *settings),
                                   settings, 0, NULL, config, &err);
  CHECK_OK(st);
  if (st != DPBO_OK) goto finish;
  CHECK_OK(st = dpbo_driver_run(MPI_COMM_WORLD, config, NULL, &run, &err));
  if (st != DPBO_OK || run.outcome != DPBO_OK) goto finish;
  const int64_t n = dpbo_space_size(run.space);
  const int T = config->iterations;
  const double s = config->prior.signal_std, m0 = config->prior.mean;
  CHECK_OK(st = dpbo_utility_gather_mean(MPI_COMM_WORLD, config, &run, &mean, &err));
  if (st != DPBO_OK) goto finish;
  p = calloc((size_t)n, sizeof *p);
  counts = calloc((size_t)n, sizeof *counts);
  cells = calloc((size_t)n, sizeof *cells);
  const int64_t begin = dpbo_ucb_begin(run.ucb), count = dpbo_ucb_count(run.ucb);
  scores = calloc((size_t)count + 1, sizeof *scores);
  if (!p || !counts || !cells || !scores) goto finish;
  for (int64_t i = 0; i < count; i++)
    scores[i] = m0 + s * dpbo_ucb_mean(run.ucb)[i];
  double best_v = -INFINITY;
  for (int t = 0; t < T; t++)
    best_v = fmax(best_v, run.trace[t].gain);

  const double totals[2] = {2.0, 200.0};
  const double tail = 0.05;
  for (int kind = 0; kind < 2; kind++) {
    config->selection = (dpbo_select_kind)kind;
    dpbo_utility_report reports[2];
    const dpbo_utility_request request = {totals, 2, tail};
    CHECK_OK(st = dpbo_utility_compute(MPI_COMM_WORLD, config, &run, &request, reports, &err));
    if (st != DPBO_OK) break;
    for (int e = 0; e < 2; e++) {
      /* A real release at this budget: its Δ_λ, ε_λ and Δ_v. */
      config->privacy_epsilon = totals[e];
      dpbo_noise noise;
      dpbo_noise_init_seeded(&noise, 31u + (uint64_t)(10 * kind + e), (uint64_t)rank);
      dpbo_release rel;
      CHECK_OK(st = dpbo_release_draw(MPI_COMM_WORLD, config, &run, &noise, &rel, &err));
      if (st != DPBO_OK) break;
      const double Delta = rel.sens.lambda_sensitivity, eps_l = rel.epsilon_lambda;

      /* The exact law, and the figures that follow from it. */
      dpbo_utility_holder h;
      memset(&h, 0, sizeof h);
      h.best_observed = best_v;
      CHECK_OK(
          st = dpbo_mech_select_probabilities(config->selection, mean, n, Delta, eps_l, p, &err));
      if (st == DPBO_OK) CHECK_OK(st = dpbo_utility_law_figures(mean, p, n, &h, &err));
      if (st != DPBO_OK) break;
      long double sum = 0.0L, regret = 0.0L, at_max = 0.0L;
      double top = -INFINITY;
      for (int64_t i = 0; i < n; i++)
        top = fmax(top, mean[i]);
      for (int64_t i = 0; i < n; i++) {
        CHECK(p[i] >= 0.0);
        sum += p[i];
        regret += (long double)p[i] * (top - mean[i]);
        if (mean[i] == top) at_max += p[i];
      }
      CHECK_MSG(fabs((double)sum - 1.0) <= 1e-12, "sum of p = %.17g", (double)sum);
      CHECK_CLOSE(h.expected_regret_mean, (double)regret, 1e-12, 1e-15);
      CHECK_CLOSE(h.expected_regret_observed, best_v - top + (double)regret, 1e-12, 1e-15);
      CHECK_CLOSE(h.probability_argmax, (double)at_max, 1e-12, 1e-15);
      CHECK_CLOSE(h.regret_cdf[0], (double)at_max, 1e-12, 1e-15);
      CHECK(fabs(h.regret_cdf[DPBO_UTILITY_CDF_POINTS - 1] - 1.0) <= 1e-12);
      for (int c = 1; c < DPBO_UTILITY_CDF_POINTS; c++)
        CHECK(h.regret_cdf[c] >= h.regret_cdf[c - 1]);
      /* dpbo_utility_compute reports the same (same Δ_λ and ε_λ). */
      CHECK_CLOSE(reports[e].holder.expected_regret_mean, h.expected_regret_mean, 1e-12, 1e-15);
      CHECK_CLOSE(reports[e].pub.epsilon_lambda, eps_l, 1e-15, 0);

      /* The sampler's frequencies: the release's own selection call, once
       * over the ranks' blocks (as dpbo_release_draw makes it), then DRAWS
       * times on rank 0 over the gathered μ_T (the same sampler on one
       * block; test_select checks that the split of Λ does not change its
       * law, and one rank keeps this test fast on a busy machine). */
      dpbo_select_release sel;
      CHECK_OK(st = mech_select(MPI_COMM_WORLD, 0, &noise, config->selection, scores, begin, count,
                                n, Delta, eps_l, &sel, &err));
      if (st != DPBO_OK) break;
      CHECK(sel.index >= 0 && sel.index < n && p[sel.index] > 0.0);
      if (rank != 0) continue;
      for (int64_t i = 0; i < n; i++)
        counts[i] = 0;
      for (int d = 0; d < DRAWS && st == DPBO_OK; d++) {
        st = mech_select(MPI_COMM_SELF, 0, &noise, config->selection, mean, 0, n, n, Delta, eps_l,
                         &sel, &err);
        if (st == DPBO_OK) counts[sel.index]++;
      }
      CHECK_OK(st);
      if (st != DPBO_OK) break;
      for (int64_t i = 0; i < n; i++) {
        cells[i].p = p[i];
        cells[i].count = counts[i];
      }
      qsort(cells, (size_t)n, sizeof *cells, by_p_desc);
      double probs[64 + 1];
      int64_t obs[64 + 1];
      int k = 0;
      double rest_p = 0.0;
      int64_t rest_n = 0;
      for (int64_t i = 0; i < n; i++) {
        if (cells[i].p * DRAWS >= 20.0 && k < 64) {
          probs[k] = cells[i].p;
          obs[k++] = cells[i].count;
        } else {
          rest_p += cells[i].p;
          rest_n += cells[i].count;
        }
      }
      if (rest_p * DRAWS >= 20.0) {
        probs[k] = rest_p;
        obs[k++] = rest_n;
      } else if (k > 0) { /* too small to stand alone: into the last kept cell */
        probs[k - 1] += rest_p;
        obs[k - 1] += rest_n;
      }
      double x = stat_chi2(obs, probs, k, DRAWS), crit = stat_chi2_critical(k - 1, STAT_ALPHA);
      printf("%s, total epsilon %g: P(argmax) %.4f, E[regret] %.4g; chi-square %.2f over %d cells "
             "(critical %.2f)\n",
             dpbo_select_kind_name(config->selection), totals[e], h.probability_argmax,
             h.expected_regret_mean, x, k, crit);
      CHECK(k >= 2);
      CHECK_MSG(x <= crit, "the sampler's frequencies do not follow the exact distribution");

      /* Public figures: Theorem 2 and Theorem 4 written out, under the
       * corrected bounds (the default) with the run's δ_β = δ_v/3: the
       * confidence event fails w.p. δ_β/2 and the noise bounds take the
       * other δ_β/2, so Theorem 2's noise term is σ √(2 log(2/δ_β)). */
      const dpbo_utility_public *pub = &reports[e].pub;
      const double delta_v = 0.1 * (1.0 - 0.5), delta = delta_v / 3.0, a = log(1.0 / tail);
      CHECK_CLOSE(config->delta, delta, 1e-15, 0);
      CHECK(pub->bounds == DPBO_BOUNDS_CORRECTED &&
            reports[e].pub_other.bounds == DPBO_BOUNDS_PAPER);
      const double beta_T = 2.0 * log((double)n * T * T * pi * pi / (3.0 * delta));
      const double sigma_n = config->prior.noise_std / s;
      const double lambda_bound = s * 2.0 * sqrt(beta_T) +
                                  config->prior.noise_std * sqrt(2.0 * log(2.0 / delta)) +
                                  2.0 * Delta / eps_l * (log((double)n) + a);
      CHECK_CLOSE(pub->lambda_bound, lambda_bound, 1e-12, 0);
      CHECK_CLOSE(pub->lambda_probability, 1.0 - (delta + tail), 1e-15, 0);
      CHECK_CLOSE(pub->delta_value_union, delta_v, 1e-15, 0);
      const double C1 = 8.0 / log(1.0 + 1.0 / (sigma_n * sigma_n));
      const double omega_T = sqrt(C1 * beta_T * rel.sens.gamma_T / T);
      /* Δ_v = s (Ω_T + c + q), q = 2 σ_n √(2 log(6T/δ_v)) */
      const double c_v = 2.0 * sqrt((1.0 - config->k1) * log(3.0 * n / delta_v));
      const double q = 2.0 * sigma_n * sqrt(2.0 * log(6.0 * T / delta_v));
      CHECK_CLOSE(rel.sens.value_sensitivity, s * (omega_T + c_v + q), 1e-12, 0);
      const double b = rel.sens.value_sensitivity / rel.epsilon_value;
      const double value_bound =
          config->prior.noise_std * sqrt(2.0 * log(2.0 * T / delta)) + s * omega_T + a * b;
      CHECK_CLOSE(pub->value_bound, value_bound, 1e-12, 0);
      CHECK_CLOSE(pub->laplace_scale, b, 1e-12, 0);
      /* The paper's figures beside them: β from δ_v, q = σ_n √(4 log(3/δ_v))
       * in Theorem 2 and in Δ_v, and shares that add up to 5δ_v/3. */
      const dpbo_utility_public *paper = &reports[e].pub_other;
      const double beta_p = 2.0 * log((double)n * T * T * pi * pi / (3.0 * delta_v));
      const double q_p = sigma_n * sqrt(4.0 * log(3.0 / delta_v));
      CHECK_CLOSE(paper->lambda_bound,
                  s * (2.0 * sqrt(beta_p) + q_p) + 2.0 * Delta / eps_l * (log((double)n) + a),
                  1e-12, 0);
      CHECK_CLOSE(paper->lambda_probability, 1.0 - (delta_v + tail), 1e-15, 0);
      CHECK_CLOSE(paper->delta_value_union, 5.0 * delta_v / 3.0, 1e-15, 0);
      const double omega_p = sqrt(C1 * beta_p * rel.sens.gamma_T / T);
      const double b_p = s * (omega_p + c_v + q_p) / rel.epsilon_value;
      CHECK_CLOSE(paper->laplace_scale, b_p, 1e-12, 0);
      CHECK_CLOSE(paper->value_bound,
                  config->prior.noise_std * sqrt(2.0 * log(2.0 * T / delta_v)) + s * omega_p +
                      a * b_p,
                  1e-12, 0);
      /* No clamping for the synthetic objective: the error quantiles are
       * the Laplace quantiles. */
      CHECK(!config->clamp_value);
      CHECK_CLOSE(reports[e].holder.value_error_quantiles[0], b * log(0.1), 1e-12, 0);
      CHECK(fabs(reports[e].holder.value_error_quantiles[2]) <= 1e-15);
      CHECK_CLOSE(reports[e].holder.value_error_quantiles[4], -b * log(0.1), 1e-12, 0);
      CHECK(reports[e].holder.probability_clamped == 0.0);
    }
    if (st != DPBO_OK) break;
  }
  /* Laplace error with clamping: a value at the top of [0, 1]. */
  {
    dpbo_utility_holder h;
    memset(&h, 0, sizeof h);
    dpbo_utility_value_figures(0.99, 0.1, 1, 0.0, 1.0, &h);
    CHECK_CLOSE(h.value_error_quantiles[4], 0.01, 1e-12, 0); /* clamped at 1 */
    CHECK_CLOSE(h.value_error_quantiles[0], 0.1 * log(0.1), 1e-12, 0);
    CHECK_CLOSE(h.probability_clamped, 0.5 * exp(-0.01 / 0.1) + 0.5 * exp(-0.99 / 0.1), 1e-12, 0);
  }
finish:
  dpbo_run_free(&run);
  dpbo_config_free(config);
  free(config);
  free(mean);
  free(p);
  free(counts);
  free(cells);
  free(scores);
  int failed = dpbo_test_summary("test_utility_report");
  MPI_Finalize();
  return failed;
}
