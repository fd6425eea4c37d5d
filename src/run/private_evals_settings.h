/* The settings of `[privacy] algorithm = private_evaluations` (GP-UCB on
 * privatized evaluations, issue #13 item 1; docs/privacy-proofs.md section
 * "Privatized evaluations"): the keys, their checks and the calibration of
 * the Gaussian mechanism's σ, all fixed before any data is seen.
 *
 *   privacy.evaluation_sensitivity  Δ of one evaluation, units of v: proven
 *                                   for svm (1/m) and logreg (g* / m), where a
 *                                   given value may only be larger; required
 *                                   for synthetic and command objectives
 *   privacy.max_evaluations         K, the mechanisms the accounting covers
 *                                   (default: run.iterations, the run's
 *                                   planned evaluations; never fewer)
 *   privacy.final_choice            posterior_mean | best_observed
 *
 * σ = dpbo_accountant_gaussian_pld_sigma(K, Δ, ε, δ) with (ε, δ) the run's
 * privacy.epsilon and privacy.delta: K adaptive discrete Gaussian releases
 * of sensitivity Δ are then (ε, δ)-DP together by the discrete Gaussian's
 * privacy-loss distribution (the tight accountant; issue 22). The zCDP
 * bound's σ (dpbo_accountant_gaussian_sigma, the calibration before) is
 * computed too, reported beside it, and used instead should it ever be the
 * smaller (both bounds are valid; it never is on dpbo's lattices). The GP sees the noisy
 * values, so its noise variance is the configured gp.noise_std² plus σ²:
 * both are in units of v (the gain), the mechanism adding its noise to v
 * itself, so the two add as variances of independent noises. */
#ifndef DPBO_PRIVATE_EVALS_SETTINGS_H
#define DPBO_PRIVATE_EVALS_SETTINGS_H

#include <stdint.h>

#include "base/settings.h"
#include "dpbo/error.h"
#include "dpbo/privacy.h"

typedef enum {
  DPBO_FINAL_POSTERIOR_MEAN = 0, /* λ̃ = argmax μ_T, ṽ = μ_T(λ̃) */
  DPBO_FINAL_BEST_OBSERVED = 1   /* λ̃ = λ_t of the largest noisy v_t, ṽ = that v_t */
} dpbo_final_choice;

/* "posterior_mean", "best_observed", indexed by dpbo_final_choice. */
extern const char *const dpbo_final_choice_names[];

typedef struct dpbo_private_evals_settings {
  int active;              /* privacy.algorithm = private_evaluations */
  double sensitivity;      /* Δ, units of v */
  int sensitivity_proven;  /* 1: Δ is the objective's proven bound (svm, logreg) */
  int64_t max_evaluations; /* K */
  dpbo_final_choice final_choice;
  double sigma;             /* σ of the mechanism, units of v */
  double sigma_zcdp;        /* σ the zCDP bound would need (cross-check, reported) */
  int sigma_by_zcdp;        /* 1: σ is the zCDP bound's (smaller than the PLD's) */
  double gp_noise_std;      /* gp.noise_std as configured */
  double gp_noise_std_used; /* √(gp.noise_std² + σ²): the GP's noise */
} dpbo_private_evals_settings;

/* What the settings depend on, from the rest of the config. */
typedef struct dpbo_private_evals_inputs {
  int active;
  double proven_sensitivity; /* the objective's proven Δ (svm 1/m, logreg g* / m); 0: none */
  const char *objective;     /* its name, for messages */
  int64_t planned;           /* run.iterations: the planned evaluations */
  double epsilon, delta;     /* privacy.epsilon, privacy.delta */
  double gp_noise_std;       /* gp.noise_std */
} dpbo_private_evals_inputs;

/* σ for k adaptive releases of sensitivity Δ at the total (ε, δ) (the
 * smaller of dpbo_accountant_gaussian_pld_sigma and, as a fallback,
 * dpbo_accountant_gaussian_sigma) and the GP's noise √(gp_noise_std² + σ²)
 * that goes with it: what a private_evaluations run uses, and what `dpbo
 * compare` uses for its privatized GP-UCB runs. */
dpbo_status dpbo_private_evals_calibrate(int64_t k, double sensitivity, dpbo_privacy_cost total,
                                         double gp_noise_std, double *sigma,
                                         double *gp_noise_std_used, dpbo_error *err);

/* What k releases of sensitivity Δ with σ are proven to spend: δ at ε and
 * ε at δ by the PLD bound, or by the zCDP bound where that is smaller (both
 * hold; by_zcdp says which), and the zCDP bound's own numbers beside them.
 * The one accountant of private_evaluations' release and of dpbo compare's
 * privatized runs, matching dpbo_private_evals_calibrate. */
typedef struct dpbo_private_evals_bound {
  double delta, epsilon;           /* proven: δ at the ε given, ε at the δ given */
  double zcdp_delta, zcdp_epsilon; /* the zCDP bound's, for comparison */
  int by_zcdp;                     /* 1: the zCDP bound gave the proven numbers */
} dpbo_private_evals_bound;

dpbo_status dpbo_private_evals_account(int64_t k, double sensitivity, double sigma, double epsilon,
                                       double delta, dpbo_private_evals_bound *out,
                                       dpbo_error *err);

/* Reads the keys through their deferred rows of `rows` (run/config_keys.c:
 * type, range, default and choices; their targets lie in `options`, of
 * which `out` is the field they set), with the checks between them and the
 * rest of the config that no row can say, each named, then calibrates σ.
 * With in->active = 0 a given key is refused (it applies to this algorithm
 * only). A failure names the key (file:line or --set). */
dpbo_status dpbo_private_evals_settings_read(dpbo_settings *settings, const dpbo_settings_key *rows,
                                             void *options, const dpbo_private_evals_inputs *in,
                                             dpbo_private_evals_settings *out, dpbo_error *err);

#endif
