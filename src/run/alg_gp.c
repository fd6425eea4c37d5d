/* Algorithms 1 and 2 of Kusner et al. (2015): GP-UCB, then λ̃ by the
 * exponential mechanism over μ_T and the best value by the Laplace mechanism
 * (run/release.c draws both; core/privacy.c holds every sensitivity). Their
 * rows of the registry (run/algorithm.h): what they assume of the config and
 * how their release is calibrated and described. */
#include <stdio.h>

#include "run/algorithm.h"
#include "run/config.h"
#include "run/release.h"

/* Algorithm 1 (noisy observations) and Algorithm 2 (noise-free) rest on the
 * UCB rule and on sequential GP-UCB; each on its own observation model. */
static dpbo_status alg_gp_check_ucb(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->acquisition != DPBO_ACQ_UCB)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = %d rests on the UCB rule; only algorithm 3 allows "
               "ucb.acquisition = ei",
               config->path, (int)config->algorithm);
done:
  return status;
}

static dpbo_status alg_gp_check_1(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(config->prior.noise_std > 0))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = 1 needs observation noise (gp.noise_std > 0); "
               "use algorithm = 2 for noise-free observations",
               config->path);
  /* docs/design.md section 2: λ̃'s guarantee survives batching (it rests on the
   * confidence bound), Algorithm 1's ṽ bound does not (it rests on
   * sequential GP-UCB's regret). */
  if (config->batch > 1)
    DPBO_TRY(
        dpbo_settings_require(&config->settings, "run", "batch", 0,
                              "> 1 with privacy.algorithm = 1: the released value's sensitivity "
                              "(Theorem 3) holds only for sequential GP-UCB; use batch = 1, or "
                              "algorithm = 3 whose bound holds for any acquisition",
                              err));
  DPBO_TRY(alg_gp_check_ucb(config, err));
done:
  return status;
}

static dpbo_status alg_gp_check_2(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->prior.noise_std != 0)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = 2 is for noise-free observations: set gp.noise_std = 0",
               config->path);
  /* Algorithm 2's pruning needs true confidence bounds; hallucinated
   * observations shrink σ without data and could prune the maximum. */
  if (config->batch > 1)
    DPBO_TRY(dpbo_settings_require(
        &config->settings, "run", "batch", 0,
        "> 1 with privacy.algorithm = 2: its branch-and-bound pruning needs the "
        "true confidence bounds, which a batch's hallucinated observations "
        "tighten without data; use batch = 1",
        err));
  /* Algorithm 2's regret term A e^{-τt/(log t)^{d/4}} (de Freitas, Smola and
   * Zoghi 2012, docs/privacy-proofs.md section 5) is a theorem about a
   * smooth kernel on d continuous coordinates; a categorical dimension's
   * Hamming factor (kernel.h) is outside it, so no A, τ would be honest. */
  for (int i = 0; i < config->dims; i++)
    if (config->dim[i].type == DPBO_DIM_CATEGORICAL)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: privacy.algorithm = 2 cannot take the categorical dimension dim.%s: its "
                 "regret bound (A, tau) holds for smooth kernels on numeric dimensions only; use "
                 "integer/linear/log dimensions or another algorithm (docs/privacy-proofs.md)",
                 config->path, config->dim[i].name);
  DPBO_TRY(alg_gp_check_ucb(config, err));
done:
  return status;
}

static const char *alg_gp_calibration(const dpbo_release *r) {
  (void)r;
  return "basic composition of the exponential mechanism's (lambda_tilde) and the Laplace "
         "mechanism's (value) (epsilon, delta) (Kusner et al. 2015), at the epsilons the "
         "samplers spent";
}

static void alg_gp_describe(dpbo_release *r, const dpbo_config *config) {
  const dpbo_privacy_inputs *in = &r->inputs;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  snprintf(r->guarantee, sizeof r->guarantee,
           "lambda_tilde is (%.6g, %.6g)-DP and the released %s is (%.6g, %.6g)-DP for the "
           "validation set (together (%.6g, %.6g)-DP by basic composition), assuming "
           "(Assumption 1 of Kusner et al. 2015) that the validation gains of all validation "
           "sets form a multi-task GP with k1(V,V') = %.6g and the stated prior (m0 = %.6g, "
           "s = %.6g, sigma = %.6g, %s kernel, fixed before the validation data was seen)%s.%s.",
           r->epsilon_lambda, r->delta_lambda, ops->value_name, r->epsilon_value, r->delta_value,
           r->epsilon_total, r->delta_total, in->k1, config->prior.mean, in->signal_std,
           in->noise_std, dpbo_kernel_kind_name(config->kernel.kind),
           ops->noisy_observations
               ? ""
               : ", noise-free observations and the regret bound of de Freitas, Smola and Zoghi "
                 "(2012) with the given A and tau",
           dpbo_release_bounds_note(r));
}

const dpbo_algorithm_ops dpbo_alg_1_ops = {
    .algorithm = DPBO_ALGORITHM_1,
    .name = "algorithm1",
    .private_release = 1,
    .gp_release = 1,
    .noisy_observations = 1,
    .releases_lambda = 1,
    .splits_budget = 1,
    .delta_rule = "must lie in (0, 1)",
    .value_name = "v_tilde",
    .value_symbol = "v~",
    .utility_bound = "Theorem 4",
    .utility_target = "f(lambda*)",
    .check_config = alg_gp_check_1,
    .calibration = alg_gp_calibration,
    .describe = alg_gp_describe,
};

const dpbo_algorithm_ops dpbo_alg_2_ops = {
    .algorithm = DPBO_ALGORITHM_2,
    .name = "algorithm2",
    .private_release = 1,
    .gp_release = 1,
    .prunes = 1,
    /* Algorithm 2 releases max_{2 <= t <= T} f(λ_t). */
    .first_value_step = 1,
    .releases_lambda = 1,
    .splits_budget = 1,
    .delta_rule = "must lie in (0, 1)",
    .value_name = "f_tilde",
    .value_symbol = "f~",
    .utility_bound = "Algorithm 2's bound",
    .utility_target = "f(lambda*)",
    .check_config = alg_gp_check_2,
    .calibration = alg_gp_calibration,
    .describe = alg_gp_describe,
};
