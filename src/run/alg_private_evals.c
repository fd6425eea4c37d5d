/* GP-UCB on privatized evaluations (run/private_evals.h): every gain through
 * the discrete Gaussian mechanism on the rank that evaluated it, everything
 * after it post-processing. Its row of the registry (run/algorithm.h). */
#include "run/algorithm.h"
#include "run/config.h"
#include "run/private_evals.h"

/* A release from such a run is post-processing: only the final choice and
 * the GP that reads it may change (dpbo_private_evals_check_overrides). */
static dpbo_status alg_private_evals_check_overrides(const dpbo_config *stored, int count,
                                                     const char *const *overrides,
                                                     dpbo_error *err) {
  (void)stored;
  return dpbo_private_evals_check_overrides(count, overrides, err);
}

const dpbo_algorithm_ops dpbo_alg_private_evals_ops = {
    .algorithm = DPBO_ALGORITHM_PRIVATE_EVALUATIONS,
    .name = "private_evaluations",
    .private_release = 1,
    .private_evaluations = 1,
    .publishes_trace = 1,
    /* λ̃ and ṽ by privacy.final_choice, post-processing of the noisy trace. */
    .releases_lambda = 1,
    /* privacy.split is checked as for the GP releases (it splits nothing
     * here; kept so that configs valid before the registry stay valid). */
    .splits_budget = 1,
    .delta_rule = "must lie in (0, 1)",
    .value_name = "v_tilde",
    .value_symbol = "value~",
    .check_overrides = alg_private_evals_check_overrides,
};
