/* The settings of GP-UCB on privatized evaluations (private_evals_settings.h). */
#include "run/private_evals_settings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dpbo/accountant.h"

const char *const dpbo_final_choice_names[] = {"posterior_mean", "best_observed", NULL};

static const char *const private_evals_keys[] = {"evaluation_sensitivity", "max_evaluations",
                                                 "final_choice", NULL};

dpbo_status dpbo_private_evals_calibrate(int64_t k, double sensitivity, dpbo_privacy_cost total,
                                         double gp_noise_std, double *sigma,
                                         double *gp_noise_std_used, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double zcdp;
  /* The PLD bound is the tight one (docs/privacy-proofs.md, "The discrete
   * Gaussian's privacy-loss distribution"); the zCDP bound is valid too and
   * kept as a fallback, so σ is never above the calibration before. */
  DPBO_TRY(
      dpbo_accountant_gaussian_pld_sigma(k, sensitivity, total.epsilon, total.delta, sigma, err));
  DPBO_TRY(dpbo_accountant_gaussian_sigma(k, sensitivity, total.epsilon, total.delta, &zcdp, err));
  if (zcdp < *sigma) *sigma = zcdp;
  /* Both in units of v and independent: they add as variances. */
  *gp_noise_std_used = hypot(gp_noise_std, *sigma);
done:
  return status;
}

dpbo_status dpbo_private_evals_account(int64_t k, double sensitivity, double sigma, double epsilon,
                                       double delta, dpbo_private_evals_bound *out,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  DPBO_TRY(dpbo_accountant_gaussian_pld_delta(k, sensitivity, sigma, epsilon, &out->delta, err));
  DPBO_TRY(dpbo_accountant_gaussian_pld_epsilon(k, sensitivity, sigma, delta, &out->epsilon, err));
  DPBO_TRY(dpbo_accountant_gaussian_delta(k, sensitivity, sigma, epsilon, &out->zcdp_delta, err));
  DPBO_TRY(dpbo_accountant_gaussian_epsilon(k, sensitivity, sigma, delta, &out->zcdp_epsilon, err));
  /* Both bounds hold for the same mechanisms: the smaller one is proven. */
  if (out->zcdp_delta < out->delta || out->zcdp_epsilon < out->epsilon) {
    out->by_zcdp = 1;
    out->delta = fmin(out->delta, out->zcdp_delta);
    out->epsilon = fmin(out->epsilon, out->zcdp_epsilon);
  }
done:
  return status;
}

/* A key of this algorithm under another one would be silently ignored. */
static dpbo_status private_evals_check_inactive(dpbo_settings *settings, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int i = 0; private_evals_keys[i]; i++)
    if (dpbo_settings_find(settings, "privacy", private_evals_keys[i]))
      DPBO_TRY(dpbo_settings_require(settings, "privacy", private_evals_keys[i], 0,
                                     "applies only to privacy.algorithm = private_evaluations",
                                     err));
done:
  return status;
}

/* Δ: an accuracy or a mean loss over the m validation records has a
 * proven bound; any other objective's must be stated by the user, who
 * answers for it (docs/privacy-proofs.md). */
static dpbo_status private_evals_check_stated(dpbo_settings *settings,
                                              const dpbo_private_evals_inputs *in,
                                              dpbo_error *err) {
  char what[512];
  if (in->proven_sensitivity > 0 ||
      dpbo_settings_find(settings, "privacy", "evaluation_sensitivity"))
    return DPBO_OK;
  snprintf(what, sizeof what,
           "is required with privacy.algorithm = private_evaluations and objective.kind = %s: "
           "dpbo cannot bound how far one validation record moves this objective's value, so "
           "state that bound (units of the value; e.g. 1/m for an accuracy over m records)",
           in->objective);
  return dpbo_settings_require(settings, "privacy", "evaluation_sensitivity", 0, what, err);
}

/* A stated Δ below the proven one would understate the noise. */
static dpbo_status private_evals_check_proven(dpbo_settings *settings,
                                              const dpbo_private_evals_inputs *in,
                                              dpbo_private_evals_settings *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char what[512];
  if (!(in->proven_sensitivity > 0)) goto done;
  snprintf(what, sizeof what,
           "= %.10g is below the proven sensitivity %.10g of objective.kind = %s (one "
           "validation record moves the value by up to that much): a smaller value would "
           "understate the noise; leave the key unset",
           out->sensitivity, in->proven_sensitivity, in->objective);
  DPBO_TRY(dpbo_settings_require(settings, "privacy", "evaluation_sensitivity",
                                 out->sensitivity >= in->proven_sensitivity, what, err));
  out->sensitivity_proven = out->sensitivity == in->proven_sensitivity;
done:
  return status;
}

/* Every planned evaluation is one Gaussian mechanism: K covers them all. */
static dpbo_status private_evals_check_planned(dpbo_settings *settings,
                                               const dpbo_private_evals_inputs *in,
                                               const dpbo_private_evals_settings *out,
                                               dpbo_error *err) {
  char what[512];
  snprintf(what, sizeof what,
           "= %lld is fewer than the run's planned evaluations (run.iterations = %lld): every "
           "evaluation is one Gaussian mechanism and K must cover all of them (set K above T "
           "to leave room for evaluations a crash or a stop loses)",
           (long long)out->max_evaluations, (long long)in->planned);
  return dpbo_settings_require(settings, "privacy", "max_evaluations",
                               out->max_evaluations >= in->planned, what, err);
}

dpbo_status dpbo_private_evals_settings_read(dpbo_settings *settings, const dpbo_settings_key *rows,
                                             void *options, const dpbo_private_evals_inputs *in,
                                             dpbo_private_evals_settings *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  out->gp_noise_std = out->gp_noise_std_used = in->gp_noise_std;
  if (!in->active) {
    DPBO_TRY(private_evals_check_inactive(settings, err));
    goto done;
  }
  out->active = 1;
  DPBO_TRY(private_evals_check_stated(settings, in, err));
  DPBO_TRY(
      dpbo_settings_read_row(settings, rows, "privacy", "evaluation_sensitivity", options, err));
  DPBO_TRY(private_evals_check_proven(settings, in, out, err));
  DPBO_TRY(dpbo_settings_read_row(settings, rows, "privacy", "max_evaluations", options, err));
  DPBO_TRY(private_evals_check_planned(settings, in, out, err));
  DPBO_TRY(dpbo_settings_read_row(settings, rows, "privacy", "final_choice", options, err));
  /* σ for K adaptive releases at the total (ε, δ): fixed here, before any
   * data is seen, from public settings only. */
  if (dpbo_private_evals_calibrate(out->max_evaluations, out->sensitivity,
                                   (dpbo_privacy_cost){in->epsilon, in->delta}, in->gp_noise_std,
                                   &out->sigma, &out->gp_noise_std_used, err) != DPBO_OK) {
    /* Bad settings, whatever the accountant called them. */
    status = err->code = DPBO_ERR_CONFIG;
    dpbo_error_prefix(err,
                      "%s: privacy.algorithm = private_evaluations: cannot calibrate the Gaussian "
                      "mechanism to epsilon = %g, delta = %g for K = %lld evaluations of "
                      "sensitivity %g",
                      settings->path, in->epsilon, in->delta, (long long)out->max_evaluations,
                      out->sensitivity);
    goto done;
  }
  /* The zCDP bound's σ, for the log and the release (it cannot fail where
   * the calibration above succeeded: it is one of its two bounds). */
  DPBO_TRY(dpbo_accountant_gaussian_sigma(out->max_evaluations, out->sensitivity, in->epsilon,
                                          in->delta, &out->sigma_zcdp, err));
  out->sigma_by_zcdp = out->sigma == out->sigma_zcdp;
done:
  return status;
}
