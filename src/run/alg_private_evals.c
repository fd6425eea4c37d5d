/* GP-UCB on privatized evaluations (run/private_evals.h): every gain through
 * the discrete Gaussian mechanism on the rank that evaluated it, everything
 * after it post-processing. Its row of the registry (run/algorithm.h). */
#include <stdio.h>

#include "run/algorithm.h"
#include "run/config.h"
#include "run/private_evals.h"
#include "run/release.h"

/* A release from such a run is post-processing: only the final choice and
 * the GP that reads it may change (dpbo_private_evals_check_overrides). */
static dpbo_status alg_private_evals_check_overrides(const dpbo_config *stored, int count,
                                                     const char *const *overrides,
                                                     dpbo_error *err) {
  (void)stored;
  return dpbo_private_evals_check_overrides(count, overrides, err);
}

/* The guarantee in words: the trace and the final choice together, by the
 * discrete Gaussian's K-fold bound; the neighbour relation is the proven
 * one of svm and logreg (docs/privacy-proofs.md) or the user's statement. */
static void alg_private_evals_describe(dpbo_release *release, const dpbo_config *config) {
  const dpbo_evals_release *r = &release->evals;
  char relation[768];
  if (r->sensitivity_proven)
    snprintf(relation, sizeof relation,
             "for the validation set of m = %lld records: one record changes the %s by at most "
             "%.6g, under replace-one neighbours (m public) and under add/remove neighbours when "
             "it is public that the validation set has at least m - 1 = %lld records "
             "(docs/privacy-proofs.md)",
             (long long)r->validation_size,
             config->objective == DPBO_OBJECTIVE_SVM ? "validation accuracy"
                                                     : "mean validation loss",
             r->sensitivity, (long long)r->validation_size - 1);
  else
    snprintf(relation, sizeof relation,
             "for the sensitive data, assuming, as the user states (privacy."
             "evaluation_sensitivity), that one record of it changes an evaluation of the %s "
             "objective by at most %.6g under the neighbour relation meant%s",
             r->objective, r->sensitivity,
             config->objective == DPBO_OBJECTIVE_COMMAND
                 ? ", and that whether an evaluation fails does not depend on that data "
                   "(privacy.failures_public)"
                 : "");
  snprintf(release->guarantee, sizeof release->guarantee,
           "The whole trace (every lambda_t and its noisy value v_t), lambda_tilde and v_tilde "
           "are together (%.6g, %.6g)-DP %s. Each of at most K = %lld evaluations (%lld charged, "
           "lost ones included) was released through the discrete Gaussian mechanism (sigma = "
           "%.6g, grid %.3g added to the sensitivity) on the rank that evaluated it, before "
           "anything else saw it, and K adaptive such releases are (%.6g, %.6g)-DP by the "
           "%s (the zCDP bound of Canonne, Kamath and Steinke 2020 gives delta %.6g at this "
           "sigma, and would need sigma %.6g); everything else (the "
           "GP, the choice of each lambda_t, lambda_tilde by %s, v_tilde) is post-processing. "
           "The guarantee holds for any objective f: it rests on no GP assumption. Evaluation "
           "timings are not covered.",
           release->epsilon_total, release->delta_total, relation, (long long)r->max_evaluations,
           (long long)r->charged, r->sigma, r->granularity, release->epsilon_total, r->proven_delta,
           r->accountant, r->zcdp_delta, r->sigma_zcdp, dpbo_final_choice_names[r->final_choice]);
}

/* The note both release files carry. */
static const char alg_private_evals_note[] =
    "privacy.algorithm = private_evaluations: every evaluation was released through the discrete "
    "Gaussian mechanism; the run file's trace (lambda_t, noisy v_t) is publishable with this "
    "release, and this release is post-processing of it. The ledger charges the run's (epsilon, "
    "delta) once; dpbo release on this run redraws nothing and adds nothing. The "
    "continuous_gaussian_* numbers (Gaussian DP, Dong, Roth and Su) are for reference: the "
    "guarantee is the discrete Gaussian's.";

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
    .evals_layout = 1,
    .release_note = alg_private_evals_note,
    .check_overrides = alg_private_evals_check_overrides,
    .describe = alg_private_evals_describe,
};
