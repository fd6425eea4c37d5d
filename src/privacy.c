#include "dpbo/privacy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/comm.h"
#include "dpbo/gp.h"
#include "dpbo/ucb.h"

double dpbo_privacy_beta(int64_t n, int t, double delta) {
  /* The same β_t that drives the UCB selection (eq. 3). */
  return dpbo_ucb_beta(n, t, delta);
}

double dpbo_privacy_c(double k1, int64_t n, double delta, double factor) {
  /* Theorem 1: the middle term σ1 √(2 log(3N/δ)) with σ1 = √(2(1 − k1)). */
  return 2.0 * sqrt((1.0 - k1) * log(factor * (double)n / delta));
}

double dpbo_privacy_q(double sigma_n, double delta) { return sigma_n * sqrt(4.0 * log(3.0 / delta)); }

double dpbo_privacy_C1(double sigma_n) { return 8.0 / log(1.0 + 1.0 / (sigma_n * sigma_n)); }

double dpbo_privacy_alg2_regret(double A, double tau, int d) {
  return A * exp(-2.0 * tau / pow(log(2.0), d / 4.0));
}

double dpbo_privacy_alg3_sensitivity(int64_t m, double lambda_min, double lambda_max,
                                     double lipschitz, double gstar) {
  double validation = fmin(gstar / (double)m, lipschitz / ((double)m * lambda_min));
  double across_lambda = (lambda_max - lambda_min) * lipschitz / (lambda_max * lambda_min);
  return validation + across_lambda;
}

dpbo_status dpbo_privacy_gamma_greedy(MPI_Comm comm, const dpbo_space *space,
                                      const dpbo_kernel *kernel, double sigma_n, int T,
                                      int64_t begin, int64_t count, size_t memory_limit,
                                      double *gamma_greedy, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local;
  dpbo_gp *gp = NULL;
  dpbo_ucb *ucb = NULL;
  dpbo_ucb_mode mode;
  *gamma_greedy = 0.0;
  if (!(sigma_n > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "the information gain needs observation noise (σ > 0), got σ/s = %g", sigma_n);
  /* The posterior variance does not depend on the observed values, so the
   * greedy step — add the point of largest posterior variance, gaining
   * ½ log(1 + σ_n⁻² σ²_{t−1}(x)) — runs on a GP fed zeros. Selection by
   * variance alone is the UCB selection with the mean ignored: β → ∞. */
  dpbo_gp_prior prior = {.mean = 0.0, .signal_std = 1.0, .noise_std = sigma_n, .jitter = 0.0};
  /* A rank that cannot build its state must not leave the others waiting
   * in the reductions below. */
  local = dpbo_gp_create(kernel, &prior, T, &gp, err);
  if (local == DPBO_OK)
    local = dpbo_ucb_choose_mode(count, dpbo_space_dims(space), T, memory_limit, &mode, err);
  if (local == DPBO_OK) local = dpbo_ucb_create_mode(space, kernel, begin, count, T, mode, &ucb, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  double gain = 0.0;
  for (int t = 1; t <= T; t++) {
    dpbo_ucb_choice choice = {-INFINITY, -1};
    const double *var = dpbo_ucb_var(ucb);
    for (int64_t i = 0; i < count; i++)
      if (var[i] > choice.score) {
        choice.score = var[i];
        choice.index = begin + i;
      }
    DPBO_TRY(dpbo_ucb_reduce(comm, &choice, err));
    gain += 0.5 * log1p(choice.score / (sigma_n * sigma_n));
    double u[DPBO_MAX_DIM];
    DPBO_TRY(dpbo_space_unit(space, choice.index, u, err));
    DPBO_TRY(dpbo_gp_append(gp, u, 0.0, err));
    DPBO_TRY(dpbo_ucb_update(ucb, gp, u, err));
  }
  *gamma_greedy = gain;
done:
  dpbo_ucb_destroy(ucb);
  dpbo_gp_destroy(gp);
  return status;
}

dpbo_status dpbo_privacy_sensitivities(MPI_Comm comm, const dpbo_privacy_inputs *in,
                                       const dpbo_space *space, const dpbo_kernel *kernel,
                                       int64_t begin, int64_t count, dpbo_sensitivity *out,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  const int64_t n = dpbo_space_size(space);
  const double s = in->signal_std;
  out->algorithm = in->algorithm;
  out->n = n;
  out->T = in->T;
  out->d = dpbo_space_dims(space);
  out->signal_std = s;
  out->sigma_n = in->noise_std / s;
  out->k1 = in->k1;
  out->delta_lambda_priv = in->delta_lambda;
  out->delta_value_priv = in->delta_value;
  switch (in->algorithm) {
  case DPBO_ALGORITHM_1:
  case DPBO_ALGORITHM_2: {
    /* λ̃ (Theorem 1; Algorithm 2 releases it "as in Algorithm 1 with q = 0"). */
    out->beta_T1 = dpbo_privacy_beta(n, in->T + 1, in->delta_lambda);
    out->c_lambda = dpbo_privacy_c(in->k1, n, in->delta_lambda, 3.0);
    out->lambda_sensitivity = s * (2.0 * sqrt(out->beta_T1) + out->c_lambda);
    if (in->algorithm == DPBO_ALGORITHM_1) {
      out->beta_T = dpbo_privacy_beta(n, in->T, in->delta_value);
      out->c_value = dpbo_privacy_c(in->k1, n, in->delta_value, 3.0);
      out->q = dpbo_privacy_q(out->sigma_n, in->delta_value);
      out->C1 = dpbo_privacy_C1(out->sigma_n);
      DPBO_TRY(dpbo_privacy_gamma_greedy(comm, space, kernel, out->sigma_n, in->T, begin, count,
                                         in->memory_limit, &out->gamma_greedy, err));
      out->gamma_T = out->gamma_greedy / (1.0 - exp(-1.0));
      out->regret_term = sqrt(out->C1 * out->beta_T * out->gamma_T / in->T);
      out->value_sensitivity = s * (out->regret_term + out->c_value + out->q);
    } else {
      /* Theorem 5: A is a bound on f's regret, in units of v already. */
      out->c_value = dpbo_privacy_c(in->k1, n, in->delta_value, 2.0);
      out->regret_term = dpbo_privacy_alg2_regret(in->alg2_A, in->alg2_tau, out->d);
      out->value_sensitivity = out->regret_term + s * out->c_value;
    }
    break;
  }
  case DPBO_ALGORITHM_3:
    out->regret_term = (in->lambda_max - in->lambda_min) * in->lipschitz / (in->lambda_max * in->lambda_min);
    out->value_sensitivity = dpbo_privacy_alg3_sensitivity(in->validation_size, in->lambda_min, in->lambda_max,
                                                           in->lipschitz, in->gstar);
    break;
  case DPBO_ALGORITHM_NONE:
    DPBO_RAISE(DPBO_ERR_ARG, "no privacy algorithm chosen");
  }
  if (!(out->value_sensitivity > 0) || !isfinite(out->value_sensitivity) ||
      (in->algorithm != DPBO_ALGORITHM_3 && !(out->lambda_sensitivity > 0 && isfinite(out->lambda_sensitivity))))
    DPBO_RAISE(DPBO_ERR_NUMERIC, "a sensitivity came out non-positive or infinite (Δ_λ = %g, Δ_v = %g)",
               out->lambda_sensitivity, out->value_sensitivity);
done:
  return status;
}

double dpbo_privacy_round_up(double x) { return x == 0.0 ? 0.0 : nextafter(x, INFINITY); }

void dpbo_privacy_compose(int k, double epsilon, double delta, double delta_slack,
                          double *eps_basic, double *delta_basic, double *eps_advanced,
                          double *delta_advanced) {
  *eps_basic = dpbo_privacy_round_up(k * epsilon);
  *delta_basic = dpbo_privacy_round_up(k * delta);
  double adv = sqrt(2.0 * k * log(1.0 / delta_slack)) * epsilon + k * epsilon * expm1(epsilon);
  *eps_advanced = dpbo_privacy_round_up(dpbo_privacy_round_up(adv) * (1.0 + 4 * 0x1p-52));
  *delta_advanced = dpbo_privacy_round_up(k * delta + delta_slack);
}

void dpbo_privacy_ledger_add(dpbo_privacy_ledger *ledger, double epsilon, double delta) {
  /* tanh and the products carry a few ulps of error: one more relative
   * 4 ulps upward, as in dpbo_privacy_compose, keeps every sum an upper
   * bound of the exact one. */
  const double margin = 1.0 + 4 * 0x1p-52;
  ledger->draws++;
  ledger->epsilon_sum = dpbo_privacy_round_up(ledger->epsilon_sum + epsilon);
  ledger->delta_sum = dpbo_privacy_round_up(ledger->delta_sum + delta);
  ledger->epsilon_sq_sum = dpbo_privacy_round_up(ledger->epsilon_sq_sum +
                                                 dpbo_privacy_round_up(epsilon * epsilon) * margin);
  ledger->epsilon_tanh_sum = dpbo_privacy_round_up(
      ledger->epsilon_tanh_sum + dpbo_privacy_round_up(epsilon * tanh(epsilon / 2)) * margin);
}

/* Kairouz, Oh & Viswanath, "The Composition Theorem for Differential
 * Privacy" (IEEE Trans. Inf. Theory 2017), Theorem 3.5: k-fold adaptive
 * composition of (ε_i, δ_i)-DP mechanisms is (ε̃, 1 − (1 − δ')Π(1 − δ_i))-DP
 * with ε̃ = Σ (e^ε_i − 1) ε_i/(e^ε_i + 1) + √(2 Σ ε_i² log(1/δ')), among
 * other forms; 1 − (1 − δ')Π(1 − δ_i) <= δ' + Σ δ_i. For equal ε it is
 * tighter than Dwork, Rothblum & Vadhan's kε(e^ε − 1) + √(2k log(1/δ')) ε.
 * The theorem fixes the ε_i and their number in advance; see the README
 * (privacy ledger) for why the budget is enforced by basic composition. */
void dpbo_privacy_ledger_advanced(const dpbo_privacy_ledger *ledger, double delta_slack,
                                  double *epsilon, double *delta) {
  double root = sqrt(2.0 * ledger->epsilon_sq_sum * log(1.0 / delta_slack));
  double sum = dpbo_privacy_round_up(ledger->epsilon_tanh_sum + dpbo_privacy_round_up(root));
  *epsilon = dpbo_privacy_round_up(sum * (1.0 + 4 * 0x1p-52));
  *delta = dpbo_privacy_round_up(ledger->delta_sum + delta_slack);
}

int dpbo_privacy_ledger_within(const dpbo_privacy_ledger *ledger, double epsilon_max,
                               double delta_max) {
  return ledger->epsilon_sum <= epsilon_max * (1.0 + 1e-12) &&
         ledger->delta_sum <= delta_max * (1.0 + 1e-12);
}

const char *dpbo_algorithm_name(dpbo_algorithm algorithm) {
  switch (algorithm) {
  case DPBO_ALGORITHM_NONE: return "none";
  case DPBO_ALGORITHM_1: return "algorithm1";
  case DPBO_ALGORITHM_2: return "algorithm2";
  case DPBO_ALGORITHM_3: return "algorithm3";
  }
  return "unknown";
}
