/* `dpbo compare`'s GP-UCB on privatized evaluations (issue #13 items 1 and
 * 4): the run `dpbo run` makes with privacy.algorithm = private_evaluations
 * (run/private_evals.h), here on compare's table, and its non-private twin
 * (issue #24).
 *
 * Per repetition and ε, one GP-UCB run of T steps (the run layer's step,
 * run/run.h, on MPI_COMM_SELF) in which every evaluation's gain is released
 * by dpbo_mech_gaussian with σ = dpbo_private_evals_calibrate(K = T, Δ = the
 * gain's sensitivity, ε, δ = privacy.delta) and the GP's noise is
 * √(gp.noise_std² + σ²). Both final-choice rules read that one run:
 *   private_evaluations_mean  λ̃ = argmax μ_T, released value μ_T(λ̃);
 *   private_evaluations_best  λ̃ = λ_t of the best noisy v_t, released v_t.
 * β_t takes δ = DPBO_PRIVACY_DELTA_BETA_DEFAULT, as `dpbo run` gives
 * private_evaluations (core/privacy.c), not privacy.delta. Step 1 is a
 * public start (compare draws it per repetition from run.seed's stream),
 * not UCB's tie-break on the empty GP. The non-private references gp_ucb
 * (best observation) and gp_ucb_mean (argmax μ_T) are the same run with the
 * same start on the exact gains (noise NULL: σ = 0, the GP's noise
 * gp.noise_std), so each pair differs only by the mechanism's noise. */
#ifndef DPBO_COMPARE_EVALS_H
#define DPBO_COMPARE_EVALS_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"
#include "run/config.h"
#include "run/run.h"
#include "run/selection.h"

/* What the privatized evaluations are calibrated for: K = T releases of a
 * gain of the given sensitivity (at a fixed λ) at total (ε, δ), on a GP
 * whose own noise is gp.noise_std. */
typedef struct dpbo_compare_evals_budget {
  int T;
  double sensitivity;
  double epsilon, delta;
  double gp_noise_std;
} dpbo_compare_evals_budget;

/* The calibration: σ of each evaluation's discrete Gaussian, and the noise
 * the GP then assumes, √(gp.noise_std² + σ²). */
typedef struct dpbo_compare_evals_noise {
  double sigma;
  double gp_noise_std_used;
} dpbo_compare_evals_noise;

/* The accounting of the privatized evaluations at the budget: the
 * calibration in *noise, and in *out epsilon_accounted = the discrete
 * Gaussian's proven ε at δ (dpbo_accountant_gaussian_epsilon, <= ε),
 * delta_accounted = δ. */
dpbo_status dpbo_compare_evals_account(const dpbo_compare_evals_budget *at,
                                       dpbo_selection_accounting *out,
                                       dpbo_compare_evals_noise *noise, dpbo_error *err);

/* argmax μ_T over Λ (ties to the lowest index; collective over comm) and
 * μ_T there (units of v): the posterior-mean rule of private_evals. */
dpbo_status dpbo_compare_evals_mean_choice(MPI_Comm comm, const dpbo_config *config,
                                           const dpbo_run *run, int64_t *index, double *value,
                                           dpbo_error *err);

/* What one privatized run releases under each rule. */
typedef struct dpbo_compare_evals_pick {
  int64_t mean_index, best_index;
  double mean_value, best_value; /* μ_T(λ̃); the best noisy v_t */
} dpbo_compare_evals_pick;

/* How a run's evaluations are released: each gain through the discrete
 * Gaussian of the calibration's σ (the gain's sensitivity), drawn from
 * `noise`, on a GP with the calibration's noise. */
typedef struct dpbo_compare_evals_privacy {
  dpbo_noise *noise;
  double sensitivity;
  dpbo_compare_evals_noise calibrated;
} dpbo_compare_evals_privacy;

/* One GP-UCB run of config->iterations steps on gain[] (the table's gains,
 * indexed by candidate), step 1 at candidate `start`: privatized as
 * `privacy` says; or, with privacy NULL, on the exact gains with the GP's
 * noise gp.noise_std (the non-private reference). */
dpbo_status dpbo_compare_evals_run(const dpbo_config *config, const double *gain,
                                   const dpbo_compare_evals_privacy *privacy, int64_t start,
                                   dpbo_compare_evals_pick *out, dpbo_error *err);

#endif
