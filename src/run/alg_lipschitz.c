/* Algorithm 3 of Kusner et al. (2015): a Lipschitz and convex objective
 * (L2-regularized logistic regression), the best value f̃_L by the Laplace
 * mechanism with Theorem 6's Δ_f3 (core/privacy.c), any acquisition. Its
 * row of the registry (run/algorithm.h). */
#include <stdio.h>
#include <string.h>

#include "run/algorithm.h"
#include "run/config.h"
#include "run/release.h"

/* Algorithm 3's public constants: m, [λ_min, λ_max] from the space's single
 * "lambda" dimension, and the validation loss's L and g*. */
static dpbo_status alg_lipschitz_inputs(const dpbo_config *config, const dpbo_space *space,
                                        dpbo_privacy_inputs *in, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->objective != DPBO_OBJECTIVE_LOGREG)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = 3 needs objective.kind = logreg (its Lipschitz and "
               "convexity assumptions are what the guarantee rests on)",
               config->path);
  if (dpbo_space_dims(space) != 1 || strcmp(dpbo_space_dim(space, 0)->name, "lambda") != 0)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: privacy.algorithm = 3 needs exactly one dimension, dim.lambda",
               config->path);
  /* L/(m λ_min) bounds one record's change only for a margin loss g(w, x, y)
   * = φ(y wᵀx) with φ L-Lipschitz (|φ(z) − φ(z')| ≤ 2L‖w‖) and a training
   * loss with ‖w_λ‖ ≤ 1/(2λ), which the logistic loss has
   * (docs/privacy-proofs.md): both shipped validation losses are such φ. */
  if (config->logreg.loss != DPBO_LOGREG_LOSS_SIGMOID &&
      config->logreg.loss != DPBO_LOGREG_LOSS_RAMP)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = 3: Theorem 6's bound is shown only for the margin losses "
               "sigmoid and ramp (g = phi(y w'x), phi Lipschitz) on the logistic training loss",
               config->path);
  const dpbo_dim *dim = dpbo_space_dim(space, 0);
  in->lambda_min = dim->lo;
  in->lambda_max = dim->hi;
  in->validation_size = config->logreg.validation_rows;
  in->solver_tolerance = config->logreg.tolerance;
  dpbo_logreg_loss_constants(config->logreg.loss, &in->lipschitz, &in->gstar);
done:
  return status;
}

static const char *alg_lipschitz_calibration(const dpbo_release *r) {
  (void)r; /* the value alone */
  return "pure epsilon of the Laplace mechanism (Kusner et al. 2015, Theorem 6)";
}

static void alg_lipschitz_describe(dpbo_release *r, const dpbo_config *config) {
  const dpbo_privacy_inputs *in = &r->inputs;
  (void)config;
  snprintf(r->guarantee, sizeof r->guarantee,
           "f_tilde_L is %.6g-DP (pure, delta = 0) for the validation set of %lld records, "
           "assuming (Assumption 2 of Kusner et al. 2015) a public training set, "
           "L2-regularized logistic regression (a 1-Lipschitz convex loss) on inputs of norm "
           "<= 1, lambda in [%.6g, %.6g], and a validation loss that is %.6g-Lipschitz and "
           "bounded by %.6g.%s.",
           r->epsilon_value, (long long)in->validation_size, in->lambda_min, in->lambda_max,
           in->lipschitz, in->gstar, dpbo_release_bounds_note(r));
}

const dpbo_algorithm_ops dpbo_alg_3_ops = {
    .algorithm = DPBO_ALGORITHM_3,
    .name = "algorithm3",
    .private_release = 1,
    /* One release, the value: the whole budget goes there (no split). */
    .delta_rule = "must lie in (0, 1)",
    .value_name = "f_tilde_L",
    .value_symbol = "f~_L",
    .utility_bound = "Algorithm 3's bound",
    .utility_target = "f^BO",
    .inputs = alg_lipschitz_inputs,
    .calibration = alg_lipschitz_calibration,
    .describe = alg_lipschitz_describe,
};
