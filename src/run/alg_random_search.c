/* Private random search (Chaudhuri & Vinterbo 2013): T candidates drawn
 * uniformly from Λ by the release noise source before any evaluation, λ̃ by
 * the exponential mechanism (or permute-and-flip) over their gains and the
 * value by the Laplace mechanism, composed by basic composition. Its row of
 * the registry (run/algorithm.h); the draws are in run/selection.c. */
#include <math.h>
#include <stdio.h>

#include "run/algorithm.h"
#include "run/config.h"
#include "run/release.h"
#include "run/selection.h"

static dpbo_status alg_random_search_account(double epsilon, double delta, double split, int T,
                                             double ps_eta, dpbo_selection_accounting *out,
                                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  (void)delta, (void)T, (void)ps_eta; /* pure: δ plays no part */
  if (!(split > 0.0 && split < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "random search: split must lie in (0, 1), got %g", split);
  /* The products dpbo_privacy_budget_split computes for λ̃ and ṽ, with
   * ε_val stepped down where ε − ε_sel rounded up, so that the two add up
   * to at most ε exactly. */
  out->epsilon_select = epsilon * split;
  out->epsilon_value = epsilon - out->epsilon_select;
  while (dpbo_privacy_sum_up(out->epsilon_select, out->epsilon_value) > epsilon)
    out->epsilon_value = nextafter(out->epsilon_value, 0.0);
  out->epsilon_accounted = dpbo_privacy_sum_up(out->epsilon_select, out->epsilon_value);
  out->bound = DPBO_SELECTION_BOUND_BASIC;
done:
  return status;
}

static const char *alg_random_search_calibration(const dpbo_release *r) {
  return dpbo_selection_bound_name(r->selection_accounting.bound);
}

static void alg_random_search_describe(dpbo_release *r, const dpbo_config *config) {
  (void)config;
  snprintf(r->guarantee, sizeof r->guarantee,
           "lambda_tilde (the %s mechanism over the validation gains of T = %d candidates drawn "
           "uniformly from the %lld of Lambda, independently of the data) is %.6g-DP and the "
           "released value (its gain + discrete Laplace noise) is %.6g-DP for the validation set "
           "(together (%.6g, 0)-DP by basic composition; Chaudhuri and Vinterbo 2013), for "
           "neighbouring validation sets that differ in one record, under which a gain at a "
           "fixed lambda moves by at most %.6g. It assumes nothing about the objective.",
           dpbo_select_kind_name(r->selection), r->T, (long long)r->n,
           r->selection_accounting.epsilon_select, r->selection_accounting.epsilon_value,
           r->epsilon_total, r->gain_sensitivity);
}

const dpbo_algorithm_ops dpbo_alg_random_search_ops = {
    .algorithm = DPBO_ALGORITHM_RANDOM_SEARCH,
    .name = "random_search",
    .private_release = 1,
    .is_selection = 1,
    .fixed_candidates = 1,
    .releases_lambda = 1,
    .pure = 1,
    .splits_budget = 1,
    .delta_rule = "must lie in (0, 1)",
    .value_name = "value",
    .value_symbol = "value~",
    .account = alg_random_search_account,
    .calibration = alg_random_search_calibration,
    .describe = alg_random_search_describe,
};
