/* dpbo compare's GP-UCB on privatized evaluations (compare_evals.h). */
#include "experiments/compare_evals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/mechanism.h"
#include "dpbo/privacy.h"
#include "dpbo/ucb.h"
#include "run/private_evals_settings.h"
#include "run/private_gain.h"

dpbo_status dpbo_compare_evals_account(const dpbo_compare_evals_budget *at,
                                       dpbo_selection_accounting *out,
                                       dpbo_compare_evals_noise *noise, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  out->epsilon = at->epsilon;
  out->delta = at->delta;
  /* K = T: compare's run has no retries and loses no evaluation. */
  DPBO_TRY(dpbo_private_evals_calibrate(
      at->T, at->sensitivity, (dpbo_privacy_cost){at->epsilon, at->delta}, at->gp_noise_std,
      &noise->sigma, &noise->gp_noise_std_used, err));
  dpbo_private_evals_bound bound;
  DPBO_TRY(dpbo_private_evals_account(at->T, at->sensitivity, noise->sigma, at->epsilon, at->delta,
                                      &bound, err));
  out->epsilon_accounted = bound.epsilon;
  out->delta_accounted = at->delta;
done:
  return status;
}

dpbo_status dpbo_compare_evals_mean_choice(MPI_Comm comm, const dpbo_config *config,
                                           const dpbo_run *run, int64_t *index, double *value,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_ucb_choice choice = dpbo_ucb_local_best(run->ucb, 0.0);
  DPBO_TRY(dpbo_ucb_reduce(comm, &choice, err));
  if (choice.index < 0) DPBO_RAISE(DPBO_ERR_ARG, "no candidate is left for the final choice");
  *index = choice.index;
  *value = config->prior.mean + config->prior.signal_std * choice.score;
done:
  return status;
}

/* The table's gain (exact): the non-private reference's evaluation, and
 * the raw gain of the privatized run's (run/private_gain.h). */
static dpbo_status compare_evals_table_gain(void *context, int64_t index, double *gain,
                                            dpbo_error *err) {
  (void)err;
  *gain = ((const double *)context)[index];
  return DPBO_OK;
}

dpbo_status dpbo_compare_evals_run(const dpbo_config *config, const double *gain,
                                   const dpbo_compare_evals_privacy *privacy, int64_t start,
                                   dpbo_compare_evals_pick *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_config *copy = NULL;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  /* The config a private_evaluations run has after calibration (config.c):
   * its algorithm (β_t of GP-UCB, no pruning), the GP's noise, and β_t's δ:
   * the budget's δ_β of private_evaluations, DPBO_PRIVACY_DELTA_BETA_DEFAULT
   * (core/privacy.c: no privacy rests on the GP), not Algorithm 1's δ_v/3,
   * which moves with privacy.delta. So neither this run nor its
   * non-private twin depends on privacy.delta except through σ. */
  DPBO_ALLOC(copy, 1, "the privatized run's config");
  *copy = *config;
  copy->algorithm = DPBO_ALGORITHM_PRIVATE_EVALUATIONS;
  copy->prior.noise_std = privacy ? privacy->calibrated.gp_noise_std_used : config->prior.noise_std;
  copy->delta = DPBO_PRIVACY_DELTA_BETA_DEFAULT;
  /* The evaluation: the table's gain, through the Gaussian mechanism when
   * privacy is set (the privatized run), exact otherwise (the non-private
   * reference). A mechanism failure is kept in src and ends the comparison. */
  dpbo_private_gain src;
  dpbo_private_gain_init(&src, compare_evals_table_gain, (void *)gain,
                         privacy ? privacy->noise : NULL, privacy ? privacy->sensitivity : 0.0,
                         privacy ? privacy->calibrated.sigma : 0.0);
  const dpbo_run_evaluate_fn evaluate =
      privacy ? dpbo_private_gain_evaluate : compare_evals_table_gain;
  void *context = privacy ? (void *)&src : (void *)gain;
  DPBO_TRY(dpbo_run_create(MPI_COMM_SELF, copy, &run, err));
  if (start < 0 || start >= dpbo_space_size(run.space))
    DPBO_RAISE(DPBO_ERR_ARG, "the GP-UCB run's start %lld lies outside Λ", (long long)start);
  /* Step 1 at the public start instead of UCB's tie-break on the empty GP
   * (the lowest index): evaluated like every step, then taken up as a
   * one-step checkpoint (dpbo_run_resume), so steps 2..T are the run's own. */
  {
    dpbo_trace_step first;
    memset(&first, 0, sizeof first);
    first.index = start;
    first.beta = dpbo_privacy_beta(dpbo_space_size(run.space), 1, copy->delta);
    first.mean = copy->prior.mean;
    first.std = copy->prior.signal_std;
    first.ucb = first.mean + sqrt(first.beta) * first.std;
    first.state = DPBO_STEP_DONE;
    first.attempts = 1;
    DPBO_TRY(evaluate(context, start, &first.gain, err));
    if (src.code != DPBO_OK)
      DPBO_RAISE(src.code, "the Gaussian mechanism failed on a privatized evaluation: %s",
                 src.failure.message);
    DPBO_TRY(dpbo_run_resume(MPI_COMM_SELF, copy, &first, 1, &run, err));
  }
  for (int t = 1; t < copy->iterations; t++) {
    DPBO_TRY(dpbo_run_step(MPI_COMM_SELF, copy, evaluate, context, &run, err));
    if (src.code != DPBO_OK)
      DPBO_RAISE(src.code, "the Gaussian mechanism failed on a privatized evaluation: %s",
                 src.failure.message);
  }
  if (run.best_step < 0) DPBO_RAISE(DPBO_ERR_ARG, "the GP-UCB run observed nothing");
  out->best_index = run.trace[run.best_step].index;
  out->best_value = run.trace[run.best_step].gain;
  DPBO_TRY(dpbo_compare_evals_mean_choice(MPI_COMM_SELF, copy, &run, &out->mean_index,
                                          &out->mean_value, err));
done:
  dpbo_run_free(&run);
  free(copy);
  return status;
}
