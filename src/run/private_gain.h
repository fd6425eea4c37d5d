/* A gain through the discrete Gaussian mechanism, as an evaluation of
 * dpbo_run_step (run.h): the one adapter of guided's stage 1 (guided.c) and
 * dpbo compare's privatized GP-UCB (experiments/compare_evals.c). Each call
 * takes the raw gain from `gain` and releases it with
 * dpbo_mech_gaussian(noise, raw, sensitivity, sigma) (docs/privacy-proofs.md,
 * "Privatized evaluations"). A failure, of the gain or of the mechanism, is
 * kept in `code` and `failure` and the call returns DPBO_OK with gain 0:
 * run_step would take a failed status for a failed evaluation, and the
 * caller ends its release on a kept failure instead. */
#ifndef DPBO_PRIVATE_GAIN_H
#define DPBO_PRIVATE_GAIN_H

#include <stdint.h>

#include "dpbo/noise.h"
#include "run/run.h"

typedef struct dpbo_private_gain {
  dpbo_run_evaluate_fn gain; /* the raw gain */
  void *context;             /* its context */
  dpbo_noise *noise;         /* the secret noise source */
  double sensitivity, sigma;
  dpbo_status code; /* DPBO_OK until an evaluation fails */
  dpbo_error failure;
} dpbo_private_gain;

/* Sets up the adapter (code DPBO_OK, no failure). */
void dpbo_private_gain_init(dpbo_private_gain *pg, dpbo_run_evaluate_fn gain, void *context,
                            dpbo_noise *noise, double sensitivity, double sigma);

/* A dpbo_run_evaluate_fn; context: a dpbo_private_gain. */
dpbo_status dpbo_private_gain_evaluate(void *context, int64_t index, double *gain, dpbo_error *err);

#endif
