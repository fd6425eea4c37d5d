/* The stopping methods: the best of K runs of an ε0-DP base (a candidate
 * drawn uniformly from Λ and its gain + discrete Laplace noise), K secret
 * from the release noise source: Liu–Talwar's random stopping (K ~
 * Geometric(1/T)) and Papernot–Steinke's repeated search (K ~ truncated
 * negative binomial). Their two rows of the registry (run/algorithm.h):
 * the calibration of ε0, the draw of K and the release's description; the
 * runs are drawn and scored in run/selection.c. */
#include <math.h>
#include <stdio.h>

#include "run/algorithm.h"
#include "run/config.h"
#include "run/release.h"
#include "run/selection.h"
#include "core/baseline.h"
#include "core/profile.h"
#include "dpbo/mechanism.h"

static dpbo_status alg_stopping_account_lt(double epsilon, double delta, double split, int T,
                                           double ps_eta, dpbo_selection_accounting *out,
                                           dpbo_error *err) {
  (void)split, (void)ps_eta, (void)err;
  out->epsilon_base = dpbo_baseline_lt_base_epsilon(epsilon);
  out->epsilon_accounted = dpbo_baseline_lt_epsilon(out->epsilon_base);
  out->bound = DPBO_SELECTION_BOUND_PURE;
  out->gamma = 1.0 / T;
  out->eta = 1.0;
  out->expected_runs = T;
  /* The geometric stopping is D_{1,γ}: its privacy profile at δ allows a
   * larger ε0 than the pure (3 ε0, 0), which stays for T = 1 and δ = 0. */
  if (T >= 2 && delta > 0.0 &&
      dpbo_profile_tnb_base_epsilon(epsilon, delta, 1.0, out->gamma, &out->epsilon_base_profile,
                                    NULL) == DPBO_OK &&
      out->epsilon_base_profile > out->epsilon_base) {
    out->by_profile = 1;
    out->bound = DPBO_SELECTION_BOUND_PROFILE;
    out->epsilon_base = out->epsilon_base_profile;
    out->epsilon_accounted = dpbo_profile_tnb_epsilon(out->epsilon_base, 1.0, out->gamma, delta);
    out->delta_accounted = delta;
  }
  return DPBO_OK;
}

static dpbo_status alg_stopping_account_ps(double epsilon, double delta, double split, int T,
                                           double ps_eta, dpbo_selection_accounting *out,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  (void)split;
  if (T < 2)
    DPBO_RAISE(DPBO_ERR_CONFIG, "papernot_steinke needs run.iterations >= 2 (E[K] = T > 1)");
  out->eta = ps_eta;
  DPBO_TRY(dpbo_baseline_tnb_gamma(ps_eta, (double)T, &out->gamma, err));
  out->expected_runs = dpbo_baseline_tnb_mean(ps_eta, out->gamma);
  dpbo_baseline_ps_accounting ps;
  DPBO_TRY(dpbo_baseline_ps_account(epsilon, delta, ps_eta, out->gamma, &ps, err));
  out->epsilon_base = ps.epsilon0;
  out->epsilon_accounted = ps.epsilon_accounted;
  out->rdp_order = ps.lambda;
  out->rdp_order_hat = ps.lambda_hat;
  out->epsilon_base_rdp = ps.epsilon0_rdp;
  out->epsilon_base_profile = ps.epsilon0_profile;
  out->by_profile = ps.by_profile;
  out->bound = ps.accounted_by_profile ? DPBO_SELECTION_BOUND_PROFILE : DPBO_SELECTION_BOUND_RENYI;
  out->delta_accounted = delta;
done:
  return status;
}

/* Geometric(1/T) on {1, 2, ...}: the coins of the random stopping, all
 * drawn before any run (their law does not depend on the runs). */
static int64_t alg_stopping_draw_lt(dpbo_noise *noise, int T,
                                    const dpbo_selection_accounting *acc) {
  (void)acc;
  int64_t K = 1;
  while (!dpbo_mech_bernoulli(noise, 1, (uint64_t)T))
    K++;
  return K;
}

static int64_t alg_stopping_draw_ps(dpbo_noise *noise, int T,
                                    const dpbo_selection_accounting *acc) {
  (void)T;
  return dpbo_baseline_tnb_sample(noise, acc->eta, acc->gamma);
}

/* Liu–Talwar and Papernot–Steinke: a redraw needs a fresh secret K, and
 * the runs of Q it asks for may lie past those the run evaluated; a K
 * drawn again only among the runs made would be conditioned on what was
 * evaluated, a law the accounting does not cover. */
static dpbo_status alg_stopping_check_overrides(const dpbo_config *stored, int count,
                                                const char *const *overrides, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  (void)count, (void)overrides;
  DPBO_RAISE(DPBO_ERR_CONFIG,
             "privacy.algorithm = %s cannot be redrawn: a new release needs a fresh secret "
             "number of runs K, whose runs this run did not necessarily evaluate, and drawing K "
             "among the runs it made would condition K on the evaluations and void the "
             "guarantee; make a new run (dpbo run CONFIG --overwrite, or another output.name)",
             dpbo_algorithm_name(stored->algorithm));
done:
  return status;
}

static const char *alg_stopping_calibration(const dpbo_release *r) {
  return dpbo_selection_bound_name(r->selection_accounting.bound);
}

/* The law of K, as the guarantee states it. */
static void alg_stopping_law_lt(const dpbo_selection_accounting *a, char *law, size_t size) {
  snprintf(law, size, "Geometric(gamma = %.6g), E[K] = %.6g", a->gamma, a->expected_runs);
}

static void alg_stopping_law_ps(const dpbo_selection_accounting *a, char *law, size_t size) {
  snprintf(law, size, "truncated negative binomial (eta = %.6g, gamma = %.6g), E[K] = %.6g", a->eta,
           a->gamma, a->expected_runs);
}

static void alg_stopping_describe(dpbo_release *r, const char *law) {
  snprintf(r->guarantee, sizeof r->guarantee,
           "(lambda_tilde, value) is the best of K runs of an %.6g-DP base (a candidate drawn "
           "uniformly from Lambda independently of the data, and its validation gain + discrete "
           "Laplace noise), K ~ %s drawn secretly from the release noise source and never "
           "released; the pair is (%.6g, %.6g)-DP for the validation set (calibrated by the %s), "
           "for neighbouring validation sets that differ in one record, under which a gain at "
           "a fixed lambda moves by at most %.6g. It assumes nothing about the objective.",
           r->selection_accounting.epsilon_base, law, r->epsilon_total, r->delta_total,
           alg_stopping_calibration(r), r->gain_sensitivity);
}

static void alg_stopping_describe_lt(dpbo_release *r, const dpbo_config *config) {
  char law[160];
  (void)config;
  alg_stopping_law_lt(&r->selection_accounting, law, sizeof law);
  alg_stopping_describe(r, law);
}

static void alg_stopping_describe_ps(dpbo_release *r, const dpbo_config *config) {
  char law[160];
  (void)config;
  alg_stopping_law_ps(&r->selection_accounting, law, sizeof law);
  alg_stopping_describe(r, law);
}

const dpbo_algorithm_ops dpbo_alg_liu_talwar_ops = {
    .algorithm = DPBO_ALGORITHM_LIU_TALWAR,
    .name = "liu_talwar",
    .private_release = 1,
    .is_selection = 1,
    .stopping = 1,
    .releases_lambda = 1,
    .pure = 1,
    .delta_rule = "must lie in (0, 1)",
    .value_name = "value",
    .value_symbol = "value~",
    .lambda_mechanism = "random_stopping (best noisy score of K secret runs, Liu-Talwar)",
    .check_overrides = alg_stopping_check_overrides,
    .account = alg_stopping_account_lt,
    .draw_runs = alg_stopping_draw_lt,
    .calibration = alg_stopping_calibration,
    .describe = alg_stopping_describe_lt,
};

const dpbo_algorithm_ops dpbo_alg_papernot_steinke_ops = {
    .algorithm = DPBO_ALGORITHM_PAPERNOT_STEINKE,
    .name = "papernot_steinke",
    .private_release = 1,
    .is_selection = 1,
    .stopping = 1,
    .releases_lambda = 1,
    .delta_rule =
        "must lie in (0, 1): Papernot-Steinke's Renyi accounting converts to (epsilon, delta)",
    .value_name = "value",
    .value_symbol = "value~",
    .lambda_mechanism = "repeated_search (best noisy score of K secret runs, Papernot-Steinke)",
    .check_overrides = alg_stopping_check_overrides,
    .account = alg_stopping_account_ps,
    .draw_runs = alg_stopping_draw_ps,
    .calibration = alg_stopping_calibration,
    .describe = alg_stopping_describe_ps,
};
