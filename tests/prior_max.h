/* The true maximum of a GP-prior test function, shared by the tests that
 * check a run against it (test_utility: Theorem 2; test_alg2: survival of
 * the maximizer under Algorithm 2's pruning).
 *
 * The objective of such a run is synthetic gp_prior with the config's
 * kernel, m0, s, feature count and seed; this evaluates the same function
 * noise-free (f itself, not an observation v) on every candidate of Λ (every
 * rank evaluates all of it; N is small in tests): f_max = f(λ*), arg = λ*. */
#ifndef DPBO_TEST_PRIOR_MAX_H
#define DPBO_TEST_PRIOR_MAX_H

#include <math.h>
#include <string.h>

#include "run/config.h"
#include "objectives/objective.h"
#include "dpbo/space.h"
#include "objectives/synthetic.h"

static inline dpbo_status test_prior_max(const dpbo_config *config, const dpbo_space *space,
                                         double *f_max, int64_t *arg, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_objective objective = {NULL, NULL};
  dpbo_synthetic_options options;
  memset(&options, 0, sizeof options);
  options.kind = DPBO_SYNTH_GP_PRIOR;
  options.space = space;
  options.kernel = config->kernel;
  options.mean = config->prior.mean;
  options.signal_std = config->prior.signal_std;
  options.noise_std = 0.0; /* f itself, not v */
  options.features = config->synthetic_features;
  options.seed = config->synthetic_seed;
  DPBO_TRY(dpbo_synthetic_objective_create(&options, &objective, err));
  const int d = dpbo_space_dims(space);
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    names[i] = dpbo_space_dim(space, i)->name;
  *f_max = -INFINITY;
  *arg = -1;
  for (int64_t k = 0; k < dpbo_space_size(space); k++) {
    double u[DPBO_MAX_DIM], x[DPBO_MAX_DIM], f;
    DPBO_TRY(dpbo_space_unit(space, k, u, err));
    dpbo_space_to_values(space, u, x);
    DPBO_TRY(dpbo_objective_evaluate(&objective, d, names, x, &f, err));
    if (f > *f_max) {
      *f_max = f;
      *arg = k;
    }
  }
done:
  dpbo_objective_destroy(&objective);
  return status;
}

#endif
