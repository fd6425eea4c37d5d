/* The `synthetic` objective: test functions with known optima, maximized.
 *   branin:    gain = -branin(x1, x2) on x1 ∈ [-5, 10], x2 ∈ [0, 15] (the
 *              space's values are used as is); max -0.397887357729738.
 *   hartmann6: gain = +hartmann6(x) on [0,1]^6; max 3.32236801141551.
 *   gp_prior:  a function drawn from the GP prior m0 + s·g, g ~ GP(0, k2), on
 *              the space's unit coordinates, by random Fourier features
 *              (Rahimi & Recht 2007) with `features` cosines from PCG(seed)
 *              (stream 0x5e7, so every rank builds the same function).
 * noise_std > 0 adds N(0, noise_std²) to every gain from PCG stream 0x5e8,
 * re-seeded from (seed, evaluation number) when the driver announces an
 * evaluation (dpbo_objective_begin), so the noise of evaluation t does not
 * depend on which worker rank runs it. */
#ifndef DPBO_SYNTHETIC_H
#define DPBO_SYNTHETIC_H

#include <stdint.h>

#include "dpbo/kernel.h"
#include "objectives/objective.h"

typedef enum {
  DPBO_SYNTH_BRANIN = 0,
  DPBO_SYNTH_HARTMANN6 = 1,
  DPBO_SYNTH_GP_PRIOR = 2
} dpbo_synthetic_kind;

typedef struct dpbo_synthetic_options {
  dpbo_synthetic_kind kind;
  /* gp_prior only */
  const dpbo_space *space; /* to map values back to unit coordinates; NULL: the
                             values are unit coordinates already (d = kernel.d) */
  dpbo_kernel kernel;
  double mean, signal_std;
  double noise_std; /* Gaussian observation noise added to every gain (all kinds) */
  int features;
  uint64_t seed;
} dpbo_synthetic_options;

/* "branin", "hartmann6", "gp_prior", indexed by dpbo_synthetic_kind and
 * NULL-terminated: the one table of the functions' names. */
extern const char *const dpbo_synthetic_kind_names[];
dpbo_status dpbo_synthetic_kind_parse(const char *text, dpbo_synthetic_kind *kind, dpbo_error *err);

dpbo_status dpbo_synthetic_objective_create(const dpbo_synthetic_options *options,
                                            dpbo_objective *objective, dpbo_error *err);

/* The plain test functions, for tests and benchmarks. */
double dpbo_branin(const double *x);
double dpbo_hartmann6(const double *x);

#endif
