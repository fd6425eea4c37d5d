#include "dpbo/privacy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "dpbo/gp.h"
#include "dpbo/ucb.h"

double dpbo_privacy_beta(int64_t n, int t, double delta) {
  /* The one β_t: the UCB selection (eq. 3) and every bound use this. */
  const double pi2 = 9.8696044010893586188;
  return 2.0 * log((double)n * (double)t * (double)t * pi2 / (3.0 * delta));
}

const char *const dpbo_bounds_names[] = {"corrected", "paper", NULL};

const char *dpbo_bounds_name(dpbo_bounds bounds) {
  return dpbo_bounds_names[bounds == DPBO_BOUNDS_PAPER ? DPBO_BOUNDS_PAPER : DPBO_BOUNDS_CORRECTED];
}

dpbo_status dpbo_privacy_budget_split(dpbo_algorithm algorithm, dpbo_bounds bounds, double epsilon,
                                      double delta, double split, dpbo_privacy_budget *out,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  out->algorithm = algorithm;
  out->bounds = bounds;
  if (!(epsilon > 0.0 && isfinite(epsilon) && delta > 0.0 && delta < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "privacy budget: needs epsilon > 0 and delta in (0, 1), got %g, %g",
               epsilon, delta);
  if (algorithm == DPBO_ALGORITHM_PRIVATE_EVALUATIONS || algorithm == DPBO_ALGORITHM_GUIDED) {
    /* The whole budget goes to the evaluations' Gaussian mechanisms (guided:
     * and its stopping search, run/guided.h); no privacy rests on the GP, so
     * β_t keeps the default δ. */
    out->epsilon_value = epsilon;
    out->delta_value = delta;
    out->delta_beta = DPBO_PRIVACY_DELTA_BETA_DEFAULT;
    goto done;
  }
  if (algorithm == DPBO_ALGORITHM_3) {
    /* Pure ε-DP of the value alone: no failure event, no λ̃. */
    out->epsilon_value = epsilon;
    out->delta_beta = DPBO_PRIVACY_DELTA_BETA_DEFAULT; /* Algorithm 3 does not rest on β */
    goto done;
  }
  if (!(split > 0.0 && split < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "privacy budget: split must lie in (0, 1), got %g", split);
  /* The products below are the ones dpbo has always computed, so that
   * bounds = paper reproduces earlier releases bit for bit. */
  out->epsilon_lambda = epsilon * split;
  out->epsilon_value = epsilon - out->epsilon_lambda;
  out->delta_lambda = delta * split;
  out->delta_value = delta * (1.0 - split);
  out->delta_c_lambda = out->delta_lambda / 3.0;
  if (algorithm == DPBO_ALGORITHM_NONE) {
    out->delta_beta = DPBO_PRIVACY_DELTA_BETA_DEFAULT;
    goto done;
  }
  const double dv = out->delta_value;
  const int alg1 = algorithm == DPBO_ALGORITHM_1;
  if (bounds == DPBO_BOUNDS_PAPER) {
    /* The paper: β_t from δ_v; c at δ_v/3 (δ_v/2 in Algorithm 2), q at
     * δ_v/3, the regret event counted once, at δ_v/3. */
    out->delta_beta = dv;
    out->delta_c_value = alg1 ? dv / 3.0 : dv / 2.0;
    out->delta_q = alg1 ? dv / 3.0 : 0.0;
  } else {
    /* Theorem 3: 2·(δ_β/2) + δ_c + δ_q = δ_v with thirds: δ_β = δ_v/3 (each
     * run's regret event δ_v/6), c and q at δ_v/3 each. Theorem 5: 2·(δ_β/2)
     * + δ_c = δ_v with δ_β = δ_v/2, c at δ_v/2. c keeps the paper's value. */
    out->delta_beta = alg1 ? dv / 3.0 : dv / 2.0;
    out->delta_c_value = alg1 ? dv / 3.0 : dv / 2.0;
    out->delta_q = alg1 ? dv / 3.0 : 0.0;
  }
  out->delta_regret_run = out->delta_beta / 2.0;
  out->delta_value_union = 2.0 * out->delta_regret_run + out->delta_c_value + out->delta_q;
done:
  return status;
}

double dpbo_privacy_c(double k1, int64_t n, double delta, double factor) {
  /* Theorem 1: the middle term σ1 √(2 log(3N/δ)) with σ1 = √(2(1 − k1)). */
  return 2.0 * sqrt((1.0 - k1) * log(factor * (double)n / delta));
}

double dpbo_privacy_q(dpbo_bounds bounds, double sigma_n, int T, double delta) {
  if (bounds == DPBO_BOUNDS_PAPER) return sigma_n * sqrt(4.0 * log(3.0 / delta));
  /* |α| + |α'| ≤ 2 max over the 2T noise draws of both runs; each is
   * N(0, σ_n²), P(|Z| > γ) ≤ e^{−γ²/2}, so all 2T stay below σ_n γ with
   * probability ≥ 1 − 2T e^{−γ²/2} = 1 − δ/3 for γ = √(2 log(6T/δ)). */
  return 2.0 * sigma_n * sqrt(2.0 * log(6.0 * (double)T / delta));
}

double dpbo_privacy_C1(double sigma_n) { return 8.0 / log(1.0 + 1.0 / (sigma_n * sigma_n)); }

int dpbo_privacy_alg2_worst_t(int d) {
  /* g(t) = t/(log t)^{d/4} has g'(t) ∝ (log t)^{d/4−1}(log t − d/4): it falls
   * up to t = e^{d/4} and rises after, so the smallest integer value is at
   * ⌊e^{d/4}⌋ or ⌈e^{d/4}⌉ (t ≥ 2). */
  const double p = d / 4.0, peak = exp(p);
  int lo = (int)floor(peak), hi = lo + 1;
  if (lo < 2) lo = 2;
  if (hi < 2) hi = 2;
  double g_lo = lo / pow(log((double)lo), p), g_hi = hi / pow(log((double)hi), p);
  return g_hi < g_lo ? hi : lo;
}

double dpbo_privacy_alg2_regret(dpbo_bounds bounds, double A, double tau, int d) {
  if (bounds == DPBO_BOUNDS_PAPER) return A * exp(-2.0 * tau / pow(log(2.0), d / 4.0));
  const int t = dpbo_privacy_alg2_worst_t(d);
  return A * exp(-tau * t / pow(log((double)t), d / 4.0));
}

double dpbo_privacy_gain_sensitivity(int64_t m, double gstar) { return gstar / (double)m; }

double dpbo_privacy_alg3_lambda_term(double lambda_min, double lambda_max, double lipschitz) {
  return (lambda_max - lambda_min) * lipschitz / (lambda_max * lambda_min);
}

double dpbo_privacy_alg3_sensitivity(dpbo_bounds bounds, int64_t m, double lambda_min,
                                     double lambda_max, double lipschitz, double gstar,
                                     double tolerance) {
  /* The record term: the gain's own bound g* / m or the loss's Lipschitz
   * bound through ‖w_λ‖, L/(m λ_min) (docs/privacy-proofs.md section 6),
   * whichever is smaller. */
  double validation =
      fmin(dpbo_privacy_gain_sensitivity(m, gstar), lipschitz / ((double)m * lambda_min));
  double across_lambda = dpbo_privacy_alg3_lambda_term(lambda_min, lambda_max, lipschitz);
  if (bounds == DPBO_BOUNDS_PAPER) return validation + across_lambda;
  /* The released values come from ŵ_λ, LIBLINEAR's solution, not w_λ. Its
   * stopping rule ‖∇f(ŵ)‖ ≤ tol·ρ·‖∇f(0)‖ (ρ ≤ 1/2, ‖∇f(0)‖ ≤ 1/(2λ) for
   * f = O_λ/λ) and λ-strong convexity give ‖ŵ_λ − w_λ‖ ≤ r = tol/(4λ_min)
   * (each evaluation checks its certificate against this, logreg.c). Both
   * terms then grow: L·2r across λ, and 2L r/m in the record term. */
  const double r = tolerance / (4.0 * lambda_min);
  return validation + across_lambda + 2.0 * lipschitz * r * (1.0 + 1.0 / (double)m);
}

dpbo_status dpbo_privacy_gamma_greedy(MPI_Comm comm, const dpbo_privacy_inputs *in,
                                      const dpbo_space_range *block, const dpbo_kernel *kernel,
                                      double *gamma_greedy, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local;
  const dpbo_space *space = block->space;
  const int64_t begin = block->begin, count = block->count;
  const double sigma_n = in->noise_std / in->signal_std;
  const int T = in->T;
  dpbo_gp *gp = NULL;
  dpbo_ucb *ucb = NULL;
  dpbo_ucb_mode mode;
  *gamma_greedy = 0.0;
  if (!(sigma_n > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "the information gain needs observation noise (σ > 0), got σ/s = %g",
               sigma_n);
  /* The posterior variance does not depend on the observed values, so the
   * greedy step — add the point of largest posterior variance, gaining
   * ½ log(1 + σ_n⁻² σ²_{t−1}(x)) — runs on a GP fed zeros. Selection by
   * variance alone is the UCB selection with the mean ignored: β → ∞. */
  dpbo_gp_prior prior = {.mean = 0.0, .signal_std = 1.0, .noise_std = sigma_n, .jitter = 0.0};
  /* A rank that cannot build its state must not leave the others waiting
   * in the reductions below. */
  local = dpbo_gp_create(kernel, &prior, T, &gp, err);
  if (local == DPBO_OK)
    local = dpbo_ucb_choose_mode(count, dpbo_space_dims(space), T, in->memory_limit, &mode, err);
  if (local == DPBO_OK) local = dpbo_ucb_create_mode(block, kernel, T, mode, &ucb, err);
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
                                       const dpbo_space_range *block, const dpbo_kernel *kernel,
                                       dpbo_sensitivity *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_space *space = block->space;
  memset(out, 0, sizeof *out);
  const int64_t n = dpbo_space_size(space);
  const double s = in->signal_std;
  out->algorithm = in->algorithm;
  out->bounds = in->bounds;
  out->delta_beta = in->delta_beta;
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
      out->beta_T = dpbo_privacy_beta(n, in->T, in->delta_beta);
      out->c_value = dpbo_privacy_c(in->k1, n, in->delta_value, 3.0);
      out->q = dpbo_privacy_q(in->bounds, out->sigma_n, in->T, in->delta_value);
      out->C1 = dpbo_privacy_C1(out->sigma_n);
      if (in->gamma_greedy > 0.0)
        out->gamma_greedy = in->gamma_greedy;
      else
        DPBO_TRY(dpbo_privacy_gamma_greedy(comm, in, block, kernel, &out->gamma_greedy, err));
      out->gamma_T = out->gamma_greedy / (1.0 - exp(-1.0));
      out->regret_term = sqrt(out->C1 * out->beta_T * out->gamma_T / in->T);
      out->value_sensitivity = s * (out->regret_term + out->c_value + out->q);
    } else {
      /* Theorem 5: A is a bound on f's regret, in units of v already. */
      out->c_value = dpbo_privacy_c(in->k1, n, in->delta_value, 2.0);
      out->regret_term = dpbo_privacy_alg2_regret(in->bounds, in->alg2_A, in->alg2_tau, out->d);
      out->value_sensitivity = out->regret_term + s * out->c_value;
    }
    break;
  }
  case DPBO_ALGORITHM_3:
    out->regret_term = dpbo_privacy_alg3_lambda_term(in->lambda_min, in->lambda_max, in->lipschitz);
    out->value_sensitivity = dpbo_privacy_alg3_sensitivity(
        in->bounds, in->validation_size, in->lambda_min, in->lambda_max, in->lipschitz, in->gstar,
        in->solver_tolerance);
    out->tolerance_term =
        out->value_sensitivity -
        dpbo_privacy_alg3_sensitivity(DPBO_BOUNDS_PAPER, in->validation_size, in->lambda_min,
                                      in->lambda_max, in->lipschitz, in->gstar, 0.0);
    break;
  case DPBO_ALGORITHM_NONE:
    DPBO_RAISE(DPBO_ERR_ARG, "no privacy algorithm chosen");
  case DPBO_ALGORITHM_RANDOM_SEARCH:
  case DPBO_ALGORITHM_LIU_TALWAR:
  case DPBO_ALGORITHM_PAPERNOT_STEINKE:
    /* No GP: their one sensitivity is the gain's (run/selection.h). */
    DPBO_RAISE(DPBO_ERR_ARG, "%s has no GP sensitivities", dpbo_algorithm_name(in->algorithm));
  case DPBO_ALGORITHM_PRIVATE_EVALUATIONS:
    DPBO_RAISE(DPBO_ERR_ARG, "private_evaluations has no GP sensitivities (its release is "
                             "post-processing of the privatized evaluations)");
  case DPBO_ALGORITHM_GUIDED:
    DPBO_RAISE(DPBO_ERR_ARG, "guided has no GP sensitivities (its GP is post-processing of the "
                             "privatized evaluations, its release the stopping search's)");
  }
  if (!(out->value_sensitivity > 0) || !isfinite(out->value_sensitivity) ||
      (in->algorithm != DPBO_ALGORITHM_3 &&
       !(out->lambda_sensitivity > 0 && isfinite(out->lambda_sensitivity))))
    DPBO_RAISE(DPBO_ERR_NUMERIC,
               "a sensitivity came out non-positive or infinite (Δ_λ = %g, Δ_v = %g)",
               out->lambda_sensitivity, out->value_sensitivity);
done:
  return status;
}

double dpbo_privacy_round_up(double x) { return x == 0.0 ? 0.0 : nextafter(x, INFINITY); }

double dpbo_privacy_sum_up(double a, double b) {
  /* Knuth's two-sum: the rounding error of a + b, exact in round-to-nearest. */
  const double s = a + b, bb = s - a;
  const double error = (a - (s - bb)) + (b - bb);
  return error > 0.0 ? dpbo_privacy_round_up(s) : s;
}

void dpbo_privacy_compose(int k, dpbo_privacy_cost each, double delta_slack,
                          dpbo_privacy_cost *basic, dpbo_privacy_cost *advanced) {
  const double epsilon = each.epsilon, delta = each.delta;
  basic->epsilon = dpbo_privacy_round_up(k * epsilon);
  basic->delta = dpbo_privacy_round_up(k * delta);
  double adv = sqrt(2.0 * k * log(1.0 / delta_slack)) * epsilon + k * epsilon * expm1(epsilon);
  advanced->epsilon = dpbo_privacy_round_up(dpbo_privacy_round_up(adv) * (1.0 + 4 * 0x1p-52));
  advanced->delta = dpbo_privacy_round_up(k * delta + delta_slack);
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
  case DPBO_ALGORITHM_NONE:
    return "none";
  case DPBO_ALGORITHM_1:
    return "algorithm1";
  case DPBO_ALGORITHM_2:
    return "algorithm2";
  case DPBO_ALGORITHM_3:
    return "algorithm3";
  case DPBO_ALGORITHM_RANDOM_SEARCH:
    return "random_search";
  case DPBO_ALGORITHM_LIU_TALWAR:
    return "liu_talwar";
  case DPBO_ALGORITHM_PAPERNOT_STEINKE:
    return "papernot_steinke";
  case DPBO_ALGORITHM_PRIVATE_EVALUATIONS:
    return "private_evaluations";
  case DPBO_ALGORITHM_GUIDED:
    return "guided";
  }
  return "unknown";
}

int dpbo_algorithm_is_selection(dpbo_algorithm algorithm) {
  return algorithm == DPBO_ALGORITHM_RANDOM_SEARCH || algorithm == DPBO_ALGORITHM_LIU_TALWAR ||
         algorithm == DPBO_ALGORITHM_PAPERNOT_STEINKE;
}

int dpbo_algorithm_publishes_trace(dpbo_algorithm algorithm) {
  return algorithm == DPBO_ALGORITHM_PRIVATE_EVALUATIONS;
}
